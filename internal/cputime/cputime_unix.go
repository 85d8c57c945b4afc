//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process returns the user plus system CPU time of this process so far, every thread counted
// (0 if the system cannot say).
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Children returns the user plus system CPU time of this process's child processes that have
// ended and been waited for (0 if the system cannot say): the cost of a command line run as a
// child, measured in the same clock as Process.
func Children() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
