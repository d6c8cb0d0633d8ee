//go:build amd64 && !purego

package learn

import "golang.org/x/sys/cpu"

//go:noescape
func copyRunsAVX2(dst *float32, ds int, src *float32, ss int, n, w int)

//go:noescape
func addRunsAVX2(dst *float32, ds int, src *float32, ss int, n, w int)

var haveRunsAVX2 = cpu.X86.HasAVX2

// copyRunsVec is copyRuns for runs of whole vectors (w a multiple of 8)
// in one call, and reports whether it did: im2col of a 16-channel layer
// (runs of 48 floats) spent its time in memmove's per-call dispatch.
// dst and src hold every run (copyRuns slices them).
func copyRunsVec(dst []float32, ds int, src []float32, ss int, n, w int) bool {
	if !haveRunsAVX2 || w%8 != 0 {
		return false
	}
	copyRunsAVX2(&dst[0], ds, &src[0], ss, n, w)
	return true
}

// addRunsVec is addRuns for runs of whole vectors, one run after the other
// (the runs may overlap in dst), each element one float32 add as in
// addInto; it reports whether it did.
func addRunsVec(dst []float32, ds int, src []float32, ss int, n, w int) bool {
	if !haveRunsAVX2 || w%8 != 0 {
		return false
	}
	addRunsAVX2(&dst[0], ds, &src[0], ss, n, w)
	return true
}
