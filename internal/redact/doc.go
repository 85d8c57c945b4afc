// Package redact keeps database passwords out of everything the project prints: one redactor for
// the PostgreSQL connection strings libpq and pgx accept, used by every printer and report.
//
// DSN masks the password wherever a connection string can hold one: the userinfo of a URL
// (postgres://user:secret@host/db, also a password holding '@', where libpq and pgx cut at the
// first '@' and a careless redactor at the wrong one), a password or sslpassword query
// parameter, and a password keyword in the key=value form, quoted ('with spaces', \' escapes) or
// not. Secrets lists the password text as written and decoded, and the pieces a first-'@' parse
// would strand in a host name, so Scrub can remove them from any message a driver wrote; Walk
// scrubs every string of a report before it is written. Service files (PGSERVICEFILE) and
// PGPASSWORD are out of scope: they never reach a command line.
//
//	fmt.Println("target:", redact.DSN(dsn))
//	msg := redact.Scrub(err.Error(), dsn)
package redact
