package vectors

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spec"
)

// idPattern is the shape of a vector id: lowercase words of [a-z0-9] joined by '.', '-', '_' or '/'.
var idPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+([._/-][a-z0-9]+)*$`) })

// digestPattern is an emit digest: 16 lowercase hex digits.
var digestPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{16}$`) })

// Corpus is a set of vectors with unique ids, ordered by file path.
type Corpus struct {
	Vectors []Vector
}

// IDs lists the ids of the corpus's vectors, in order.
func (c Corpus) IDs() []string {
	ids := make([]string, len(c.Vectors))
	for i, v := range c.Vectors {
		ids[i] = v.ID
	}
	return ids
}

// ByID returns the vector with the given id.
func (c Corpus) ByID(id string) (Vector, bool) {
	for _, v := range c.Vectors {
		if v.ID == id {
			return v, true
		}
	}
	return Vector{}, false
}

// LoadDir reads every *.json file under dir (recursively) as one vector; see LoadFS.
func LoadDir(dir string) (Corpus, error) {
	return LoadFS(os.DirFS(dir), ".", dir)
}

// LoadFS reads every *.json file under root in fsys (recursively) as one vector. Files are read in
// path order; a malformed file or a duplicate id is an error naming the file (and, for a
// duplicate, both files). Files under a directory named testdata are ignored. prefix is joined
// before each path to name the file in errors and in Vector.File.
func LoadFS(fsys fs.FS, root, prefix string) (Corpus, error) {
	var files []string
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" && p != root {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".json") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return Corpus{}, fmt.Errorf("vectors: %w", err)
	}
	sort.Strings(files)
	var c Corpus
	known := knownClauses()
	seen := map[string]string{}
	var errs []error
	for _, p := range files {
		f := path.Join(prefix, p)
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f, err))
			continue
		}
		v, err := parse(data, f, known)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if prev, dup := seen[v.ID]; dup {
			errs = append(errs, fmt.Errorf("%s: duplicate vector id %q (also in %s)", f, v.ID, prev))
			continue
		}
		seen[v.ID] = f
		c.Vectors = append(c.Vectors, v)
	}
	if len(errs) > 0 {
		return Corpus{}, errors.Join(errs...)
	}
	return c, nil
}

// Parse decodes and validates one vector file's content; file names it in errors.
func Parse(data []byte, file string) (Vector, error) {
	return parse(data, file, knownClauses())
}

// knownClauses returns the registry's clause ids as a set.
func knownClauses() map[string]bool {
	known := map[string]bool{}
	for _, c := range spec.Clauses() {
		known[c.ID] = true
	}
	return known
}

func parse(data []byte, file string, known map[string]bool) (Vector, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var v Vector
	if err := dec.Decode(&v); err != nil {
		return Vector{}, fmt.Errorf("%s: %w", file, err)
	}
	if dec.More() {
		return Vector{}, fmt.Errorf("%s: more than one JSON value in the file", file)
	}
	v.File = file
	if err := v.validate(known); err != nil {
		return Vector{}, fmt.Errorf("%s: %w", file, err)
	}
	return v, nil
}

// Validate checks a vector's shape: id, reason, known clauses, the members of its kind and a
// well-formed expectation.
func (v Vector) Validate() error { return v.validate(knownClauses()) }

func (v Vector) validate(known map[string]bool) error {
	var errs []string
	bad := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	switch {
	case v.ID == "":
		bad("id: missing")
	case len(v.ID) > maxIDLen || !idPattern().MatchString(v.ID):
		bad("id %q: want lowercase [a-z0-9] words joined by . - _ or /, at most %d characters", v.ID, maxIDLen)
	}
	switch {
	case strings.TrimSpace(v.Reason) == "":
		bad("reason: missing (one line saying what the vector pins down)")
	case strings.ContainsAny(v.Reason, "\n\r") || len(v.Reason) > maxReasonLen:
		bad("reason: want one line of at most %d bytes", maxReasonLen)
	}
	if len(v.Clauses) == 0 {
		bad("clauses: missing (the clause ids the vector enforces)")
	}
	for i, id := range v.Clauses {
		if !known[id] {
			bad("clauses[%d]: unknown clause %q (see loom-conform spec)", i, id)
		}
	}
	set := 0
	for _, b := range []bool{v.Expect.State != nil, v.Expect.Canonical != nil, v.Expect.Digest != "", v.Expect.Error != ""} {
		if b {
			set++
		}
	}
	if set != 1 {
		bad("expect: want exactly one of state, canonical, digest, error (%d set)", set)
	}
	if v.Expect.Error != "" && !contains(ErrorKinds(v.Kind), v.Expect.Error) {
		bad("expect.error %q: want one of %v for a %s vector", v.Expect.Error, ErrorKinds(v.Kind), v.Kind)
	}
	foldMembers := v.Profile != "" || v.Snapshot != nil || v.SnapshotProfile != "" || v.Events != nil
	switch v.Kind {
	case KindFold:
		if v.Input != nil || v.Segment != nil || v.EventType != "" || v.Payload != nil {
			bad("a fold vector has no input, segment, eventType or payload")
		}
		if v.Expect.Canonical != nil || v.Expect.Digest != "" {
			bad("expect: a fold vector expects state or error")
		}
		if _, err := fold.ProfileFor(v.Profile); err != nil {
			bad("profile: %v", err)
		}
		if v.SnapshotProfile != "" {
			if v.Snapshot == nil {
				bad("snapshotProfile without a snapshot")
			}
			if _, err := fold.ProfileFor(v.SnapshotProfile); err != nil {
				bad("snapshotProfile: %v", err)
			}
		}
		if v.Events == nil {
			bad("events: missing (use [] for none)")
		}
		for i, raw := range v.Events {
			if err := checkEnvelope(i, raw, v.Expect.Error != ""); err != nil {
				bad("events[%d]: %v", i, err)
			}
		}
		if v.Expect.State != nil {
			if _, err := fold.CanonicalJSON(v.Expect.State); err != nil {
				bad("expect.state: %v", err)
			} else if c := reasonContradiction(v.Reason, v.Expect.State); c != "" {
				bad("reason: contradicted by expect.state (I-VECTOR-9): %s", c)
			}
		}
	case KindCanonical:
		if foldMembers || v.Segment != nil || v.EventType != "" || v.Payload != nil {
			bad("a canonical vector has only input")
		}
		if v.Input == nil {
			bad("input: missing (a JSON text as a string)")
		}
		if v.Expect.State != nil || v.Expect.Digest != "" {
			bad("expect: a canonical vector expects canonical or error")
		}
	case KindDigest:
		if foldMembers || v.Input != nil {
			bad("a digest vector has only segment, eventType and payload")
		}
		if v.Segment == nil || *v.Segment < 0 {
			bad("segment: want a non-negative integer")
		}
		if v.Payload == nil {
			bad("payload: missing")
		}
		if v.Expect.Digest == "" || !digestPattern().MatchString(v.Expect.Digest) {
			bad("expect.digest: want 16 lowercase hex digits")
		}
	case "":
		bad("kind: missing (fold, canonical or digest)")
	default:
		bad("kind %q: want fold, canonical or digest", v.Kind)
	}
	v.validateChoicePaths(known, bad)
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// envelopeKeys are the members of an envelope (DESIGN §3.1).
var envelopeKeys = []string{"id", "workflowId", "executionId", "eventType", "sequence", "timestamp", "payload", "metadata"}

// checkEnvelope refuses an envelope member name that is not an envelope member (a typo in a
// vector must not silently become a different test) and, unless the vector expects a refusal,
// an envelope the fold's one decoder refuses (fold.DecodeEnvelope).
func checkEnvelope(i int, raw json.RawMessage, refusalExpected bool) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err == nil {
		for k := range members {
			if !contains(envelopeKeys, k) {
				return fmt.Errorf("unknown envelope member %q", k)
			}
		}
	} else if !refusalExpected {
		return errors.New("want an envelope object")
	}
	if refusalExpected {
		return nil
	}
	if _, err := fold.DecodeEnvelope(i, raw); err != nil {
		var ie *fold.InputError
		if errors.As(err, &ie) && ie.Field != "" {
			return fmt.Errorf("%s: %s", ie.Field, ie.Msg)
		}
		return err
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Want returns what a correct fold answers for v: an output (canonical state, canonical text or
// digest) or an error kind.
func (v Vector) Want() (output, errKind string, err error) {
	if v.Expect.Error != "" {
		return "", v.Expect.Error, nil
	}
	switch v.Kind {
	case KindFold:
		b, err := fold.CanonicalJSON(v.Expect.State)
		if err != nil {
			return "", "", fmt.Errorf("%s: expect.state: %w", v.File, err)
		}
		return string(b), "", nil
	case KindCanonical:
		return *v.Expect.Canonical, "", nil
	case KindDigest:
		return v.Expect.Digest, "", nil
	}
	return "", "", fmt.Errorf("%s: kind %q", v.File, v.Kind)
}
