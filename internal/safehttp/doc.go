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
// CheckListen refuses to serve a non-loopback address without a token and words the warning for
// one with a token. Budget bounds the request bytes a handler holds at once.
//
//	if warn, err := safehttp.CheckListen(addr, token); err != nil { … } else if warn != "" { log(warn) }
//	err := safehttp.Serve(ctx, ln, handler, safehttp.Limits{})
package safehttp
