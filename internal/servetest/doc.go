// Package servetest starts the project's servers as child processes and presses on them the way
// slow and long-lived clients do, so tests and the load driver (bench/cmd/serveload) measure the
// binary a user runs: trickling uploads, open streams, slow readers, and a fresh client's call
// timed beside them.
//
//	s, err := servetest.Start(bin, "serve-store", "--backend", "memory")
//	defer s.Stop()
//	stop := servetest.TrickleUploads(ctx, s.Addr, 4, 16<<20, time.Second)
//	took, answer, err := servetest.Call(s.URL, `{"jsonrpc":"2.0","id":1,"method":"bridge.handshake"}`, 20*time.Second)
package servetest
