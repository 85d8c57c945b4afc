package redact

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"html"
	"net/url"
	"strings"
	"text/template"
)

// urlUserinfo locates the userinfo of a URL that is not a connection string: from after "://"
// to the last '@' of the authority, which ends at the first '/', '?' or '#' (RFC 3986, as Go's
// HTTP client reads it). When the text is no URL Go can parse, the authority is read as a
// connection string's is (to the last '@' before any '#'), so a password holding a raw '/' is
// masked too. colon is the index of the first ':' in the userinfo, -1 for a bare user@.
func urlUserinfo(s string) (from, to, colon int, ok bool) {
	i := strings.Index(s, "://")
	if i <= 0 || strings.ContainsAny(s[:i], " /?#@") {
		return 0, 0, -1, false
	}
	from = i + 3
	rest := s[from:]
	end := len(rest)
	if _, err := url.Parse(s); err == nil {
		if k := strings.IndexAny(rest, "/?#"); k >= 0 {
			end = k
		}
	} else if k := strings.IndexByte(rest, '#'); k >= 0 {
		end = k
	}
	at := strings.LastIndexByte(rest[:end], '@')
	if at < 0 {
		return 0, 0, -1, false
	}
	colon = strings.IndexByte(rest[:at], ':')
	return from, from + at, colon, true
}

// URL returns u with the secret of its userinfo masked: the password of user:password@
// (http://user:xxxxx@host/) or the whole of a bare user@, which is how a token travels as a user
// name (http://xxxxx@host/). A connection string is masked as DSN does; other text is returned
// as it is.
func URL(u string) string {
	if isURL(u) {
		return DSN(u)
	}
	from, to, colon, ok := urlUserinfo(u)
	if !ok {
		return u
	}
	if colon >= 0 {
		return u[:from+colon+1] + Mask + u[to:]
	}
	return u[:from] + Mask + u[to:]
}

// URLSecrets lists the secret of a URL's userinfo (the password, or a bare user) as written and
// decoded, and the pieces a parser cutting at '@', '/', '?' or ':' would strand elsewhere, each at
// least 4 bytes long. A connection string's are Secrets'.
func URLSecrets(u string) []string {
	if isURL(u) {
		return Secrets(u)
	}
	from, to, colon, ok := urlUserinfo(u)
	if !ok {
		return nil
	}
	sec := u[from:to]
	if colon >= 0 {
		sec = sec[colon+1:]
	}
	raw := []string{sec}
	if d, err := url.PathUnescape(sec); err == nil && d != sec {
		raw = append(raw, d)
	}
	var out []string
	for _, r := range raw {
		out = append(out, r)
		out = append(out, strings.FieldsFunc(r, func(c rune) bool { return strings.ContainsRune("@/?:", c) })...)
	}
	var long []string
	for _, o := range out {
		if len(o) >= minSecret {
			long = append(long, o)
		}
	}
	return long
}

// Forms lists the ways a secret can appear in an output: as written, percent-encoded (as a query
// value, a path segment and a URL's userinfo encode it), as a JSON string holds it (with and
// without HTML escaping), and as HTML and XML escape it.
func Forms(sec string) []string {
	out := []string{sec, url.QueryEscape(sec), url.PathEscape(sec),
		strings.TrimPrefix(url.UserPassword("", sec).String(), ":"), url.User(sec).String(),
		html.EscapeString(sec), template.HTMLEscapeString(sec),
		strings.ReplaceAll(template.HTMLEscapeString(sec), "+", "&#43;")} // html/template's text escaper
	for _, escapeHTML := range []bool{true, false} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(escapeHTML)
		if enc.Encode(sec) == nil {
			out = append(out, strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(b.String()), `"`), `"`))
		}
	}
	var x bytes.Buffer
	if xml.EscapeText(&x, []byte(sec)) == nil {
		out = append(out, x.String())
	}
	seen := map[string]bool{}
	uniq := out[:0]
	for _, f := range out {
		if !seen[f] {
			seen[f] = true
			uniq = append(uniq, f)
		}
	}
	return uniq
}
