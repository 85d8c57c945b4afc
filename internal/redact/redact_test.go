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
