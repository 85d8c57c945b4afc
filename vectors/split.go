package vectors

import (
	"fmt"
	"strings"
)

// SplitArgs splits a command line into arguments without a shell: words are separated by
// unquoted blanks; single quotes keep everything literally; double quotes keep everything but a
// backslash before " or \; outside quotes a backslash escapes the next character. An
// unterminated quote, a trailing backslash or an empty command is an error.
func SplitArgs(s string) ([]string, error) {
	var args []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("command %q: unterminated single quote at byte %d", s, i)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			closed := false
			for i++; i < len(s); i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					cur.WriteByte(s[i+1])
					i++
					continue
				}
				if s[i] == '"' {
					closed = true
					break
				}
				cur.WriteByte(s[i])
			}
			if !closed {
				return nil, fmt.Errorf("command %q: unterminated double quote", s)
			}
		case c == '\\':
			if i+1 >= len(s) {
				return nil, fmt.Errorf("command %q: trailing backslash", s)
			}
			inWord = true
			cur.WriteByte(s[i+1])
			i++
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		args = append(args, cur.String())
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("command %q: empty", s)
	}
	return args, nil
}
