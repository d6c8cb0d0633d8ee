package learn

import "github.com/dpaudit/dpaudit/learn/gemm"

// The direct forward pass computes a convolution's output from the input
// images without the im2col matrix: six output positions at a time, each
// patch read in place as k runs of k·inC floats (convTile6). Its sums are
// the GEMM's over im2col's rows — the same FMA chain over the patch index
// from +0, one k-chunk because K ≤ gemm.ChunkLength(K) — and the bias is
// added as addBiasRows adds it, so the outputs have the GEMM's bits. It
// saves copying every patch (each input element k² times) and, for a
// first layer of one channel, the GEMM's overhead on sums of nine terms.

// directForwardOK reports whether the layer takes the direct pass: its
// shape allows it (16-channel panels, no padding, one k-chunk) and it
// pays. It pays where no patch matrix is needed later — behind max
// pooling the backward pass is sparse and reads the images — or where a
// GEMM over it is slow anyway, when its rows are not whole vectors (a
// first layer of one channel: K = 9). Elsewhere the GEMMs over the patch
// matrix win: TanhCNN's second layer (K = 256, 25 positions) trained
// 1.3× slower on the direct passes.
func (l *conv) directForwardOK() bool {
	return haveAccRows && gemm.Path() != "purego" && l.pad == 0 && l.outC%16 == 0 &&
		gemm.ChunkLength(l.kdim()) == l.kdim() && (l.sparseDeltas || l.kdim()%8 != 0)
}

// forwardDirect is forward without im2col (see directForwardOK); with
// relu set, out receives the ReLU of the outputs instead, as the ReLU
// layer after this one computes it.
func (l *conv) forwardDirect(s *scratch, in, out []float32, b int, relu bool) {
	P, K, O := l.positions(), l.kdim(), l.outC
	// wt holds the weights transposed, one K×16 panel per 16 channels.
	s.wt = grow(s.wt, K*O)
	for q := 0; q < O/16; q++ {
		panel := s.wt[q*K*16 : (q+1)*K*16]
		for c := 0; c < 16; c++ {
			for k, v := range l.w[(q*16+c)*K : (q*16+c+1)*K] {
				panel[k*16+c] = v
			}
		}
	}
	in = in[:b*l.inSize()]
	full := P / 6 * 6
	var last [6]int32 // the partial tile's offsets, its last row repeated
	for i := range last {
		last[i] = l.posOff[min(full+i, P-1)]
	}
	s.tile = grow(s.tile, 6*O)
	for i := 0; i < b; i++ {
		x, y := in[i*l.inSize():(i+1)*l.inSize()], out[i*P*O:(i+1)*P*O]
		for q := 0; q < O/16; q++ {
			w, bias := s.wt[q*K*16:(q+1)*K*16], l.b[q*16:(q+1)*16]
			convTiles(y[q*16:], O, x, l.posOff[:full], w, bias, l.k, l.k*l.inC, l.inW*l.inC, relu)
			if full < P {
				convTiles(s.tile[q*16:], O, x, last[:], w, bias, l.k, l.k*l.inC, l.inW*l.inC, relu)
			}
		}
		copy(y[full*O:], s.tile[:(P-full)*O])
	}
}

// weightGradDirect writes one example's gradient [Δᵀ·U, Σ_p δ_p] into g
// from its input image x, as exampleGrad computes it from the patch
// matrix: Uᵀ·Δ by the GEMM's FMA chains cut into its k-chunks over the
// positions, six patch elements at a time (convGradT6), then transposed.
func (l *conv) weightGradDirect(s *scratch, x, dOut, g []float32) {
	P, K, O := l.positions(), l.kdim(), l.outC
	kc := gemm.ChunkLength(P)
	s.gradT = grow(s.gradT, K*O)
	for k0 := 0; k0 < K; k0 += 6 {
		nk := min(6, K-k0)
		for q := 0; q < O/16; q++ {
			for p0 := 0; p0 < P; p0 += kc {
				p1 := min(p0+kc, P)
				convGradT6(s.gradT[k0*O+q*16:], O, x, l.posOff[p0:p1], dOut[p0*O+q*16:], O, l.disp[k0:], nk, p0 > 0)
			}
		}
	}
	transposeInto(g[:l.numWeights()], s.gradT, K, O)
	colSums(dOut, P, O, g[l.numWeights():l.numParams()])
}
