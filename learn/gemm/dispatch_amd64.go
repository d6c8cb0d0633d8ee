//go:build amd64 && !purego

package gemm

import "golang.org/x/sys/cpu"

// detectAsm returns the assembly paths this CPU supports, best first.
// cpu.X86.HasAVX512F (and HasAVX2) already include the OS's consent to save
// the wide registers (XGETBV), so a kernel never faults on an old kernel.
func detectAsm() []*arch {
	var paths []*arch
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasBMI2 {
		paths = append(paths, &arch{
			name: "avx512", width: 16, maxMR: [3]int{0, 14, 14}, kernels: &avx512Kernels, maskedB: true,
			dotKernels: avx512DotKernels, dotCols: 12,
			dot: dotAVX512, axpy: axpyAVX512, scal: scalAVX512, tanh: tanhAVX512, reluGrad: reluGradAVX512, relu: reluAVX512,
			rows: rowKernels{colSums: colSumsAVX512, addRowVector: addRowVectorAVX512,
				scaleRows: scaleRowsAVX512, nonFinite: nonFiniteBlockAVX512},
			rowSumSquaresNarrow: rowSumSquaresNarrowAVX512,
		})
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		paths = append(paths, &arch{
			name: "avx2", width: 8, maxMR: [3]int{0, 12, 6}, kernels: &avx2Kernels,
			dotKernels: avx2DotKernels, dotCols: 5,
			dot: dotAVX2, axpy: axpyAVX2, scal: scalAVX2, tanh: tanhAVX2, reluGrad: reluGradAVX2, relu: reluAVX2,
			rows: rowKernels{colSums: colSumsAVX2, addRowVector: addRowVectorAVX2,
				scaleRows: scaleRowsAVX2, nonFinite: nonFiniteBlockAVX2},
		})
	}
	return paths
}
