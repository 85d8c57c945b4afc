package starters

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/internal/testenv"
	"github.com/loom-kernel/loom-conform/kits"
)

// starter is one starter bridge: the interpreter that runs it and its file.
type starter struct {
	name, interpreter, install, file string
}

var all = []starter{
	{"python", "python3", "install Python 3 to certify the Python starter bridge", "python/loom_bridge.py"},
	{"node", "node", "install Node.js 20 or later to certify the Node.js starter bridge", "node/loom-bridge.js"},
}

// Each starter bridge, started as `certify --exec` starts it (no arguments: a free loopback port,
// the listening line first), is certified on every store seam (certify all) and as an
// ExecutionDispatcher, holding it to the recommendations too (--strict) and with no check
// skipped: it serves every method of every seam docs/bridge.md defines. Reference: docs/bridge.md
// (I-BRIDGE-1, I-BRIDGE-2), issue 38.
func TestStartersCertify(t *testing.T) {
	for _, s := range all {
		t.Run(s.name, func(t *testing.T) {
			interp := testenv.LookPath(t, s.interpreter, s.install)
			file, err := filepath.Abs(s.file)
			if err != nil {
				t.Fatal(err)
			}
			target := certify.ExecTarget{Command: interp + " " + file}
			for _, kinds := range [][]string{certify.Kinds(), {certify.KindDispatcher}} {
				rep, err := certify.Run(context.Background(), target, certify.Config{Kinds: kinds, Strict: true})
				if err != nil {
					t.Fatalf("certify %v --exec %q: %v", kinds, target.Command, err)
				}
				if !rep.Certified() {
					t.Errorf("certify %v --exec %q = %s (%s), want certified; problems %v, target error %q, logs:\n%s",
						kinds, target.Command, rep.Verdict, certify.Headline(rep), rep.Problems, rep.TargetError, rep.Logs)
				}
				for _, c := range rep.Checks {
					if c.Verdict != kits.Pass {
						t.Errorf("certify %v --exec %q: %s = %s (%s), want pass", kinds, target.Command, c.ID, c.Verdict, c.Message)
					}
				}
			}
		})
	}
}
