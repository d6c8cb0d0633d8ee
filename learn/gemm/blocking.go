package gemm

// Cache blocking. KC is shared by every path: it fixes where the k sum is
// split into chunks, and keeping it equal is what makes the AVX2 and AVX-512
// results bit-identical (see the package comment).
const (
	// KC is the k-chunk length: one packed B micro-panel (KC × 32 floats =
	// 32 KiB at KC = 256) stays in L1/L2 while every A panel of a block
	// streams past it.
	KC = 256

	// mcTarget bounds the rows of a packed A block (mcTarget × KC floats ≈
	// 384 KiB), well inside a 1 MiB L2.
	mcTarget = 384

	// ncTarget bounds the columns of a packed B block (KC × ncTarget floats =
	// 4 MiB), a slice of L3.
	ncTarget = 4096
)

// packAMinPanels: A is packed (rather than read in place) only when every
// packed panel is reused by at least this many column panels of B; for
// skinny outputs (n of 10 or 32) the copy would cost as much as the multiply.
const packAMinPanels = 4

// plan fixes every per-problem decision from the full problem shape, so that
// the blocks of a parallel call make the same choices as a serial call.
type plan struct {
	nvMax int  // vectors per row of a full column panel (1 or 2)
	nr    int  // columns per full panel: nvMax·width
	mr    int  // rows per full tile
	mc    int  // rows per A block, a multiple of mr
	nc    int  // columns per B block, a multiple of nr
	packA bool // copy A blocks into panels
	packB bool // copy full-width B panels (edge panels are always copied)
}

func (ar *arch) plan(transA, transB bool, m, n, k int) plan {
	var p plan
	p.nvMax = 2
	if n <= ar.width {
		p.nvMax = 1
	}
	p.nr = p.nvMax * ar.width
	p.mr = ar.maxMR[p.nvMax]
	p.mc = max(p.mr, mcTarget/p.mr*p.mr)
	p.nc = max(p.nr, ncTarget/p.nr*p.nr)
	colPanels := (n + p.nr - 1) / p.nr
	p.packA = colPanels >= packAMinPanels
	// A transposed B cannot be read in place; an untransposed one is copied
	// when more than one row panel will reuse it.
	p.packB = transB || m > p.mr
	return p
}
