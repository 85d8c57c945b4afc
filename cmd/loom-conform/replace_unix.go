//go:build unix

package main

import (
	"fmt"
	"os"
	"syscall"
)

// replace executes the program at path with args in place of this process (execve): its
// arguments, streams, signals and exit code are the caller's, and its argv[0] is this one's, so a
// reproduce line it prints names the command as the user typed it. It returns only on failure.
func replace(path string, args []string) error {
	err := syscall.Exec(path, append([]string{os.Args[0]}, args...), os.Environ())
	return fmt.Errorf("starting %s: %v", path, err)
}
