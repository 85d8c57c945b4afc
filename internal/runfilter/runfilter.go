package runfilter

import (
	"fmt"
	"regexp"
	"strings"
)

// Compile compiles a --run pattern; "" is nil (every id selected).
func Compile(pattern string) (*regexp.Regexp, error) {
	if pattern == "" {
		return nil, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("--run %q: %v", pattern, err)
	}
	return re, nil
}

// Selects returns nil when re is nil or matches one of ids, else the error that names the pattern,
// how many ids there are of noun ("check", "vector", …) and a few of them: those sharing a word
// with the pattern first.
func Selects(re *regexp.Regexp, noun string, ids []string) error {
	if re == nil {
		return nil
	}
	for _, id := range ids {
		if re.MatchString(id) {
			return nil
		}
	}
	if len(ids) == 0 {
		return fmt.Errorf("--run %q selects no %s: there are none", re.String(), noun)
	}
	return fmt.Errorf("--run %q selects no %s (of %d: %s)", re.String(), noun, len(ids), strings.Join(Nearest(re.String(), ids, 5), ", ")+", …")
}

// Nearest picks up to n ids to show beside a pattern that matched none: the ids that share the
// most words with it (the words of a typo'd id are mostly right), then the first ones.
func Nearest(pattern string, ids []string, n int) []string {
	words := regexp.MustCompile(`[A-Za-z0-9]{3,}`).FindAllString(strings.ToLower(pattern), -1)
	score := func(id string) int {
		s, lower := 0, strings.ToLower(id)
		for _, w := range words {
			if strings.Contains(lower, w) {
				s++
			}
		}
		return s
	}
	var out []string
	for best := len(words); best >= 0 && len(out) < n; best-- {
		for _, id := range ids {
			if len(out) == n {
				break
			}
			if score(id) == best {
				out = append(out, id)
			}
		}
	}
	return out
}
