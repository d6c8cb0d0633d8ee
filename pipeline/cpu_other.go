//go:build !unix

package pipeline

import "math"

// processCPUSeconds is not measured on this platform.
func processCPUSeconds() float64 { return math.NaN() }
