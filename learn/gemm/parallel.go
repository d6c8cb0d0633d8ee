package gemm

import "sync"

// minFlopsPerThread keeps each goroutine's share well above the cost of
// starting and joining it (a few µs ≈ a few hundred kFLOP at these rates).
const minFlopsPerThread = 1 << 20

// SgemmParallel is [Sgemm] with the output split into up to `threads` blocks
// of whole row tiles or column panels, each computed by its own goroutine.
// The k dimension is never split and every block makes the decisions of the
// whole problem, so the result is bit-identical to Sgemm's for any thread
// count. threads ≤ 1, or a problem too small to share, runs on the calling
// goroutine.
func SgemmParallel(threads int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if err := Check(transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc); err != nil {
		panic(err)
	}
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || alpha == 0 {
		scaleMatrix(m, n, beta, c, ldc)
		return
	}
	ar := current
	pl := ar.plan(transA, transB, m, n, k, lda, ldb)
	flops := 2 * float64(m) * float64(n) * float64(k)
	threads = min(threads, int(flops/minFlopsPerThread))

	byRows, rowTiles, colTiles := splitByRows(&pl, transB, m, n, threads)
	units, unit, limit := m, 1, m
	if !byRows {
		units, unit, limit = (n+ar.width-1)/ar.width, ar.width, n
	}
	threads = min(threads, units, max(rowTiles, colTiles))
	if threads <= 1 {
		ws := workspaces.Get().(*workspace)
		ar.run(&pl, ws, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		workspaces.Put(ws)
		return
	}

	// Rows split and B packed: pack it once, shared out, for all blocks.
	var pre [][]float32
	if byRows && pl.packB && !pl.dot {
		ws := workspaces.Get().(*workspace)
		defer workspaces.Put(ws)
		pre = ar.prepackB(&pl, threads, transB, n, k, b, ldb, ws)
	}
	var wg sync.WaitGroup
	for t := 0; t < threads; t++ {
		lo := units * t / threads * unit
		hi := min(units*(t+1)/threads*unit, limit)
		block := func() {
			ws := workspaces.Get().(*workspace)
			defer workspaces.Put(ws)
			if byRows {
				aOff := lo * lda // A stored m×k: rows lo…
				if transA {
					aOff = lo // A stored k×m: columns lo…
				}
				if pre != nil {
					ar.gemm(&pl, ws, transA, transB, hi-lo, n, k, alpha, a[aOff:], lda, b, ldb, beta, c[lo*ldc:], ldc, pre)
					return
				}
				ar.run(&pl, ws, transA, transB, hi-lo, n, k, alpha, a[aOff:], lda, b, ldb, beta, c[lo*ldc:], ldc)
				return
			}
			bOff := lo // B stored k×n: columns lo…
			if transB {
				bOff = lo * ldb // B stored n×k: rows lo…
			}
			ar.run(&pl, ws, transA, transB, m, hi-lo, k, alpha, a, lda, b[bOff:], ldb, beta, c[lo:], ldc)
		}
		if t == threads-1 {
			block() // the caller's share: one goroutine fewer to wake
			break
		}
		wg.Go(block)
	}
	wg.Wait()
}

// splitByRows chooses the dimension SgemmParallel splits, and returns the
// row and column tile counts it was chosen from.
func splitByRows(pl *plan, transB bool, m, n, threads int) (byRows bool, rowTiles, colTiles int) {
	// Split the dimension with more tiles: rows (each block packs its own B
	// panels) when there are at least as many row tiles as threads, columns
	// otherwise (each block reads or packs its own A). Blocks are as equal
	// as possible: rows in any count (16 rows → 8 + 8, not 14 + 2), columns
	// in whole vectors so that no block boundary adds a masked edge. Where
	// the boundaries fall never changes the result (see the package
	// comment).
	rowTiles = (m + pl.mr - 1) / pl.mr
	colTiles = (n + pl.nr - 1) / pl.nr
	byRows = pl.dot || rowTiles >= threads || rowTiles >= colTiles
	// A transposed B is packed whatever the split. Split by rows, every
	// thread streams all of the packed B, half of which the other core
	// packed (its L2, not ours); split by columns, each thread packs and
	// reads only its own panels. Measured: the MLP's forward product
	// 256×512×784 NT on 2 threads went from 188 to 230 GFLOP/s and
	// 64×128×784 NT from 99 to 124 (wall, idle machine, 3 alternating
	// runs); NN and TN, whose B is read in place or not at all split,
	// stay by rows (NN 256×512×784 by columns: 240 → 230).
	if transB && !pl.dot && colTiles >= threads {
		byRows = false
	}
	return byRows, rowTiles, colTiles
}
