// Package generate writes the generated vectors (vectors/corpus/generated) from the property
// kit's generators (kits/foldprops), seeded so that the same options reproduce the same files
// byte for byte. Expectations come from the reference fold and canonical encoder: these vectors
// pin the reference's behaviour on realistic logs for foreign folds (differential), while the
// hand-written vectors pin the spec. A whole-log fold that differs from its snapshot-plus-tail
// fold is a property failure: Write stops and names the seed.
package generate

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/outfile"
	"github.com/loom-kernel/loom-conform/kits/foldprops"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/vectors"
)

// Options says what to generate. Zero fields take the defaults of the committed corpus.
type Options struct {
	Seed   int // base seed (default 1)
	Logs   int // generated logs per profile (default 4)
	Values int // generated canonical and digest vectors each (default 24)
}

func (o Options) withDefaults() Options {
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Logs == 0 {
		o.Logs = 4
	}
	if o.Values == 0 {
		o.Values = 24
	}
	return o
}

// Write replaces the directory out with the generated vectors and returns how many it wrote.
func Write(out string, o Options) (int, error) {
	o = o.withDefaults()
	return run(out, o.Seed, o.Logs, o.Values)
}

func run(out string, seed, logs, values int) (int, error) {
	if err := os.RemoveAll(out); err != nil {
		return 0, err
	}
	var vs []vectors.Vector
	for pi, p := range fold.Profiles() {
		// logs realistic logs, then logs/2 hostile ones (foldprops.GenOptions.Hostile): extreme
		// numbers, odd Unicode, reserved keys and repeated members, whose printed states must
		// read back (I-FOLD-29, I-FOLD-30, I-FOLD-31)
		for i := range logs + logs/2 {
			s, name, hostile, opts := seed*100000+pi*100+i, fmt.Sprintf("log-%d", i), i >= logs, ""
			// the reference's answer, every choice included: a recommendation (I-FOLD-41)
			clauses := []string{"I-FOLD-41"}
			if hostile {
				s, name, opts = seed*100000+pi*100+50+i-logs, fmt.Sprintf("hostile-%d", i-logs), ", Hostile"
				clauses = append(clauses, "I-FOLD-29", "I-FOLD-30", "I-FOLD-31")
			}
			evs := foldprops.Log(foldprops.GenOptions{Profile: p, MaxActions: 20, Unusual: i%2 == 1, Hostile: hostile}).Example(s)
			whole, err := fold.Fold(p, nil, evs)
			if err != nil {
				return 0, fmt.Errorf("seed %d: generated log does not fold: %v", s, err)
			}
			base := fmt.Sprintf("generated/fold/%s/%s", p.Version(), name)
			v, err := vectors.FoldVector(base, fmt.Sprintf("generated log (foldprops.Log%s, profile %s, seed %d): the reference fold's state", opts, p, s),
				clauses, p, nil, nil, evs, &whole, "")
			if err != nil {
				return 0, err
			}
			vs = append(vs, v)
			k := rand.New(rand.NewSource(int64(s))).Intn(len(evs))
			snap, err := fold.Fold(p, nil, evs[:k])
			if err != nil {
				return 0, err
			}
			tail := evs[k:]
			got, err := fold.Fold(p, &snap, tail)
			if err != nil {
				return 0, err
			}
			if a, b := mustJSON(got), mustJSON(whole); a != b {
				return 0, fmt.Errorf("seed %d, k %d: fold(snapshot@k, tail) != fold(events): a counterexample of S4.snapshot.every-k (save it with vectors.SaveCounterexample)", s, k)
			}
			snapClauses := []string{"I-FOLD-41"} // the reference's state again, read from its snapshot
			if hostile {
				snapClauses = append(snapClauses, "I-FOLD-29")
			}
			v, err = vectors.FoldVector(base+"-from-snapshot", fmt.Sprintf("the same log from its snapshot after %d envelopes: equals the whole-log fold", k),
				snapClauses, p, &snap, nil, tail, &whole, "")
			if err != nil {
				return 0, err
			}
			vs = append(vs, v)
		}
	}
	types := []string{"progress", "stream", "ui", "RESOURCE_METERED", "done"}
	for i := range values {
		s := seed*100000 + 90000 + i
		val := foldprops.JSONValue().Example(s)
		text, err := goJSON(val)
		if err != nil {
			return 0, err
		}
		canon, err := fold.Canonical(val)
		if err != nil {
			return 0, err
		}
		c := string(canon)
		vs = append(vs, vectors.Vector{ID: fmt.Sprintf("generated/canonical/value-%d", i), Kind: vectors.KindCanonical,
			Reason:  fmt.Sprintf("generated value (foldprops.JSONValue, seed %d) as Go's encoding/json prints it, canonicalised", s),
			Clauses: []string{"S3.emit.canonical-form"}, Input: &text, Expect: vectors.Expect{Canonical: &c}})
		seg := i % 4
		d, err := fold.EmitDigest(seg, types[i%len(types)], canon)
		if err != nil {
			return 0, err
		}
		vs = append(vs, vectors.Vector{ID: fmt.Sprintf("generated/digest/value-%d", i), Kind: vectors.KindDigest,
			Reason:  fmt.Sprintf("digest of a generated payload (foldprops.JSONValue, seed %d)", s),
			Clauses: []string{"S3.emit.identity", "S3.emit.canonical-form"}, Segment: &seg, EventType: types[i%len(types)],
			Payload: []byte(text), Expect: vectors.Expect{Digest: d}})
	}
	for _, v := range vs {
		data, err := v.MarshalFile()
		if err != nil {
			return 0, fmt.Errorf("%s: %w", v.ID, err)
		}
		path := filepath.Join(out, filepath.FromSlash(strings.TrimPrefix(v.ID, "generated/"))+".json")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return 0, err
		}
		if err := outfile.WriteFile(path, data); err != nil {
			return 0, err
		}
	}
	return len(vs), nil
}

func mustJSON(s fold.State) string {
	b, err := s.MarshalJSON()
	if err != nil {
		panic(err)
	}
	return string(b)
}

// goJSON is encoding/json's spelling of v: Go key order and number format, HTML escaping — a
// deliberately non-canonical input.
func goJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
