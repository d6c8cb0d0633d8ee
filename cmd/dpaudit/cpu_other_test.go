//go:build !unix

package main

import "math"

// processCPU is not measured here (the benchmarks report NaN).
func processCPU() float64 { return math.NaN() }
