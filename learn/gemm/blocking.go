package gemm

// Cache blocking. kcBlock is shared by every path: it fixes where the k sum is
// split into chunks, and keeping it equal is what makes the AVX2 and AVX-512
// results bit-identical (see the package comment).
const (
	// kcBlock is the longest k-chunk: one B micro-panel (kcBlock × 32 floats
	// = 32 KiB) stays in L1/L2 while every A panel of a block streams past
	// it. Tuned on Zen 4: 128, 192, 384 and 512 were slower or equal.
	kcBlock = 256
)

// ncTarget bounds the columns of a packed B block (kcBlock × ncTarget
// floats = 4 MiB), a slice of L3.
var ncTarget = 4096

// mcTarget bounds the rows of a packed A block (mcTarget × kcBlock
// floats ≈ 384 KiB), well inside a 1 MiB L2.
var mcTarget = 384

// An untransposed A is read in place: the mr rows of a tile are mr
// sequential streams, which the prefetchers (and the kernels' own prefetch)
// follow well. The exception is a row stride that is a multiple of
// aliasStride floats: every row of the tile then maps to the same few L1 sets
// and they evict each other (1024² · 1024² ran at 55 instead of 90 GFLOP/s),
// so such an A is packed once its panels are reused by packAMinPanels
// column panels. A stored transposed is read in place always (one stream).
//
// Since the vector packer (pack.go), packing is cheap enough to pay on its
// own wherever a block of A is reused by packAWide column panels with
// k ≥ packAWideK (measured: 512³ from 137 to 147 GFLOP/s, 256×512×784 NN
// from 144 to 150, TN 512×784×256 from 132 to 142; thread CPU time,
// Sapphire Rapids, shared machine). Tiles under 8 rows (AVX2's 6×16) go
// through the six-row packer (packA6), which pays from packAWideShort column
// panels: on Zen 3, 256×512×784 NN and NT and 512³ gained 5–10% (32 panels),
// while 64×128×784 (8 panels) lost 5% and 16×196×64 (13) 8%. A stored
// transposed is packed only for blocks of at least mc rows: small ones lost
// ≈ 5–10% to the copy.
var (
	aliasStride    = 1024 // floats (4 KiB)
	packAMinPanels = 2
	packAWide      = 8
	packAWideK     = 64
	packAWideShort = 16
)

// packBMinTiles: an untransposed B is packed only when at least this many
// row tiles reuse each panel. Reading it in place measured faster at every
// size tried (28…448 rows, strides 256…1024; before packBFull), so packing
// is left for transposed B, which the kernels cannot read in place, and for
// B whose row stride defeats the caches, once packBWideTiles row tiles reuse
// each panel:
//
//   - packBMinStride: rows at least this many floats apart (4 KiB: every row
//     of a kc-row panel on its own page, and at powers of two in the same L1
//     sets). Measured: NN at n = 2048 went from 82 to 106 GFLOP/s (thread
//     CPU time, shared machine, 3 alternating runs each), n = 1024 from 95
//     to 104.
//   - packBAliasStride: a row stride that is a multiple of this many floats
//     (512 bytes) puts a panel's kc rows in at most 8 of L1's 64 sets, 64
//     lines for a panel of 256 or more. Packed a row at a time (packBFull),
//     such B gained on Zen 3 (3 alternating runs, medians): 512³ 24%,
//     256×512×784 NN 24%, 256×512×10 NN 33%, 3200×256×32 NN 28%,
//     64×128×784 NN 5%; strides like 784 keep every set and stay in place.
var (
	packBMinTiles    = 1 << 30
	packBMinStride   = 1024
	packBWideTiles   = 8
	packBAliasStride = 128
)

// plan fixes every per-problem decision from the full problem shape, so that
// the blocks of a parallel call make the same choices as a serial call.
type plan struct {
	dot   bool // narrow output: dot-product kernels (dot.go), no k-chunks
	kc    int  // k-chunk length (chunkLength)
	nvMax int  // vectors per row of a full column panel (1 or 2)
	nr    int  // columns per full panel: nvMax·width
	mr    int  // rows per tile at most (tiles are balanced, see rowTiles)
	mc    int  // rows per A block, a multiple of mr
	nc    int  // columns per B block, a multiple of nr
	packA bool // copy A blocks into panels
	packB bool // copy every B panel (else only edge panels, and only on paths whose kernels cannot mask B)
}

func (ar *arch) plan(transA, transB bool, m, n, k, lda, ldb int) plan {
	var p plan
	p.dot = useDot(ar, transA, n, k)
	p.kc = chunkLength(k)
	p.nvMax = 2
	if n <= ar.width {
		p.nvMax = 1
	}
	p.nr = p.nvMax * ar.width
	p.mr = ar.maxMR[p.nvMax]
	p.mc = ar.mc[p.nvMax]
	p.nc = ncTarget // a multiple of every nr
	colPanels := (n + p.nr - 1) / p.nr
	wide := colPanels >= packAWide && k >= packAWideK
	if transA {
		// A stored transposed is read in place with one line-sized step per
		// k (contig layout, stride lda); that holds up while the tile's
		// lines stay cached, i.e. for short A blocks.
		p.packA = wide && m >= p.mc
	} else {
		// Tiles under 8 rows (AVX2's 6×16) need more column panels to
		// repay their packer (packAWideShort).
		p.packA = lda%aliasStride == 0 && colPanels >= packAMinPanels || wide && (p.mr >= 8 || colPanels >= packAWideShort)
	}
	rowTiles := (m + p.mr - 1) / p.mr
	p.packB = transB || rowTiles >= packBMinTiles || ((ldb >= packBMinStride || ldb%packBAliasStride == 0) && rowTiles >= packBWideTiles)
	return p
}

// ChunkLength is the length of the chunks Sgemm cuts a sum over k terms
// into on its broadcast path (see the package comment): each
// chunk is one FMA chain from +0, added onto the previous chunks' result.
// Code that reproduces Sgemm's bits restarts its chains at the same
// boundaries.
func ChunkLength(k int) int { return chunkLength(k) }

// chunkLength splits k into the fewest chunks of at most kcBlock, of equal
// length rounded up to a multiple of 8, so that no chunk is a short
// remainder (784 = 264+264+256, not 256+256+256+16). It depends on k alone:
// every path and every block of a parallel call cut k at the same places.
func chunkLength(k int) int {
	if k <= kcBlock {
		return k
	}
	chunks := (k + kcBlock - 1) / kcBlock
	return ((k+chunks-1)/chunks + 7) / 8 * 8
}
