package manifest

import (
	"fmt"
	"sort"
)

// Declared is a deployment's declared component versions. Empty fields are not checked.
type Declared struct {
	KernelAbi   string
	EventSchema string
	Wire        string
	Spi         map[string]string // seam name → version
}

// Compatibility is the verdict of CheckCompatibility.
type Compatibility struct {
	Compatible bool
	Reasons    []string // one per mismatch
}

// CheckCompatibility compares declared versions with the manifest (spec §9): each declared
// component is compatible iff it shares the manifest's major version. A malformed version or an
// unknown seam is an error, not a mismatch.
func CheckCompatibility(d Declared) (Compatibility, error) {
	type item struct{ component, declared, ours string }
	var items []item
	if d.KernelAbi != "" {
		items = append(items, item{"kernel ABI", d.KernelAbi, KernelAbiVersion})
	}
	if d.EventSchema != "" {
		items = append(items, item{"event schema", d.EventSchema, EventSchemaVersion})
	}
	if d.Wire != "" {
		items = append(items, item{"wire ABI", d.Wire, WireAbiVersion})
	}
	names := make([]string, 0, len(d.Spi))
	for n := range d.Spi {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s, ok := LookupSpi(n)
		if !ok {
			return Compatibility{}, fmt.Errorf("unknown SPI %q", n)
		}
		items = append(items, item{s.Name + " SPI", d.Spi[n], s.Version})
	}
	out := Compatibility{Compatible: true}
	for _, it := range items {
		dv, err := ParseVersion(it.declared)
		if err != nil {
			return Compatibility{}, fmt.Errorf("%s: %w", it.component, err)
		}
		ov, _ := ParseVersion(it.ours)
		if dv.Major != ov.Major {
			out.Compatible = false
			out.Reasons = append(out.Reasons, fmt.Sprintf("%s %s does not share major version %d with %s", it.component, dv, ov.Major, ov))
		}
	}
	return out, nil
}
