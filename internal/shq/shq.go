// Package shq quotes words for a POSIX shell, so every reproduce line the harness prints can be
// pasted into a shell and runs the same command, whatever the binary's path or a flag's value
// holds (spaces, quotes, globs, semicolons).
//
//	fmt.Println(shq.Join("/opt/my tools/loom-conform", "certify", "all", "--run", "^a$"))
//	// '/opt/my tools/loom-conform' certify all --run '^a$'
package shq

import "strings"

// Quote returns s as one shell word: unchanged when it holds only characters no shell treats
// specially, else in single quotes (each single quote inside closes the quotes, is escaped with a
// backslash and reopens them).
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@,+%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join quotes each word and joins them with spaces.
func Join(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = Quote(w)
	}
	return strings.Join(q, " ")
}
