package datasets

import (
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// IDXType is the element type byte of an IDX file (LeCun's format used by
// MNIST and Fashion-MNIST: http://yann.lecun.com/exdb/mnist/, "THE IDX FILE
// FORMAT"). Multi-byte elements are big-endian.
type IDXType byte

// The element types the IDX format defines.
const (
	IDXUint8   IDXType = 0x08
	IDXInt8    IDXType = 0x09
	IDXInt16   IDXType = 0x0B
	IDXInt32   IDXType = 0x0C
	IDXFloat32 IDXType = 0x0D
	IDXFloat64 IDXType = 0x0E
)

// Size returns the element size in bytes, or 0 for an unknown type.
func (t IDXType) Size() int {
	switch t {
	case IDXUint8, IDXInt8:
		return 1
	case IDXInt16:
		return 2
	case IDXInt32, IDXFloat32:
		return 4
	case IDXFloat64:
		return 8
	}
	return 0
}

// maxIDXBytes bounds an IDX payload (1 GiB): a header announcing more is
// refused, and ReadIDX stops reading past it, so a corrupt or hostile
// file cannot make us allocate absurd amounts of memory.
const maxIDXBytes = 1 << 30

// IDXArray is one decoded IDX file: an element type, the dimensions, and
// the payload exactly as stored (big-endian elements, row-major).
type IDXArray struct {
	Type IDXType
	Dims []int
	Data []byte
}

// Len is the number of elements (the product of Dims).
func (a *IDXArray) Len() int {
	n := 1
	for _, d := range a.Dims {
		n *= d
	}
	return n
}

// ReadIDX decodes one IDX file from r, raw or gzip-compressed (detected by
// the gzip magic bytes), reading r to the end. A truncated payload,
// trailing bytes or a bad gzip stream are ErrFormat errors; other read
// failures are returned as I/O errors.
func ReadIDX(r io.Reader) (*IDXArray, error) {
	buf, err := readAllMaybeGzip(r, maxIDXBytes+4+4*255)
	if err != nil {
		return nil, fmt.Errorf("idx: %w", err)
	}
	return ParseIDX(buf)
}

// readAllMaybeGzip returns the whole (decompressed) content of r, refusing
// more than limit bytes.
func readAllMaybeGzip(r io.Reader, limit int64) ([]byte, error) {
	src, closeSrc, err := maybeGunzip(r)
	if err != nil {
		return nil, err
	}
	defer closeSrc()
	buf, err := io.ReadAll(io.LimitReader(src, limit+1))
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, formatf("truncated gzip stream")
		}
		return nil, gzipErr(err)
	}
	if int64(len(buf)) > limit {
		return nil, formatf("content exceeds the %d-byte limit", limit)
	}
	return buf, nil
}

// gzipErr turns gzip's corruption errors into ErrFormat; anything else
// passes through unchanged.
func gzipErr(err error) error {
	if errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) {
		return formatf("gzip stream: %v", err)
	}
	return err
}

// ParseIDX decodes a raw IDX file held in memory. The returned Data
// aliases buf (no copy). The payload must have exactly the size the
// header declares.
func ParseIDX(buf []byte) (*IDXArray, error) {
	if len(buf) < 4 {
		return nil, formatf("idx: %d bytes, shorter than the 4-byte magic number", len(buf))
	}
	if buf[0] != 0 || buf[1] != 0 {
		return nil, formatf("idx: magic number %#02x%02x%02x%02x does not start with two zero bytes (not an IDX file?)",
			buf[0], buf[1], buf[2], buf[3])
	}
	typ := IDXType(buf[2])
	size := typ.Size()
	if size == 0 {
		return nil, formatf("idx: unknown element type %#02x (want 0x08, 0x09, 0x0B, 0x0C, 0x0D or 0x0E)", buf[2])
	}
	ndims := int(buf[3])
	if ndims == 0 {
		return nil, formatf("idx: header declares zero dimensions")
	}
	head := 4 + 4*ndims
	if len(buf) < head {
		return nil, formatf("idx: file ends inside the %d dimension sizes", ndims)
	}
	dims := make([]int, ndims)
	total := size
	for i := range dims {
		d := binary.BigEndian.Uint32(buf[4+4*i:])
		if d > maxIDXBytes {
			return nil, formatf("idx: dimension %d is %d, larger than the %d-byte limit", i, d, maxIDXBytes)
		}
		dims[i] = int(d)
		total *= int(d)
		if total > maxIDXBytes {
			return nil, formatf("idx: dimensions %v exceed the %d-byte limit", dims[:i+1], maxIDXBytes)
		}
	}
	switch got := len(buf) - head; {
	case got < total:
		return nil, formatf("idx: payload truncated: dimensions %v need %d bytes, file has %d", dims, total, got)
	case got > total:
		return nil, formatf("idx: %d trailing bytes after the %d-byte payload declared by dimensions %v", got-total, total, dims)
	}
	return &IDXArray{Type: typ, Dims: dims, Data: buf[head:]}, nil
}

// WriteTo writes a as a raw (uncompressed) IDX file.
func (a *IDXArray) WriteTo(w io.Writer) (int64, error) {
	size := a.Type.Size()
	if size == 0 {
		return 0, invalidf("idx: unknown element type %#02x", byte(a.Type))
	}
	if len(a.Dims) == 0 || len(a.Dims) > 255 {
		return 0, invalidf("idx: need 1 to 255 dimensions, got %d", len(a.Dims))
	}
	if a.Len()*size != len(a.Data) {
		return 0, invalidf("idx: dimensions %v of %d-byte elements need %d bytes, data has %d",
			a.Dims, size, a.Len()*size, len(a.Data))
	}
	head := []byte{0, 0, byte(a.Type), byte(len(a.Dims))}
	for _, d := range a.Dims {
		if d < 0 || d > math.MaxUint32 {
			return 0, invalidf("idx: dimension %d out of range", d)
		}
		head = binary.BigEndian.AppendUint32(head, uint32(d))
	}
	n, err := w.Write(head)
	if err != nil {
		return int64(n), err
	}
	m, err := w.Write(a.Data)
	return int64(n + m), err
}

// Float32s converts the elements to float32 (integers exactly as stored).
// NaN or Inf in a float file is an ErrFormat error.
func (a *IDXArray) Float32s() ([]float32, error) {
	n := a.Len()
	out := make([]float32, n)
	d := a.Data
	switch a.Type {
	case IDXUint8:
		for i, b := range d {
			out[i] = float32(b)
		}
	case IDXInt8:
		for i, b := range d {
			out[i] = float32(int8(b))
		}
	case IDXInt16:
		for i := range out {
			out[i] = float32(int16(binary.BigEndian.Uint16(d[2*i:])))
		}
	case IDXInt32:
		for i := range out {
			out[i] = float32(int32(binary.BigEndian.Uint32(d[4*i:])))
		}
	case IDXFloat32:
		for i := range out {
			out[i] = math.Float32frombits(binary.BigEndian.Uint32(d[4*i:]))
		}
	case IDXFloat64:
		for i := range out {
			v := math.Float64frombits(binary.BigEndian.Uint64(d[8*i:]))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, formatf("idx: element %d is %v", i, v)
			}
			out[i] = float32(v)
		}
	default:
		return nil, invalidf("idx: unknown element type %#02x", byte(a.Type))
	}
	if i := firstNonFinite(out); i >= 0 {
		return nil, formatf("idx: element %d is %v", i, out[i])
	}
	return out, nil
}

// firstNonFinite returns the index of the first NaN or ±Inf, or -1.
func firstNonFinite(xs []float32) int {
	for i, v := range xs {
		// v-v is 0 for finite v and NaN for NaN and ±Inf.
		if v-v != 0 {
			return i
		}
	}
	return -1
}
