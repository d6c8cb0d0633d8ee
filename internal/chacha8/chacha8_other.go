//go:build !amd64 || purego

package chacha8

var iters = map[string]func(seed *[4]uint64, out *[128]uint64){}

var (
	iter     func(seed *[4]uint64, out *[128]uint64)
	iterName string
)
