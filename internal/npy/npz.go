package npy

import (
	"archive/zip"
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
)

// NPZ is an open .npz archive (numpy.savez: stored; numpy.savez_compressed:
// deflated). Its arrays are named without the ".npy" suffix, as numpy.load
// names them.
type NPZ struct {
	zr    *zip.ReadCloser
	files map[string]*zip.File
	names []string
}

// OpenNPZ opens an archive for reading; Close releases it.
func OpenNPZ(path string) (*NPZ, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		if err == zip.ErrFormat {
			return nil, fmt.Errorf("%s: %w", path, formatf("not a .npz (zip) archive"))
		}
		return nil, err
	}
	z := &NPZ{zr: zr, files: map[string]*zip.File{}}
	for _, f := range zr.File {
		name, ok := strings.CutSuffix(f.Name, ".npy")
		if !ok {
			continue
		}
		z.files[name] = f
		z.names = append(z.names, name)
	}
	slices.Sort(z.names)
	return z, nil
}

// Names lists the arrays in the archive, sorted.
func (z *NPZ) Names() []string { return slices.Clone(z.names) }

// Header reads one array's header without its data.
func (z *NPZ) Header(name string) (Header, error) {
	rc, err := z.open(name)
	if err != nil {
		return Header{}, err
	}
	defer rc.Close()
	h, err := ReadHeader(rc)
	if err != nil {
		return Header{}, fmt.Errorf("%s.npy: %w", name, err)
	}
	return h, nil
}

// Read reads one array; its data length is checked against the archive's
// record of the member's size.
func (z *NPZ) Read(name string) (*Array, error) {
	rc, err := z.open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 1<<16)
	h, err := ReadHeader(br)
	if err != nil {
		return nil, fmt.Errorf("%s.npy: %w", name, err)
	}
	want := uint64(product(h.Shape)) * uint64(h.DType.Size)
	if got := z.files[name].UncompressedSize64 - uint64(h.bytes); got != want {
		return nil, fmt.Errorf("%s.npy: %w", name, formatf("shape %v of %s needs %d data bytes, the member has %d", h.Shape, h.DType, want, got))
	}
	a, err := readData(br, h)
	if err != nil {
		return nil, fmt.Errorf("%s.npy: %w", name, err)
	}
	return a, nil
}

func (z *NPZ) open(name string) (io.ReadCloser, error) {
	f, ok := z.files[name]
	if !ok {
		return nil, formatf("no array %q in the archive (it has %s)", name, strings.Join(z.names, ", "))
	}
	return f.Open()
}

// Close closes the archive.
func (z *NPZ) Close() error { return z.zr.Close() }

// NPZWriter writes an archive numpy.load reads: one stored (uncompressed)
// member "<name>.npy" per array, as numpy.savez does.
type NPZWriter struct {
	zw *zip.Writer
}

// NewNPZWriter starts an archive on w; Close finishes it (w is not closed).
func NewNPZWriter(w io.Writer) *NPZWriter { return &NPZWriter{zw: zip.NewWriter(w)} }

// WriteNPZ adds one array to an archive being written.
func WriteNPZ[T Elem](z *NPZWriter, name string, shape []int, data []T) error {
	w, err := z.zw.CreateHeader(&zip.FileHeader{Name: name + ".npy", Method: zip.Store})
	if err != nil {
		return err
	}
	return Write(w, shape, data)
}

// Close writes the archive's directory.
func (z *NPZWriter) Close() error { return z.zw.Close() }
