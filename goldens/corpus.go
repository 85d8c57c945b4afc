package goldens

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"sync"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// The files of a golden directory.
const (
	FlowFile     = "flow.json"
	DriverFile   = "driver.json"
	LogFile      = "log.ndjson"
	StateFile    = "state.json"
	RecordedFile = "recorded.json"
)

// RecordedFormat tags recorded.json.
const RecordedFormat = "loom-golden/1"

// Recorded is recorded.json: what recorded the golden and what each driver action returned.
type Recorded struct {
	Format string `json:"format"`
	// Harness is the version of the harness that recorded the golden; KernelAbi and EventSchema
	// the contract versions it encoded; Profile the event-schema profile the log was written at.
	Harness     string `json:"harness"`
	KernelAbi   string `json:"kernelAbi"`
	EventSchema string `json:"eventSchema"`
	Profile     string `json:"profile"`
	// Executions lists the execution ids of log.ndjson, in order.
	Executions []string                  `json:"executions"`
	Results    []flowscript.ActionResult `json:"results"`
	// Warnings are the codes of the runtime's loud reports, in order.
	Warnings []string `json:"warnings,omitempty"`
}

// Golden is one corpus entry.
type Golden struct {
	Name     string
	Dir      string
	Script   *flowscript.Script
	Driver   *flowscript.Driver
	Log      []spi.Envelope
	State    []byte // canonical state JSON (state.json without its trailing newline)
	Recorded Recorded
	// Unrecorded is set when log.ndjson, state.json or recorded.json is missing (a new golden).
	Unrecorded bool
}

// InputError is bad input: the file and what is wrong with it (a flowscript.Error or a fold
// InputError naming the envelope index and field, wrapped).
type InputError struct {
	File string
	Err  error
}

func (e *InputError) Error() string {
	var fe *flowscript.Error
	if errors.As(e.Err, &fe) {
		return e.Err.Error() // already names the file
	}
	return e.File + ": " + e.Err.Error()
}
func (e *InputError) Unwrap() error { return e.Err }

var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`) })

// LoadScripts reads and validates flow.json and driver.json of dir.
func LoadScripts(dir string) (*flowscript.Script, *flowscript.Driver, error) {
	fp, dp := filepath.Join(dir, FlowFile), filepath.Join(dir, DriverFile)
	fb, err := os.ReadFile(fp)
	if err != nil {
		return nil, nil, &InputError{File: fp, Err: err}
	}
	s, err := flowscript.Decode(fp, fb)
	if err != nil {
		return nil, nil, &InputError{File: fp, Err: err}
	}
	db, err := os.ReadFile(dp)
	if err != nil {
		return nil, nil, &InputError{File: dp, Err: err}
	}
	d, err := flowscript.DecodeDriver(dp, db)
	if err != nil {
		return nil, nil, &InputError{File: dp, Err: err}
	}
	return s, d, nil
}

// Load reads one golden directory. A directory with only flow.json and driver.json loads as
// Unrecorded.
func Load(dir string) (*Golden, error) {
	name := filepath.Base(dir)
	if !nameRE().MatchString(name) {
		return nil, &InputError{File: dir, Err: fmt.Errorf("golden name %q: want lower-case letters, digits and '-'", name)}
	}
	s, d, err := LoadScripts(dir)
	if err != nil {
		return nil, err
	}
	g := &Golden{Name: name, Dir: dir, Script: s, Driver: d}
	lp, sp, rp := filepath.Join(dir, LogFile), filepath.Join(dir, StateFile), filepath.Join(dir, RecordedFile)
	lb, lerr := os.ReadFile(lp)
	sb, serr := os.ReadFile(sp)
	rb, rerr := os.ReadFile(rp)
	if errors.Is(lerr, os.ErrNotExist) || errors.Is(serr, os.ErrNotExist) || errors.Is(rerr, os.ErrNotExist) {
		g.Unrecorded = true
		return g, nil
	}
	for _, e := range []struct {
		f   string
		err error
	}{{lp, lerr}, {sp, serr}, {rp, rerr}} {
		if e.err != nil {
			return nil, &InputError{File: e.f, Err: e.err}
		}
	}
	if g.Log, err = ReadLog(lp, lb); err != nil {
		return nil, err
	}
	st, err := fold.ParseState(sb)
	if err != nil {
		return nil, &InputError{File: sp, Err: err}
	}
	if g.State, err = fold.CanonicalState(st); err != nil {
		return nil, &InputError{File: sp, Err: err}
	}
	dec := json.NewDecoder(bytes.NewReader(rb))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&g.Recorded); err != nil {
		return nil, &InputError{File: rp, Err: err}
	}
	for i, r := range g.Recorded.Results {
		if r.Output != nil {
			var b bytes.Buffer
			if err := json.Compact(&b, r.Output); err != nil {
				return nil, &InputError{File: rp, Err: fmt.Errorf("results[%d]: field \"output\": %v", i, err)}
			}
			g.Recorded.Results[i].Output = b.Bytes()
		}
	}
	if g.Recorded.Format != RecordedFormat {
		return nil, &InputError{File: rp, Err: fmt.Errorf("field \"format\": got %q, want %q", g.Recorded.Format, RecordedFormat)}
	}
	if err := CheckLog(lp, g.Log, g.Recorded.Executions); err != nil {
		return nil, err
	}
	return g, nil
}

// LoadCorpus loads every golden directory under root, sorted by name.
func LoadCorpus(root string) ([]*Golden, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, &InputError{File: root, Err: err}
	}
	var out []*Golden
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		g, err := Load(filepath.Join(root, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ReadLog decodes a log file (NDJSON or a JSON array of envelopes) with the fold's decoder, whose
// errors name the envelope index and field.
func ReadLog(file string, b []byte) ([]spi.Envelope, error) {
	evs, err := fold.DecodeLog(bytes.NewReader(b), fold.DecodeOptions{})
	if err != nil {
		return nil, &InputError{File: file, Err: err}
	}
	return evs, nil
}

// CheckLog refuses a log that is not one dense run per execution (sequences 0, 1, 2, … with one
// execution id each), or whose executions are not want (when want is non-empty), in order.
func CheckLog(file string, evs []spi.Envelope, want []string) error {
	var execs []string
	var next int64
	for i, e := range evs {
		if len(execs) == 0 || e.ExecutionID != execs[len(execs)-1] {
			if e.Sequence != 0 {
				return &InputError{File: file, Err: fmt.Errorf("envelope %d: field \"sequence\": %d, want 0 (the first envelope of execution %q)", i, e.Sequence, e.ExecutionID)}
			}
			for _, x := range execs {
				if x == e.ExecutionID {
					return &InputError{File: file, Err: fmt.Errorf("envelope %d: field \"executionId\": execution %q appears twice, not as one run", i, x)}
				}
			}
			execs = append(execs, e.ExecutionID)
			next = 0
		}
		if e.Sequence != next {
			return &InputError{File: file, Err: fmt.Errorf("envelope %d: field \"sequence\": %d, want %d (a log is dense)", i, e.Sequence, next)}
		}
		next++
	}
	if len(want) > 0 {
		for i := range want {
			if i >= len(execs) || execs[i] != want[i] {
				return &InputError{File: file, Err: fmt.Errorf("field \"executionId\": the log holds executions %q, want %q", execs, want)}
			}
		}
		if len(execs) != len(want) {
			return &InputError{File: file, Err: fmt.Errorf("field \"executionId\": the log holds executions %q, want %q", execs, want)}
		}
	}
	return nil
}

// EncodeLog renders envelopes as NDJSON, one envelope per line.
func EncodeLog(evs []spi.Envelope) []byte {
	var b bytes.Buffer
	for _, e := range evs {
		line, err := json.Marshal(e)
		if err != nil {
			panic("goldens: an envelope has no JSON form: " + err.Error())
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}
