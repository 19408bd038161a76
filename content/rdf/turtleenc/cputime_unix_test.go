//go:build unix

package turtleenc_test

import (
	"syscall"
	"time"
)

// processCPU is the user+system CPU time of this process so far. Benchmarks report it next to wall time because
// the machine is shared: wall time swings with other people's load, CPU time much less.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
