//go:build unix

package conformance

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time (user and system) this process has used, for benchmarks: on a shared machine wall time
// swings with other people's load, while CPU time per operation (GC included) says what the work itself costs.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ChildrenCPUTime is the CPU time (user and system) of this process's waited-for children and their descendants:
// a reference tool a benchmark runs beside ldhub's own code.
func ChildrenCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
