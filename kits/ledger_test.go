package kits_test

import (
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/kits"
)

func TestLedger(t *testing.T) {
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	l, err := kits.ReadLedger(strings.NewReader(`[
		{"checkId":"eventstore/store-now","reason":"clock in seconds until v2"},
		{"checkId":"eventstore/fence-zombie","reason":"fixed","expires":"2026-01-01T00:00:00Z"},
		{"checkId":"eventstore/isolation","reason":"was broken"}]`))
	if err != nil {
		t.Fatal(err)
	}
	results := []kits.Result{
		{CheckID: "eventstore/store-now", Verdict: kits.Fail},
		{CheckID: "eventstore/fence-zombie", Verdict: kits.Fail},
		{CheckID: "eventstore/isolation", Verdict: kits.Pass},
		{CheckID: "eventstore/read-range-bounds", Verdict: kits.Unknown},
	}
	v := kits.ApplyLedger(results, l, now)
	if len(v.Unexpected) != 2 || v.Unexpected[0].CheckID != "eventstore/fence-zombie" || v.Unexpected[1].CheckID != "eventstore/read-range-bounds" {
		t.Errorf("Unexpected = %+v, want fence-zombie (expired entry) and read-range-bounds (unlisted unknown)", v.Unexpected)
	}
	if len(v.Stale) != 1 || v.Stale[0].CheckID != "eventstore/isolation" {
		t.Errorf("Stale = %+v, want isolation (listed but passes)", v.Stale)
	}
	if len(v.Expired) != 1 || v.OK() {
		t.Errorf("Expired = %+v, OK = %v; want one expired entry and not OK", v.Expired, v.OK())
	}
	for _, bad := range []string{`[{"checkId":"","reason":"x"}]`, `[{"checkId":"a"}]`, `[{"checkId":"a","reason":"x"},{"checkId":"a","reason":"y"}]`, `{`, `[{"checkId":"a","reason":"x","extra":1}]`} {
		if _, err := kits.ReadLedger(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadLedger(%s) = nil error, want one", bad)
		}
	}
}
