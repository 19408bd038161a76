//go:build !unix

package conformance

import "time"

// CPUTime is 0 where getrusage is missing; benchmarks then report no CPU figure.
func CPUTime() time.Duration { return 0 }

// ChildrenCPUTime is 0 where getrusage is missing.
func ChildrenCPUTime() time.Duration { return 0 }
