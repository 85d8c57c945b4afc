// Package cputime reads the CPU time this process has used, the clock every ratio and throughput
// figure of the harness is measured in: time the machine gives to other processes does not count.
package cputime
