package cputime

import (
	"syscall"
	"time"
)

// Process returns the user plus system CPU time of this process so far, every thread counted
// (0 if the system cannot say).
func Process() time.Duration {
	h, err := syscall.GetCurrentProcess()
	if err != nil {
		return 0
	}
	var created, exited, kernel, user syscall.Filetime
	if err := syscall.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0
	}
	return time.Duration((ticks(kernel) + ticks(user)) * 100) // a FILETIME counts 100 ns ticks
}

func ticks(f syscall.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
