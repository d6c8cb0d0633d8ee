//go:build !amd64 || purego

package privacy

func radix4Block(x0, x1, x2, x3, w1, w2 []complex128) { radix4BlockGo(x0, x1, x2, x3, w1, w2) }
