package redact

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestDSN(t *testing.T) {
	for _, c := range []struct {
		in, want string
		secrets  []string // what must not survive, in DSN(in) or Scrub of any text
	}{
		{"postgres://app:S3cretPass@db:5432/loom?sslmode=disable", "postgres://app:xxxxx@db:5432/loom?sslmode=disable", []string{"S3cretPass"}},
		{"postgresql://app:p@ss@word@db/loom", "postgresql://app:xxxxx@db/loom", []string{"p@ss@word", "word"}},
		{"postgres://app:pa%40ss%2Fword@db/loom", "postgres://app:xxxxx@db/loom", []string{"pa%40ss%2Fword", "pa@ss/word"}},
		{"postgres://app@db/loom?password=Qu3ryPass&sslmode=require", "postgres://app@db/loom?password=xxxxx&sslmode=require", []string{"Qu3ryPass"}},
		{"postgres://db/loom?sslpassword=KeyPassw0rd&PassWord=UpperCase1", "postgres://db/loom?sslpassword=xxxxx&PassWord=xxxxx", []string{"KeyPassw0rd", "UpperCase1"}},
		{"postgres://db/loom?pass%77ord=Encod3dKey", "postgres://db/loom?pass%77ord=xxxxx", []string{"Encod3dKey"}},
		{"postgres://db/loom?password=with@at&application_name=x", "postgres://db/loom?password=xxxxx&application_name=x", []string{"with@at"}},
		{"POSTGRES://app:UpperScheme@db/x", "POSTGRES://app:xxxxx@db/x", []string{"UpperScheme"}},
		{"postgres://db:5432/loom", "postgres://db:5432/loom", nil},
		{"host=db user=app password=Pl4inValue dbname=loom", "host=db user=app password=xxxxx dbname=loom", []string{"Pl4inValue"}},
		{"host=db password = 'quoted value' dbname=loom", "host=db password = xxxxx dbname=loom", []string{"quoted value"}},
		{`host=db password='it\'s s3cret' dbname=loom`, "host=db password=xxxxx dbname=loom", []string{`it's s3cret`, `it\'s s3cret`}},
		{`host=db password=back\ slash dbname=loom`, "host=db password=xxxxx dbname=loom", []string{"back slash", `back\ slash`}},
		{"host=db password='unterminated secret", "host=db password=xxxxx", []string{"unterminated secret"}},
		{"host=db sslpassword=KeyS3cret", "host=db sslpassword=xxxxx", []string{"KeyS3cret"}},
		{"host=db user=app", "host=db user=app", nil},
	} {
		if got := DSN(c.in); got != c.want {
			t.Errorf("DSN(%q) = %q, want %q", c.in, got, c.want)
		}
		s := New(c.in)
		text := "connecting to " + c.in + " failed: host " + strings.Join(c.secrets, " and ") + " unknown"
		got := s.String(text)
		for _, sec := range c.secrets {
			if strings.Contains(DSN(c.in), sec) || strings.Contains(got, sec) {
				t.Errorf("Scrub(%q) = %q: %q survives", c.in, got, sec)
			}
		}
	}
}

// Reference: I-NET-7 — a first-'@' parse (libpq, pgx)
// reads "word@db" as the host of postgres://app:p@ss@word@db; the host name in a driver's
// message must not carry the password's tail.
func TestScrubTheStrandedTail(t *testing.T) {
	s := New("postgres://app:S3cret@Tail2@127.0.0.1:1/loom")
	msg := s.String(`failed to connect to host=Tail2@127.0.0.1: hostname resolving error`)
	if strings.Contains(msg, "Tail2") || strings.Contains(msg, "S3cret") {
		t.Fatalf("scrubbed message = %q, want no piece of the password", msg)
	}
}

func TestWalkAndWriter(t *testing.T) {
	type inner struct {
		Msg  string
		Raw  json.RawMessage
		Tags map[string]string
	}
	type report struct {
		Target string
		Items  []inner
		Ptr    *inner
		Any    any
	}
	s := New("host=db password=Walk3dSecret")
	r := &report{Target: "dsn host=db password=Walk3dSecret", Items: []inner{{Msg: "x Walk3dSecret", Raw: json.RawMessage(`{"e":"Walk3dSecret"}`), Tags: map[string]string{"k": "Walk3dSecret"}}},
		Ptr: &inner{Msg: "Walk3dSecret"}, Any: "Walk3dSecret"}
	s.Walk(r)
	b, _ := json.Marshal(r)
	if strings.Contains(string(b), "Walk3dSecret") {
		t.Fatalf("Walk left the password: %s", b)
	}
	var out strings.Builder
	if _, err := s.Writer(&out).Write([]byte("line with Walk3dSecret\n")); err != nil || strings.Contains(out.String(), "Walk3dSecret") {
		t.Fatalf("Writer wrote %q, %v", out.String(), err)
	}
	err := s.Error(errors.New("dial: Walk3dSecret"))
	if strings.Contains(err.Error(), "Walk3dSecret") {
		t.Fatalf("Error = %v", err)
	}
}

// Reference: I-NET-40 — a URL's userinfo is a secret: the password of user:password@, the whole
// of a bare user@ (a token as the user name), percent-encoded or not; a URL without userinfo, or
// with '@' only in its path or query, is left as it is.
func TestURL(t *testing.T) {
	for _, c := range []struct {
		in, want string
		secrets  []string
	}{
		{"http://user:Pr0xyPassw0rd@127.0.0.1:8080/", "http://user:xxxxx@127.0.0.1:8080/", []string{"Pr0xyPassw0rd"}},
		{"https://ghp_T0kenAsUser@proxy.example/", "https://xxxxx@proxy.example/", []string{"ghp_T0kenAsUser"}},
		{"http://user:Pa%2Fss%40w%3Ard@h:1/p", "http://user:xxxxx@h:1/p", []string{"Pa%2Fss%40w%3Ard", "Pa/ss@w:rd"}},
		{"http://user:raw/slash@pw@h:1/", "http://user:xxxxx@h:1/", []string{"raw/slash@pw", "slash"}},
		{"http://127.0.0.1:8080/path?mail=a@b.example", "http://127.0.0.1:8080/path?mail=a@b.example", nil},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8080/", nil},
		{"postgres://app:DsnPassw0rd@db/loom", "postgres://app:xxxxx@db/loom", []string{"DsnPassw0rd"}},
	} {
		if got := URL(c.in); got != c.want {
			t.Errorf("URL(%q) = %q, want %q", c.in, got, c.want)
		}
		s := New()
		s.AddURL(c.in)
		text := "Post " + c.in + ": dial: " + strings.Join(c.secrets, " ")
		got := s.String(text)
		for _, sec := range c.secrets {
			if strings.Contains(got, sec) {
				t.Errorf("AddURL(%q): %q survives in %q", c.in, sec, got)
			}
		}
		if len(c.secrets) == 0 && got != text {
			t.Errorf("AddURL(%q) changed %q to %q, want nothing hidden", c.in, text, got)
		}
	}
}

// Reference: I-NET-40 — a secret is scrubbed in every form an output can hold it: encoded for a
// URL, a JSON string, HTML and XML.
func TestEveryFormScrubbed(t *testing.T) {
	const sec = `Pa/ss&w<o>rd"+q'`
	s := New()
	s.AddSecret(sec)
	var b strings.Builder
	_ = json.NewEncoder(&b).Encode(map[string]string{"k": sec})
	text := strings.Join(Forms(sec), " | ") + " | " + b.String()
	got := s.String(text)
	for _, f := range append(Forms(sec), "Pa/ss", "w\\u003co\\u003erd") {
		if strings.Contains(got, f) {
			t.Errorf("form %q survives: %q", f, got)
		}
	}
}

// Reference: I-NET-40 — a command line given to the run (certify --exec) is searched for
// connection strings and URLs with secrets.
func TestAddText(t *testing.T) {
	s := New()
	if !s.AddText(`./bridge --dsn=postgres://u:ExecPassw0rd@db/x --upstream 'http://tok3nUser@h/' password=KvPassw0rd`) {
		t.Fatal("AddText found no secret")
	}
	if s.AddText("./bridge --port 0 --mail a@b.example") {
		t.Error("AddText found a secret in a command line without one")
	}
	got := s.String("ExecPassw0rd tok3nUser KvPassw0rd")
	if got != "xxxxx xxxxx xxxxx" {
		t.Errorf("scrubbed = %q, want every secret masked", got)
	}
}
