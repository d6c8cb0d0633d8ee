//go:build linux

package gemm

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// threadCPU measures the calling thread's CPU time, which, unlike wall time,
// excludes the time the benchmark is descheduled on a shared machine. The
// goroutine is locked to its thread for the benchmark's duration.
type threadCPU struct{ start float64 }

func startThreadCPU(b *testing.B) *threadCPU {
	runtime.LockOSThread()
	b.Cleanup(runtime.UnlockOSThread)
	return &threadCPU{start: threadSeconds()}
}

func (t *threadCPU) seconds() float64 { return threadSeconds() - t.start }

func threadSeconds() float64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return float64(ts.Sec) + float64(ts.Nsec)*1e-9
}

// processSeconds is the CPU time of the whole process (every thread).
func processSeconds() float64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return float64(ts.Sec) + float64(ts.Nsec)*1e-9
}
