package kits

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/loom-kernel/loom-conform/kits/explore"
)

// RunT runs kit as subtests of t, one per check, named by check id; each check gets a fresh target
// and a timeout. It gives the verdict certify gives (DESIGN §7.1): a failure or an unknown of a
// required check fails the subtest; a recommendation not met (a failure or unknown binding only
// choices or SHOULDs) is logged and passes, unless opts.Strict holds the target to it; skip skips.
// Failure lines point at the caller of RunT (or of kits.EventStore and its siblings), not into this
// package. The seed comes from the environment variable LOOM_KITS_SEED when set, and
// LOOM_KITS_STRICT=1 sets Strict; LOOM_KITS_EXPLORE=N sets Explore, LOOM_KITS_FINDINGS=DIR Findings
// and LOOM_KITS_REPLAY=FILE replays that findings file (Replay) as certify --replay does.
func RunT[T any](t *testing.T, kit Kit[T], factory Factory[T], opts Options) {
	t.Helper()
	if s := os.Getenv("LOOM_KITS_SEED"); s != "" && opts.Seed == 0 {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			opts.Seed = n
		}
	}
	if b, err := strconv.ParseBool(os.Getenv("LOOM_KITS_STRICT")); err == nil && b {
		opts.Strict = true
	}
	if n, err := strconv.Atoi(os.Getenv("LOOM_KITS_EXPLORE")); err == nil && n > 0 && opts.Explore == 0 {
		opts.Explore = n
	}
	if d := os.Getenv("LOOM_KITS_FINDINGS"); d != "" && opts.Findings == "" {
		opts.Findings = d
	}
	if f := os.Getenv("LOOM_KITS_REPLAY"); f != "" && opts.Replay == nil {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("LOOM_KITS_REPLAY: %v", err)
		}
		s, err := explore.ParseScript(data)
		if err != nil {
			t.Fatalf("LOOM_KITS_REPLAY=%s: %v", f, err)
		}
		opts.Replay = &s
	}
	opts, err := opts.withDefaults(kit.Seam)
	if err != nil {
		t.Fatal(err)
	}
	var filter *regexp.Regexp
	if opts.Run != "" {
		if filter, err = regexp.Compile(opts.Run); err != nil {
			t.Fatalf("options: Run: %v", err)
		}
	}
	parent := t.Name()
	for i := range kit.Checks {
		ch := &kit.Checks[i]
		if filter != nil && !filter.MatchString(ch.ID) || opts.Replay != nil && ch.ID != opts.Replay.Check {
			continue
		}
		t.Run(ch.ID, func(t *testing.T) {
			t.Helper()
			r := runOne(context.Background(), kit, ch, factory, opts)
			r.Repro = reproCommand(parent, ch.ID, r.Seed)
			if r.FindingFile != "" {
				r.Repro = "LOOM_KITS_REPLAY=" + r.FindingFile + " " + r.Repro // the finding's own script
			}
			if opts.Replay != nil && r.Verdict == Pass {
				t.Logf("%s: the replayed script no longer reproduces (%d steps answered as the reference does)", ch.ID, len(opts.Replay.Steps))
			}
			switch {
			case r.Verdict == Skip:
				t.Skip(r.Message)
			case r.Verdict == Pass:
			case !Blocks(r) && !opts.Strict:
				t.Logf("recommendation not met (certified all the same; Options.Strict or LOOM_KITS_STRICT=1 makes it fail): %s: %s\nseed %d; reproduce: %s",
					r.Verdict, r.Message, r.Seed, r.Repro)
			case r.Verdict == Fail:
				t.Errorf("%s\n%s (level %s); seed %d\nreproduce: %s\nor in a certify run add: %s", r.Message, r.Requirement, r.Level, r.Seed, r.Repro, certifyFlags(ch.ID, r.Seed))
			default:
				t.Errorf("unknown: %s\n%s (level %s); seed %d\nreproduce: %s", r.Message, r.Requirement, r.Level, r.Seed, r.Repro)
			}
		})
	}
}
