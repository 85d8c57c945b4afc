package spi

import "testing"

func TestSameJSON(t *testing.T) {
	same := [][2]string{
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1}`},
		{`1.50`, `1.5`}, {`15e-1`, `1.5`}, {`1E+2`, `100`}, {`-0.000001`, `-1e-6`}, {`0`, `0.0`}, {`-0`, `0`},
		{`"\u00e9"`, `"é"`}, {`"\/"`, `"/"`}, {`12345678901234567890123`, `1.2345678901234567890123e22`},
		{` {"a" : null} `, `{"a":null}`},
	}
	differ := [][2]string{
		{`9007199254740993`, `9007199254740992`}, {`{"a":1}`, `{"a":1,"b":2}`}, {`[1,2]`, `[2,1]`},
		{`"a"`, `"b"`}, {`1`, `"1"`}, {`null`, `{}`}, {`[]`, `{}`}, {`0.1`, `0.10000000000000001`},
	}
	for _, p := range same {
		if !SameJSON([]byte(p[0]), []byte(p[1])) {
			t.Errorf("SameJSON(%s, %s) = false, want true", p[0], p[1])
		}
	}
	for _, p := range differ {
		if SameJSON([]byte(p[0]), []byte(p[1])) {
			t.Errorf("SameJSON(%s, %s) = true, want false", p[0], p[1])
		}
	}
}

func TestHasAndClaims(t *testing.T) {
	if Has("EventStore", 42, MethodRead) {
		t.Error("Has(EventStore, 42, read) = true, want false")
	}
	if _, ok := ClaimedVersion("EventStore", 42); ok {
		t.Error("ClaimedVersion(EventStore, 42) ok, want no claim")
	}
}
