package starters

import (
	"context"
	"os"
	"path/filepath"
	"strings"
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

// docs/adapting.md walks from the Python starter to an EventStore on SQLite: its example class,
// put in place of the starter's EventStore as the page says, certifies the EventStore it declares.
// Reference: docs/adapting.md, "From a starter bridge to a store on a database".
func TestAdaptingExampleCertifies(t *testing.T) {
	python := testenv.LookPath(t, "python3", "install Python 3 to certify the docs/adapting.md example")
	doc, err := os.ReadFile("../docs/adapting.md")
	if err != nil {
		t.Fatal(err)
	}
	starter, err := os.ReadFile("python/loom_bridge.py")
	if err != nil {
		t.Fatal(err)
	}
	page := string(doc)
	i := strings.Index(page, "**4. Move one seam to the database.**")
	start := strings.Index(page[max(i, 0):], "```python\n")
	if i < 0 || start < 0 {
		t.Fatal("docs/adapting.md: no python example under \"4. Move one seam to the database\"")
	}
	example := page[i+start+len("```python\n"):]
	example = example[:strings.Index(example, "```\n")]
	src := string(starter)
	from, to := strings.Index(src, "class EventStore:"), strings.Index(src, "class SnapshotStore:")
	if from < 0 || to < from {
		t.Fatal("starters/python/loom_bridge.py: no class EventStore before class SnapshotStore")
	}
	src = strings.Replace(src[:from]+example+"\n\n"+src[to:], "import base64\n", "import base64\nimport contextlib\nimport sqlite3\n", 1)
	dir := t.TempDir()
	bridge := filepath.Join(dir, "bridge.py")
	if err := os.WriteFile(bridge, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	target := certify.ExecTarget{Command: python + " " + bridge, Env: []string{"LOOM_BRIDGE_DB=" + filepath.Join(dir, "loom.db")}}
	rep, err := certify.Run(context.Background(), target, certify.Config{Kinds: []string{"eventstore"}, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Certified() {
		t.Errorf("certify eventstore (docs/adapting.md's SQLite EventStore) = %s (%s), want certified; problems %v, target error %q, logs:\n%s",
			rep.Verdict, certify.Headline(rep), rep.Problems, rep.TargetError, rep.Logs)
	}
	for _, c := range rep.Checks {
		if c.Verdict == kits.Fail || c.Verdict == kits.Unknown {
			t.Errorf("docs/adapting.md example: %s = %s (%s)", c.ID, c.Verdict, c.Message)
		}
	}
}
