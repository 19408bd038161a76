package parser

import (
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
)

// ReportCPU starts measuring the process's CPU time (user + system, all threads, so GC work counts) and returns a
// function that reports it per iteration as "cpu-ns/op". On the shared build machine wall-clock ns/op moves with
// other people's load; CPU time much less so. Exported for the external benchmarks of parser_test.
func ReportCPU(b *testing.B) func() {
	start := conformance.CPUTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(conformance.CPUTime()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}
