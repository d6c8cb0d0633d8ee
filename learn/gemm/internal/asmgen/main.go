// Command asmgen writes the amd64 micro-kernels of package gemm.
//
// The kernels are many small variations of one loop (ISA × A layout × vectors
// per row × rows), so they are generated rather than hand-written: a change to
// the loop is made once here and every variant follows. Run it with
// `go generate ./learn/gemm` from the module root; the output is checked in.
//
// Every kernel computes, for an mr×nr tile of C,
//
//	acc[i][j] = Σ_p a(i,p)·b(p,j)        (one FMA chain per element, p ascending)
//	C[i][j]   = alpha·acc[i][j] + beta·C[i][j]   (C not read when beta == 0)
//
// with the same per-element operation sequence in every variant, so the AVX2
// and AVX-512 paths give bit-identical results.
package main

import (
	"bytes"
	"fmt"
	"go/format"
	"log"
	"os"
	"path/filepath"
	"strings"
)

// isa describes one instruction set's register file and vector width.
type isa struct {
	name    string // suffix of file and kernel names
	width   int    // float32 lanes per vector
	vreg    string // register prefix: Y or Z
	maxMR   [3]int // largest row count for kernels with 1 and 2 vectors per row
	feature string // human description for comments
}

var (
	avx512 = isa{name: "avx512", width: 16, vreg: "Z", maxMR: [3]int{0, 14, 14}, feature: "AVX-512F"}
	avx2   = isa{name: "avx2", width: 8, vreg: "Y", maxMR: [3]int{0, 12, 6}, feature: "AVX2+FMA"}
)

// Layouts of the A operand, as the kernel sees it.
const (
	// contig: the mr values a(0..mr-1, p) are contiguous; consecutive p are
	// `as` elements apart. Packed panels (as = mr) and stored-transposed A
	// (as = lda) both have this layout.
	contig = iota
	// rows: row i is at a + i·as and p is contiguous within a row
	// (A stored untransposed, read in place without packing).
	rows
)

var modeName = [2]string{"C", "R"}

const unroll = 4 // k-steps per main-loop iteration

// prefetchRows is how far ahead (bytes) rows-mode kernels prefetch A.
var prefetchRows = 256

// prefetchCLoop: prefetch C rows from inside the k loop (see genKernel),
// with prefetchCHint. Measured on Sapphire Rapids (thread CPU time against
// OpenBLAS SkylakeX, alternating pairs): without it 2048³ ran at 0.78×;
// fetching the whole tile into L1 in the prologue gave 0.88×; one row per
// iteration into L1 0.93×, into L2 (T1) 0.94×, and 1024³ 0.91–0.97× instead
// of 0.89× — a power-of-two row stride puts every row of the tile in the
// same L1 set, so L1 prefetches of C evict the B panel.
var (
	prefetchCLoop = true
	prefetchCHint = "PREFETCHT1"
)

// prefetchContig is how far ahead (bytes) contig-mode kernels prefetch A;
// 0 disables. Measured: AVX2 1024³ against OpenBLAS Haswell from 0.83–0.91×
// to 0.94–0.95× with it (thread CPU time, alternating pairs).
var prefetchContig = 1024

func kernelName(s isa, mode, nv, mr int) string {
	return fmt.Sprintf("k%s%s%dx%d", strings.TrimPrefix(s.name, "avx"), modeName[mode], nv, mr)
}

type writer struct{ bytes.Buffer }

func (w *writer) f(format string, args ...any) { fmt.Fprintf(&w.Buffer, "\t"+format+"\n", args...) }
func (w *writer) label(l string)               { fmt.Fprintf(&w.Buffer, "%s:\n", l) }

// rowAddr returns the address of a(i, p+u) in rows mode. Row bases SI, R12,
// R13 point at rows 0, 5 and 10; R8 = row stride and R11 = 3·row stride (bytes),
// so rows base+0..base+4 are reachable with one scaled index.
func rowAddr(i, u int) string {
	base := [...]string{"SI", "R12", "R13"}[i/5]
	idx := [...]string{"", "(R8*1)", "(R8*2)", "(R11*1)", "(R8*4)"}[i%5]
	return fmt.Sprintf("%d(%s)%s", 4*u, base, idx)
}

// contigAddr returns the address of a(i, p+u) in contig mode: SI points at
// step p, R8 is the step stride in bytes and R11 = 3·R8.
func contigAddr(i, u int) string {
	idx := [...]string{"", "(R8*1)", "(R8*2)", "(R11*1)"}[u]
	return fmt.Sprintf("%d(SI)%s", 4*i, idx)
}

// bAddr returns the address of vector v of b(p+u, ·): DX points at step p,
// R9 is the step stride in bytes and R10 = 3·R9.
func bAddr(s isa, v, u int) string {
	idx := [...]string{"", "(R9*1)", "(R9*2)", "(R10*1)"}[u]
	return fmt.Sprintf("%d(DX)%s", 4*s.width*v, idx)
}

func acc(s isa, nv, i, v int) string { return fmt.Sprintf("%s%d", s.vreg, i*nv+v) }

// genKernel writes one kernel. Arguments (ABI0, all on the stack):
// k+0 a+8 as+16 b+24 bs+32 c+40 ldc+48 alpha+56 beta+60 nr+64; strides are in
// elements; nr is the number of valid columns, (nv-1)·width < nr ≤ nv·width.
func genKernel(w *writer, s isa, mode, nv, mr int) {
	name := kernelName(s, mode, nv, mr)
	fmt.Fprintf(&w.Buffer, "// func %s(k int, a *float32, as int, b *float32, bs int, c *float32, ldc int, alpha, beta float32, nr int)\n", name)
	fmt.Fprintf(&w.Buffer, "TEXT ·%s(SB), NOSPLIT, $0-72\n", name)
	w.f("MOVQ k+0(FP), CX")
	w.f("MOVQ a+8(FP), SI")
	w.f("MOVQ as+16(FP), R8")
	w.f("SHLQ $2, R8")
	w.f("LEAQ (R8)(R8*2), R11")
	w.f("MOVQ b+24(FP), DX")
	w.f("MOVQ bs+32(FP), R9")
	w.f("SHLQ $2, R9")
	w.f("LEAQ (R9)(R9*2), R10")
	if s.width == 16 {
		// K1 = lanes of the last vector that are inside the tile: used for
		// the last B vector (so an edge panel can be read in place without
		// touching memory past its row) and for C.
		w.f("MOVQ nr+64(FP), AX")
		if nv > 1 {
			w.f("SUBQ $%d, AX", s.width*(nv-1))
		}
		w.f("MOVL $1, BX")
		w.f("SHLXL AX, BX, BX")
		w.f("DECL BX")
		w.f("KMOVW BX, K1")
	}
	if prefetchCLoop {
		// C rows are prefetched one per k-loop iteration below, from the
		// tile's first row on (DI, stride AX).
		w.f("MOVQ c+40(FP), DI")
		w.f("MOVQ ldc+48(FP), AX")
		w.f("SHLQ $2, AX")
	}
	if mode == rows && mr > 5 {
		w.f("LEAQ (SI)(R8*4), R12")
		w.f("ADDQ R8, R12")
		if mr > 10 {
			w.f("LEAQ (R12)(R8*4), R13")
			w.f("ADDQ R8, R13")
		}
	}
	for i := 0; i < mr; i++ {
		for v := 0; v < nv; v++ {
			a := acc(s, nv, i, v)
			w.f("VXORPS %s, %s, %s", a, a, a)
		}
	}
	w.f("MOVQ CX, BX")
	w.f("SHRQ $2, BX")
	w.f("JZ tail")
	w.label("loop4")
	if mode == rows && prefetchRows > 0 {
		// Rows read in place are mr separate streams, more than the
		// hardware prefetchers follow; fetch each a few lines ahead.
		for i := 0; i < mr; i++ {
			w.f("PREFETCHT0 %s", rowAddr(i, prefetchRows/4))
		}
	}
	if mode == contig && prefetchContig > 0 {
		// A packed panel advances mr·unroll·4 bytes per iteration; keep
		// the lines that far ahead on their way to L1 (the B panel
		// occupies most of it, so A streams from L2). For a transposed A
		// read in place (step stride lda) these are the same k-rows'
		// values for the tiles below, which the next calls read.
		for off := 0; off < 4*mr*unroll; off += 64 {
			w.f("PREFETCHT0 %d(SI)", prefetchContig+off)
		}
	}
	if prefetchCLoop {
		// One row of C per iteration: the tile's rows first, then those
		// of the tiles below it in the panel, the next calls' outputs, so
		// the epilogue's loads and stores hit L2. Spread out, the requests
		// never crowd the loop's own loads.
		rowBytes := 4 * s.width * nv
		for off := 0; off < rowBytes; off += 64 {
			w.f("%s %d(DI)", prefetchCHint, off)
		}
		w.f("%s %d(DI)", prefetchCHint, rowBytes-4)
		w.f("ADDQ AX, DI")
	}
	for u := 0; u < unroll; u++ {
		step(w, s, mode, nv, mr, u, u)
	}
	if mode == contig {
		w.f("LEAQ (SI)(R8*4), SI")
	} else {
		w.f("ADDQ $%d, SI", 4*unroll)
		if mr > 5 {
			w.f("ADDQ $%d, R12", 4*unroll)
		}
		if mr > 10 {
			w.f("ADDQ $%d, R13", 4*unroll)
		}
	}
	w.f("LEAQ (DX)(R9*4), DX")
	w.f("DECQ BX")
	w.f("JNZ loop4")
	w.label("tail")
	w.f("ANDQ $3, CX")
	w.f("JZ epilogue")
	w.label("loop1")
	step(w, s, mode, nv, mr, 0, 0)
	if mode == contig {
		w.f("ADDQ R8, SI")
	} else {
		w.f("ADDQ $4, SI")
		if mr > 5 {
			w.f("ADDQ $4, R12")
		}
		if mr > 10 {
			w.f("ADDQ $4, R13")
		}
	}
	w.f("ADDQ R9, DX")
	w.f("DECQ CX")
	w.f("JNZ loop1")
	w.label("epilogue")
	if s.width == 16 {
		epilogue512(w, s, nv, mr)
	} else {
		epilogueAVX2(w, s, nv, mr)
	}
	w.WriteString("\n")
}

// step writes one k-step: load the nv vectors of b(p+u, ·), then for every
// row broadcast a(i, p+u) and FMA it into the row's accumulators.
func step(w *writer, s isa, mode, nv, mr, u, parity int) {
	addr := func(i int) string {
		if mode == rows {
			return rowAddr(i, u)
		}
		return contigAddr(i, u)
	}
	if s.width == 16 {
		// B in Z28.. (double-buffered when registers allow), A by embedded broadcast.
		breg := func(v int) string {
			if mr*nv <= 24 {
				return fmt.Sprintf("Z%d", 24+(parity%2)*nv+v)
			}
			return fmt.Sprintf("Z%d", 28+v)
		}
		for v := 0; v < nv-1; v++ {
			w.f("VMOVUPS %s, %s", bAddr(s, v, u), breg(v))
		}
		w.f("VMOVUPS.Z %s, K1, %s", bAddr(s, nv-1, u), breg(nv-1))
		for i := 0; i < mr; i++ {
			for v := 0; v < nv; v++ {
				w.f("VFMADD231PS.BCST %s, %s, %s", addr(i), breg(v), acc(s, nv, i, v))
			}
		}
		return
	}
	// AVX2: B in Y12(,Y13), A broadcast into alternating Y14/Y15 (or Y13/Y14
	// with one vector per row).
	bregs := []string{"Y12", "Y13"}
	tmps := []string{"Y14", "Y15"}
	if nv == 1 {
		tmps = []string{"Y13", "Y14"}
	}
	for v := 0; v < nv; v++ {
		w.f("VMOVUPS %s, %s", bAddr(s, v, u), bregs[v])
	}
	for i := 0; i < mr; i++ {
		t := tmps[i%2]
		w.f("VBROADCASTSS %s, %s", addr(i), t)
		for v := 0; v < nv; v++ {
			w.f("VFMADD231PS %s, %s, %s", bregs[v], t, acc(s, nv, i, v))
		}
	}
}

// epilogue512: C = alpha·acc + beta·C with the last vector of each row masked
// to nr columns (K1, set in the prologue); C is not read when beta is ±0 (BLAS semantics: NaN in C is
// ignored).
func epilogue512(w *writer, s isa, nv, mr int) {
	w.f("MOVQ c+40(FP), DI")
	w.f("MOVQ ldc+48(FP), R8")
	w.f("SHLQ $2, R8")
	w.f("VBROADCASTSS alpha+56(FP), Z30")
	w.f("MOVL beta+60(FP), AX")
	w.f("ANDL $0x7fffffff, AX")
	w.f("JZ beta0")
	w.f("VBROADCASTSS beta+60(FP), Z31")
	for i := 0; i < mr; i++ {
		for v := 0; v < nv; v++ {
			a := acc(s, nv, i, v)
			w.f("VMULPS Z30, %s, %s", a, a)
			if v == nv-1 {
				w.f("VMOVUPS.Z %d(DI), K1, Z28", 64*v)
				w.f("VFMADD231PS Z28, Z31, %s", a)
				w.f("VMOVUPS %s, K1, %d(DI)", a, 64*v)
			} else {
				w.f("VFMADD231PS %d(DI), Z31, %s", 64*v, a)
				w.f("VMOVUPS %s, %d(DI)", a, 64*v)
			}
		}
		if i < mr-1 {
			w.f("ADDQ R8, DI")
		}
	}
	w.f("VZEROUPPER")
	w.f("RET")
	w.label("beta0")
	for i := 0; i < mr; i++ {
		for v := 0; v < nv; v++ {
			a := acc(s, nv, i, v)
			w.f("VMULPS Z30, %s, %s", a, a)
			if v == nv-1 {
				w.f("VMOVUPS %s, K1, %d(DI)", a, 64*v)
			} else {
				w.f("VMOVUPS %s, %d(DI)", a, 64*v)
			}
		}
		if i < mr-1 {
			w.f("ADDQ R8, DI")
		}
	}
	w.f("VZEROUPPER")
	w.f("RET")
}

// epilogueAVX2: as epilogue512; the last vector uses VMASKMOVPS only when the
// tile is partial, because masked stores are slow on some AVX2 CPUs.
func epilogueAVX2(w *writer, s isa, nv, mr int) {
	w.f("MOVQ c+40(FP), DI")
	w.f("MOVQ ldc+48(FP), R8")
	w.f("SHLQ $2, R8")
	w.f("MOVQ nr+64(FP), CX")
	if nv > 1 {
		w.f("SUBQ $%d, CX", s.width*(nv-1))
	}
	w.f("VBROADCASTSS alpha+56(FP), Y12")
	w.f("VBROADCASTSS beta+60(FP), Y13")
	w.f("MOVL beta+60(FP), AX")
	w.f("ANDL $0x7fffffff, AX")
	w.f("CMPQ CX, $%d", s.width)
	w.f("JLT partial")
	body := func(masked, beta bool) {
		for i := 0; i < mr; i++ {
			for v := 0; v < nv; v++ {
				a := acc(s, nv, i, v)
				off := 32 * v
				w.f("VMULPS Y12, %s, %s", a, a)
				last := masked && v == nv-1
				if beta {
					if last {
						w.f("VMASKMOVPS %d(DI), Y15, Y14", off)
						w.f("VFMADD231PS Y14, Y13, %s", a)
					} else {
						w.f("VFMADD231PS %d(DI), Y13, %s", off, a)
					}
				}
				if last {
					w.f("VMASKMOVPS %s, Y15, %d(DI)", a, off)
				} else {
					w.f("VMOVUPS %s, %d(DI)", a, off)
				}
			}
			if i < mr-1 {
				w.f("ADDQ R8, DI")
			}
		}
		w.f("VZEROUPPER")
		w.f("RET")
	}
	w.f("TESTL AX, AX")
	w.f("JZ fullbeta0")
	body(false, true)
	w.label("fullbeta0")
	body(false, false)
	w.label("partial")
	// Y15 = first CX lanes set: load 8 int32 starting 8-CX entries into a
	// table of eight -1 followed by eight 0.
	w.f("LEAQ avx2Mask<>+32(SB), BX")
	w.f("SHLQ $2, CX")
	w.f("SUBQ CX, BX")
	w.f("VMOVUPS (BX), Y15")
	w.f("TESTL AX, AX")
	w.f("JZ partbeta0")
	body(true, true)
	w.label("partbeta0")
	body(true, false)
}

func header(w *writer, s isa) {
	fmt.Fprintf(&w.Buffer, "// Code generated by internal/asmgen; DO NOT EDIT.\n\n")
	fmt.Fprintf(&w.Buffer, "//go:build amd64 && !purego\n\n")
	fmt.Fprintf(&w.Buffer, "#include \"textflag.h\"\n\n")
	fmt.Fprintf(&w.Buffer, "// %s micro-kernels, %d float32 lanes per vector.\n\n", s.feature, s.width)
	if s.width == 8 {
		for _, table := range []string{"avx2Mask", "dotMask"} {
			for i := 0; i < 16; i++ {
				v := "$-1"
				if i >= 8 {
					v = "$0"
				}
				fmt.Fprintf(&w.Buffer, "DATA %s<>+%d(SB)/4, %s\n", table, 4*i, v)
			}
			fmt.Fprintf(&w.Buffer, "GLOBL %s<>(SB), RODATA|NOPTR, $64\n\n", table)
		}
	}
}

func main() {
	outDir := "."
	if len(os.Args) > 1 {
		outDir = os.Args[1]
	}
	var decl bytes.Buffer
	decl.WriteString("// Code generated by internal/asmgen; DO NOT EDIT.\n\n//go:build amd64 && !purego\n\npackage gemm\n\n")
	for _, s := range []isa{avx512, avx2} {
		var w writer
		header(&w, s)
		fmt.Fprintf(&decl, "// %s kernels, indexed [layout][vectors per row][rows].\n", s.name)
		fmt.Fprintf(&decl, "var %sKernels = kernelTable{\n", s.name)
		for mode := contig; mode <= rows; mode++ {
			decl.WriteString("\t{\n\t\t{},\n")
			for nv := 1; nv <= 2; nv++ {
				decl.WriteString("\t\t{nil")
				for mr := 1; mr <= s.maxMR[nv]; mr++ {
					genKernel(&w, s, mode, nv, mr)
					fmt.Fprintf(&decl, ", %s", kernelName(s, mode, nv, mr))
				}
				decl.WriteString("},\n")
			}
			decl.WriteString("\t},\n")
		}
		decl.WriteString("}\n\n")
		for mode := contig; mode <= rows; mode++ {
			for nv := 1; nv <= 2; nv++ {
				for mr := 1; mr <= s.maxMR[nv]; mr++ {
					fmt.Fprintf(&decl, "//go:noescape\nfunc %s(k int, a *float32, as int, b *float32, bs int, c *float32, ldc int, alpha, beta float32, nr int)\n\n", kernelName(s, mode, nv, mr))
				}
			}
		}
		// Dot-product kernels for narrow outputs (dot.go), indexed [cols][rows].
		fmt.Fprintf(&decl, "// %s dot-product kernels, indexed [columns][rows].\n", s.name)
		fmt.Fprintf(&decl, "var %sDotKernels = [][]kernelFunc{\n\tnil,\n", s.name)
		var dotNames []string
		maxCols := dotMaxN
		if s.width == 8 {
			maxCols = dotCols2
		}
		for cols := 1; cols <= maxCols; cols++ {
			rowsMax := 1
			if s.width == 16 {
				rowsMax = dotRows512(cols)
			}
			decl.WriteString("\t{nil")
			for r := 1; r <= rowsMax; r++ {
				if s.width == 16 {
					genDot512(&w, r, cols)
				} else {
					genDotAVX2(&w, cols)
				}
				fmt.Fprintf(&decl, ", %s", dotName(s, cols, r))
				dotNames = append(dotNames, dotName(s, cols, r))
			}
			decl.WriteString("},\n")
		}
		decl.WriteString("}\n\n")
		for _, n := range dotNames {
			fmt.Fprintf(&decl, "//go:noescape\nfunc %s(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, alpha, beta float32, nr int)\n\n", n)
		}
		// Labels must be unique per TEXT block; Go's assembler scopes them per
		// function, so plain names are fine.
		if err := os.WriteFile(filepath.Join(outDir, "kernels_"+s.name+"_amd64.s"), w.Bytes(), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	if err := genTanh(outDir); err != nil {
		log.Fatal(err)
	}
	src, err := format.Source(decl.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outDir, "kernels_decl_amd64.go"), src, 0o644); err != nil {
		log.Fatal(err)
	}
}
