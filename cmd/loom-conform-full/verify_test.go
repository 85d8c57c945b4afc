package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Reference: spec §6 placement-compat, §5 suspension-safety — verify placement exits 1 naming the
// flow and target of an unregistered pin, 0 with a warning for a timed suspend without a
// TimerStore, 2 on a malformed file.
func TestVerifyPlacementExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"flows":[{"id":"a","computeTarget":"gpu"},{"id":"nap","timedSuspends":["sleep"]}]}`)
	bad := write("bad.json", `{"flows":[{"id":"a","computeTarget":"tpu"}]}`)
	junk := write("junk.json", `{"flows":[{"id":"a","target":"x"}]}`)
	cases := []struct {
		args        []string
		code        int
		out, errOut string
	}{
		{[]string{"verify", "placement", "--deployment", good, "--targets", "cpu,gpu"}, 0, "placement-compat: ok", "suspension-safety"},
		{[]string{"verify", "placement", "--deployment", bad, "--targets", "cpu,gpu"}, 1, "", `"tpu"`},
		{[]string{"verify", "placement", "--deployment", bad, "--targets", "cpu,gpu", "--json"}, 1, `"target": "tpu"`, "refused"},
		{[]string{"verify", "placement", "--deployment", junk}, 2, "", `unknown field "target"`},
		{[]string{"verify", "placement"}, 2, "", "--deployment is required"},
		{[]string{"verify", "placement", "--deployment", filepath.Join(dir, "none.json")}, 2, "", "none.json"},
	}
	for _, c := range cases {
		code, out, stderr := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(out, c.out) || !strings.Contains(stderr, c.errOut) {
			t.Errorf("loom-conform %v = exit %d, stdout %q, stderr %q; want exit %d, stdout ∋ %q, stderr ∋ %q", c.args, code, out, stderr, c.code, c.out, c.errOut)
		}
	}
}
