// Package outfile is the one writer of every file a run is asked to write (reports, JUnit, HTML,
// badges, ledgers, matrices, vectors, goldens): each is written whole or not at all, and what is
// wrong with a path is said before the run, naming the flag.
//
// A file is written to a temporary file in the same folder and renamed over the path, so a reader
// (or a crash) sees the old file or the new one, never a torn one. Check runs before the work
// and refuses, naming the flags: two outputs that are one file (the same path, or the same device
// and inode after links are resolved); a path that is a symbolic link to a file, or to nothing (a
// link is neither followed nor replaced: the user names the file itself); a directory; a
// read-only file (with its mode); a directory that does not exist or cannot be written. A stream —
// a character device such as /dev/null, a named pipe, a socket, also through a link such as
// /dev/stdout or a shell's /dev/fd/N — is written in place, since it cannot be renamed; "-" is
// the run's stdout.
//
//	outs := []outfile.Output{{Flag: "--report", Path: path, Write: func(w io.Writer) error { return render(w, rep) }}}
//	if err := outfile.Check(outs, os.Stdout); err != nil { … exit 2 … }
//	… the run …
//	err := outfile.WriteAll(outs, stdout, scrub)
package outfile
