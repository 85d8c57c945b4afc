package clients_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/wire/clients"
)

const (
	nonJSONFlow   = `{"format":"loom-flowscript/2","id":"nj","body":[{"op":"parallel","branches":[[{"op":"emit","eventType":"k.e","payload":{"x":{"$float":"NaN"}}}]]}]}`
	nonJSONDriver = `{"format":"loom-driver/1","actions":[{"do":"start"}]}`
)

// Reference: I-WIRE-22 — a version 2 script whose emit payload holds a number JSON cannot hold is
// named inexpressible over the wire (a JSON-RPC body cannot carry it), and kernel.py, which reads
// version 2 scripts, refuses it as outside the wire (exit 2) before calling the kernel.
func TestNonJSONPayloadOffTheWire(t *testing.T) {
	s, err := flowscript.Decode("nj/flow.json", []byte(nonJSONFlow))
	if err != nil {
		t.Fatal(err)
	}
	d, err := flowscript.DecodeDriver("nj/driver.json", []byte(nonJSONDriver))
	if err != nil {
		t.Fatal(err)
	}
	if why := clients.Inexpressible(s, d); !strings.Contains(why, "body[0].branches[0][0]") || !strings.Contains(why, "$float") {
		t.Errorf("wire/nonjson-off-wire [I-WIRE-22]: Inexpressible(nj) = %q, want body[0].branches[0][0] named with its $float payload", why)
	}
	need(t, "python3")
	dir := filepath.Join(t.TempDir(), "nj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"flow.json": nonJSONFlow, "driver.json": nonJSONDriver} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.Command("python3", filepath.Join(".", "kernel.py"), "http://127.0.0.1:1/", dir).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "I-WIRE-22") {
		t.Errorf("wire/nonjson-off-wire [I-WIRE-22]: kernel.py on a $float payload = %v %q, want exit 2 naming I-WIRE-22", err, out)
	}
}
