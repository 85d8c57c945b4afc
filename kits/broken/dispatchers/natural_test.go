package dispatchers_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/broken/dispatchers"
)

// Every natural-window dispatcher (a race over one yield, nothing held open) is rejected by the
// check of its race class on each of seeds 1..3; make seed-rate measures the rate over 100 seeds.
func TestNaturalDispatchersRejected(t *testing.T) {
	kit := kits.ExecutionDispatcherKit()
	n := 0
	for _, b := range dispatchers.Dispatchers() {
		if !strings.HasSuffix(b.Name, "-natural") {
			continue
		}
		n++
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			for seed := int64(1); seed <= 3; seed++ {
				res, err := kits.Run(context.Background(), kit, b.Factory(),
					kits.Options{Run: "^" + regexp.QuoteMeta(b.Catch) + "$", Timeout: 20 * time.Second, Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				if len(res) != 1 || res[0].Verdict != kits.Fail {
					t.Errorf("%s (%s), seed %d: check %s = %v, want fail", b.Name, b.Defect, seed, b.Catch, res)
				}
			}
		})
	}
	if n == 0 {
		t.Fatal("no natural-window dispatcher")
	}
}
