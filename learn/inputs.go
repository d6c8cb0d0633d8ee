package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Inputs is a training set prepared once for many Train runs on the same
// records, as an audit does: thousands of trials train on one data set.
// Preparing does, once, work that Train would otherwise repeat per run:
//
//   - the finiteness scan of X and the records' squared norms (the dense
//     first layer's norm trick needs ‖x_i‖² every step);
//   - exact 8-bit codes of the rows: image data sets store a pixel k in
//     0…255 as float32(float64(k)/255) (datasets' unit scaling), so a row
//     of 784 float32 features (3 KB) is 784 bytes of codes. Gathering a
//     sampled row then reads 4× fewer bytes from the (L3-resident, 40 MB
//     for MNIST 0-vs-1) data set and rebuilds the floats with vector ops.
//     That copy was 46% of a logistic-regression audit trial
//     (BenchmarkAuditTrial). A row is coded only if every feature maps back to the very
//     same float32 bits, so training on Inputs gives bit-identical
//     parameters to Train on X; other rows (and the whole set, if the
//     decoder cannot reproduce the scale's floats exactly) are read as
//     floats, as Train does.
//
// X and Y must not change while the Inputs is in use. An Inputs is
// read-only, so trials on many goroutines may share one.
type Inputs struct {
	X []float32
	Y []int32
	d int

	// badAt is the index in X of the first NaN or ±Inf feature, or −1.
	badAt int
	// sq[i] is sumSq of row i (meaningless at and after a non-finite row).
	sq []float64

	// codes holds the coded rows' codes, spans[i] where record i's are
	// (nil: no coded row); nCoded counts the coded rows.
	codes  []uint8
	spans  []codeSpan
	nCoded int
}

// codeSpan locates a coded record's features: features lo…lo+n−1 are the
// codes at codes[off:off+n], the others are 0 (+0, code 0). Only the span
// from the first to the last non-zero feature is stored: an MNIST digit's
// top and bottom rows are background, so gathering reads fewer bytes still.
// off < 0: the record is read as floats.
type codeSpan struct {
	off   int
	lo, n int32
}

// codeDivisor is the scale of the codes: feature = float32(float64(k)/255)
// for code k, the unit scaling of 8-bit images (datasets/transform.go).
const codeDivisor = 255

// codeTable[k] is the float32 that code k stands for.
var codeTable = func() (t [256]float32) {
	for k := range t {
		t[k] = float32(float64(k) / codeDivisor)
	}
	return t
}()

// NewInputs prepares the records X (row-major N×d, N = len(Y)) and labels
// Y for TrainInputs. Labels are checked against the model at each run.
func NewInputs(X []float32, Y []int32, d int) (*Inputs, error) {
	if d <= 0 {
		return nil, fmt.Errorf("inputs: %d features per record, want > 0", d)
	}
	if len(X) != len(Y)*d {
		return nil, fmt.Errorf("inputs: %d labels need %d×%d = %d features, got %d", len(Y), len(Y), d, len(Y)*d, len(X))
	}
	in := &Inputs{X: X, Y: Y, d: d, sq: make([]float64, len(Y))}
	in.badAt = scanRows(X, d, in.sq)
	if in.badAt < 0 {
		in.encode()
	}
	return in, nil
}

// scanRows sets sq[i] to row i's sumSq for the len(sq) rows of X (d
// features each) and returns the index in X of the first NaN or ±Inf
// feature, or −1; sq is meaningless from that row on. A row's sum is
// finite exactly when its features are, so only a non-finite sum is
// searched.
func scanRows(X []float32, d int, sq []float64) int {
	for i := range sq {
		row := X[i*d : (i+1)*d]
		sq[i] = sumSq(row)
		if s := sq[i]; s-s != 0 { // NaN or Inf: find the feature
			if ok, j := allFinite(row); !ok {
				return i*d + j
			}
		}
	}
	return -1
}

// encode codes every row whose features are all in codeTable (bit for
// bit: −0 is not code 0).
func (in *Inputs) encode() {
	n, d := len(in.Y), in.d
	spans := make([]codeSpan, n)
	row := make([]uint8, d)
	var codes []uint8
	for i := range n {
		spans[i].off = -1
		if !encodeRow(row, in.X[i*d:(i+1)*d]) {
			continue
		}
		lo, hi := 0, d
		for lo < hi && row[lo] == 0 {
			lo++
		}
		for hi > lo && row[hi-1] == 0 {
			hi--
		}
		// Whole blocks of 16 for the vector decoder (no scalar tail).
		lo &^= 15
		hi = min(d, (hi+15)&^15)
		if codes == nil {
			codes = make([]uint8, 0, n*d/2)
		}
		spans[i] = codeSpan{off: len(codes), lo: int32(lo), n: int32(hi - lo)}
		codes = append(codes, row[lo:hi]...)
		in.nCoded++
	}
	if in.nCoded > 0 {
		in.codes, in.spans = slices.Clip(codes), spans
	}
}

// encodeRow writes the codes of src into dst and reports whether every
// feature is exactly a code's float.
func encodeRow(dst []uint8, src []float32) bool {
	dst = dst[:len(src)]
	for j, x := range src {
		if math.Float32bits(x) == 0 { // +0, most of an image
			dst[j] = 0
			continue
		}
		// x ∈ [0, 1] (NaN fails both tests); k is the nearest code.
		if !(x >= 0 && x <= 1) {
			return false
		}
		k := int(x*codeDivisor + 0.5)
		if math.Float32bits(codeTable[k]) != math.Float32bits(x) {
			return false
		}
		dst[j] = uint8(k)
	}
	return true
}

// CodedRows returns how many records are held as exact 8-bit codes (the
// others are read as floats).
func (in *Inputs) CodedRows() int { return in.nCoded }

// span returns record i's codes and the feature they start at, or ok
// false if the record is read as floats.
func (in *Inputs) span(i int) (c []uint8, lo int, ok bool) {
	if in == nil || i >= len(in.spans) || in.spans[i].off < 0 {
		return nil, 0, false
	}
	sp := in.spans[i]
	return in.codes[sp.off : sp.off+int(sp.n)], int(sp.lo), true
}

// decodeInto writes record i's features into dst (len d) and reports
// whether it could (false: the record is not coded). dirty is the part
// of dst that may hold non-zero values (set to the record's span after):
// only that part outside the span is zeroed, since writing the floats,
// not reading the codes, is what a decoded row costs.
func (in *Inputs) decodeInto(dst []float32, i int, dirty *span32) bool {
	c, lo, ok := in.span(i)
	if !ok {
		return false
	}
	hi := lo + len(c)
	if dl, dh := int(dirty.lo), int(dirty.hi); dl < dh {
		if dl < lo {
			clear(dst[dl:min(lo, dh)])
		}
		if dh > hi {
			clear(dst[max(hi, dl):dh])
		}
	}
	decodeRow(dst[lo:hi], c)
	*dirty = span32{int32(lo), int32(hi)}
	return true
}

// span32 is a range [lo, hi) of features.
type span32 struct{ lo, hi int32 }

// prefetch starts loading record i's codes, to be decoded soon.
func (in *Inputs) prefetch(i int) {
	if c, _, ok := in.span(i); ok {
		prefetchRow(c)
	}
}

// decodeRow sets dst[j] = codeTable[src[j]]: the vector kernel where there
// is one (decodeBlocks, used only if it reproduces all 256 codes bit for
// bit, checked at start-up), the table for the rest.
func decodeRow(dst []float32, src []uint8) {
	dst = dst[:len(src)]
	j := decodeBlocks(dst, src)
	for ; j+8 <= len(src); j += 8 {
		s, d := src[j:j+8:j+8], dst[j:j+8:j+8]
		d[0], d[1], d[2], d[3] = codeTable[s[0]], codeTable[s[1]], codeTable[s[2]], codeTable[s[3]]
		d[4], d[5], d[6], d[7] = codeTable[s[4]], codeTable[s[5]], codeTable[s[6]], codeTable[s[7]]
	}
	for ; j < len(src); j++ {
		dst[j] = codeTable[src[j]]
	}
}

// gatherCodes says whether training reads coded rows from their codes.
// Only with a vector decoder: the portable table lookup (−tags purego) is
// slower than copying the floats (BenchmarkGatherMNIST: 226 against 178
// CPU-ns per row), so there the rows are copied as before. Tests set it.
var gatherCodes = decodeVectorized()

// TrainInputs is Train on prepared inputs: the same run, bit for bit, as
// Train(m, in.X, in.Y, cfg, r, h), without the per-run scan of the data
// and reading coded rows as bytes.
func TrainInputs(m *Model, in *Inputs, cfg DPSGD, r *rand.Rand, h *Hooks) (*Result, error) {
	if in == nil {
		return nil, fmt.Errorf("train: nil inputs")
	}
	if in.d != m.inSize {
		return nil, fmt.Errorf("train: inputs have %d features per record, model input has %d", in.d, m.inSize)
	}
	return train(m, in.X, in.Y, in, cfg, r, h)
}

// prefetchAhead is how many rows ahead gather asks for coded rows' cache
// lines.
const prefetchAhead = 4
