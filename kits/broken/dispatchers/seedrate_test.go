//go:build seedrate

// The seed-rate measurement is a long run of its own (make seed-rate builds it with -tags
// seedrate): it is not part of the default suite, where nothing skips.

package dispatchers_test

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/broken/dispatchers"
)

// TestSeedDependence measures, for every broken dispatcher, on how many of LOOM_KITS_SEED_RATE
// seeds (e.g. 100) the check meant for it rejects it, and fails below 99 %. The dispatcher checks
// wait on leases, so it takes minutes: `make seed-rate`.
func TestSeedDependence(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("LOOM_KITS_SEED_RATE"))
	if n <= 0 {
		t.Skip("set LOOM_KITS_SEED_RATE=100 (make seed-rate) to measure how often each check catches its broken dispatcher")
	}
	only := regexp.MustCompile(os.Getenv("LOOM_KITS_SEED_RATE_RUN"))
	kit := kits.ExecutionDispatcherKit()
	for _, b := range dispatchers.Dispatchers() {
		if !only.MatchString(b.Name) {
			continue
		}
		t.Run(b.Name+"/"+b.Catch, func(t *testing.T) {
			t.Parallel()
			caught := 0
			for seed := int64(1); seed <= int64(n); seed++ {
				res, err := kits.Run(context.Background(), kit, b.Factory(),
					kits.Options{Run: "^" + regexp.QuoteMeta(b.Catch) + "$", Timeout: 20 * time.Second, Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				if len(res) == 1 && res[0].Verdict == kits.Fail {
					caught++
				}
			}
			t.Logf("seed rate: %s rejects %s on %d/%d seeds (%.1f %%)", b.Catch, b.Name, caught, n, 100*float64(caught)/float64(n))
			if caught*100 < 99*n {
				t.Errorf("%s rejects %s (%s) on %d/%d seeds, want >= 99 %%", b.Catch, b.Name, b.Defect, caught, n)
			}
		})
	}
}
