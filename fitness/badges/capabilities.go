package badges

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Format is the version tag every capabilities file carries.
const Format = "loom-capabilities/1"

// Maturity is how far a capability claims to have come.
type Maturity string

const (
	Experimental Maturity = "experimental"
	Beta         Maturity = "beta"
	Stable       Maturity = "stable"
)

// File is a capabilities.json document: what an implementation can do, how mature each capability
// is, and the evidence each maturity claim rests on.
type File struct {
	Format       string       `json:"format"`
	Subject      string       `json:"subject"`
	Capabilities []Capability `json:"capabilities"`
}

// Capability is one claim.
type Capability struct {
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Maturity Maturity `json:"maturity"`
	Evidence Evidence `json:"evidence"`
}

// Evidence is what a claim cites. Each list names things the harness can resolve.
type Evidence struct {
	// Versions are version constants of the kernel manifest: "kernelAbiVersion",
	// "eventSchemaVersion", "wireAbiVersion", "spi:<Name>", "syscall:<name>", "eventType:<TYPE>",
	// each optionally "=<version>" to pin the value.
	Versions []string `json:"versions,omitempty"`
	// Checks are check ids of the catalog or of a conformance kit.
	Checks []string `json:"checks,omitempty"`
	// Benches are fitness gate ids of kind bench or ratio.
	Benches []string `json:"benches,omitempty"`
	// Goldens are golden names (goldens/corpus/<name>).
	Goldens []string `json:"goldens,omitempty"`
	// Scenarios are deploy-simulation scenario names.
	Scenarios []string `json:"scenarios,omitempty"`
	// Reports are certification reports (paths relative to the capabilities file).
	Reports []ReportRef `json:"reports,omitempty"`
}

// ReportRef cites a certification report (certify --report), the seam it must certify, and
// optionally the badge drawn from it (certify --badge).
type ReportRef struct {
	Report     string `json:"report"`
	Seam       string `json:"seam"`
	SpiVersion string `json:"spiVersion,omitempty"`
	Badge      string `json:"badge,omitempty"`
}

// Parse decodes a capabilities file strictly: unknown fields, a wrong format tag, duplicate or
// empty ids and unknown maturities are errors naming the capability and field.
func Parse(data []byte, name string) (File, error) {
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return File{}, fmt.Errorf("%s: %v (want {\"format\": %q, \"subject\", \"capabilities\": [{\"id\", \"title\", \"maturity\", \"evidence\"}]})", name, err, Format)
	}
	if _, err := dec.Token(); err != io.EOF {
		return File{}, fmt.Errorf("%s: text after the document", name)
	}
	if f.Format != Format {
		return File{}, fmt.Errorf("%s: format %q, want %q", name, f.Format, Format)
	}
	if len(f.Capabilities) == 0 {
		return File{}, fmt.Errorf("%s: capabilities: empty", name)
	}
	seen := map[string]bool{}
	for i, c := range f.Capabilities {
		at := fmt.Sprintf("%s: capabilities[%d]", name, i)
		switch {
		case strings.TrimSpace(c.ID) == "":
			return File{}, fmt.Errorf("%s: id: empty", at)
		case seen[c.ID]:
			return File{}, fmt.Errorf("%s (%s): id: duplicate", at, c.ID)
		case c.Title == "":
			return File{}, fmt.Errorf("%s (%s): title: empty", at, c.ID)
		}
		seen[c.ID] = true
		switch c.Maturity {
		case Experimental, Beta, Stable:
		default:
			return File{}, fmt.Errorf("%s (%s): maturity %q, want experimental, beta or stable", at, c.ID, c.Maturity)
		}
		for j, r := range c.Evidence.Reports {
			if r.Report == "" || r.Seam == "" {
				return File{}, fmt.Errorf("%s (%s): evidence.reports[%d]: report and seam are required", at, c.ID, j)
			}
		}
	}
	return f, nil
}
