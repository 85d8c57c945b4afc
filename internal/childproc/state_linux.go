package childproc

import (
	"fmt"
	"os"
	"strings"
)

// Stopped reports whether process pid is stopped (SIGSTOP, a debugger): it runs no code and
// answers nothing until continued.
func Stopped(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The command name (field 2) is parenthesised and may hold spaces: the state follows the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return false
	}
	st := s[i+2]
	return st == 'T' || st == 't'
}
