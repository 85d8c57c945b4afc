package clients

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/manifest"
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

// WireActions are the driver actions a wire client sends after start (docs/wire.md, "Driving a
// flow script"): a resume (execution.resume with attach), a cancel (execution.cancel) and a
// resumeAs (execution.resumeAs with attach, its transform run by the client, I-WIRE-15), and
// fireTimers: the client holds the driver's virtual clock, so a park on the timer gate whose
// recorded wakeAt is due is resumed with TIMER_FIRED {wakeAt} (I-WIRE-18); deliver
// (execution.deliver with attach) and drive (execution.attach to the execution continueAsNew
// started, re-driven with its input), which need the script's Wave 2 features (I-WIRE-21).
var WireActions = []string{"resume", "cancel", "resumeAs", "fireTimers", "deliver", "drive"}

// Features returns the Wave 2 features a case needs: its script's and every resumeAs target's,
// sorted. A kernel drives the case only when its handshake advertises each of them (I-WIRE-21).
func Features(s *flowscript.Script, d *flowscript.Driver) []string {
	out := slices.Clone(s.Features)
	for _, a := range d.Actions {
		if a.Script != nil {
			out = append(out, a.Script.Features...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Inexpressible says why the wire kernel ABI, served with the conformance profile, cannot run a
// script and driver the way the in-process interpreter does ("" = it can). The reasons are the
// first that applies, in a fixed order: the driver's runtime configuration (its virtual clock is
// not one: timestamps are a kernel's own, masked when runs are compared; its budget is
// execution.start's, I-WIRE-17), its actions, then the first statement the wire has no arguments
// for (I-WIRE-19 gives the reasons). A script's Wave 2 features are not a reason: a kernel whose
// handshake advertises them drives it (Features, I-WIRE-21).
func Inexpressible(s *flowscript.Script, d *flowscript.Driver) string {
	switch {
	case d.Profile != "":
		return fmt.Sprintf("driver: profile %s: a kernel writes one event schema, the handshake's eventSchema %s; the wire has no per-execution profile (ADR 0026: the on-disk schema is unchanged by the wire)", d.Profile, manifest.EventSchemaVersion)
	case d.Snapshots:
		return "driver: snapshots: a snapshot is the kernel's storage, invisible on the wire by design (getState folds the same state either way); a snapshot action would show a wire client nothing"
	}
	for i, a := range d.Actions {
		if i == 0 && a.Do == "start" {
			continue
		}
		if a.Do == "crash" {
			return fmt.Sprintf("driver: actions[%d] crash at append %d: a fault inside the kernel's process (its store fails mid-run); a wire client sees the kernel, not its store, and the wire carries no fault injection", i, a.At)
		}
		if i == 0 {
			return "driver: the first action is not start"
		}
		if !slices.Contains(WireActions, a.Do) {
			return fmt.Sprintf("driver: actions[%d] %q: a wire client sends start, then %s only", i, a.Do, strings.Join(WireActions, ", "))
		}
		if a.Script != nil {
			if why := inexpressibleBody(fmt.Sprintf("actions[%d].flow.body", i), a.Script.Body); why != "" {
				return why
			}
		}
	}
	why := inexpressibleBody("body", s.Body)
	if why == "" && d.Timers {
		why = delayedTimer("body", s.Body)
	}
	return why
}

// delayedTimer names the first timer whose wakeAt a delay derives (a suspend's timeoutMs) in a
// driver with timers.
func delayedTimer(p string, body []flowscript.Stmt) string {
	for i, st := range body {
		at := fmt.Sprintf("%s[%d]", p, i)
		if st.Op == "suspend" && st.TimeoutMs > 0 {
			return at + ": suspend timeoutMs with timers: " + clockDerived
		}
		for j, b := range st.Branches {
			if why := delayedTimer(fmt.Sprintf("%s.branches[%d]", at, j), b); why != "" {
				return why
			}
		}
	}
	return ""
}

// clockDerived is why a timer set by a delay cannot be fired over the wire at the driver's times.
const clockDerived = "its wakeAt is the kernel's clock plus the delay, and neither the spec nor ADR 0026 gives a wire client a kernel clock to set (the scheduled time is the kernel's, in its log), so the driver's fireTimers times say nothing of when it is due and the recorded wakeAt is not the in-process run's"

func inexpressibleBody(p string, body []flowscript.Stmt) string {
	for i, st := range body {
		at := fmt.Sprintf("%s[%d]", p, i)
		switch st.Op {
		case "execute":
			if st.Tool == "slow" && st.TimeoutMs == 0 {
				return at + ": the slow fake waits on the wall clock"
			}
		case "sleep":
			return at + ": sleep: " + clockDerived
		case "emit", "stream", "ui":
			if _, found, _ := flowscript.NonJSON(st.Payload); found {
				return at + `: a {"$float": ...} payload: a number JSON cannot hold has no form in a JSON-RPC body, so the wire cannot carry the unmatchable emit`
			}
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
