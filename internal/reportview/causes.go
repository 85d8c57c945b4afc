package reportview

import (
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Cause is several failing items that share one difference: the same line of their (-want +got)
// diffs, or the same answer where the failure grammar says `= <got>, want`. One defect of a store
// (every append writes `metadata: null`) fails many checks; the reader should see it once.
type Cause struct {
	// Evidence is the shared line, as it appears in the messages.
	Evidence string
	Items    []Item
}

// Excused reports whether the ledger excuses every item of the cause: it is then shown folded,
// not as a failure to act on.
func (c Cause) Excused() bool {
	for _, it := range c.Items {
		if it.attention() != 5 {
			return false
		}
	}
	return true
}

// MinCause is how many items must share a difference before it is called their one cause.
const MinCause = 3

// Causes groups items (as Attention gives them) by a shared difference: greedily, the difference
// the most items share first, while at least MinCause share one. Items in no group come back in
// rest, in their order.
func Causes(items []Item) (causes []Cause, rest []Item) {
	keys := make([]map[string]string, len(items)) // per item: normalised key → evidence
	for i, it := range items {
		keys[i] = evidenceOf(it.Message)
	}
	taken := make([]bool, len(items))
	for {
		count := map[string]int{}
		evidence := map[string]string{}
		for i := range items {
			if taken[i] {
				continue
			}
			for k, e := range keys[i] {
				count[k]++
				if _, ok := evidence[k]; !ok {
					evidence[k] = e
				}
			}
		}
		best, n := "", 0
		for k, c := range count {
			if c > n || c == n && k < best {
				best, n = k, c
			}
		}
		if n < MinCause {
			break
		}
		c := Cause{Evidence: evidence[best]}
		for i, it := range items {
			if !taken[i] {
				if _, ok := keys[i][best]; ok {
					taken[i] = true
					c.Items = append(c.Items, it)
				}
			}
		}
		causes = append(causes, c)
	}
	for i, it := range items {
		if !taken[i] {
			rest = append(rest, it)
		}
	}
	sort.SliceStable(causes, func(i, j int) bool { return len(causes[i].Items) > len(causes[j].Items) })
	return causes, rest
}

var (
	gotPart = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\) = (.+?), want `) })
	digits  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[0-9]+`) })
	// hexOrID masks generated names (execution ids, nonces, hashes) so that the same defect seen
	// through different executions is one key.
	hexOrID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z_-]*[0-9a-f]{8,}[A-Za-z0-9_-]*`) })
)

// evidenceOf gives the candidate causes of one message: every diff line that adds or removes
// something with words in it, and the answer of its first line.
func evidenceOf(msg string) map[string]string {
	out := map[string]string{}
	add := func(e string) {
		e = strings.TrimSpace(e)
		k := normalise(e)
		if len(strings.Trim(k, "-+ {}[](),:\"N")) < 4 {
			return // too little to be a cause: a brace, a bare number
		}
		if _, ok := out[k]; !ok {
			out[k] = e
		}
	}
	if m := gotPart().FindStringSubmatch(firstLine(msg)); m != nil {
		add("= " + m[1])
	}
	inDiff := false
	for _, line := range strings.Split(msg, "\n") {
		if strings.HasPrefix(line, "(-want +got)") {
			inDiff = true
			continue
		}
		if inDiff && (strings.HasPrefix(line, "-") || strings.HasPrefix(line, "+") ||
			strings.HasPrefix(strings.TrimLeft(line, " \t"), "- ") || strings.HasPrefix(strings.TrimLeft(line, " \t"), "+ ")) {
			add(line)
		}
	}
	return out
}

func normalise(s string) string {
	s = hexOrID().ReplaceAllString(s, "ID")
	s = digits().ReplaceAllString(s, "N")
	return strings.Join(strings.Fields(s), " ")
}
