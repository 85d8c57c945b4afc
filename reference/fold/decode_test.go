package fold

import (
	"errors"
	"strings"
	"testing"
)

// Reference: spec §4 envelope shape, I-FOLD-1, I-FOLD-11 — DecodeLog reads arrays and NDJSON and
// names the envelope index and member of every defect.
func TestDecodeLogErrors(t *testing.T) {
	good := `{"id":"a","workflowId":"w","executionId":"x","eventType":"T","sequence":0,"timestamp":1,"payload":{"k":[1,{"z":"}"}]},"metadata":null,"extra":1}`
	for _, in := range []string{good, "[" + good + "]", " \n" + good + "\n\n", "[ " + good + " ]\n"} {
		es, err := DecodeLogBytes([]byte(in))
		if err != nil || len(es) != 1 || es[0].Sequence != 0 || string(es[0].Payload) != `{"k":[1,{"z":"}"}]}` || es[0].Metadata != nil {
			t.Errorf("fold/decode-errors [S4.envelope.shape]: DecodeLog(%q) = %+v, %v", in, es, err)
		}
	}
	for _, c := range []struct {
		in    string
		index int
		field string
	}{
		{`{"id":"a","workflowId":"w","executionId":"x","eventType":"T","sequence":0,"timestamp":1,"payload":{"k":nul}}`, 0, "payload"},
		{`{"id":"a","workflowId":"w","executionId":"x","eventType":"T","sequence":-1,"timestamp":1,"payload":{}}`, 0, "sequence"},
		{`{"id":"a","workflowId":"w","executionId":"x","eventType":"T","sequence":1.5,"timestamp":1,"payload":{}}`, 0, "sequence"},
		{`{"id":"a","workflowId":"w","executionId":"x","eventType":"T","sequence":99999999999999999999,"timestamp":1,"payload":{}}`, 0, "sequence"},
		{`{"id":"a","workflowId":"w","executionId":"x","eventType":5,"sequence":0,"timestamp":1,"payload":{}}`, 0, "eventType"},
		{`{"workflowId":"w","executionId":"x","eventType":"T","sequence":0,"timestamp":1,"payload":{}}`, 0, "id"},
		{good + "\n" + `{"id":"a","workflowId":"w","executionId":"x","eventType":"T","sequence":1,"timestamp":1.5,"payload":{}}`, 1, "timestamp"},
		{good + ` 7`, 1, ""},
		{`[` + good + `;]`, 1, ""},
	} {
		_, err := DecodeLogBytes([]byte(c.in))
		var ie *InputError
		if !errors.As(err, &ie) || ie.Index != c.index || ie.Field != c.field {
			t.Errorf("fold/decode-errors [I-FOLD-1]: DecodeLog(%.60q...) = %v, want InputError at envelope %d field %q", c.in, err, c.index, c.field)
		}
	}
	_, err := DecodeLog(strings.NewReader(`{"id":"`+strings.Repeat("x", 2000)+`"}`), DecodeOptions{MaxEnvelopeBytes: 1000})
	var ie *InputError
	if !errors.As(err, &ie) || ie.Field != "id" || !strings.Contains(ie.Msg, "larger than 1000") {
		t.Errorf("fold/decode-errors [I-FOLD-11]: DecodeLog(oversized) = %v, want an InputError on id", err)
	}
}
