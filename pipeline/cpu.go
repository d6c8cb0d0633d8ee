package pipeline

import (
	"math"
	"sync"
)

// CPU time of a node. The process's CPU time (user + system, every
// thread, from getrusage) is read whenever a node starts or finishes; the
// time used between two readings is shared equally by the nodes that were
// running in between. With one node at a time (-j 1) a node's share is
// exactly the CPU the process spent while it ran (including the goroutines
// it started, and the garbage collector); with several at once, nodes of
// unequal appetite get the average. Either way the shares add up to the
// process's CPU time, and a shared machine's other load is not counted, as
// it would be in wall time. It is a measurement, recorded in the node's
// meta.json (Meta.CPUSeconds) and never part of a key or an output, so
// cached results stay byte-identical.
type cpuMeter struct {
	mu      sync.Mutex
	last    float64
	running map[*cpuShare]bool
}

type cpuShare struct{ seconds float64 }

var nodeCPU = &cpuMeter{running: map[*cpuShare]bool{}}

// advance charges the CPU time since the last reading to the running
// nodes; the caller holds mu.
func (m *cpuMeter) advance() {
	now := processCPUSeconds()
	d := now - m.last
	m.last = now
	if len(m.running) == 0 || !(d > 0) {
		return
	}
	share := d / float64(len(m.running))
	for s := range m.running {
		s.seconds += share
	}
}

func (m *cpuMeter) start() *cpuShare {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.advance()
	s := &cpuShare{}
	m.running[s] = true
	return s
}

// stop returns the node's CPU seconds (NaN where the platform cannot
// measure them).
func (m *cpuMeter) stop(s *cpuShare) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.advance()
	delete(m.running, s)
	if math.IsNaN(m.last) {
		return math.NaN()
	}
	return s.seconds
}
