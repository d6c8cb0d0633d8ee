package learn

import (
	"fmt"
	"strconv"
	"strings"
)

// KindLayers is the Arch kind of a user's own layer list (Arch.Layers).
const KindLayers = "layers"

// Layer kinds of a LayerSpec; an Activation name (relu, tanh, elu,
// sigmoid) is a layer kind too.
const (
	LayerDense   = "dense"
	LayerConv2D  = "conv2d"
	LayerMaxPool = "maxpool"
	LayerAvgPool = "avgpool"
	LayerFlatten = "flatten"
)

// LayerSpec is one layer of a network: what Arch.Layers lists, and what
// every preset (logreg, mlp, cnn) expands to (Arch.LayerList). Images flow
// as [C, H, W]; dense layers need a flat input (flatten first), which
// flatten makes without copying.
type LayerSpec struct {
	Kind string `json:"kind"`
	// Units is a dense layer's output width. The last layer is dense, and
	// its units are the logits: one per class, or 1 for a sigmoid head on
	// two classes.
	Units  int  `json:"units,omitempty"`
	NoBias bool `json:"no_bias,omitempty"` // dense without bias
	// Filters, Kernel, Stride (0 = 1) and Padding describe a conv2d.
	Filters int `json:"filters,omitempty"`
	Kernel  int `json:"kernel,omitempty"`
	Stride  int `json:"stride,omitempty"`
	Padding int `json:"padding,omitempty"`
	// Size is a pooling window; Stride 0 means Size.
	Size int `json:"size,omitempty"`
}

// LayerError is a layer list that does not fit its input (or is
// malformed): Index is the layer's position in the list.
type LayerError struct {
	Index int
	Msg   string
}

func (e *LayerError) Error() string { return fmt.Sprintf("layers[%d]: %s", e.Index, e.Msg) }

func (l LayerSpec) stride() int {
	switch {
	case l.Stride > 0:
		return l.Stride
	case l.Kind == LayerConv2D:
		return 1
	}
	return l.Size
}

// String renders the layer compactly, e.g. "conv2d 16 k3 s1 p0".
func (l LayerSpec) String() string {
	switch l.Kind {
	case LayerDense:
		if l.NoBias {
			return fmt.Sprintf("dense %d nobias", l.Units)
		}
		return fmt.Sprintf("dense %d", l.Units)
	case LayerConv2D:
		return fmt.Sprintf("conv2d %d k%d s%d p%d", l.Filters, l.Kernel, l.stride(), l.Padding)
	case LayerMaxPool, LayerAvgPool:
		return fmt.Sprintf("%s %d s%d", l.Kind, l.Size, l.stride())
	}
	return l.Kind
}

// LayerList is the architecture as a layer list for data with the given
// number of classes: Layers itself for kind "layers", the expansion of a
// preset otherwise (logreg: flatten, dense; mlp: flatten, then dense and
// activation per hidden width, dense; cnn: conv2d, activation and pooling
// per conv block, flatten, the hidden dense layers, dense). A preset and
// its list build the same model, bit for bit.
func (a Arch) LayerList(classes int) []LayerSpec {
	if a.Kind == KindLayers {
		return a.Layers
	}
	act := string(a.activation())
	var out []LayerSpec
	for _, c := range a.Conv {
		out = append(out, LayerSpec{Kind: LayerConv2D, Filters: c.Filters, Kernel: c.Kernel, Stride: c.Stride, Padding: c.Padding},
			LayerSpec{Kind: act})
		switch {
		case c.Pool > 0 && c.MaxPool:
			out = append(out, LayerSpec{Kind: LayerMaxPool, Size: c.Pool, Stride: c.poolStride()})
		case c.Pool > 0:
			out = append(out, LayerSpec{Kind: LayerAvgPool, Size: c.Pool, Stride: c.poolStride()})
		}
	}
	out = append(out, LayerSpec{Kind: LayerFlatten})
	for _, h := range a.Hidden {
		out = append(out, LayerSpec{Kind: LayerDense, Units: h}, LayerSpec{Kind: act})
	}
	logits := classes
	if a.sigmoidHead(classes) {
		logits = 1
	}
	return append(out, LayerSpec{Kind: LayerDense, Units: logits, NoBias: a.NoBias})
}

// checkLayers checks the fields of a layer list that do not depend on the
// input shape, and that its last layer gives the logits of classes
// classes.
func checkLayers(list []LayerSpec, classes int, output string) error {
	if len(list) == 0 {
		return &LayerError{0, "the list is empty: a network needs at least its output layer (dense, one unit per class)"}
	}
	for i, l := range list {
		var bad string
		switch l.Kind {
		case LayerDense:
			if l.Units < 1 {
				bad = fmt.Sprintf("units %d: must be ≥ 1", l.Units)
			}
		case LayerConv2D:
			if l.Filters < 1 || l.Kernel < 1 || l.Stride < 0 || l.Padding < 0 {
				bad = fmt.Sprintf("filters %d, kernel %d, stride %d, padding %d: filters and kernel must be ≥ 1, stride and padding ≥ 0", l.Filters, l.Kernel, l.Stride, l.Padding)
			}
		case LayerMaxPool, LayerAvgPool:
			if l.Size < 1 || l.Stride < 0 {
				bad = fmt.Sprintf("size %d, stride %d: size must be ≥ 1, stride ≥ 0", l.Size, l.Stride)
			}
		case LayerFlatten:
		default:
			if !validActivation(Activation(l.Kind)) {
				bad = fmt.Sprintf("unknown layer kind %q (want dense, conv2d, maxpool, avgpool, flatten, relu, tanh, elu or sigmoid)", l.Kind)
			}
		}
		if bad != "" {
			return &LayerError{i, l.Kind + " " + bad}
		}
	}
	last := len(list) - 1
	out := list[last]
	if out.Kind != LayerDense {
		return &LayerError{last, fmt.Sprintf("the last layer must be dense (its units are the logits, one per class; the softmax or sigmoid is the loss), got %s", out.Kind)}
	}
	sigmoid := out.Units == 1
	switch {
	case output == OutputSigmoid && !sigmoid:
		return &LayerError{last, fmt.Sprintf("a sigmoid output needs 1 unit in the last layer, got %d", out.Units)}
	case output == OutputSoftmax && sigmoid:
		return &LayerError{last, "a softmax output needs one unit per class in the last layer, got 1"}
	case sigmoid && classes != 2:
		return &LayerError{last, fmt.Sprintf("dense 1 is a sigmoid head for 2 classes, but the data has %d classes (labels 0…%d): give the last layer %d units", classes, classes-1, classes)}
	case !sigmoid && out.Units != classes:
		return &LayerError{last, fmt.Sprintf("the last layer has %d units, but the data has %d classes (labels 0…%d): it needs one unit per class", out.Units, classes, classes-1)}
	}
	return nil
}

// built is a layer list turned into layers for an input shape.
type built struct {
	layers []layer
	// chw: the input is C×H×W with C > 1 and reaches a convolution or
	// pooling, so it is reordered to the layers' H×W×C.
	chw bool
}

// shapeWalk is the shape of the values between two layers: an image
// c×h×w, or a flat vector of width values (for an image, width = c·h·w).
type shapeWalk struct {
	flat    bool
	c, h, w int
	width   int
}

func (s *shapeWalk) String() string {
	if s.flat {
		return "[" + strconv.Itoa(s.width) + "]"
	}
	return fmt.Sprintf("%d×%d×%d", s.c, s.h, s.w)
}

// buildLayers makes the layers of list for inputs of shape in ([D] or
// [C, H, W]). Shapes are checked layer by layer; a misfit is a
// *LayerError naming the layer, the shape it got and the layer before.
func buildLayers(list []LayerSpec, in []int) (built, error) {
	var b built
	s := &shapeWalk{flat: len(in) != 3, width: 1}
	for _, d := range in {
		s.width *= d
	}
	if !s.flat {
		s.c, s.h, s.w = in[0], in[1], in[2]
		for _, l := range list {
			if l.Kind == LayerConv2D || l.Kind == LayerMaxPool || l.Kind == LayerAvgPool {
				b.chw = s.c > 1
				break
			}
			if l.Kind == LayerFlatten || l.Kind == LayerDense {
				break
			}
		}
	}
	for i, l := range list {
		lay, misfit, hint := s.next(l)
		if misfit != "" {
			return b, &LayerError{i, misfit + " " + afterLayer(list, i) + hint}
		}
		if lay != nil {
			b.layers = append(b.layers, lay)
		}
	}
	markSparseDeltas(b.layers)
	return b, nil
}

// markSparseDeltas marks the convolutions whose output passes a ReLU and
// then max pooling with disjoint windows: most of their output deltas
// are zeros, so their backward pass needs no patch matrix (see
// conv.directForwardOK).
func markSparseDeltas(layers []layer) {
	for i := 0; i+2 < len(layers); i++ {
		cv, ok := layers[i].(*conv)
		p, pooled := layers[i+2].(*maxPool)
		if ok && pooled && isReLU(layers[i+1]) && p.disjoint() {
			cv.sparseDeltas = true
		}
	}
}

// next makes the layer l on the current shape and moves the shape past
// it; a misfit is what went wrong (and a hint to follow where the shape
// came from), and no layer. Flatten makes no layer: H×W×C memory is
// already the flat vector.
func (s *shapeWalk) next(l LayerSpec) (lay layer, misfit, hint string) {
	switch l.Kind {
	case LayerFlatten:
		s.flat = true
		return nil, "", ""
	case LayerDense:
		if !s.flat {
			return nil, fmt.Sprintf("dense needs a flat input, got %s", s), ": add {kind: flatten} before it"
		}
		lay, s.width = newDense(s.width, l.Units, !l.NoBias), l.Units
		return lay, "", ""
	case LayerConv2D, LayerMaxPool, LayerAvgPool:
		if s.flat {
			return nil, fmt.Sprintf("%s needs a [C, H, W] input, got %s", l.Kind, s), ""
		}
		return s.spatial(l)
	}
	return &activation{kind: Activation(l.Kind), n: s.width}, "", ""
}

// spatial makes a convolution or pooling on an image.
func (s *shapeWalk) spatial(l LayerSpec) (layer, string, string) {
	if l.Kind == LayerConv2D {
		k, p := l.Kernel, l.Padding
		if k > s.h+2*p || k > s.w+2*p {
			padded := ""
			if p > 0 {
				padded = fmt.Sprintf(" padded by %d", p)
			}
			return nil, fmt.Sprintf("conv2d kernel %d > input %d×%d%s", k, s.h, s.w, padded), ""
		}
		cv, err := newConv(s.h, s.w, s.c, l.Filters, k, l.stride(), p)
		if err != nil {
			return nil, "conv2d: " + err.Error(), ""
		}
		s.c, s.h, s.w, s.width = cv.outC, cv.outH, cv.outW, cv.outSize()
		return cv, "", ""
	}
	if l.Size > s.h || l.Size > s.w {
		return nil, fmt.Sprintf("%s size %d > input %d×%d", l.Kind, l.Size, s.h, s.w), ""
	}
	if l.Kind == LayerMaxPool {
		mp, err := newMaxPool(s.h, s.w, s.c, l.Size, l.stride())
		if err != nil {
			return nil, err.Error(), ""
		}
		s.h, s.w, s.width = mp.outH, mp.outW, mp.outSize()
		return mp, "", ""
	}
	ap, err := newAvgPool(s.h, s.w, s.c, l.Size, l.stride())
	if err != nil {
		return nil, err.Error(), ""
	}
	s.h, s.w, s.width = ap.outH, ap.outW, ap.outSize()
	return ap, "", ""
}

// afterLayer says where layer i's input comes from, for messages.
func afterLayer(list []LayerSpec, i int) string {
	if i == 0 {
		return "(the data's shape)"
	}
	return fmt.Sprintf("(after layers[%d] %s)", i-1, list[i-1].Kind)
}

// layersString renders a layer list, e.g. "conv2d 16 k3 s1 p0, relu, …".
func layersString(list []LayerSpec) string {
	parts := make([]string, len(list))
	for i, l := range list {
		parts[i] = l.String()
	}
	return strings.Join(parts, ", ")
}
