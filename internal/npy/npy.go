// Package npy reads and writes NumPy's .npy arrays and .npz archives, the
// formats numpy.save, numpy.savez and numpy.savez_compressed produce
// (format versions 1.0, 2.0 and 3.0, as specified in numpy.lib.format).
//
// Arrays are plain, C-ordered and of one of the fixed-size numeric types
// NumPy calls b1, i1, u1, i2, u2, i4, u4, i8, u8, f4 and f8, in either byte
// order. Structured dtypes, objects, strings, float16 and Fortran-ordered
// arrays are refused with an error that names what was found.
//
//	f, _ := os.Create("x.npy")
//	err := npy.Write(f, []int{2, 3}, []float32{1, 2, 3, 4, 5, 6})
//
//	a, err := npy.ReadFile("x.npy") // a.Shape [2 3], a.Data []float32
//	x, err := npy.Float32s(a)       // any numeric type, converted
//
// Reading a little-endian array on a little-endian machine reads straight
// into the typed slice (no second copy), so a 1 GB array needs 1 GB.
package npy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"unsafe"
)

// ErrFormat is wrapped by every error about a malformed or unsupported
// file (as opposed to an I/O failure).
var ErrFormat = errors.New("npy")

func formatf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrFormat, fmt.Sprintf(format, args...))
}

// Elem is the Go element types that have a .npy dtype.
type Elem interface {
	~bool | ~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// DType is a fixed-size numeric dtype: Kind 'b' (bool), 'i' (signed), 'u'
// (unsigned) or 'f' (IEEE float) of Size bytes.
type DType struct {
	Kind      byte
	Size      int
	BigEndian bool
}

// String renders the dtype as NumPy's descr, e.g. "<f4" or "|u1".
func (t DType) String() string {
	order := byte('<')
	switch {
	case t.Size == 1:
		order = '|'
	case t.BigEndian:
		order = '>'
	}
	return fmt.Sprintf("%c%c%d", order, t.Kind, t.Size)
}

// Array is a decoded array. Data is a []bool, []int8, []uint8, []int16,
// []uint16, []int32, []uint32, []int64, []uint64, []float32 or []float64
// (per DType) of length Len(), in C order.
type Array struct {
	Shape []int
	DType DType
	Data  any
}

// Len is the number of elements (the product of Shape; 1 for a scalar).
func (a *Array) Len() int { return product(a.Shape) }

// product returns the number of elements of shape, or -1 when it
// overflows an int.
func product(shape []int) int {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return -1
		}
		if d != 0 && n > int(^uint(0)>>1)/d {
			return -1
		}
		n *= d
	}
	return n
}

// dtypeOf returns the dtype Write uses for T (native byte order).
func dtypeOf[T Elem]() DType {
	t := DType{BigEndian: !littleEndian}
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Bool:
		t.Kind, t.Size = 'b', 1
	case reflect.Int8:
		t.Kind, t.Size = 'i', 1
	case reflect.Uint8:
		t.Kind, t.Size = 'u', 1
	case reflect.Int16:
		t.Kind, t.Size = 'i', 2
	case reflect.Uint16:
		t.Kind, t.Size = 'u', 2
	case reflect.Int32:
		t.Kind, t.Size = 'i', 4
	case reflect.Uint32:
		t.Kind, t.Size = 'u', 4
	case reflect.Int64:
		t.Kind, t.Size = 'i', 8
	case reflect.Uint64:
		t.Kind, t.Size = 'u', 8
	case reflect.Float32:
		t.Kind, t.Size = 'f', 4
	case reflect.Float64:
		t.Kind, t.Size = 'f', 8
	}
	return t
}

// littleEndian is the byte order of this machine.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// asBytes views a slice's memory as bytes (no copy).
func asBytes[T Elem](data []T) []byte {
	if len(data) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), len(data)*int(unsafe.Sizeof(data[0])))
}

// swapBytes reverses the byte order of every size-byte element of b.
func swapBytes(b []byte, size int) {
	for i := 0; i+size <= len(b); i += size {
		e := b[i : i+size]
		for l, r := 0, size-1; l < r; l, r = l+1, r-1 {
			e[l], e[r] = e[r], e[l]
		}
	}
}
