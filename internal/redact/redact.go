package redact

import (
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Mask replaces a password.
const Mask = "xxxxx"

// minSecret is the shortest password text Scrub looks for in free text: a shorter one would mask
// unrelated words (DSN still masks it in the connection string itself).
const minSecret = 4

// DSN returns the connection string with every password masked (URL or key=value form).
func DSN(dsn string) string {
	if isURL(dsn) {
		return redactURL(dsn)
	}
	return redactKV(dsn)
}

func isURL(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// userinfo locates the password of a URL's authority: from the first ':' to the last '@' (a
// password may hold '@', '/' or '?'; libpq and pgx end the userinfo at the first '@' and would
// read the rest as the host, so the mask reaches the last one to cover both readings). ok is false
// when there is none.
func userinfo(rest string) (from, to int, ok bool) {
	at := strings.LastIndexByte(rest, '@')
	if at < 0 {
		return 0, 0, false
	}
	c := strings.IndexByte(rest[:at], ':')
	if c < 0 {
		return 0, 0, false
	}
	return c + 1, at, true
}

func redactURL(s string) string {
	i := strings.Index(s, "://") + 3
	prefix, rest := s[:i], s[i:]
	if from, to, ok := userinfo(rest); ok {
		rest = rest[:from] + Mask + rest[to:]
	}
	if q := strings.IndexByte(rest, '?'); q >= 0 {
		pairs := strings.Split(rest[q+1:], "&")
		for k, pair := range pairs {
			if key, _, hasValue := strings.Cut(pair, "="); hasValue && passwordKey(key) {
				pairs[k] = key + "=" + Mask
			}
		}
		rest = rest[:q+1] + strings.Join(pairs, "&")
	}
	return prefix + rest
}

// passwordKey reports whether a (possibly percent-encoded) parameter names a password.
func passwordKey(key string) bool {
	if k, err := url.QueryUnescape(key); err == nil {
		key = k
	}
	key = strings.ToLower(strings.TrimSpace(key))
	return key == "password" || key == "sslpassword"
}

// kvPair is one keyword=value of the libpq key/value form: the value's span in the text and its
// unescaped text.
type kvPair struct {
	key        string
	start, end int // the value as written (quotes included)
	value      string
}

// parseKV reads the key/value form as libpq does: keywords, optional space around '=', values
// unquoted (to the next space) or in single quotes, backslash escaping the next character in both.
// ok is false when the text does not parse.
func parseKV(s string) (pairs []kvPair, ok bool) {
	space := func(i int) int {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f' || s[i] == '\v') {
			i++
		}
		return i
	}
	for i := space(0); i < len(s); i = space(i) {
		k := i
		for i < len(s) && s[i] != '=' && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' {
			i++
		}
		key := s[k:i]
		i = space(i)
		if i >= len(s) || s[i] != '=' || key == "" {
			return nil, false
		}
		i = space(i + 1)
		p := kvPair{key: key, start: i}
		var v strings.Builder
		if i < len(s) && s[i] == '\'' {
			i++
			closed := false
			for i < len(s) {
				if s[i] == '\\' && i+1 < len(s) {
					v.WriteByte(s[i+1])
					i += 2
					continue
				}
				if s[i] == '\'' {
					i++
					closed = true
					break
				}
				v.WriteByte(s[i])
				i++
			}
			if !closed {
				return nil, false
			}
		} else {
			for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				v.WriteByte(s[i])
				i++
			}
		}
		p.end, p.value = i, v.String()
		pairs = append(pairs, p)
	}
	return pairs, true
}

// looseKV finds a password in key/value text that does not parse: from the keyword to the end of
// a quoted value, or to the next space.
var looseKV = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)(ssl)?password\s*=\s*('(\\.|[^'\\])*'?|\S*)`) })

func redactKV(s string) string {
	pairs, ok := parseKV(s)
	if !ok {
		return looseKV().ReplaceAllStringFunc(s, func(m string) string {
			return m[:strings.IndexByte(m, '=')+1] + Mask
		})
	}
	var b strings.Builder
	prev := 0
	for _, p := range pairs {
		if passwordKey(p.key) {
			b.WriteString(s[prev:p.start])
			b.WriteString(Mask)
			prev = p.end
		}
	}
	b.WriteString(s[prev:])
	return b.String()
}

// Secrets lists the password text a connection string holds, as written and decoded, and the
// pieces of it a parser cutting at '@', '/', '?' or ':' would strand elsewhere (a host name in an
// error message), each at least 4 bytes long, longest first.
func Secrets(dsn string) []string {
	var raw []string
	if isURL(dsn) {
		rest := dsn[strings.Index(dsn, "://")+3:]
		if from, to, ok := userinfo(rest); ok {
			raw = append(raw, rest[from:to])
		}
		if q := strings.IndexByte(rest, '?'); q >= 0 {
			for _, pair := range strings.Split(rest[q+1:], "&") {
				if key, v, ok := strings.Cut(pair, "="); ok && passwordKey(key) {
					raw = append(raw, v)
				}
			}
		}
		for _, r := range raw {
			if d, err := url.PathUnescape(r); err == nil && d != r {
				raw = append(raw, d)
			}
		}
	} else if pairs, ok := parseKV(dsn); ok {
		for _, p := range pairs {
			if passwordKey(p.key) {
				raw = append(raw, p.value, strings.Trim(dsn[p.start:p.end], "'"))
			}
		}
	} else {
		for _, m := range looseKV().FindAllString(dsn, -1) {
			raw = append(raw, strings.Trim(strings.TrimSpace(m[strings.IndexByte(m, '=')+1:]), "'"))
		}
	}
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if len(s) >= minSecret && !seen[s] && s != Mask {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, r := range raw {
		add(r)
		for _, piece := range strings.FieldsFunc(r, func(c rune) bool { return strings.ContainsRune("@/?:", c) }) {
			add(piece)
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// Scrubber removes the passwords of a set of connection strings (and other secrets, such as
// bearer tokens) from text. It is safe for concurrent use; secrets may be added while it is in use.
type Scrubber struct {
	mu      sync.RWMutex
	dsns    []string // connection strings and URLs holding a secret, shown masked
	secrets []string // every form of every secret, longest first
}

// New returns a Scrubber for the given connection strings (empty ones are ignored).
func New(dsns ...string) *Scrubber {
	s := &Scrubber{}
	for _, d := range dsns {
		s.AddDSN(d)
	}
	return s
}

// AddDSN adds a connection string: the string itself and its passwords are scrubbed.
func (s *Scrubber) AddDSN(dsn string) {
	if s == nil || dsn == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if DSN(dsn) != dsn { // one without a password needs nothing hidden
		s.dsns = append(s.dsns, dsn)
	}
	s.add(Secrets(dsn)...)
}

// AddURL adds a URL the run was given (certify --url): the URL and the secrets of its userinfo
// are scrubbed. A PostgreSQL URL is a connection string (AddDSN).
func (s *Scrubber) AddURL(u string) {
	if s == nil || u == "" {
		return
	}
	if isURL(u) {
		s.AddDSN(u)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if URL(u) != u {
		s.dsns = append(s.dsns, u)
	}
	s.add(URLSecrets(u)...)
}

// AddText adds the secrets of free text the run was given, such as a command line (certify
// --exec): every word that is a connection string with a password or a URL with userinfo. It
// reports whether it found one.
func (s *Scrubber) AddText(text string) bool {
	found := false
	for _, w := range strings.Fields(text) {
		w = strings.Trim(w, `'"`)
		if _, v, ok := strings.Cut(w, "="); ok && !strings.Contains(w, "://") && looseKV().MatchString(w) {
			s.AddDSN(w)
			found = found || v != ""
			continue
		}
		if i := strings.Index(w, "://"); i >= 0 {
			u := w[strings.LastIndexAny(w[:i], "= ")+1:] // --dsn=postgres://… and the like
			if DSN(u) != u || URL(u) != u {
				s.AddURL(u)
				found = true
			}
		}
	}
	return found
}

// AddSecret adds a secret scrubbed as it is written (a bearer token); one shorter than 4 bytes is
// ignored.
func (s *Scrubber) AddSecret(secret string) {
	if s == nil || len(secret) < minSecret {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.add(secret)
}

func (s *Scrubber) add(secrets ...string) {
	seen := map[string]bool{}
	for _, sec := range s.secrets {
		seen[sec] = true
	}
	for _, sec := range secrets {
		for _, f := range Forms(sec) {
			if len(f) >= minSecret && !seen[f] && f != Mask {
				seen[f] = true
				s.secrets = append(s.secrets, f)
			}
		}
	}
	sort.SliceStable(s.secrets, func(i, j int) bool { return len(s.secrets[i]) > len(s.secrets[j]) })
}

// String masks every connection string, then every secret left, in text.
func (s *Scrubber) String(text string) string {
	if s == nil {
		return text
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, d := range s.dsns {
		text = strings.ReplaceAll(text, d, DSN(d))
	}
	for _, sec := range s.secrets {
		text = strings.ReplaceAll(text, sec, Mask)
	}
	return text
}

// Error returns err with its message scrubbed (nil for nil).
func (s *Scrubber) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := s.String(err.Error())
	if msg == err.Error() {
		return err
	}
	return scrubbed{msg: msg, err: err}
}

type scrubbed struct {
	msg string
	err error
}

func (e scrubbed) Error() string { return e.msg }
func (e scrubbed) Unwrap() error { return e.err }

// Writer returns a writer that scrubs each write before passing it on, with the secrets known at
// the time of the write (writers here write whole lines, so a password is never split across two
// writes). A nil Scrubber scrubs nothing; its methods are safe to call.
func (s *Scrubber) Writer(w io.Writer) io.Writer { return writer{s, w} }

type writer struct {
	s *Scrubber
	w io.Writer
}

func (w writer) Write(p []byte) (int, error) {
	if !w.s.holds(p) { // the common case: nothing to hide, nothing copied
		return w.w.Write(p)
	}
	if _, err := io.WriteString(w.w, w.s.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// holds reports whether p contains a connection string or a secret the scrubber hides.
func (s *Scrubber) holds(p []byte) bool {
	if s == nil {
		return false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, d := range s.dsns {
		if bytes.Contains(p, []byte(d)) {
			return true
		}
	}
	for _, sec := range s.secrets {
		if bytes.Contains(p, []byte(sec)) {
			return true
		}
	}
	return false
}

// Walk scrubs every string reachable from ptr (a pointer to a report): struct fields, slices,
// arrays, map values and json.RawMessage text, in place.
func (s *Scrubber) Walk(ptr any) {
	if s == nil {
		return
	}
	s.walk(reflect.ValueOf(ptr))
}

var rawMessage = reflect.TypeOf(json.RawMessage(nil))

func (s *Scrubber) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return
		}
		if v.Kind() == reflect.Interface {
			e := v.Elem()
			if e.Kind() == reflect.String && v.CanSet() {
				v.Set(reflect.ValueOf(s.String(e.String())).Convert(e.Type()))
				return
			}
		}
		s.walk(v.Elem())
	case reflect.String:
		if v.CanSet() {
			v.SetString(s.String(v.String()))
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				s.walk(v.Field(i))
			}
		}
	case reflect.Slice:
		if v.Type() == rawMessage {
			if v.CanSet() && !v.IsNil() {
				v.SetBytes([]byte(s.String(string(v.Bytes()))))
			}
			return
		}
		for i := 0; i < v.Len(); i++ {
			s.walk(v.Index(i))
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			s.walk(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			s.walk(e)
			v.SetMapIndex(k, e)
		}
	}
}

// Bytes returns text with every connection string and secret masked (text itself when it holds
// none). A nil Scrubber masks nothing.
func (s *Scrubber) Bytes(text []byte) []byte {
	if !s.holds(text) {
		return text
	}
	return []byte(s.String(string(text)))
}
