package gemm

import "sync"

// gemm runs the blocked algorithm for C[0:m, 0:n] = alpha·op(A)·op(B) + beta·C
// with m, n, k ≥ 1 and alpha ≠ 0 (the caller handles the degenerate cases).
// a, b and c start at the block's first element; pl comes from the full
// problem so that parallel blocks decide alike.
//
// Loop order (GotoBLAS): column blocks of nc → k-chunks of at most kcBlock
// (B panels packed or read in place) → row blocks of mc (A block packed or
// read in place) → column panels of nr → balanced row tiles of at most mr →
// micro-kernel.
//
// pre, when not nil, holds every B panel already packed (prepackB: one
// region per column block and k-chunk, [block·chunks + chunk]), shared by
// the row blocks of a parallel call; it requires pl.packB.
func (ar *arch) gemm(pl *plan, ws *workspace, transA, transB bool, m, n, k int,
	alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, pre [][]float32) {

	w := ar.width
	chunks := (k + pl.kc - 1) / pl.kc
	for jc, jb := 0, 0; jc < n; jc, jb = jc+pl.nc, jb+1 {
		nc := min(pl.nc, n-jc)
		panels := (nc + pl.nr - 1) / pl.nr
		for pc, kb := 0, 0; pc < k; pc, kb = pc+pl.kc, kb+1 {
			kc := min(pl.kc, k-pc)
			betaK := beta
			if pc > 0 {
				betaK = 1 // later chunks add onto the partial result
			}

			// B panels: q covers columns jc+q·nr …; packed ones live at
			// q·kc·nr in the B buffer with row stride nvq·w. A panel is
			// copied when the plan says so, or when it ends inside a vector
			// and the kernels cannot mask their B loads (AVX2, purego).
			packed := func(cols int) bool { return pl.packB || (cols%w != 0 && !ar.maskedB) }
			var bbuf []float32
			switch {
			case pre != nil:
				bbuf = pre[jb*chunks+kb]
			case packed(nc % pl.nr):
				bbuf = ws.bufB(panels * kc * pl.nr)
			}
			q0 := 0
			if pre == nil && pl.packB && !transB {
				q0 = nc / pl.nr
				packBFull(bbuf, b, ldb, pc, kc, jc, q0, pl.nr)
			}
			for q := q0; q < panels && pre == nil; q++ {
				cols := min(pl.nr, nc-q*pl.nr)
				stride := (cols + w - 1) / w * w
				if packed(cols) {
					packB(bbuf[q*kc*pl.nr:], transB, b, ldb, pc, kc, jc+q*pl.nr, cols, stride)
				}
			}

			// Row blocks of equal height (whole tiles), not mc-high ones and a
			// short rest: 512 rows are 2 × 256, not 378 + 134.
			mcEq := pl.mc
			if blocks := (m + pl.mc - 1) / pl.mc; blocks > 1 {
				mcEq = ((m+blocks-1)/blocks + pl.mr - 1) / pl.mr * pl.mr
			}
			for ic := 0; ic < m; ic += mcEq {
				mc := min(mcEq, m-ic)
				var abuf []float32
				tiles := rowTiles(mc, pl.mr)
				if pl.packA {
					abuf = ws.bufA(mc * kc)
					for ir := 0; ir < mc; {
						rows := tiles.rows(ir)
						packA(abuf[ir*kc:], transA, a, lda, ic+ir, rows, pc, kc)
						ir += rows
					}
				}
				for q := 0; q < panels; q++ {
					j0 := q * pl.nr
					cols := min(pl.nr, nc-j0)
					nv := (cols + w - 1) / w
					var bp *float32
					var bs int
					if packed(cols) {
						bp, bs = &bbuf[q*kc*pl.nr], nv*w
					} else {
						bp, bs = &b[pc*ldb+jc+j0], ldb
					}
					kern := &ar.kernels[layoutContig][nv]
					if !pl.packA && !transA {
						kern = &ar.kernels[layoutRows][nv]
					}
					for ir := 0; ir < mc; ir += tiles.rows(ir) {
						rows := tiles.rows(ir)
						var ap *float32
						var as int
						switch {
						case pl.packA:
							ap, as = &abuf[ir*kc], rows
						case transA:
							ap, as = &a[pc*lda+ic+ir], lda
						default:
							ap, as = &a[(ic+ir)*lda+pc], lda
						}
						(*kern)[rows](kc, ap, as, bp, bs, &c[(ic+ir)*ldc+jc+j0], ldc, alpha, betaK, cols)
					}
				}
			}
		}
	}
}

// tiling cuts n rows into the fewest tiles of at most mr rows, of sizes
// differing by at most one (16 rows with mr = 14 become 8 + 8, not 14 + 2:
// a 2-row tile has too few accumulators to hide the FMA latency). Tiles
// never change results, only speed: every element's operations are the same
// in any tile.
type tiling struct{ size, big, bigEnd int }

func rowTiles(n, mr int) tiling {
	if n <= mr {
		return tiling{size: n}
	}
	tiles := (n + mr - 1) / mr
	size := n / tiles
	big := n % tiles // the first `big` tiles have size+1 rows
	return tiling{size: size, big: big, bigEnd: big * (size + 1)}
}

// rows returns the height of the tile starting at row i.
func (t tiling) rows(i int) int {
	if i < t.bigEnd {
		return t.size + 1
	}
	return t.size
}

// prepackB packs every B panel of an n-column, k-deep problem (pl.packB)
// into regions of buf laid out as gemm's pre expects, with the panels
// shared out among `threads` goroutines. A parallel call split by rows then
// packs B once instead of once per block (a 1024² B is 4 MiB of
// copies that every thread repeated; the gain was within the noise of the
// shared machine, 2 threads at 1.85–1.90× one thread per CPU-second either
// way).
func (ar *arch) prepackB(pl *plan, threads int, transB bool, n, k int, b []float32, ldb int, ws *workspace) [][]float32 {
	w := ar.width
	var regions [][]float32
	var jobs []func()
	total := 0
	for jc := 0; jc < n; jc += pl.nc {
		panels := (min(pl.nc, n-jc) + pl.nr - 1) / pl.nr
		for pc := 0; pc < k; pc += pl.kc {
			total += panels * min(pl.kc, k-pc) * pl.nr
		}
	}
	buf := ws.bufB(total)
	off := 0
	for jc := 0; jc < n; jc += pl.nc {
		nc := min(pl.nc, n-jc)
		panels := (nc + pl.nr - 1) / pl.nr
		for pc := 0; pc < k; pc += pl.kc {
			kc := min(pl.kc, k-pc)
			region := buf[off : off+panels*kc*pl.nr]
			off += len(region)
			regions = append(regions, region)
			q0 := 0
			if !transB {
				// Whole panels a row at a time (packBFull), in one run of
				// panels per thread.
				q0 = nc / pl.nr
				for t := range threads {
					lo, hi := q0*t/threads, q0*(t+1)/threads
					if lo < hi {
						jobs = append(jobs, func() {
							packBFull(region[lo*kc*pl.nr:], b, ldb, pc, kc, jc+lo*pl.nr, hi-lo, pl.nr)
						})
					}
				}
			}
			for q := q0; q < panels; q++ {
				cols := min(pl.nr, nc-q*pl.nr)
				dst, j0, stride := region[q*kc*pl.nr:], jc+q*pl.nr, (cols+w-1)/w*w
				jobs = append(jobs, func() { packB(dst, transB, b, ldb, pc, kc, j0, cols, stride) })
			}
		}
	}
	var wg sync.WaitGroup
	for t := 0; t < threads; t++ {
		share := func() {
			for i := t; i < len(jobs); i += threads {
				jobs[i]()
			}
		}
		if t == threads-1 {
			share() // the caller's share: one goroutine fewer to wake
			break
		}
		wg.Go(share)
	}
	wg.Wait()
	return regions
}
