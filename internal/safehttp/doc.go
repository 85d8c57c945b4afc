// Package safehttp is how every server of the project faces a network (DESIGN §7.2): serve-store,
// serve-kernel and the in-process bridges share it, so they refuse, time out and shed load alike.
//
// Two halves:
//
//   - Policy decides whether one request may be answered at all: a Content-Type the protocol
//     speaks (a page in a browser cannot send application/json cross-site without a preflight the
//     servers never grant), a Host that names this machine as an address (DNS rebinding gives an
//     attacker's name, never an IP literal or localhost), no foreign Origin, and the bearer token
//     when one is set. The protocol handlers call it first, wherever they are mounted.
//   - Serve runs an http.Server over a listener with read-header, body-progress, write-progress
//     and idle timeouts and a connection cap. At the cap the connection that has waited longest on
//     its client (no request yet, idle keep-alive, or a body not arriving) is closed to admit the
//     new one; only when every connection is busy for its client is the new one refused with a
//     503 that says why.
//
// Listen refuses to bind a non-loopback address without a token (CheckListen) and words the
// warning for one with a token; an IPv4 address is bound over IPv4 only.
//
// A Budget bounds the bytes a server holds for its clients, counted as they arrive (Budget.Body)
// or as an answer is built (Answers); a holder stalled on its client gives way to one that waits,
// and no client that sends or reads nothing holds anything another waits for. Answers bounds the
// large answers built (slots) and held while their clients read them (bytes).
//
//	ln, warn, err := safehttp.Listen(addr, token) // refused before binding beyond loopback
//	err = safehttp.Serve(ctx, ln, handler, safehttp.Limits{})
//
//	in := budget.Body(w, r, http.MaxBytesReader(w, r.Body, limit))
//	defer in.Release()
//	body, err := safehttp.ReadBody(in, r.ContentLength)
package safehttp
