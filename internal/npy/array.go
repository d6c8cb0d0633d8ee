package npy

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
)

// Write writes data as a .npy array of the given shape (C order, native
// byte order, format version 1.0 unless the header needs 2.0). The product
// of shape must equal len(data); a nil or empty shape is a scalar.
func Write[T Elem](w io.Writer, shape []int, data []T) error {
	if n := product(shape); n != len(data) {
		return fmt.Errorf("npy: shape %v holds %d values, data has %d", shape, n, len(data))
	}
	h := Header{Shape: append([]int{}, shape...), DType: dtypeOf[T]()}
	if _, err := w.Write(encodeHeader(h)); err != nil {
		return err
	}
	_, err := w.Write(asBytes(data))
	return err
}

// WriteFile writes data to path as Write does.
func WriteFile[T Elem](path string, shape []int, data []T) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := Write(bw, shape, data); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Read reads one .npy array from r.
func Read(r io.Reader) (*Array, error) {
	h, err := ReadHeader(r)
	if err != nil {
		return nil, err
	}
	return readData(r, h)
}

// ReadFile reads a .npy file and checks that nothing follows the array.
func ReadFile(path string) (*Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(f, 1<<16)
	h, err := ReadHeader(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// Check the size before allocating: a corrupt shape must not ask for
	// terabytes.
	want := int64(product(h.Shape)) * int64(h.DType.Size)
	if rest := st.Size() - int64(h.bytes); rest != want {
		return nil, fmt.Errorf("%s: %w", path, formatf("shape %v of %s needs %d data bytes, the file has %d", h.Shape, h.DType, want, rest))
	}
	a, err := readData(br, h)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// readData reads the array body described by h.
func readData(r io.Reader, h Header) (*Array, error) {
	n := product(h.Shape)
	a := &Array{Shape: h.Shape, DType: h.DType}
	var raw []byte
	switch t := h.DType; {
	case t.Kind == 'b':
		raw, a.Data = alloc[bool](n)
	case t.Kind == 'i' && t.Size == 1:
		raw, a.Data = alloc[int8](n)
	case t.Kind == 'u' && t.Size == 1:
		raw, a.Data = alloc[uint8](n)
	case t.Kind == 'i' && t.Size == 2:
		raw, a.Data = alloc[int16](n)
	case t.Kind == 'u' && t.Size == 2:
		raw, a.Data = alloc[uint16](n)
	case t.Kind == 'i' && t.Size == 4:
		raw, a.Data = alloc[int32](n)
	case t.Kind == 'u' && t.Size == 4:
		raw, a.Data = alloc[uint32](n)
	case t.Kind == 'i' && t.Size == 8:
		raw, a.Data = alloc[int64](n)
	case t.Kind == 'u' && t.Size == 8:
		raw, a.Data = alloc[uint64](n)
	case t.Kind == 'f' && t.Size == 4:
		raw, a.Data = alloc[float32](n)
	case t.Kind == 'f' && t.Size == 8:
		raw, a.Data = alloc[float64](n)
	default:
		return nil, formatf("dtype %s is not supported", t)
	}
	if _, err := io.ReadFull(r, raw); err != nil {
		return nil, shortRead(err, fmt.Sprintf("data (%d values of %s expected)", n, h.DType))
	}
	if h.DType.Size > 1 && h.DType.BigEndian == littleEndian {
		swapBytes(raw, h.DType.Size)
	}
	if h.DType.Kind == 'b' {
		// A Go bool must be 0 or 1; any other byte is undefined behaviour.
		for i, v := range raw {
			if v > 1 {
				return nil, formatf("bool value %d at index %d is neither 0 nor 1", v, i)
			}
		}
	}
	return a, nil
}

// alloc makes a slice of n T and its byte view.
func alloc[T Elem](n int) ([]byte, []T) {
	s := make([]T, n)
	return asBytes(s), s
}

// Float32s returns the array's values as float32 (a copy unless the array
// already holds float32). Integers are converted exactly where float32
// can represent them; float64 is rounded to nearest.
func Float32s(a *Array) ([]float32, error) {
	switch d := a.Data.(type) {
	case []float32:
		return d, nil
	case []float64:
		return convert(d), nil
	case []uint8:
		return convert(d), nil
	case []int8:
		return convert(d), nil
	case []int16:
		return convert(d), nil
	case []uint16:
		return convert(d), nil
	case []int32:
		return convert(d), nil
	case []uint32:
		return convert(d), nil
	case []int64:
		return convert(d), nil
	case []uint64:
		return convert(d), nil
	case []bool:
		out := make([]float32, len(d))
		for i, v := range d {
			if v {
				out[i] = 1
			}
		}
		return out, nil
	}
	return nil, formatf("dtype %s has no float32 conversion", a.DType)
}

type number interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

func convert[T number](d []T) []float32 {
	out := make([]float32, len(d))
	for i, v := range d {
		out[i] = float32(v)
	}
	return out
}

// Int64s returns the array's values as int64. Floats must hold integers
// (the index of the first that does not is in the error); uint64 values
// above MaxInt64 are refused.
func Int64s(a *Array) ([]int64, error) {
	out := make([]int64, a.Len())
	switch d := a.Data.(type) {
	case []float32:
		for i, v := range d {
			if float32(int64(v)) != v || math.IsInf(float64(v), 0) {
				return nil, formatf("value %v at index %d is not an integer", v, i)
			}
			out[i] = int64(v)
		}
	case []float64:
		for i, v := range d {
			if v != math.Trunc(v) || math.Abs(v) > 1<<62 {
				return nil, formatf("value %v at index %d is not an integer", v, i)
			}
			out[i] = int64(v)
		}
	case []uint64:
		for i, v := range d {
			if v > math.MaxInt64 {
				return nil, formatf("value %d at index %d overflows int64", v, i)
			}
			out[i] = int64(v)
		}
	case []bool:
		for i, v := range d {
			if v {
				out[i] = 1
			}
		}
	case []int8:
		copyInts(out, d)
	case []uint8:
		copyInts(out, d)
	case []int16:
		copyInts(out, d)
	case []uint16:
		copyInts(out, d)
	case []int32:
		copyInts(out, d)
	case []uint32:
		copyInts(out, d)
	case []int64:
		copy(out, d)
	default:
		return nil, formatf("dtype %s has no integer conversion", a.DType)
	}
	return out, nil
}

func copyInts[T ~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32](dst []int64, src []T) {
	for i, v := range src {
		dst[i] = int64(v)
	}
}
