//go:build !unix

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// replace runs the program at path with args, this process's streams and environment, and exits
// with its exit code (no exec(2) here). It returns only when the program could not start.
func replace(path string, args []string) error {
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err == nil || errors.As(err, &ee) {
		os.Exit(cmd.ProcessState.ExitCode())
	}
	return fmt.Errorf("starting %s: %v", path, err)
}
