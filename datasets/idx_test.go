package datasets

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"
)

// encodeIDX returns a raw IDX file, optionally gzipped.
func encodeIDX(t testing.TB, a *IDXArray, gz bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := a.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if !gz {
		return buf.Bytes()
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(buf.Bytes())
	zw.Close()
	return z.Bytes()
}

// Round trip of every element type, raw and gzipped. Expected values are
// the ones encoded, big-endian as the IDX format specifies (LeCun, "THE
// IDX FILE FORMAT"); they must come back exactly.
func TestIDXRoundTrip(t *testing.T) {
	be := binary.BigEndian
	cases := []struct {
		typ  IDXType
		dims []int
		data []byte
		want []float32
	}{
		{IDXUint8, []int{2, 3}, []byte{0, 1, 2, 253, 254, 255}, []float32{0, 1, 2, 253, 254, 255}},
		{IDXInt8, []int{3}, []byte{0x80, 0xff, 0x7f}, []float32{-128, -1, 127}},
		{IDXInt16, []int{2}, be.AppendUint16(be.AppendUint16(nil, 0xfffe), 300), []float32{-2, 300}},
		{IDXInt32, []int{1, 2}, be.AppendUint32(be.AppendUint32(nil, 0xffffff9c), 70000), []float32{-100, 70000}},
		{IDXFloat32, []int{2}, be.AppendUint32(be.AppendUint32(nil, math.Float32bits(1.5)), math.Float32bits(-0.25)), []float32{1.5, -0.25}},
		{IDXFloat64, []int{1, 1, 1}, be.AppendUint64(nil, math.Float64bits(3.125)), []float32{3.125}},
	}
	for _, c := range cases {
		for _, gz := range []bool{false, true} {
			a := &IDXArray{Type: c.typ, Dims: c.dims, Data: c.data}
			got, err := ReadIDX(bytes.NewReader(encodeIDX(t, a, gz)))
			if err != nil {
				t.Fatalf("type %#x gz=%v: %v", c.typ, gz, err)
			}
			if got.Type != c.typ || !slices.Equal(got.Dims, c.dims) || !bytes.Equal(got.Data, c.data) {
				t.Fatalf("type %#x gz=%v: got %+v, want %+v", c.typ, gz, got, a)
			}
			vals, err := got.Float32s()
			if err != nil || !slices.Equal(vals, c.want) {
				t.Fatalf("type %#x gz=%v: Float32s = %v, %v; want %v", c.typ, gz, vals, err, c.want)
			}
		}
	}
}

// Malformed headers and payloads are ErrFormat errors, never panics or
// I/O errors.
func TestIDXHeaderErrors(t *testing.T) {
	good := encodeIDX(t, &IDXArray{Type: IDXUint8, Dims: []int{2, 2}, Data: []byte{1, 2, 3, 4}}, false)
	gz := encodeIDX(t, &IDXArray{Type: IDXUint8, Dims: []int{2, 2}, Data: []byte{1, 2, 3, 4}}, true)
	badCRC := slices.Clone(gz)
	badCRC[len(badCRC)-5] ^= 0xff // last 8 bytes: CRC-32 then size
	cases := map[string][]byte{
		"empty":               {},
		"short magic":         {0, 0, 8},
		"nonzero magic":       {1, 0, 8, 1, 0, 0, 0, 1, 7},
		"unknown type":        {0, 0, 0x0A, 1, 0, 0, 0, 1, 7},
		"zero dims":           {0, 0, 8, 0},
		"truncated dims":      {0, 0, 8, 2, 0, 0, 0, 2, 0, 0},
		"truncated payload":   good[:len(good)-1],
		"trailing bytes":      append(slices.Clone(good), 9),
		"huge dims":           {0, 0, 8, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
		"truncated gzip":      gz[:len(gz)-10],
		"gzip bad checksum":   badCRC,
		"gzip garbage header": {0x1f, 0x8b, 0, 0, 0},
	}
	for name, data := range cases {
		_, err := ReadIDX(bytes.NewReader(data))
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: got %v, want an ErrFormat error", name, err)
		}
	}
}

// NaN or Inf in a float IDX file is refused.
func TestIDXFloatNonFinite(t *testing.T) {
	be := binary.BigEndian
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e300 /* overflows float32 */} {
		a32 := &IDXArray{Type: IDXFloat32, Dims: []int{1}, Data: be.AppendUint32(nil, math.Float32bits(float32(v)))}
		a64 := &IDXArray{Type: IDXFloat64, Dims: []int{1}, Data: be.AppendUint64(nil, math.Float64bits(v))}
		for _, a := range []*IDXArray{a32, a64} {
			if _, err := a.Float32s(); !errors.Is(err, ErrFormat) {
				t.Errorf("type %#x value %v: got %v, want ErrFormat", a.Type, v, err)
			}
		}
	}
}

// WriteTo refuses inconsistent arrays instead of writing a corrupt file.
func TestIDXWriteRejectsInconsistent(t *testing.T) {
	for _, a := range []*IDXArray{
		{Type: IDXUint8, Dims: []int{2}, Data: []byte{1}},
		{Type: 0x42, Dims: []int{1}, Data: []byte{1}},
		{Type: IDXUint8, Dims: nil, Data: nil},
	} {
		if _, err := a.WriteTo(&bytes.Buffer{}); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: got %v, want ErrInvalid", a, err)
		}
	}
}
