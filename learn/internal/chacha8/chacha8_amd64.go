//go:build amd64 && !purego

package chacha8

import "golang.org/x/sys/cpu"

//go:noescape
func iterAVX512(seed *[4]uint64, out *[128]uint64)

// iter computes one ChaCha8Rand iteration from seed into out (124 words of
// output, then the next seed); nil without AVX-512.
var iter = func() func(seed *[4]uint64, out *[128]uint64) {
	if cpu.X86.HasAVX512F {
		return iterAVX512
	}
	return nil
}()
