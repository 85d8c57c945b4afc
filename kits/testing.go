package kits

import (
	"context"
	"os"
	"strconv"
	"testing"
)

// RunT runs kit as subtests of t, one per check, named by check id; each check gets a fresh target
// and a timeout. Fail and unknown verdicts fail the subtest, skip skips it. The seed comes from the
// environment variable LOOM_KITS_SEED when set.
func RunT[T any](t *testing.T, kit Kit[T], factory Factory[T], opts Options) {
	t.Helper()
	if s := os.Getenv("LOOM_KITS_SEED"); s != "" && opts.Seed == 0 {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			opts.Seed = n
		}
	}
	opts, err := opts.withDefaults(kit.Seam)
	if err != nil {
		t.Fatal(err)
	}
	parent := t.Name()
	for i := range kit.Checks {
		ch := &kit.Checks[i]
		t.Run(ch.ID, func(t *testing.T) {
			r := runOne(context.Background(), kit, ch, factory, opts)
			r.Repro = reproCommand(parent, ch.ID, r.Seed)
			switch r.Verdict {
			case Fail:
				t.Errorf("%s\nlevel %s; seed %d\nreproduce: %s\nor in a certify run add: %s", r.Message, r.Level, r.Seed, r.Repro, certifyFlags(ch.ID, r.Seed))
			case Unknown:
				t.Errorf("unknown: %s\nlevel %s; seed %d", r.Message, r.Level, r.Seed)
			case Skip:
				t.Skip(r.Message)
			}
		})
	}
}
