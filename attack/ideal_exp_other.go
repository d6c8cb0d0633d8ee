//go:build !amd64

package attack

// expBlock sets dst[i] = math.Exp(src[i]).
func expBlock(dst, src []float64) { expBlockGo(dst, src) }
