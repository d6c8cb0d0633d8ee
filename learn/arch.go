package learn

import (
	"fmt"
	"strings"
)

// Activation names a pointwise nonlinearity.
type Activation string

// The supported activations. ELU uses α = 1 (PyTorch's default).
const (
	ReLU    Activation = "relu"
	Tanh    Activation = "tanh"
	ELU     Activation = "elu"
	Sigmoid Activation = "sigmoid"
)

// Model kinds accepted in Arch.Kind.
const (
	KindLogReg = "logreg"
	KindMLP    = "mlp"
	KindCNN    = "cnn"
)

// Output heads accepted in Arch.Output.
const (
	OutputAuto    = ""        // sigmoid for a 2-class logreg, softmax otherwise
	OutputSoftmax = "softmax" // one logit per class, softmax cross-entropy
	OutputSigmoid = "sigmoid" // one logit, binary cross-entropy; labels 0/1
)

// Parameter initialisation schemes accepted in Arch.Init.
const (
	// InitPyTorch draws every weight and bias from U(−1/√fan_in, +1/√fan_in),
	// which is what torch.nn.Linear and torch.nn.Conv2d do by default
	// (kaiming_uniform with a = √5 reduces to this bound).
	InitPyTorch = "pytorch"
	// InitGlorot draws weights from U(−√(6/(fan_in+fan_out)), +…) and sets
	// biases to zero (Glorot & Bengio 2010; Keras' default).
	InitGlorot = "glorot"
	// InitZeros sets every parameter to zero; sensible only for logistic
	// regression, whose loss is convex.
	InitZeros = "zeros"
)

// ConvSpec describes one convolution block of a CNN: a 2-D convolution with
// Filters output channels, a square Kernel, Stride and symmetric zero Padding,
// followed by the activation and, if Pool > 0, an average (or, with
// MaxPool, max) pooling of size Pool with PoolStride (0 means
// PoolStride = Pool).
type ConvSpec struct {
	Filters, Kernel, Stride, Padding int
	Pool, PoolStride                 int
	// MaxPool selects max instead of average pooling. (omitempty keeps the
	// cache keys of existing average-pooling specs unchanged.)
	MaxPool bool `json:",omitempty"`
}

// Arch describes a model. Kind selects the family (every one is a name
// for a layer list: LayerList):
//
//   - "logreg": one dense layer from the input to the output.
//   - "mlp": dense layers of the Hidden widths, each followed by Activation
//     (default relu), then a dense output layer.
//   - "cnn": the Conv blocks (conv → Activation → optional average pool),
//     then dense layers of the Hidden widths with Activation (default tanh),
//     then a dense output layer. The input must be [C, H, W].
//   - "layers": the Layers as listed (dense, conv2d, maxpool, avgpool,
//     flatten, activations), ending in a dense layer of one unit per class
//     (or 1: a sigmoid head on two classes).
type Arch struct {
	Kind       string
	Hidden     []int
	Activation Activation
	Conv       []ConvSpec
	// Output selects the loss head; see the Output constants.
	Output string
	// NoBias drops the bias of a logreg model (Guo et al. §7.1 use none).
	NoBias bool
	// Init selects the initialisation scheme; "" means InitPyTorch.
	Init string
	// Layers is the list of kind "layers". (omitempty keeps the encoding,
	// and so the cache keys, of the other kinds unchanged.)
	Layers []LayerSpec `json:",omitempty"`
}

// TanhCNN is the MNIST CNN of Papernot et al. (2020) used by Guo et al.'s
// code (cnn_tanh): conv 16 k8 s2 p3 → tanh → avgpool 2 s1 → conv 32 k4 s2 →
// tanh → avgpool 2 s1 → dense 32 → tanh → dense 10. On a 1×28×28 input with
// 10 classes it has 26,010 parameters (Guo reference note, fact F29).
func TanhCNN() Arch {
	return Arch{
		Kind:       KindCNN,
		Activation: Tanh,
		Conv: []ConvSpec{
			{Filters: 16, Kernel: 8, Stride: 2, Padding: 3, Pool: 2, PoolStride: 1},
			{Filters: 32, Kernel: 4, Stride: 2, Padding: 0, Pool: 2, PoolStride: 1},
		},
		Hidden: []int{32},
	}
}

// String renders the architecture compactly, e.g. "mlp 512 relu".
func (a Arch) String() string {
	if a.Kind == KindLayers {
		return a.Kind + " " + layersString(a.Layers)
	}
	var b strings.Builder
	b.WriteString(a.Kind)
	for _, c := range a.Conv {
		fmt.Fprintf(&b, " conv%d/k%ds%dp%d", c.Filters, c.Kernel, c.Stride, c.Padding)
		if c.Pool > 0 && c.MaxPool {
			fmt.Fprintf(&b, "/maxpool%ds%d", c.Pool, c.poolStride())
		} else if c.Pool > 0 {
			fmt.Fprintf(&b, "/pool%ds%d", c.Pool, c.poolStride())
		}
	}
	for _, h := range a.Hidden {
		fmt.Fprintf(&b, " %d", h)
	}
	if a.Activation != "" {
		fmt.Fprintf(&b, " %s", a.Activation)
	}
	return b.String()
}

func (c ConvSpec) poolStride() int {
	if c.PoolStride == 0 {
		return c.Pool
	}
	return c.PoolStride
}

// activation returns the activation to use, applying the kind's default.
func (a Arch) activation() Activation {
	if a.Activation != "" {
		return a.Activation
	}
	if a.Kind == KindCNN {
		return Tanh
	}
	return ReLU
}

func validActivation(a Activation) bool {
	switch a {
	case ReLU, Tanh, ELU, Sigmoid:
		return true
	}
	return false
}

// validate checks the fields that do not depend on the input shape.
func (a Arch) validate(classes int) error {
	switch a.Kind {
	case KindLogReg:
		if len(a.Hidden) > 0 || len(a.Conv) > 0 {
			return fmt.Errorf("arch logreg: takes no hidden or conv layers (got hidden %v, %d conv)", a.Hidden, len(a.Conv))
		}
	case KindMLP:
		if len(a.Conv) > 0 {
			return fmt.Errorf("arch mlp: takes no conv layers (use kind cnn)")
		}
	case KindCNN:
		if len(a.Conv) == 0 {
			return fmt.Errorf("arch cnn: needs at least one conv block")
		}
	case KindLayers:
		if len(a.Hidden) > 0 || len(a.Conv) > 0 || a.Activation != "" || a.NoBias {
			return fmt.Errorf("arch layers: hidden, conv, activation and no-bias belong in the layer list")
		}
		if classes >= 2 {
			if err := checkLayers(a.Layers, classes, a.Output); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("arch kind %q: want logreg, mlp, cnn or layers", a.Kind)
	}
	if a.NoBias && a.Kind != KindLogReg {
		return fmt.Errorf("arch %s: NoBias is only supported for logreg", a.Kind)
	}
	if !validActivation(a.activation()) {
		return fmt.Errorf("arch %s: activation %q: want relu, tanh, elu or sigmoid", a.Kind, a.Activation)
	}
	for i, h := range a.Hidden {
		if h <= 0 {
			return fmt.Errorf("arch %s: hidden[%d] = %d: widths must be positive", a.Kind, i, h)
		}
	}
	for i, c := range a.Conv {
		if c.Filters <= 0 || c.Kernel <= 0 || c.Stride <= 0 || c.Padding < 0 || c.Pool < 0 || c.PoolStride < 0 {
			return fmt.Errorf("arch cnn: conv[%d] %+v: filters, kernel and stride must be positive, padding and pool non-negative", i, c)
		}
	}
	if classes < 2 {
		return fmt.Errorf("arch %s: %d classes: need at least 2", a.Kind, classes)
	}
	switch a.Output {
	case OutputAuto, OutputSoftmax:
	case OutputSigmoid:
		if classes != 2 {
			return fmt.Errorf("arch %s: sigmoid output needs 2 classes, got %d", a.Kind, classes)
		}
	default:
		return fmt.Errorf("arch %s: output %q: want softmax or sigmoid", a.Kind, a.Output)
	}
	switch a.Init {
	case "", InitPyTorch, InitGlorot, InitZeros:
	default:
		return fmt.Errorf("arch %s: init %q: want pytorch, glorot or zeros", a.Kind, a.Init)
	}
	return nil
}

// sigmoidHead reports whether the model ends in one logit with a sigmoid.
func (a Arch) sigmoidHead(classes int) bool {
	switch a.Output {
	case OutputSigmoid:
		return true
	case OutputAuto:
		return a.Kind == KindLogReg && classes == 2
	}
	return false
}
