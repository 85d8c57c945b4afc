package certify

import (
	"fmt"
	"io"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/reportview"
)

// WriteCauses writes, after the summary, the failures that share one cause: when at least
// reportview.MinCause checks that need attention fail with the same difference (a diff line, or the
// same answer), one line names the difference and the checks, so a reader sees one defect once
// ("4 checks fail with one difference: + Metadata: nil — eventstore/roundtrip-values, …"). Nothing
// when no cause is shared.
func WriteCauses(w io.Writer, r *Report) error {
	causes, _ := reportview.Causes(HTMLPage(r).Attention())
	for _, c := range causes {
		ids := make([]string, len(c.Items))
		for i, it := range c.Items {
			ids[i] = it.ID
		}
		if _, err := fmt.Fprintf(w, "%d checks fail with one difference: %s — %s\n", len(c.Items), c.Evidence, strings.Join(ids, ", ")); err != nil {
			return err
		}
	}
	return nil
}
