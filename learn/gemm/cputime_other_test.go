//go:build !linux

package gemm

import (
	"testing"
	"time"
)

// threadCPU falls back to wall time where thread CPU clocks are unavailable.
type threadCPU struct{ start time.Time }

func startThreadCPU(b *testing.B) *threadCPU { return &threadCPU{start: time.Now()} }

func (t *threadCPU) seconds() float64 { return time.Since(t.start).Seconds() }

var processStart = time.Now()

// processSeconds falls back to wall time.
func processSeconds() float64 { return time.Since(processStart).Seconds() }

// threadSeconds falls back to wall time.
func threadSeconds() float64 { return time.Since(processStart).Seconds() }
