package proof

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/spec"
)

// Env names the directory proof records are written to. `make test` sets it to a fresh directory
// per run, so a cached test result (which writes nothing) can never stand in for a run.
const Env = "LOOM_CONFORM_PROOFS"

// Record is one observed rejection: in this run, check Check rejected mutant Mutant in test Test.
type Record struct {
	Mutant   string `json:"mutant"`
	Check    string `json:"check"`
	Test     string `json:"test"`
	Evidence string `json:"evidence"` // the first line of the check's failure, at most 300 bytes
	// Build is the BuildID of the tree whose test wrote the record: coverage refuses records of
	// another build.
	Build string `json:"build"`
}

// EvidenceOf reports whether msg is a failure of check in the project's failure grammar
// (`<check id> [<clauses>]: …` or `<check id>: …`).
func EvidenceOf(check, msg string) bool {
	return strings.HasPrefix(msg, check+" ") || strings.HasPrefix(msg, check+":")
}

// Failure puts a failure that a check reported in its own words (err) into the failure grammar
// the check's proof needs: `<check> [<clauses>]: <op> = <err>`. No failure (a nil error, an empty
// message) stays "", so Rejected still sees the mutant survive.
func Failure(check string, clauses []string, op string, err any) string {
	msg := evidenceText(err)
	switch {
	case msg == "" || EvidenceOf(check, msg):
		return msg
	case len(clauses) == 0:
		return fmt.Sprintf("%s: %s = %s", check, op, msg)
	}
	return fmt.Sprintf("%s [%s]: %s = %s", check, strings.Join(clauses, " "), op, msg)
}

// Rejected asserts that check rejected mutant, evidence being the failure the check reported
// against it (an error, or a kit failure message). A nil error or an empty message means the
// mutant survived: t fails and nothing is recorded. Otherwise, when LOOM_CONFORM_PROOFS is set,
// the record is written when t ends, only if t has not failed.
func Rejected(t testing.TB, mutant, check string, evidence any) {
	t.Helper()
	msg := evidenceText(evidence)
	if mutant == "" || check == "" {
		t.Errorf("proof.Rejected(%q, %q): mutant and check ids are required", mutant, check)
		return
	}
	if msg == "" {
		t.Errorf("%s: mutant %s survived: the check reported no failure, want it rejected", check, mutant)
		return
	}
	if !EvidenceOf(check, msg) {
		t.Errorf("proof.Rejected(%s, %s): the evidence %q is not the check's own failure: in the failure grammar it begins with %q", mutant, check, firstLine(msg, 120), check)
		return
	}
	dir := os.Getenv(Env)
	if dir == "" {
		return
	}
	build, err := thisBuild()
	if err != nil {
		t.Errorf("proof: the build of this test binary: %v", err)
		return
	}
	rec := Record{Mutant: mutant, Check: check, Test: t.Name(), Evidence: firstLine(msg, 300), Build: build}
	t.Cleanup(func() {
		if t.Failed() {
			return
		}
		if err := write(dir, rec); err != nil {
			t.Errorf("proof: recording %s rejected by %s: %v", mutant, check, err)
		}
	})
}

func evidenceText(evidence any) string {
	switch e := evidence.(type) {
	case nil:
		return ""
	case error:
		if e == nil {
			return ""
		}
		return strings.TrimSpace(e.Error())
	case string:
		return strings.TrimSpace(e)
	default:
		return strings.TrimSpace(fmt.Sprint(e))
	}
}

func firstLine(s string, max int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > max {
		s = s[:max]
	}
	return s
}

// write appends one line to a file named for this process: a single write on an O_APPEND file,
// so parallel tests of one binary and parallel test binaries never interleave within a line.
func write(dir string, rec Record) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("proofs-%d.jsonl", os.Getpid())), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	return errors.Join(err, f.Close())
}

// Read loads every record of every *.jsonl file of dir. A malformed line is an error naming the
// file and line. A directory that does not exist is an error: "not measured" is the caller's
// decision, never a silent empty set.
func Read(dir string) ([]Record, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("proof records: %w", err)
	}
	sort.Strings(files)
	var out []Record
	for _, name := range files {
		recs, err := readFile(name)
		if err != nil {
			return nil, err
		}
		out = append(out, recs...)
	}
	return out, nil
}

func readFile(name string) ([]Record, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		var r Record
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("%s:%d: malformed proof record: %v", name, line, err)
		}
		if r.Mutant == "" || r.Check == "" || r.Evidence == "" {
			return nil, fmt.Errorf("%s:%d: proof record needs mutant, check and evidence", name, line)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// Kills converts records to the shape spec.Coverage.Prove takes.
func Kills(recs []Record) []spec.Kill {
	out := make([]spec.Kill, 0, len(recs))
	for _, r := range recs {
		out = append(out, spec.Kill{Mutant: r.Mutant, Check: r.Check})
	}
	return out
}
