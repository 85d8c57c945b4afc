package svgbadge

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteParseRoundTrip(t *testing.T) {
	want := Badge{Label: "loom eventstore SPI 2.6.0", Message: "certified <&>", Color: "#4c1", Digest: "sha256:ab12"}
	var buf bytes.Buffer
	if err := Write(&buf, want); err != nil {
		t.Fatal(err)
	}
	got, err := Parse(buf.Bytes())
	if err != nil || got != want {
		t.Fatalf("Parse(Write(%+v)) = %+v, %v", want, got, err)
	}
	edited := strings.Replace(buf.String(), "<text x=\"", "<text x=\"", 1)
	edited = strings.Replace(edited, ">certified &lt;&amp;&gt;</text>", ">not certified</text>", 1)
	if _, err := Parse([]byte(edited)); err == nil {
		t.Error("Parse(a badge whose drawn message was edited) = nil error, want the title disagreement")
	}
	if _, err := Parse([]byte("<html/>")); err == nil {
		t.Error("Parse(not an SVG) = nil error")
	}
}
