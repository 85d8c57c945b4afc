package manifest

import (
	"fmt"
	"slices"
)

// EventSchemaPin is one recorded version of the event schema: the version, its type set and a note
// saying what changed. A pin file holds the history, newest last (I-MANIFEST-5).
type EventSchemaPin struct {
	Version string   `json:"version"`
	Types   []string `json:"types"`
	Note    string   `json:"note"`
}

// CheckEventSchemaPin compares the current version and type set with the newest pin. A changed type
// set needs a new version; a new version needs a pin entry recording it. Either drift is an error
// that says what to do.
func CheckEventSchemaPin(pins []EventSchemaPin, version string, types []string) error {
	if len(pins) == 0 {
		return fmt.Errorf("event schema pin: no pinned versions")
	}
	last := pins[len(pins)-1]
	cur := slices.Sorted(slices.Values(types))
	pinned := slices.Sorted(slices.Values(last.Types))
	sameSet := slices.Equal(cur, pinned)
	switch {
	case version == last.Version && !sameSet:
		added, removed := diffSets(pinned, cur)
		return fmt.Errorf("event schema pin [S4.K5.version-and-set-together]: type set changed (added %v, removed %v) but EventSchemaVersion is still %s, want a MINOR bump (MAJOR on removal) and a new pin entry", added, removed, version)
	case version != last.Version:
		if !sameSet {
			added, removed := diffSets(pinned, cur)
			return fmt.Errorf("event schema pin [S4.K5.version-and-set-together]: EventSchemaVersion %s and type set (added %v, removed %v) changed without a pin entry, want an entry recording %s and why", version, added, removed, version)
		}
		return fmt.Errorf("event schema pin [S4.K5.version-and-set-together]: EventSchemaVersion changed %s -> %s with the same type set but no pin entry, want an entry recording %s and the behaviour it changes", last.Version, version, version)
	}
	for i := 1; i < len(pins); i++ {
		a, errA := ParseVersion(pins[i-1].Version)
		b, errB := ParseVersion(pins[i].Version)
		if errA != nil || errB != nil || !a.Less(b) {
			return fmt.Errorf("event schema pin: entries %q then %q are not strictly increasing versions", pins[i-1].Version, pins[i].Version)
		}
		if !slices.Equal(slices.Sorted(slices.Values(pins[i-1].Types)), slices.Sorted(slices.Values(pins[i].Types))) && a.Major == b.Major && a.Minor == b.Minor {
			return fmt.Errorf("event schema pin: type set changed between %s and %s without a MINOR bump", a, b)
		}
		if _, removed := diffSets(pins[i-1].Types, pins[i].Types); len(removed) > 0 && a.Major == b.Major {
			return fmt.Errorf("event schema pin [S4.K5.remove-major S4.v1_23.shapes-frozen]: %s removes %v, pinned at %s, within major %d: removing or renaming a type is a MAJOR break, and a later change to a frozen shape (the 1.23.0 Wave 2 kinds) must be additive", b, removed, a, b.Major)
		}
	}
	return nil
}

func diffSets(old, cur []string) (added, removed []string) {
	for _, c := range cur {
		if !slices.Contains(old, c) {
			added = append(added, c)
		}
	}
	for _, o := range old {
		if !slices.Contains(cur, o) {
			removed = append(removed, o)
		}
	}
	return added, removed
}

// EventTypeNames returns the names of EventTypes, in table order.
func EventTypeNames() []string {
	var out []string
	for _, e := range EventTypes() {
		out = append(out, e.Name)
	}
	return out
}

// CheckSyscallPin compares the current syscall table with a pinned one under K1 (spec §2): every
// difference is drift unless the pin is updated; a removal needs a MAJOR bump and an addition must
// be dated no later than the current ABI version.
func CheckSyscallPin(pinned, current []Syscall, abi string) error {
	cur, err := ParseVersion(abi)
	if err != nil {
		return err
	}
	var errs []string
	byName := map[string]Syscall{}
	for _, s := range current {
		byName[s.Name] = s
		since, err := ParseVersion(s.Since)
		if err != nil || cur.Less(since) {
			errs = append(errs, fmt.Sprintf("syscall %s: since %q is not a version at or before ABI %s", s.Name, s.Since, abi))
		}
	}
	for _, p := range pinned {
		c, ok := byName[p.Name]
		switch {
		case !ok:
			errs = append(errs, fmt.Sprintf("syscall %s removed: a MAJOR break (K1), want the pin updated with a MAJOR ABI bump", p.Name))
		case c != p:
			errs = append(errs, fmt.Sprintf("syscall %s repurposed: %+v, pinned %+v (K1: MAJOR)", p.Name, c, p))
		}
		delete(byName, p.Name)
	}
	for name := range byName {
		errs = append(errs, fmt.Sprintf("syscall %s added without a pin entry (K1: MINOR bump, record its since)", name))
	}
	if len(errs) > 0 {
		slices.Sort(errs)
		return fmt.Errorf("syscall pin [S2.K1.drift-fails]: %v", errs)
	}
	return nil
}
