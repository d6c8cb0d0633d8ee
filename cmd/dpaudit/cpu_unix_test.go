//go:build unix

package main

import (
	"syscall"
	"time"
)

// processCPU is the process's CPU seconds so far (user + system).
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
