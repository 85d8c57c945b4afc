package manifest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/loom-kernel/loom-conform/internal/proof"
	"os"
	"slices"
	"strings"
	"testing"
)

func readSyscallPin(t *testing.T) []Syscall {
	t.Helper()
	f, err := os.Open("testdata/syscalls.pin.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Syscall
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 4 {
			t.Fatalf("syscalls.pin.txt: malformed line %q", line)
		}
		s := Syscall{Name: f[0], Since: f[1], Kind: SyscallKind(f[2])}
		if f[3] != "-" {
			s.Feature = f[3]
		}
		out = append(out, s)
	}
	return out
}

func readEventPin(t *testing.T) []EventSchemaPin {
	t.Helper()
	b, err := os.ReadFile("testdata/event-schema.pin.json")
	if err != nil {
		t.Fatal(err)
	}
	var pins []EventSchemaPin
	if err := json.Unmarshal(b, &pins); err != nil {
		t.Fatalf("event-schema.pin.json: %v", err)
	}
	return pins
}

// Reference: spec §2 (K1) — the syscall set with versions is pinned.
func TestSyscallPin(t *testing.T) {
	pinned := readSyscallPin(t)
	if err := CheckSyscallPin(pinned, Syscalls(), KernelAbiVersion); err != nil {
		t.Fatal(err)
	}
	if len(Syscalls()) != 13 {
		t.Fatalf("len(Syscalls()) = %d, want 13", len(Syscalls()))
	}
	// The pin must catch each kind of drift.
	cur := Syscalls()
	added := append(slices.Clone(cur), Syscall{Name: "fail", Since: "1.3.0", Kind: Unary}) // a fail syscall (spec §4.1: there is none)
	removed := cur[1:]
	repurposed := slices.Clone(cur)
	repurposed[8].Kind = Unary
	future := slices.Clone(cur)
	future[0].Since = "1.4.0"
	for name, table := range map[string][]Syscall{"added": added, "removed": removed, "repurposed": repurposed, "future": future} {
		if err := CheckSyscallPin(pinned, table, KernelAbiVersion); err == nil {
			t.Errorf("CheckSyscallPin(%s) = nil, want drift error", name)
		} else {
			proof.Rejected(t, "manifest/syscall-table/"+name, "manifest/syscall-pin", proof.Failure("manifest/syscall-pin", nil, "CheckSyscallPin("+name+")", err))
		}
	}
}

// Reference: spec §2 — stream and ui are channel syscalls; the Wave 2 trio is feature-flagged.
func TestSyscallKindsAndFlags(t *testing.T) {
	for _, s := range Syscalls() {
		wantChannel := s.Name == "stream" || s.Name == "ui"
		if (s.Kind == Channel) != wantChannel {
			t.Errorf("syscall %s kind = %s", s.Name, s.Kind)
		}
		wantFlag := s.Name == "continueAsNew" || s.Name == "receive" || s.Name == "select"
		if (s.Feature != "") != wantFlag {
			t.Errorf("syscall %s feature = %q", s.Name, s.Feature)
		}
	}
}

// Reference: spec §4 (K5) — the event-type set is pinned, and it and the version change together.
func TestEventSchemaPin(t *testing.T) {
	pins := readEventPin(t)
	names := EventTypeNames()
	if err := CheckEventSchemaPin(pins, EventSchemaVersion, names); err != nil {
		t.Fatal(err)
	}
	bad := append(slices.Clone(pins), EventSchemaPin{Version: "1.26.1", Types: append(slices.Clone(names), "X")})
	// A later MINOR that renames a Wave 2 kind, pinned as if the change were additive.
	renamed := slices.Clone(names)
	renamed[slices.Index(renamed, ExecutionContinued)] = "EXECUTION_CONTINUED_AS_NEW"
	wave2Renamed := append(slices.Clone(pins), EventSchemaPin{Version: "1.27.0", Types: renamed})
	for _, m := range []struct {
		id      string
		pins    []EventSchemaPin
		version string
		types   []string
	}{
		{"type-added-same-version", pins, EventSchemaVersion, append(slices.Clone(names), "STEP_PAUSED")},
		{"version-bumped-unpinned", pins, "1.27.0", names},
		{"type-removed", pins, EventSchemaVersion, names[1:]},
		{"set-changed-on-patch", bad, "1.26.1", append(slices.Clone(names), "X")},
		{"wave2-kind-renamed", wave2Renamed, "1.27.0", renamed},
	} {
		if err := CheckEventSchemaPin(m.pins, m.version, m.types); err == nil {
			t.Errorf("CheckEventSchemaPin(%s) = nil, want error", m.id)
		} else {
			proof.Rejected(t, "manifest/event-schema/"+m.id, "manifest/event-schema-pin", proof.Failure("manifest/event-schema-pin", nil, "CheckEventSchemaPin("+m.id+")", err))
		}
	}
}

// Reference: spec §4 — every type the spec names is in the table, dated no later than the schema.
func TestEventTypesComplete(t *testing.T) {
	want := []string{"EXECUTION_STARTED", "EXECUTION_SUSPENDED", "EXECUTION_RESUMED", "EXECUTION_COMPLETED", "EXECUTION_FAILED",
		"EXECUTION_CANCELLED", "EXECUTION_MIGRATED", "EXECUTION_RECOVERED", "EXECUTION_CONTINUED", "STEP_STARTED", "STEP_COMPLETED",
		"STEP_FAILED", "STEP_RETRYING", "STEP_CANCELLED", "DECISION_RECORDED", "EFFECT_INDOUBT", "TIMER_FIRED", "APPROVAL_GRANTED",
		"RESOURCE_METERED", "QUOTA_EXCEEDED", "SAFETY_BLOCKED", "EGRESS_DENIED", "EFFECT_DENIED", "OUTCOME_RECORDED",
		"PARALLEL_COMPLETED", "EVENTS_REHOMED", "MESSAGE_CONSUMED", "INBOX_QUARANTINED", "INBOX_RELEASED"}
	got := EventTypeNames()
	if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		t.Fatalf("EventTypeNames() = %v, want %v", got, want)
	}
	schema, _ := ParseVersion(EventSchemaVersion)
	for _, e := range EventTypes() {
		v, err := ParseVersion(e.Since)
		if err != nil || schema.Less(v) {
			t.Errorf("event %s since %q: not a version at or before %s", e.Name, e.Since, EventSchemaVersion)
		}
	}
	for _, u := range UserspaceEmittable() {
		if !IsKernelEventType(u) {
			t.Errorf("userspace-emittable %s is not a kernel type", u)
		}
	}
	if IsKernelEventType("approve") {
		t.Error(`IsKernelEventType("approve") = true`)
	}
}

// Reference: ADR 0026 A2 — the wire table is derived from the syscall table.
func TestWireMethodsDerived(t *testing.T) {
	sys, wire := Syscalls(), WireMethods()
	if len(sys) != len(wire) {
		t.Fatalf("len(WireMethods()) = %d, want %d (one per syscall)", len(wire), len(sys))
	}
	for i, s := range sys {
		w := wire[i]
		if w.Method != "syscall."+s.Name || w.Kind != s.Kind || w.Feature != s.Feature || w.Syscall != s.Name {
			t.Errorf("WireMethods()[%d] = %+v, want projection of %+v", i, w, s)
		}
	}
}

// Reference: spec §7 — SPI versions and method tables are consistent.
func TestSpiTables(t *testing.T) {
	for _, e := range spiTableErrors(Spis()) {
		t.Error(e)
	}
	// A table whose method postdates its seam's version, or lists a method twice, is refused.
	late := slices.Clone(Spis())
	late[0].Methods = append(slices.Clone(late[0].Methods), SpiMethod{Name: "compact", Since: "9.0.0"})
	twice := slices.Clone(Spis())
	twice[0].Methods = append(slices.Clone(twice[0].Methods), twice[0].Methods[0])
	for id, table := range map[string][]Spi{"method-after-version": late, "method-twice": twice} {
		if errs := spiTableErrors(table); len(errs) == 0 {
			t.Errorf("spiTableErrors(%s) = none, want the drift reported", id)
		} else {
			proof.Rejected(t, "manifest/spi-table/"+id, "manifest/spi-tables", "manifest/spi-tables [S7.spi.versioned-kit S7.spi.semver]: "+errs[0])
		}
	}
	es, _ := LookupSpi("eventstore")
	old, err := es.MethodsAt("2.0.0")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range old {
		if m.Name == "deleteThrough" || m.Name == "storeNow" {
			t.Errorf("MethodsAt(2.0.0) includes %s (arrived later)", m.Name)
		}
	}
}

// Reference: spec §9 — the manifest is built from the constants.
func TestKernelManifestFromConstants(t *testing.T) {
	if err := manifestFromConstants(KernelManifest()); err != nil {
		t.Fatal(err)
	}
	// A manifest written by hand drifts from the constants: the check must see it.
	stale := KernelManifest()
	stale.KernelAbiVersion = "1.2.0"
	short := KernelManifest()
	short.Syscalls = short.Syscalls[1:]
	for id, m := range map[string]Manifest{"stale-version": stale, "stale-table": short} {
		if err := manifestFromConstants(m); err == nil {
			t.Errorf("manifestFromConstants(%s) = nil, want an error", id)
		} else {
			proof.Rejected(t, "manifest/kernel-manifest/"+id, "manifest/manifest-from-constants", err)
		}
	}
}

func manifestFromConstants(m Manifest) error {
	if m.KernelAbiVersion != KernelAbiVersion || m.EventSchemaVersion != EventSchemaVersion || m.WireAbiVersion != WireAbiVersion {
		return fmt.Errorf("manifest/manifest-from-constants [S9.manifest.from-constants]: KernelManifest versions = %s/%s/%s, want %s/%s/%s",
			m.KernelAbiVersion, m.EventSchemaVersion, m.WireAbiVersion, KernelAbiVersion, EventSchemaVersion, WireAbiVersion)
	}
	if len(m.Syscalls) != len(Syscalls()) || len(m.EventTypes) != len(EventTypes()) || len(m.Spis) != len(Spis()) {
		return fmt.Errorf("manifest/manifest-from-constants [S9.manifest.from-constants]: KernelManifest tables = %d/%d/%d entries, want the package tables (%d/%d/%d)",
			len(m.Syscalls), len(m.EventTypes), len(m.Spis), len(Syscalls()), len(EventTypes()), len(Spis()))
	}
	return nil
}

// Reference: spec §9 — compatible iff the major versions match.
func TestCheckCompatibility(t *testing.T) {
	cases := []struct {
		d       Declared
		ok      bool
		wantErr bool
	}{
		{Declared{KernelAbi: "1.9.0"}, true, false},
		{Declared{KernelAbi: "1.0.0", EventSchema: "1.2.3", Wire: "1.7.0"}, true, false},
		{Declared{KernelAbi: "2.0.0"}, false, false},
		{Declared{KernelAbi: "0.9.0"}, false, false},
		{Declared{Spi: map[string]string{"EventStore": "2.0.0", "snapshotstore": "1.0.0"}}, true, false},
		{Declared{Spi: map[string]string{"EventStore": "1.9.0"}}, false, false},
		{Declared{KernelAbi: "banana"}, false, true},
		{Declared{KernelAbi: "1.2"}, false, true},
		{Declared{KernelAbi: "01.2.3"}, false, true},
		{Declared{Spi: map[string]string{"NoSuchStore": "1.0.0"}}, false, true},
	}
	if errs := compatErrors(CheckCompatibility, cases); len(errs) > 0 {
		t.Error(strings.Join(errs, "\n"))
	}
	// A checker that compares minors, or accepts any major, must fail the same table.
	for id, check := range map[string]func(Declared) (Compatibility, error){
		"any-major": func(d Declared) (Compatibility, error) {
			r, err := CheckCompatibility(d)
			if err == nil {
				r.Compatible, r.Reasons = true, nil
			}
			return r, err
		},
		"same-minor-required": func(d Declared) (Compatibility, error) {
			r, err := CheckCompatibility(d)
			if v, perr := ParseVersion(d.KernelAbi); err == nil && perr == nil && d.KernelAbi != "" && v.Minor != 0 {
				r.Compatible, r.Reasons = false, []string{"minor differs"}
			}
			return r, err
		},
	} {
		if errs := compatErrors(check, cases); len(errs) == 0 {
			t.Errorf("compat table accepts the broken checker %s", id)
		} else {
			proof.Rejected(t, "manifest/compat/"+id, "manifest/compat-major", "manifest/compat-major [S9.compat.shared-major]: "+errs[0])
		}
	}
}

func compatErrors(check func(Declared) (Compatibility, error), cases []struct {
	d       Declared
	ok      bool
	wantErr bool
}) []string {
	var errs []string
	for _, c := range cases {
		r, err := check(c.d)
		if (err != nil) != c.wantErr {
			errs = append(errs, fmt.Sprintf("CheckCompatibility(%+v) err = %v, want error %v", c.d, err, c.wantErr))
			continue
		}
		if err == nil && r.Compatible != c.ok {
			errs = append(errs, fmt.Sprintf("CheckCompatibility(%+v) = %v (%v), want %v", c.d, r.Compatible, r.Reasons, c.ok))
		}
		if err == nil && !r.Compatible && len(r.Reasons) == 0 {
			errs = append(errs, fmt.Sprintf("CheckCompatibility(%+v): incompatible without a reason", c.d))
		}
	}
	return errs
}

// spiTableErrors checks each seam's table: a semver version, the pinned versions, and methods
// dated no later than the seam's version, each listed once.
func spiTableErrors(spis []Spi) []string {
	want := map[string]string{SeamEventStore: "2.6.0", SeamSnapshotStore: "1.3.0", SeamArchiveStore: "1.1.0", SeamContentStore: "1.5.0"}
	var errs []string
	for _, s := range spis {
		v, err := ParseVersion(s.Version)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s version: %v", s.Name, err))
			continue
		}
		if w, ok := want[s.Name]; ok && s.Version != w {
			errs = append(errs, fmt.Sprintf("%s version = %s, want %s", s.Name, s.Version, w))
		}
		seen := map[string]bool{}
		for _, m := range s.Methods {
			mv, err := ParseVersion(m.Since)
			if err != nil || v.Less(mv) {
				errs = append(errs, fmt.Sprintf("%s.%s since %q is not at or before %s", s.Name, m.Name, m.Since, s.Version))
			}
			if seen[m.Name] {
				errs = append(errs, fmt.Sprintf("%s.%s listed twice", s.Name, m.Name))
			}
			seen[m.Name] = true
		}
	}
	return errs
}
