//go:build unix

package parser

import (
	"syscall"
	"testing"
)

// ReportCPU starts measuring the process's CPU time (user + system, all threads, so GC work counts) and returns a
// function that reports it per iteration as "cpu-ns/op". On the shared build machine wall-clock ns/op moves with
// other people's load; CPU time much less so. Exported for the external benchmarks of parser_test.
func ReportCPU(b *testing.B) func() {
	start := cpuNanos()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuNanos()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func cpuNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
