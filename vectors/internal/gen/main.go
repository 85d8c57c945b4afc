// Command gen writes the generated vectors (vectors/corpus/generated) from the property kit's
// generators (kits/foldprops), seeded so that `go generate ./vectors` reproduces them byte for
// byte. Expectations come from the reference fold and canonical encoder: these vectors pin the
// reference's behaviour on realistic logs for foreign folds (differential), while the
// hand-written vectors pin the spec. A whole-log fold that differs from its snapshot-plus-tail
// fold is a property failure: gen stops and names the seed.
//
//	go run ./vectors/internal/gen -out vectors/corpus/generated [-seed 1] [-logs 4]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"

	"github.com/loom-kernel/loom-conform/kits/foldprops"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/vectors"
)

func main() {
	out := flag.String("out", "corpus/generated", "directory to (re)write")
	seed := flag.Int("seed", 1, "base seed")
	logs := flag.Int("logs", 4, "generated logs per profile")
	values := flag.Int("values", 24, "generated canonical and digest vectors each")
	flag.Parse()
	if err := run(*out, *seed, *logs, *values); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(out string, seed, logs, values int) error {
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	var vs []vectors.Vector
	for pi, p := range fold.Profiles() {
		for i := range logs {
			s := seed*100000 + pi*100 + i
			evs := foldprops.Log(foldprops.GenOptions{Profile: p, MaxActions: 20, Unusual: i%2 == 1}).Example(s)
			whole, err := fold.Fold(p, nil, evs)
			if err != nil {
				return fmt.Errorf("seed %d: generated log does not fold: %v", s, err)
			}
			base := fmt.Sprintf("generated/fold/%s/log-%d", p.Version(), i)
			v, err := vectors.FoldVector(base, fmt.Sprintf("generated log (foldprops.Log, profile %s, seed %d): the reference fold's state", p, s),
				[]string{"S1.P2.replay-identical", "S3.determinism.enforced", "A26.vectors.language-agnostic"}, p, nil, nil, evs, &whole, "")
			if err != nil {
				return err
			}
			vs = append(vs, v)
			k := rand.New(rand.NewSource(int64(s))).Intn(len(evs))
			snap, err := fold.Fold(p, nil, evs[:k])
			if err != nil {
				return err
			}
			tail := evs[k:]
			got, err := fold.Fold(p, &snap, tail)
			if err != nil {
				return err
			}
			if a, b := mustJSON(got), mustJSON(whole); a != b {
				return fmt.Errorf("seed %d, k %d: fold(snapshot@k, tail) != fold(events): a counterexample of S4.snapshot.every-k (save it with vectors.SaveCounterexample)", s, k)
			}
			v, err = vectors.FoldVector(base+"-from-snapshot", fmt.Sprintf("the same log from its snapshot after %d envelopes: equals the whole-log fold", k),
				[]string{"S4.snapshot.every-k", "S3.snapshot.equivalence"}, p, &snap, nil, tail, &whole, "")
			if err != nil {
				return err
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
			return err
		}
		canon, err := fold.Canonical(val)
		if err != nil {
			return err
		}
		c := string(canon)
		vs = append(vs, vectors.Vector{ID: fmt.Sprintf("generated/canonical/value-%d", i), Kind: vectors.KindCanonical,
			Reason:  fmt.Sprintf("generated value (foldprops.JSONValue, seed %d) as Go's encoding/json prints it, canonicalised", s),
			Clauses: []string{"S3.emit.canonical-form"}, Input: &text, Expect: vectors.Expect{Canonical: &c}})
		seg := i % 4
		d, err := fold.EmitDigest(seg, types[i%len(types)], canon)
		if err != nil {
			return err
		}
		vs = append(vs, vectors.Vector{ID: fmt.Sprintf("generated/digest/value-%d", i), Kind: vectors.KindDigest,
			Reason:  fmt.Sprintf("digest of a generated payload (foldprops.JSONValue, seed %d)", s),
			Clauses: []string{"S3.emit.identity", "S3.emit.canonical-form"}, Segment: &seg, EventType: types[i%len(types)],
			Payload: []byte(text), Expect: vectors.Expect{Digest: d}})
	}
	for _, v := range vs {
		data, err := v.MarshalFile()
		if err != nil {
			return fmt.Errorf("%s: %w", v.ID, err)
		}
		path := filepath.Join(out, filepath.FromSlash(strings.TrimPrefix(v.ID, "generated/"))+".json")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("gen: wrote %d vectors to %s\n", len(vs), out)
	return nil
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
