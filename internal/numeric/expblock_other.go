//go:build !amd64

package numeric

// ExpBlock sets dst[i] = math.Exp(src[i]) for every i.
func ExpBlock(dst, src []float64) { expBlockGo(dst, src) }
