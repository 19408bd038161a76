//go:build !unix

package turtleenc_test

import "time"

// processCPU is not measured on this platform; the benchmarks then report 0 CPU time.
func processCPU() time.Duration { return 0 }
