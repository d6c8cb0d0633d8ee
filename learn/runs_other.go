//go:build !amd64 || purego

package learn

func copyRunsVec(dst []float32, ds int, src []float32, ss int, n, w int) bool { return false }

func addRunsVec(dst []float32, ds int, src []float32, ss int, n, w int) bool { return false }
