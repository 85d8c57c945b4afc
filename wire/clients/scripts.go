package clients

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
)

//go:embed scripts/*/flow.json scripts/*/driver.json
var scriptsFS embed.FS

// Case is one flow script with its driver: what a client drives over the wire.
type Case struct {
	// Name is the directory name (a golden's name, or a wire script's under scripts/).
	Name   string
	Script *flowscript.Script
	Driver *flowscript.Driver
}

// Scripts returns the wire's own flow scripts (scripts/*/flow.json + driver.json, in the golden
// corpus's format): the few the golden corpus does not cover (the rings, a failing flow), sorted
// by name.
func Scripts() ([]Case, error) { return LoadFS(scriptsFS, "scripts") }

// ScriptsFS returns the wire's own flow scripts as files (scripts/<name>/{flow,driver}.json).
func ScriptsFS() fs.FS { return scriptsFS }

// LoadFS reads every <root>/<name>/flow.json and driver.json of fsys, sorted by name.
func LoadFS(fsys fs.FS, root string) ([]Case, error) {
	ents, err := fs.ReadDir(fsys, root)
	if err != nil {
		return nil, err
	}
	var out []Case
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		c, err := loadCase(fsys, path.Join(root, e.Name()))
		if err != nil {
			return nil, err
		}
		c.Name = e.Name()
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func loadCase(fsys fs.FS, dir string) (Case, error) {
	fp, dp := path.Join(dir, "flow.json"), path.Join(dir, "driver.json")
	fb, err := fs.ReadFile(fsys, fp)
	if err != nil {
		return Case{}, err
	}
	s, err := flowscript.Decode(fp, fb)
	if err != nil {
		return Case{}, err
	}
	db, err := fs.ReadFile(fsys, dp)
	if err != nil {
		return Case{}, err
	}
	d, err := flowscript.DecodeDriver(dp, db)
	if err != nil {
		return Case{}, err
	}
	return Case{Script: s, Driver: d}, nil
}

// Wire-drivable driver actions: start, then one resume per park (execution.resume with attach).
var wireActions = []string{"start", "resume"}

// Inexpressible says why the wire kernel ABI, served with the conformance profile, cannot run a
// script and driver the way the in-process interpreter does ("" = it can). The reasons are the
// first that applies, in a fixed order: the driver's runtime configuration (its virtual clock is
// not one: timestamps are a kernel's own, masked when runs are compared), its actions, the
// script's feature flags, then the first statement the wire has no arguments for.
func Inexpressible(s *flowscript.Script, d *flowscript.Driver) string {
	switch {
	case d.Profile != "":
		return fmt.Sprintf("driver: profile %s: a wire kernel writes the current event schema", d.Profile)
	case d.Budget != nil:
		return "driver: a budget: a wire kernel is served with the conformance profile's budget"
	case d.Timers:
		return "driver: timers: the conformance profile wires no timer store and the wire has no method to fire timers"
	case d.Snapshots:
		return "driver: snapshots: the wire has no snapshot method"
	}
	if len(d.Actions) == 0 || d.Actions[0].Do != "start" {
		return "driver: the first action is not start"
	}
	for i, a := range d.Actions {
		if !slices.Contains(wireActions, a.Do) || (i > 0 && a.Do == "start") {
			return fmt.Sprintf("driver: actions[%d] %q: a wire client drives start and resumes only", i, a.Do)
		}
	}
	if len(s.Features) > 0 {
		return fmt.Sprintf("script: features %v: the conformance profile enables no Wave 2 feature", s.Features)
	}
	return inexpressibleBody("body", s.Body)
}

func inexpressibleBody(p string, body []flowscript.Stmt) string {
	for i, st := range body {
		at := fmt.Sprintf("%s[%d]", p, i)
		switch st.Op {
		case "execute":
			switch {
			case st.TimeoutMs > 0:
				return at + ": execute timeoutMs: the wire's task takes id, kind and toolId only"
			case st.AtMostOnce:
				return at + ": execute atMostOnce: the wire's task takes id, kind and toolId only"
			case len(st.Errors) > 0:
				return at + ": execute errors: the wire's task takes id, kind and toolId only"
			case st.Tool == "counter":
				return at + ": the counter fake counts per runtime: on a shared kernel its answers depend on earlier runs"
			case st.Tool == "slow":
				return at + ": the slow fake waits on the wall clock"
			}
		case "decide":
			if st.Fails || st.Context != nil || st.Policy != nil {
				return at + ": decide fails/context/policy: the wire's decide takes id and choice only"
			}
		case "sleep", "sleepUntil":
			return at + ": " + st.Op + ": the conformance profile wires no timer store"
		case "parallel":
			for j, b := range st.Branches {
				if why := inexpressibleBody(fmt.Sprintf("%s.branches[%d]", at, j), b); why != "" {
					return why
				}
			}
		}
	}
	return ""
}
