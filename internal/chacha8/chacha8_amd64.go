//go:build amd64 && !purego

package chacha8

import "golang.org/x/sys/cpu"

//go:noescape
func iterAVX512(seed *[4]uint64, out *[128]uint64)

//go:noescape
func iterAVX2(seed *[4]uint64, out *[128]uint64)

// iters are the vector iterations this CPU runs, widest first.
var iters = func() map[string]func(seed *[4]uint64, out *[128]uint64) {
	m := map[string]func(seed *[4]uint64, out *[128]uint64){}
	if cpu.X86.HasAVX512F {
		m["avx512"] = iterAVX512
	}
	if cpu.X86.HasAVX2 {
		m["avx2"] = iterAVX2
	}
	return m
}()

// iter computes one ChaCha8Rand iteration from seed into out (124 words of
// output, then the next seed); nil without AVX2.
var iter, iterName = func() (func(seed *[4]uint64, out *[128]uint64), string) {
	for _, name := range []string{"avx512", "avx2"} {
		if f := iters[name]; f != nil {
			return f, name
		}
	}
	return nil, ""
}()
