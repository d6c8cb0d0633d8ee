//go:build amd64 && !purego

package learn

import (
	"math"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestDecodeKernels: each vector decoder this CPU runs reproduces all 256
// codes' floats bit for bit, in every block position, and the fastest one
// is the one in use (a kernel that failed its start-up check would leave
// gathering on the slower table silently).
func TestDecodeKernels(t *testing.T) {
	kernels := map[int]bool{decodeVec512: cpu.X86.HasAVX512F, decodeVecAVX2: cpu.X86.HasAVX2 && cpu.X86.HasFMA}
	for k, ok := range kernels {
		if !ok {
			t.Logf("kernel %d: not on this CPU", k)
			continue
		}
		for shift := 0; shift < 16; shift++ {
			src := make([]uint8, 512)
			for j := range src {
				src[j] = uint8(j + shift)
			}
			dst := make([]float32, len(src))
			if n := decodeWith(k, dst, src); n != len(src) {
				t.Fatalf("kernel %d decoded %d of %d", k, n, len(src))
			}
			for j, c := range src {
				if math.Float32bits(dst[j]) != math.Float32bits(codeTable[c]) {
					t.Fatalf("kernel %d: code %d → %v, want %v", k, c, dst[j], codeTable[c])
				}
			}
		}
	}
	want := decodeTable
	switch {
	case kernels[decodeVec512]:
		want = decodeVec512
	case kernels[decodeVecAVX2]:
		want = decodeVecAVX2
	}
	if decodeKernel != want {
		t.Errorf("decodeKernel = %d, want %d", decodeKernel, want)
	}
}
