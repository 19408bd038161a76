//go:build linux

package eval

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time of the calling thread, or -1 when it cannot be read. The split's decision is taken on
// CPU time rather than wall time because a chunk timed on a busy machine is often descheduled half-way, which
// would charge the neighbours' time to the chain or to its consumer at random.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return -1
	}
	return time.Duration(ts.Nano())
}
