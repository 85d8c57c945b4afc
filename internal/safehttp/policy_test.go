package safehttp

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestPolicy(t *testing.T) {
	const tok = "0123456789abcdef0123"
	for _, c := range []struct {
		name   string
		p      Policy
		host   string
		hdr    map[string]string
		status int // 0 = answered
	}{
		{"loopback IP", Policy{}, "127.0.0.1:7450", nil, 0},
		{"IPv6 loopback", Policy{}, "[::1]:7450", nil, 0},
		{"localhost", Policy{}, "localhost:7450", nil, 0},
		{"a .localhost name", Policy{}, "bridge.localhost:7450", nil, 0},
		{"a LAN IP", Policy{}, "192.168.1.5:7450", nil, 0},
		{"charset utf-8", Policy{}, "127.0.0.1", map[string]string{"Content-Type": "application/json; charset=UTF-8"}, 0},
		{"DNS rebinding", Policy{}, "evil.example:7450", nil, http.StatusForbidden},
		{"localhost look-alike", Policy{}, "localhost.evil.example:7450", nil, http.StatusForbidden},
		{"no Host", Policy{}, "", nil, http.StatusForbidden},
		{"an allowed name", Policy{AllowedHosts: []string{"ci-box.internal"}}, "CI-BOX.internal:7450", nil, 0},
		{"text/plain (a form post)", Policy{}, "127.0.0.1", map[string]string{"Content-Type": "text/plain"}, http.StatusUnsupportedMediaType},
		{"no Content-Type", Policy{}, "127.0.0.1", map[string]string{"Content-Type": ""}, http.StatusUnsupportedMediaType},
		{"another charset", Policy{}, "127.0.0.1", map[string]string{"Content-Type": "application/json; charset=latin1"}, http.StatusUnsupportedMediaType},
		{"ndjson where json only", Policy{}, "127.0.0.1", map[string]string{"Content-Type": "application/x-ndjson"}, http.StatusUnsupportedMediaType},
		{"ndjson allowed", Policy{ContentTypes: []string{"application/json", "application/x-ndjson"}}, "127.0.0.1", map[string]string{"Content-Type": "application/x-ndjson"}, 0},
		{"a foreign Origin", Policy{}, "127.0.0.1:7450", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"a null Origin", Policy{}, "127.0.0.1:7450", map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"its own Origin", Policy{}, "127.0.0.1:7450", map[string]string{"Origin": "http://127.0.0.1:7450"}, 0},
		{"its host under another scheme", Policy{}, "127.0.0.1:7450", map[string]string{"Origin": "https://127.0.0.1:7450"}, http.StatusForbidden},
		{"cross-site, no Origin", Policy{}, "127.0.0.1:7450", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"same-site, no Origin", Policy{}, "127.0.0.1:7450", map[string]string{"Sec-Fetch-Site": "same-site"}, http.StatusForbidden},
		{"same-origin", Policy{}, "127.0.0.1:7450", map[string]string{"Sec-Fetch-Site": "same-origin"}, 0},
		{"user-initiated (none)", Policy{}, "127.0.0.1:7450", map[string]string{"Sec-Fetch-Site": "none"}, 0},
		{"a gzip body", Policy{}, "127.0.0.1", map[string]string{"Content-Encoding": "gzip"}, http.StatusUnsupportedMediaType},
		{"an encoding after identity", Policy{}, "127.0.0.1", map[string]string{"Content-Encoding": "identity, br"}, http.StatusUnsupportedMediaType},
		{"identity", Policy{}, "127.0.0.1", map[string]string{"Content-Encoding": "identity"}, 0},
		{"the token", Policy{Token: tok}, "127.0.0.1", map[string]string{"Authorization": "Bearer " + tok}, 0},
		{"the token, scheme in lower case", Policy{Token: tok}, "127.0.0.1", map[string]string{"Authorization": "bearer " + tok}, 0},
		{"no token", Policy{Token: tok}, "127.0.0.1", nil, http.StatusUnauthorized},
		{"a wrong token", Policy{Token: tok}, "127.0.0.1", map[string]string{"Authorization": "Bearer " + strings.ToUpper(tok)}, http.StatusUnauthorized},
		{"basic auth", Policy{Token: tok}, "127.0.0.1", map[string]string{"Authorization": "Basic " + tok}, http.StatusUnauthorized},
	} {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
		r.Host = c.host
		r.Header.Set("Content-Type", "application/json")
		for k, v := range c.hdr {
			r.Header.Set(k, v)
		}
		ref := c.p.Check(r)
		switch {
		case c.status == 0 && ref != nil:
			t.Errorf("%s: Check = %d %s, want answered", c.name, ref.Status, ref.Reason)
		case c.status != 0 && (ref == nil || ref.Status != c.status):
			t.Errorf("%s: Check = %+v, want status %d", c.name, ref, c.status)
		}
	}
}

// Reference: I-NET-2 — Listen refuses an address beyond loopback without a token before it binds
// anything, and binds an IPv4 address over IPv4 only (0.0.0.0 is not also [::]).
func TestListen(t *testing.T) {
	const tok = "0123456789abcdef"
	// A port held by another listener: a Listen that tried to bind would fail with "address in
	// use" rather than the refusal.
	held, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	_, port, _ := net.SplitHostPort(held.Addr().String())
	if _, _, err := Listen("0.0.0.0:"+port, ""); err == nil || !strings.Contains(err.Error(), TokenEnv) {
		t.Errorf("Listen(0.0.0.0:%s, no token) = %v, want the token refusal before binding", port, err)
	}
	if _, _, err := Listen("nonsense", ""); err == nil || !strings.Contains(err.Error(), "HOST:PORT") {
		t.Errorf("Listen(nonsense) = %v, want an error naming HOST:PORT", err)
	}
	ln, warn, err := Listen("0.0.0.0:0", tok)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if !strings.HasPrefix(warn, "warning:") {
		t.Errorf("Listen(0.0.0.0, token) warning %q, want one", warn)
	}
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	if c, err := net.Dial("tcp6", "[::1]:"+port); err == nil {
		c.Close()
		t.Errorf("Listen(0.0.0.0:0) answers on [::1]:%s: it bound IPv6 too", port)
	}
	if c, err := net.Dial("tcp4", "127.0.0.1:"+port); err != nil {
		t.Errorf("Listen(0.0.0.0:0) does not answer on 127.0.0.1:%s: %v", port, err)
	} else {
		c.Close()
	}
	lo, warn, err := Listen("127.0.0.1:0", "")
	if err != nil || warn != "" {
		t.Fatalf("Listen(127.0.0.1:0) = %q, %v; want it bound quietly", warn, err)
	}
	lo.Close()
}

func TestCheckListen(t *testing.T) {
	tcp := func(s string) net.Addr { a, _ := net.ResolveTCPAddr("tcp", s); return a }
	const tok = "0123456789abcdef"
	if w, err := CheckListen(tcp("127.0.0.1:7450"), ""); w != "" || err != nil {
		t.Errorf("CheckListen(127.0.0.1) = %q, %v; want nothing to say", w, err)
	}
	if w, err := CheckListen(tcp("[::1]:7450"), ""); w != "" || err != nil {
		t.Errorf("CheckListen(::1) = %q, %v; want nothing to say", w, err)
	}
	for _, a := range []string{"0.0.0.0:7450", "[::]:7450", "192.168.1.5:7450"} {
		if _, err := CheckListen(tcp(a), ""); err == nil || !strings.Contains(err.Error(), TokenEnv) {
			t.Errorf("CheckListen(%s, no token) = %v, want an error naming %s", a, err, TokenEnv)
		}
		if w, err := CheckListen(tcp(a), tok); err != nil || !strings.HasPrefix(w, "warning:") {
			t.Errorf("CheckListen(%s, token) = %q, %v; want a warning", a, w, err)
		}
	}
	for _, bad := range []string{"short", "0123456789abcdef\n", "0123456789 abcdef"} {
		if _, err := CheckListen(tcp("127.0.0.1:1"), bad); err == nil {
			t.Errorf("CheckListen(token %q) = nil, want the token refused", bad)
		}
	}
}
