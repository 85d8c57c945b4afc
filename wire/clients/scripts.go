package clients

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/loom-kernel/loom-conform/goldens"
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
	return inexpressible(s, d, false)
}

// InexpressibleWithExtension is Inexpressible for a kernel that serves the conformance extension
// (conformance.clock and conformance.crash, I-WIRE-24): its crashes, recoveries and in-doubt
// verdicts, and the sleeps whose wakeAt the kernel's clock derives, are expressible there.
func InexpressibleWithExtension(s *flowscript.Script, d *flowscript.Driver) string {
	return inexpressible(s, d, true)
}

// ExtensionActions are the driver actions a client sends through the conformance extension: a
// crash arms conformance.crash; recover is execution.attach (mode recover); verdict is the
// in-doubt gate's resume (I-KERNEL-52).
var ExtensionActions = []string{"crash", "recover", "verdict"}

// Extension lists the conformance methods a case needs beyond the plain wire, sorted (nil: none):
// conformance.crash for its crash actions, conformance.clock for a sleep (its wakeAt is the
// kernel's clock plus the delay, so the client sets that clock to the driver's virtual time).
func Extension(s *flowscript.Script, d *flowscript.Driver) []string {
	var out []string
	for _, a := range d.Actions {
		if a.Do == "crash" {
			out = append(out, "conformance.crash")
		}
		if a.Script != nil && hasOp(a.Script.Body, "sleep") {
			out = append(out, "conformance.clock")
		}
	}
	if hasOp(s.Body, "sleep") {
		out = append(out, "conformance.clock")
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func hasOp(body []flowscript.Stmt, op string) bool {
	for _, st := range body {
		if st.Op == op || slices.ContainsFunc(st.Branches, func(b []flowscript.Stmt) bool { return hasOp(b, op) }) {
			return true
		}
	}
	return false
}

func inexpressible(s *flowscript.Script, d *flowscript.Driver, ext bool) string {
	switch {
	case d.Profile != "":
		return fmt.Sprintf("driver: profile %s: a kernel writes one event schema, the handshake's eventSchema %s; the wire has no per-execution profile (ADR 0026: the on-disk schema is unchanged by the wire)", d.Profile, manifest.EventSchemaVersion)
	case d.Snapshots:
		return "driver: snapshots: a snapshot is the kernel's storage, invisible on the wire by design (getState folds the same state either way); a snapshot action would show a wire client nothing"
	}
	started := false
	for i, a := range d.Actions {
		if a.Do == "start" && !started {
			started = true
			continue
		}
		if a.Do == "crash" && !ext {
			return fmt.Sprintf("driver: actions[%d] crash at append %d: a fault inside the kernel's process (its store fails mid-run); a wire client sees the kernel, not its store, and the plain wire carries no fault injection (the conformance extension's conformance.crash does)", i, a.At)
		}
		if !started && !(ext && a.Do == "crash") {
			return "driver: the first action is not start"
		}
		if !slices.Contains(WireActions, a.Do) && !(ext && slices.Contains(ExtensionActions, a.Do)) {
			return fmt.Sprintf("driver: actions[%d] %q: a wire client sends start, then %s only", i, a.Do, strings.Join(WireActions, ", "))
		}
		if a.Script != nil {
			if why := inexpressibleBody(fmt.Sprintf("actions[%d].flow.body", i), a.Script.Body, ext); why != "" {
				return why
			}
		}
	}
	why := inexpressibleBody("body", s.Body, ext)
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
			return at + ": suspend timeoutMs with timers: the conformance profile wires no timer store, so a timed suspend records its timeout and no wakeAt (spec §5: the runtime derives wakeAt only when a TimerStore is wired) and no timer is ever due; " + clockDerived
		}
		for j, b := range st.Branches {
			if why := delayedTimer(fmt.Sprintf("%s.branches[%d]", at, j), b); why != "" {
				return why
			}
		}
	}
	return ""
}

// clockDerived is why a timer set by a delay cannot be fired over the plain wire at the driver's
// times.
const clockDerived = "its wakeAt is the kernel's clock plus the delay, and neither the spec nor ADR 0026 gives a wire client a kernel clock to set (the scheduled time is the kernel's, in its log), so the driver's fireTimers times say nothing of when it is due and the recorded wakeAt is not the in-process run's (the conformance extension's conformance.clock sets it)"

func inexpressibleBody(p string, body []flowscript.Stmt, ext bool) string {
	for i, st := range body {
		at := fmt.Sprintf("%s[%d]", p, i)
		switch st.Op {
		case "execute":
			if st.Tool == "slow" && st.TimeoutMs == 0 {
				return at + ": the slow fake waits on the wall clock"
			}
		case "sleep":
			if !ext {
				return at + ": sleep: " + clockDerived
			}
		case "emit", "stream", "ui":
			if _, found, _ := flowscript.NonJSON(st.Payload); found {
				return at + `: a {"$float": ...} payload: a number JSON cannot hold has no form in a JSON-RPC body, so the wire cannot carry the unmatchable emit`
			}
		case "parallel":
			for j, b := range st.Branches {
				if why := inexpressibleBody(fmt.Sprintf("%s.branches[%d]", at, j), b, ext); why != "" {
					return why
				}
			}
		}
	}
	return ""
}

// Goldens splits the golden corpus (built into the binary) into the scripts a wire client drives —
// over the plain wire, or, withExtension, also those the conformance extension makes drivable
// (Extension names what each needs) — and, for the others, why not, keyed by golden name.
func Goldens(withExtension bool) (drivable []Case, not map[string]string, err error) {
	all, err := LoadFS(goldens.CorpusScripts(), "corpus")
	if err != nil {
		return nil, nil, err
	}
	not = map[string]string{}
	for _, k := range all {
		if why := inexpressible(k.Script, k.Driver, withExtension); why != "" {
			not[k.Name] = why
			continue
		}
		drivable = append(drivable, k)
	}
	return drivable, not, nil
}
