package certify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/internal/shard"
)

// viaJSON runs target with cfg and returns the report through its --report form (what report merge
// reads).
func viaJSON(t *testing.T, target certify.Target, cfg certify.Config) *certify.Report {
	t.Helper()
	rep, err := certify.Run(context.Background(), target, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := certify.WriteJSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	back, err := certify.ReadReport(b.Bytes())
	if err != nil {
		t.Fatalf("ReadReport(%s) = %v", cfg.Shard, err)
	}
	return back
}

// untimed is a report's JSON without timings and what differs between two starts of one target.
func untimed(t *testing.T, r *certify.Report) map[string]any {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "durationMs")
	delete(m, "started")
	delete(m, "logs")
	delete(m, "roundTrip") // a measurement, as durations are
	for _, k := range []string{"url", "pid", "containerId"} {
		delete(m["target"].(map[string]any), k)
	}
	for _, c := range m["checks"].([]any) {
		c := c.(map[string]any)
		delete(c, "durationMs")
		// Kits name the executions they create freshly each run: two whole runs differ there too.
		if msg, ok := c["message"].(string); ok {
			c["message"] = freshID.ReplaceAllString(msg, "kit-*-")
		}
		// an exploration's finding names them too, and the run's nonce alone (its script's ids)
		if f, ok := c["finding"]; ok {
			b, _ := json.Marshal(f)
			c["finding"] = freshNonce.ReplaceAllString(freshID.ReplaceAllString(string(b), "kit-*-"), `"*"`)
		}
	}
	return m
}

var freshID = regexp.MustCompile(`kit-[0-9a-f]+-[0-9a-f]+-`)

// freshNonce is a run's nonce alone, as a JSON string.
var freshNonce = regexp.MustCompile(`"[0-9a-f]{16}"`)

// Reference: spec §10, I-SHARD-1..3 — sharded certify runs merge into the report one run gives,
// concluded again over the union (certified, not certified with a partly untrue ledger, partial);
// a shard is never a certificate, not even of a store that passes everything; a merge refuses what
// is not one split of one run.
func TestShardsMergeIntoOneRun(t *testing.T) {
	const bad, good = "eventstore/read-range-bounds", "eventstore/append-conflict"
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	ledger, err := certify.ParseLedger("ledger.json", []byte(`{"expectedFailures":[{"check":"`+bad+`","reason":"known"},`+
		`{"check":"`+good+`","reason":"untrue: it passes"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	sqlite := certify.BuiltinTarget{Backend: certify.Backend{Name: "sqlite"}}
	cases := []struct {
		name   string
		target certify.Target
		cfg    certify.Config
		want   certify.Verdict
	}{
		{"certified", sqlite, certify.Config{Kinds: []string{"eventstore", "snapshotstore"}}, certify.Certified},
		{"broken store, untrue ledger", certify.BuiltinTarget{Backend: certify.Backend{Name: "broken:off-by-one-read-range"}},
			certify.Config{Kinds: []string{"eventstore"}, Ledger: ledger}, certify.NotCertified},
		{"--run subset", sqlite, certify.Config{Kinds: []string{"eventstore"}, Run: "append"}, certify.Partial},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Seed, cfg.ToolVersion, cfg.Now = 42, "test", func() time.Time { return now }
			one := viaJSON(t, tc.target, cfg)
			var parts []*certify.Report
			for i := 1; i <= 3; i++ {
				c := cfg
				c.Shard = shard.Shard{Index: i, Count: 3}
				p := viaJSON(t, tc.target, c)
				if p.Verdict == certify.Certified || p.Verdict == certify.CertifiedWithWaivers {
					t.Errorf("shard %d/3 verdict %s: a shard must never be a certificate", i, p.Verdict)
				}
				parts = append(parts, p)
			}
			merged, err := certify.MergeReports(parts)
			if err != nil {
				t.Fatalf("MergeReports(3 shards) = %v", err)
			}
			if one.Verdict != tc.want || merged.Verdict != tc.want {
				t.Errorf("verdict: one run %s, merged %s; want %s (problems %v)", one.Verdict, merged.Verdict, tc.want, merged.Problems)
			}
			merged.Started, one.Started = now, now
			if diff := cmp.Diff(untimed(t, one), untimed(t, merged)); diff != "" {
				t.Errorf("MergeReports(3 shards) differs from one run (-want +got):\n%s", diff)
			}
			if tc.want == certify.Certified {
				headline := certify.Headline(parts[0])
				msg, _ := certify.BadgeMessage(parts[0])
				if parts[0].Verdict != certify.Partial || !strings.Contains(headline, "--shard 1/3") || strings.Contains(msg, "certified") {
					t.Errorf("shard 1/3 of a passing run: verdict %s, headline %q, badge %q; want partial naming the shard, no certified badge",
						parts[0].Verdict, headline, msg)
				}
			}
		})
	}

	cfg := certify.Config{Kinds: []string{"eventstore"}, Run: "append", Seed: 42, ToolVersion: "test"}
	part := func(c certify.Config, i int) *certify.Report {
		c.Shard = shard.Shard{Index: i, Count: 3}
		return viaJSON(t, sqlite, c)
	}
	p1, p2, p3 := part(cfg, 1), part(cfg, 2), part(cfg, 3)
	otherSeed := cfg
	otherSeed.Seed = 43
	moved := *p2
	moved.Checks = append(append(moved.Checks[:0:0], p2.Checks...), p1.Checks[0])
	for _, bad := range []struct {
		name, want string
		reps       []*certify.Report
	}{
		{"a shard missing", "2/3", []*certify.Report{p1, p3}},
		{"a shard twice", "two shards", []*certify.Report{p1, p2, p2, p3}},
		{"another seed", "--seed", []*certify.Report{p1, part(otherSeed, 2), p3}},
		{"another target", "target", []*certify.Report{p1, part(cfg, 2), viaJSON(t, certify.BuiltinTarget{Backend: certify.Backend{Name: "memory"}},
			func() certify.Config { c := cfg; c.Shard = shard.Shard{Index: 3, Count: 3}; return c }())}},
		{"a check in the wrong shard", "does not belong", []*certify.Report{p1, &moved, p3}},
		{"a whole run", "not a shard", []*certify.Report{viaJSON(t, sqlite, cfg)}},
	} {
		if _, err := certify.MergeReports(bad.reps); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("MergeReports(%s) = %v, want an error saying %q", bad.name, err, bad.want)
		}
	}
}
