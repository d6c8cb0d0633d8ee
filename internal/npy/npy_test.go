package npy

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// numpy.save(f, numpy.arange(3)) on a little-endian machine, NumPy ≥ 1.23:
// the familiar 128-byte preamble ("\x93NUMPY\x01\x00v\x00": header length
// 0x76 = 118) then three int64. The dict, the 20 growth spaces (21 digits
// minus the one of "3"), the alignment spaces and the newline are what
// numpy.lib.format._write_array_header and _wrap_header produce.
var numpyArange3 = "\x93NUMPY\x01\x00v\x00" +
	"{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }" +
	strings.Repeat(" ", 20) + strings.Repeat(" ", 40) + "\n" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00"

func TestWriteMatchesNumPyBytes(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, []int{3}, []int64{0, 1, 2}); err != nil {
		t.Fatal(err)
	}
	if b.String() != numpyArange3 {
		t.Fatalf("Write:\n%q\nnumpy.save:\n%q", b.String(), numpyArange3)
	}
	if len(numpyArange3) != 128+24 {
		t.Fatalf("reference is %d bytes", len(numpyArange3))
	}
	a, err := Read(strings.NewReader(numpyArange3))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Shape, []int{3}) || !slices.Equal(a.Data.([]int64), []int64{0, 1, 2}) {
		t.Fatalf("read %+v", a)
	}
}

func TestRoundTripEveryType(t *testing.T) {
	check := func(name string, shape []int, data any, write func(*bytes.Buffer) error) {
		t.Helper()
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		a, err := Read(&b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(a.Shape, shape) || !reflect.DeepEqual(a.Data, data) {
			t.Fatalf("%s: read %v %v, wrote %v %v", name, a.Shape, a.Data, shape, data)
		}
	}
	sh := []int{2, 2}
	check("bool", sh, []bool{true, false, false, true}, func(b *bytes.Buffer) error { return Write(b, sh, []bool{true, false, false, true}) })
	check("int8", sh, []int8{-1, 2, -3, 4}, func(b *bytes.Buffer) error { return Write(b, sh, []int8{-1, 2, -3, 4}) })
	check("uint8", sh, []uint8{0, 255, 7, 9}, func(b *bytes.Buffer) error { return Write(b, sh, []uint8{0, 255, 7, 9}) })
	check("int16", sh, []int16{-300, 2, 3, 4}, func(b *bytes.Buffer) error { return Write(b, sh, []int16{-300, 2, 3, 4}) })
	check("uint16", sh, []uint16{65535, 2, 3, 4}, func(b *bytes.Buffer) error { return Write(b, sh, []uint16{65535, 2, 3, 4}) })
	check("int32", sh, []int32{-1 << 30, 2, 3, 4}, func(b *bytes.Buffer) error { return Write(b, sh, []int32{-1 << 30, 2, 3, 4}) })
	check("uint32", sh, []uint32{1 << 31, 2, 3, 4}, func(b *bytes.Buffer) error { return Write(b, sh, []uint32{1 << 31, 2, 3, 4}) })
	check("int64", sh, []int64{-1 << 60, 2, 3, 4}, func(b *bytes.Buffer) error { return Write(b, sh, []int64{-1 << 60, 2, 3, 4}) })
	check("uint64", sh, []uint64{1 << 63, 2, 3, 4}, func(b *bytes.Buffer) error { return Write(b, sh, []uint64{1 << 63, 2, 3, 4}) })
	check("float32", sh, []float32{1.5, -2, float32(math.Inf(1)), 0}, func(b *bytes.Buffer) error {
		return Write(b, sh, []float32{1.5, -2, float32(math.Inf(1)), 0})
	})
	check("float64", sh, []float64{math.Pi, -2, 1e300, 0}, func(b *bytes.Buffer) error { return Write(b, sh, []float64{math.Pi, -2, 1e300, 0}) })
	check("scalar", []int{}, []float64{7}, func(b *bytes.Buffer) error { return Write(b, nil, []float64{7}) })
	check("empty", []int{0, 3}, []float32{}, func(b *bytes.Buffer) error { return Write(b, []int{0, 3}, []float32{}) })
}

func TestHeaderAligned(t *testing.T) {
	for _, shape := range [][]int{{}, {1}, {10, 784}, {300000, 3, 32, 32}, {1, 2, 3, 4, 5, 6, 7, 8}} {
		h := encodeHeader(Header{Shape: shape, DType: DType{'f', 4, false}})
		if len(h)%64 != 0 || h[len(h)-1] != '\n' {
			t.Errorf("shape %v: header of %d bytes, ends %q", shape, len(h), h[len(h)-1])
		}
	}
}

// A big-endian file (numpy.save of arange(3, dtype='>i4')) reads as the
// same values.
func TestReadBigEndian(t *testing.T) {
	h := encodeHeader(Header{Shape: []int{3}, DType: DType{'i', 4, true}})
	if !bytes.Contains(h, []byte("'>i4'")) {
		t.Fatalf("header %q", h)
	}
	body := binary.BigEndian.AppendUint32(nil, 1)
	body = binary.BigEndian.AppendUint32(body, 2)
	body = binary.BigEndian.AppendUint32(body, 0xfffffffd) // -3
	a, err := Read(bytes.NewReader(append(h, body...)))
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Data.([]int32); !slices.Equal(got, []int32{1, 2, -3}) {
		t.Fatalf("got %v", got)
	}
}

// Files of the older layouts: version 2.0 (4-byte header length), a header
// padded to 16 without the trailing ", " (NumPy < 1.9), Python 2 long
// dimensions.
func TestReadOlderLayouts(t *testing.T) {
	body := []byte{1, 2, 3, 4, 5, 6}
	dict := "{'descr': '|u1', 'fortran_order': False, 'shape': (2L, 3L)}"
	for _, tc := range []struct {
		name  string
		major byte
	}{{"v1", 1}, {"v2", 2}, {"v3", 3}} {
		pre := "\x93NUMPY" + string([]byte{tc.major, 0})
		text := dict + "    \n"
		if tc.major == 1 {
			pre += string(binary.LittleEndian.AppendUint16(nil, uint16(len(text))))
		} else {
			pre += string(binary.LittleEndian.AppendUint32(nil, uint32(len(text))))
		}
		a, err := Read(bytes.NewReader(append([]byte(pre+text), body...)))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !slices.Equal(a.Shape, []int{2, 3}) || !slices.Equal(a.Data.([]uint8), body) {
			t.Fatalf("%s: %+v", tc.name, a)
		}
	}
}

func TestReadRefuses(t *testing.T) {
	good := encodeHeader(Header{Shape: []int{2}, DType: DType{'f', 4, false}})
	hdr := func(dict string) []byte {
		text := dict + "\n"
		return append([]byte("\x93NUMPY\x01\x00"+string(binary.LittleEndian.AppendUint16(nil, uint16(len(text))))), text...)
	}
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"not npy", []byte("PK\x03\x04 a zip file......."), "not a .npy file"},
		{"empty", nil, "ends inside the preamble"},
		{"version", []byte("\x93NUMPY\x04\x00\x00\x00"), "format version 4.0"},
		{"fortran", hdr("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }"), "Fortran-ordered"},
		{"structured", hdr("{'descr': [('x', '<i4')], 'fortran_order': False, 'shape': (2,), }"), "unsupported value"},
		{"float16", hdr("{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }"), `dtype "<f2" is not supported`},
		{"object", hdr("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }"), `dtype "|O" is not supported`},
		{"unicode", hdr("{'descr': '<U5', 'fortran_order': False, 'shape': (2,), }"), `dtype "<U5" is not supported`},
		{"no shape", hdr("{'descr': '<f4', 'fortran_order': False, }"), "no 'shape'"},
		{"truncated data", append(good, 0, 0, 0), "ends inside the data (2 values of <f4 expected)"},
		{"bad bool", append(encodeHeader(Header{Shape: []int{1}, DType: DType{'b', 1, false}}), 7), "neither 0 nor 1"},
	} {
		_, err := Read(bytes.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrFormat) {
			t.Errorf("%s: err %v, want %q (wrapping ErrFormat)", tc.name, err, tc.want)
		}
	}
}

// ReadFile checks the data length against the file size before it
// allocates, so a corrupt shape cannot ask for terabytes, and refuses
// trailing bytes.
func TestReadFileSize(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.npy")
	if err := WriteFile(p, []int{2, 3}, []float32{1, 2, 3, 4, 5, 6}); err != nil {
		t.Fatal(err)
	}
	a, err := ReadFile(p)
	if err != nil || !slices.Equal(a.Data.([]float32), []float32{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("%v %v", a, err)
	}
	raw, _ := os.ReadFile(p)
	os.WriteFile(p, append(raw, 0), 0o644)
	if _, err := ReadFile(p); err == nil || !strings.Contains(err.Error(), "needs 24 data bytes, the file has 25") {
		t.Fatalf("trailing byte: %v", err)
	}
	huge := encodeHeader(Header{Shape: []int{1 << 40, 1 << 10}, DType: DType{'f', 8, false}})
	os.WriteFile(p, huge, 0o644)
	if _, err := ReadFile(p); err == nil || !strings.Contains(err.Error(), "data bytes, the file has 0") {
		t.Fatalf("huge shape: %v", err)
	}
}

func TestWriteRefusesWrongLength(t *testing.T) {
	if err := Write(&bytes.Buffer{}, []int{2, 3}, []float32{1}); err == nil {
		t.Fatal("no error")
	}
}

func TestConversions(t *testing.T) {
	a := &Array{Shape: []int{3}, Data: []float64{1, 2.5, -1}, DType: DType{'f', 8, false}}
	f, err := Float32s(a)
	if err != nil || !slices.Equal(f, []float32{1, 2.5, -1}) {
		t.Fatal(f, err)
	}
	if _, err := Int64s(a); err == nil || !strings.Contains(err.Error(), "value 2.5 at index 1 is not an integer") {
		t.Fatal(err)
	}
	a.Data = []uint8{3, 0, 9}
	if n, err := Int64s(a); err != nil || !slices.Equal(n, []int64{3, 0, 9}) {
		t.Fatal(n, err)
	}
	a.Data = []bool{true, false, true}
	if f, _ := Float32s(a); !slices.Equal(f, []float32{1, 0, 1}) {
		t.Fatal(f)
	}
}

func TestNPZ(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "d.npz")
	f, _ := os.Create(p)
	z := NewNPZWriter(f)
	if err := WriteNPZ(z, "x", []int{2, 2}, []float32{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	if err := WriteNPZ(z, "y", []int{2}, []int64{0, 1}); err != nil {
		t.Fatal(err)
	}
	// numpy.savez_compressed deflates its members.
	w, _ := z.zw.CreateHeader(&zip.FileHeader{Name: "c.npy", Method: zip.Deflate})
	Write(w, []int{3}, []uint8{7, 8, 9})
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r, err := OpenNPZ(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if c, err := r.Read("c"); err != nil || !slices.Equal(c.Data.([]uint8), []uint8{7, 8, 9}) {
		t.Fatal(c, err)
	}
	if !slices.Equal(r.Names(), []string{"c", "x", "y"}) {
		t.Fatal(r.Names())
	}
	h, err := r.Header("x")
	if err != nil || !slices.Equal(h.Shape, []int{2, 2}) || h.DType.String() != "<f4" {
		t.Fatal(h, err)
	}
	y, err := r.Read("y")
	if err != nil || !slices.Equal(y.Data.([]int64), []int64{0, 1}) {
		t.Fatal(y, err)
	}
	if _, err := r.Read("labels"); err == nil || !strings.Contains(err.Error(), `no array "labels" in the archive (it has c, x, y)`) {
		t.Fatal(err)
	}
	os.WriteFile(p, []byte("not a zip"), 0o644)
	if _, err := OpenNPZ(p); err == nil || !errors.Is(err, ErrFormat) {
		t.Fatal(err)
	}
}
