package safehttp

import (
	"crypto/subtle"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// TokenEnv is the environment variable servers and clients read the bearer token from when no
// --token flag gives one.
const TokenEnv = "LOOM_CONFORM_TOKEN"

// MinTokenLen is the shortest bearer token a server accepts to be configured with.
const MinTokenLen = 16

// Policy is what a request must satisfy before a protocol handler reads it.
type Policy struct {
	// Token, when set, must come as "Authorization: Bearer <token>" on every request.
	Token string
	// AllowedHosts are host names a request's Host may give besides IP literals, "localhost" and
	// names under ".localhost" (compared without case and port).
	AllowedHosts []string
	// ContentTypes are the media types the protocol speaks (default application/json). A charset
	// parameter, when present, must be utf-8.
	ContentTypes []string
}

// Refusal is why a request is not answered: the HTTP status and a sentence for its body.
type Refusal struct {
	Status int
	Reason string
}

// Check returns nil when r may be answered, or the refusal.
func (p Policy) Check(r *http.Request) *Refusal {
	if !p.hostAllowed(r.Host) {
		return &Refusal{http.StatusForbidden, fmt.Sprintf("Host %q is not an address of this server: send an IP address or localhost (a DNS name must be allowed with --allow-host)", r.Host)}
	}
	if o := r.Header.Get("Origin"); o != "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		if u, err := url.Parse(o); err != nil || u.Scheme != scheme || !strings.EqualFold(u.Host, r.Host) {
			return &Refusal{http.StatusForbidden, fmt.Sprintf("Origin %q is another site (this server is %s://%s): the server answers no cross-site request", o, scheme, r.Host)}
		}
	}
	// A browser labels every request it sends (Fetch Metadata): one from another page than this
	// server's own is refused even when it carries no Origin.
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return &Refusal{http.StatusForbidden, fmt.Sprintf("Sec-Fetch-Site %q: the request comes from another site's page, and the server answers no cross-site request", site)}
	}
	if p.Token != "" && !tokenMatches(r.Header.Get("Authorization"), p.Token) {
		return &Refusal{http.StatusUnauthorized, "this server needs its bearer token: send Authorization: Bearer <token> (certify --token, or " + TokenEnv + ")"}
	}
	ct := r.Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	want := p.ContentTypes
	if len(want) == 0 {
		want = []string{"application/json"}
	}
	ok := false
	for _, w := range want {
		ok = ok || (err == nil && mt == w)
	}
	if cs, has := params["charset"]; ok && has && !strings.EqualFold(cs, "utf-8") {
		return &Refusal{http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type %q: the protocol's text is UTF-8 (charset=utf-8 or none)", ct)}
	}
	if !ok {
		return &Refusal{http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type %q: want %s", ct, strings.Join(want, " or "))}
	}
	// The body is read as sent: one labelled with an encoding the server does not decode would be
	// read as what it is not.
	for _, enc := range r.Header.Values("Content-Encoding") {
		for _, e := range strings.Split(enc, ",") {
			if e = strings.TrimSpace(e); e != "" && !strings.EqualFold(e, "identity") {
				return &Refusal{http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Encoding %q: the server reads a body as sent and decodes no encoding; send it unencoded", enc)}
			}
		}
	}
	return nil
}

// Refuse writes the refusal as a plain-text answer.
func Refuse(w http.ResponseWriter, ref *Refusal) {
	if ref.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="loom-conform"`)
	}
	http.Error(w, ref.Reason, ref.Status)
}

func (p Policy) hostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(host, "]"), "["), ".")
	if host == "" {
		return false
	}
	if i := strings.IndexByte(host, '%'); i >= 0 { // an IPv6 zone
		host = host[:i]
	}
	lower := strings.ToLower(host)
	if net.ParseIP(host) != nil || lower == "localhost" || strings.HasSuffix(lower, ".localhost") {
		return true
	}
	for _, a := range p.AllowedHosts {
		if strings.EqualFold(strings.TrimSuffix(a, "."), host) {
			return true
		}
	}
	return false
}

func tokenMatches(header, token string) bool {
	scheme, got, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) == 1
}

// CheckToken refuses a token a server should not be configured with: shorter than MinTokenLen, or
// holding characters a bearer token cannot carry (RFC 6750: letters, digits, -._~+/ and
// trailing =).
func CheckToken(token string) error {
	if token == "" {
		return nil
	}
	if len(token) < MinTokenLen {
		return fmt.Errorf("the bearer token has %d characters; use at least %d (e.g. openssl rand -hex 16)", len(token), MinTokenLen)
	}
	for i := 0; i < len(token); i++ {
		c := token[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~+/=", c) >= 0) {
			return fmt.Errorf("the bearer token holds byte 0x%02x at %d; a token is letters, digits and -._~+/=", c, i)
		}
	}
	return nil
}

// CheckListen judges the address a server listens on: a loopback one needs nothing; any other
// needs a token (an error otherwise) and gets a warning to print.
func CheckListen(addr net.Addr, token string) (warning string, err error) {
	if err := CheckToken(token); err != nil {
		return "", err
	}
	if Loopback(addr) {
		return "", nil
	}
	if token == "" {
		return "", fmt.Errorf("%s is reachable from other machines: serving it needs a bearer token (--token or %s, at least %d characters); to stay on this machine, listen on 127.0.0.1", addr, TokenEnv, MinTokenLen)
	}
	return fmt.Sprintf("warning: serving on %s, reachable from other machines; every request must carry the bearer token. The traffic is plain HTTP: use it on a network you trust, or behind a TLS proxy.", addr), nil
}

// Loopback reports whether addr is a loopback address (127.0.0.0/8, ::1).
func Loopback(addr net.Addr) bool {
	if ta, ok := addr.(*net.TCPAddr); ok {
		return ta.IP.IsLoopback()
	}
	host := addr.String()
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Listen judges addr and binds it: an address beyond loopback without a token is refused before
// anything is bound (CheckListen), and the warning for one with a token is returned to print. An
// IPv4 address binds IPv4 only — 0.0.0.0:PORT is every IPv4 address of the machine, never its IPv6
// ones too — and an IPv6 one IPv6 only; :PORT (no host) binds both. A host name binds the first
// address it resolves to, judged as that address.
func Listen(addr, token string) (ln net.Listener, warning string, err error) {
	if err := CheckToken(token); err != nil {
		return nil, "", err
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, "", fmt.Errorf("%q is not HOST:PORT: %v", addr, err)
	}
	ta, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		return nil, "", err
	}
	network := "tcp"
	switch {
	case host == "":
	case ta.IP.To4() != nil:
		network = "tcp4"
	default:
		network = "tcp6"
	}
	if _, err := CheckListen(ta, token); err != nil {
		return nil, "", err
	}
	ln, err = net.Listen(network, ta.String())
	if err != nil {
		return nil, "", err
	}
	warning, _ = CheckListen(ln.Addr(), token)
	return ln, warning, nil
}
