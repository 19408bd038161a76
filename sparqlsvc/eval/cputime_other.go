//go:build !linux

package eval

import "time"

// threadCPU is unknown here: the split is decided on wall time.
func threadCPU() time.Duration { return -1 }
