package learn

import (
	"fmt"
	"sync"

	"github.com/dpaudit/dpaudit/rng"
)

// Model is a feed-forward classifier whose parameters live in one flat
// float32 vector: layer by layer, each layer's weights (row-major, output
// unit major) then its biases. A Model is not safe for concurrent mutation;
// its read-only methods (Accuracy, Loss, …) may run concurrently.
type Model struct {
	arch    Arch
	inShape []int
	classes int
	inSize  int
	logits  int  // logits per example: 1 for a sigmoid head, else classes
	sigmoid bool // sigmoid/BCE head instead of softmax/CE
	// chw is set when images arrive as C×H×W with C > 1 and reach a
	// convolution or pooling, so they are reordered to the layers' H×W×C.
	chw     bool
	layers  []layer
	offsets []int // offset of each layer's parameters in params
	params  []float32
	// evalPool recycles the evaluation helpers' workspaces.
	evalPool sync.Pool
	// clipPool recycles ClippedGradientSum's workspaces (training-sized
	// chunks; clipsum.go).
	clipPool sync.Pool
}

// LayerInfo describes one layer and where its parameters live in the flat
// parameter vector (Size is 0 for layers without parameters).
type LayerInfo struct {
	Name         string
	Offset, Size int
}

// NewModel builds the model described by a for inputs of shape inShape
// (one entry [D] for a vector, or [C, H, W] for an image stored channel-major,
// PyTorch's layout) and the given number of classes, and initialises its
// parameters from the stream rng.New(seed, "learn/init") by the scheme
// a.Init (default InitPyTorch).
func NewModel(a Arch, inShape []int, classes int, seed uint64) (*Model, error) {
	if err := a.validate(classes); err != nil {
		return nil, err
	}
	m := &Model{arch: a, inShape: append([]int(nil), inShape...), classes: classes}
	if err := m.build(); err != nil {
		return nil, fmt.Errorf("model %s on input %v: %w", a, inShape, err)
	}
	r := rng.New(seed, "learn/init")
	scheme := a.Init
	if scheme == "" {
		scheme = InitPyTorch
	}
	for _, l := range m.layers {
		l.initParams(r, scheme)
	}
	return m, nil
}

// build creates the layers and binds them to the parameter vector.
func (m *Model) build() error {
	size := 1
	for _, d := range m.inShape {
		if d <= 0 {
			return fmt.Errorf("input dimensions must be positive")
		}
		size *= d
	}
	if len(m.inShape) == 0 {
		return fmt.Errorf("empty input shape")
	}
	m.inSize = size
	list := m.arch.LayerList(m.classes)
	b, err := buildLayers(list, m.inShape)
	if err != nil {
		return err
	}
	m.layers, m.chw = b.layers, b.chw
	// The last layer is dense (validate): its units are the logits, and
	// one logit is the sigmoid head.
	m.logits = list[len(list)-1].Units
	m.sigmoid = m.logits == 1

	total := 0
	m.offsets = make([]int, len(m.layers))
	for i, l := range m.layers {
		m.offsets[i] = total
		total += l.numParams()
	}
	m.params = make([]float32, total)
	for i, l := range m.layers {
		l.bind(m.params[m.offsets[i] : m.offsets[i]+l.numParams()])
	}
	return nil
}

// Arch returns the architecture the model was built from.
func (m *Model) Arch() Arch { return m.arch }

// InputShape returns the input shape given to NewModel.
func (m *Model) InputShape() []int { return append([]int(nil), m.inShape...) }

// InputSize is the number of features per example (the product of the shape).
func (m *Model) InputSize() int { return m.inSize }

// Classes returns the number of classes.
func (m *Model) Classes() int { return m.classes }

// NumParams returns the number of trainable parameters.
func (m *Model) NumParams() int { return len(m.params) }

// Params returns a copy of the flat parameter vector.
func (m *Model) Params() []float32 { return append([]float32(nil), m.params...) }

// CopyParams copies the flat parameter vector into dst (len NumParams()).
func (m *Model) CopyParams(dst []float32) error {
	if len(dst) != len(m.params) {
		return fmt.Errorf("copy params: destination has %d values, model has %d", len(dst), len(m.params))
	}
	copy(dst, m.params)
	return nil
}

// SetParams overwrites the parameters with p (len NumParams()).
func (m *Model) SetParams(p []float32) error {
	if len(p) != len(m.params) {
		return fmt.Errorf("set params: got %d values, model has %d", len(p), len(m.params))
	}
	if ok, i := allFinite(p); !ok {
		return fmt.Errorf("set params: value %d (%s) is %v", i, m.paramName(i), p[i])
	}
	copy(m.params, p)
	return nil
}

// Clone returns an independent copy of the model.
func (m *Model) Clone() *Model {
	c := &Model{arch: m.arch, inShape: m.inShape, classes: m.classes}
	if err := c.build(); err != nil {
		panic("learn: rebuilding a valid model failed: " + err.Error()) // unreachable
	}
	copy(c.params, m.params)
	return c
}

// Layers describes the layers in order.
func (m *Model) Layers() []LayerInfo {
	out := make([]LayerInfo, len(m.layers))
	for i, l := range m.layers {
		out[i] = LayerInfo{Name: l.describe(), Offset: m.offsets[i], Size: l.numParams()}
	}
	return out
}

// paramName names the parameter at flat index i, e.g.
// "layer 2 (dense 512→10) weight [3, 17]".
func (m *Model) paramName(i int) string {
	for li, l := range m.layers {
		off, n := m.offsets[li], l.numParams()
		if i < off || i >= off+n {
			continue
		}
		j := i - off
		switch t := l.(type) {
		case *dense:
			if j < t.in*t.out {
				return fmt.Sprintf("layer %d (%s) weight [%d, %d]", li, l.describe(), j/t.in, j%t.in)
			}
			return fmt.Sprintf("layer %d (%s) bias [%d]", li, l.describe(), j-t.in*t.out)
		case *conv:
			if j < t.numWeights() {
				return fmt.Sprintf("layer %d (%s) weight [%d, %d]", li, l.describe(), j/t.kdim(), j%t.kdim())
			}
			return fmt.Sprintf("layer %d (%s) bias [%d]", li, l.describe(), j-t.numWeights())
		}
		return fmt.Sprintf("layer %d (%s) parameter %d", li, l.describe(), j)
	}
	return fmt.Sprintf("parameter %d", i)
}

// loadRow copies one example's features from the caller's layout (C×H×W)
// into the model's internal layout (H×W×C).
func (m *Model) loadRow(dst, src []float32) {
	if !m.chw {
		copy(dst[:m.inSize], src[:m.inSize])
		return
	}
	c, hw := m.inShape[0], m.inShape[1]*m.inShape[2]
	for ch := 0; ch < c; ch++ {
		s := src[ch*hw : (ch+1)*hw]
		for p, v := range s {
			dst[p*c+ch] = v
		}
	}
}

// storeRow is the inverse of loadRow (internal H×W×C → caller's C×H×W).
func (m *Model) storeRow(dst, src []float32) {
	if !m.chw {
		copy(dst[:m.inSize], src[:m.inSize])
		return
	}
	c, hw := m.inShape[0], m.inShape[1]*m.inShape[2]
	for ch := 0; ch < c; ch++ {
		d := dst[ch*hw : (ch+1)*hw]
		for p := range d {
			d[p] = src[p*c+ch]
		}
	}
}

// checkData validates a data set's shape and labels against the model.
func (m *Model) checkData(X []float32, Y []int32) error {
	n := len(Y)
	if len(X) != n*m.inSize {
		return fmt.Errorf("data: %d labels need %d×%d = %d features, got %d (input shape %v)",
			n, n, m.inSize, n*m.inSize, len(X), m.inShape)
	}
	for i, y := range Y {
		if y < 0 || int(y) >= m.classes {
			return fmt.Errorf("data: label of record %d is %d, want 0…%d", i, y, m.classes-1)
		}
	}
	return nil
}

// externalFeature maps a feature index of the internal layout (H×W×C) to
// the caller's layout (C×H×W); negative indices pass through.
func (m *Model) externalFeature(j int) int {
	if !m.chw || j < 0 {
		return j
	}
	c, hw := m.inShape[0], m.inShape[1]*m.inShape[2]
	return (j%c)*hw + j/c
}

// defaultChunk returns the default chunk size (see DefaultChunkSize).
func (m *Model) defaultChunk() int {
	patch := 0 // floats in the largest per-example im2col matrix
	for _, l := range m.layers {
		if cv, ok := l.(*conv); ok {
			patch = max(patch, cv.positions()*cv.kdim())
		}
	}
	chunk := DefaultChunkSize
	for chunk > 8 && chunk*patch*4 > 1<<20 {
		chunk /= 2
	}
	return chunk
}
