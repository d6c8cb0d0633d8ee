package npy

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// magic opens every .npy file; the two bytes after it are the format
// version (major, minor).
const magic = "\x93NUMPY"

// align is the multiple numpy pads the preamble and header to (numpy's
// ARRAY_ALIGN since 1.9; older files used 16, which readers accept).
const align = 64

// Header is what precedes an array's data.
type Header struct {
	Shape []int
	DType DType
	// Major is the format version read (1, 2 or 3); Write picks 1 unless
	// the header needs the 4-byte length of version 2.
	Major int
	// bytes is the length of the preamble and header as read.
	bytes int
}

// ReadHeader reads the preamble and header of a .npy stream, leaving r at
// the first data byte.
func ReadHeader(r io.Reader) (Header, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return Header{}, shortRead(err, "preamble")
	}
	if string(pre[:6]) != magic {
		return Header{}, formatf("not a .npy file (starts with %q, want %q)", pre[:6], magic)
	}
	h := Header{Major: int(pre[6])}
	var n int
	switch h.Major {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return Header{}, shortRead(err, "header length")
		}
		n = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return Header{}, shortRead(err, "header length")
		}
		n = int(binary.LittleEndian.Uint32(b[:]))
	default:
		return Header{}, formatf("format version %d.%d is not supported (1.0, 2.0 and 3.0 are)", pre[6], pre[7])
	}
	if n > 1<<20 {
		return Header{}, formatf("header of %d bytes is implausibly long", n)
	}
	text := make([]byte, n)
	if _, err := io.ReadFull(r, text); err != nil {
		return Header{}, shortRead(err, "header")
	}
	if err := h.parse(string(text)); err != nil {
		return Header{}, err
	}
	h.bytes = len(pre) + n + 2
	if h.Major > 1 {
		h.bytes += 2
	}
	return h, nil
}

func shortRead(err error, what string) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return formatf("file ends inside the %s", what)
	}
	return err
}

// parse reads the header's Python dict literal, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }.
func (h *Header) parse(text string) error {
	d, err := parseDict(strings.TrimSpace(text))
	if err != nil {
		return formatf("header %q: %v", strings.TrimSpace(text), err)
	}
	descr, ok := d["descr"].(string)
	if !ok {
		return formatf("header has no string 'descr' (structured dtypes are not supported): %q", strings.TrimSpace(text))
	}
	if h.DType, err = parseDescr(descr); err != nil {
		return err
	}
	if fo, _ := d["fortran_order"].(bool); fo {
		return formatf("Fortran-ordered arrays are not supported; save with numpy.ascontiguousarray first")
	}
	shape, ok := d["shape"].([]int)
	if !ok {
		return formatf("header has no 'shape' tuple: %q", strings.TrimSpace(text))
	}
	h.Shape = shape
	if product(shape) < 0 {
		return formatf("shape %v overflows", shape)
	}
	return nil
}

// parseDescr reads a dtype string such as "<f4", "|u1" or ">i8".
func parseDescr(s string) (DType, error) {
	if len(s) < 3 {
		return DType{}, formatf("dtype %q is not supported", s)
	}
	t := DType{Kind: s[1]}
	switch s[0] {
	case '<', '|':
	case '>':
		t.BigEndian = true
	case '=':
		t.BigEndian = !littleEndian
	default:
		return DType{}, formatf("dtype %q: unknown byte order %q", s, s[0])
	}
	size, err := strconv.Atoi(s[2:])
	if err != nil {
		return DType{}, formatf("dtype %q is not supported", s)
	}
	t.Size = size
	ok := false
	switch t.Kind {
	case 'b':
		ok = size == 1
	case 'i', 'u':
		ok = size == 1 || size == 2 || size == 4 || size == 8
	case 'f':
		ok = size == 4 || size == 8
	}
	if !ok {
		return DType{}, formatf("dtype %q is not supported (want bool, integers or float32/float64)", s)
	}
	if size == 1 {
		t.BigEndian = false
	}
	return t, nil
}

// encodeHeader returns the preamble and padded header for h, laid out
// byte for byte as numpy.lib.format writes it (NumPy ≥ 1.23): keys sorted,
// spare spaces after the dict so the first dimension can grow to 21 digits
// in place, then spaces and a newline up to a multiple of 64 bytes (a full
// 64 when already aligned, as NumPy's padding formula gives).
func encodeHeader(h Header) []byte {
	var shape strings.Builder
	shape.WriteByte('(')
	for i, d := range h.Shape {
		if i > 0 {
			shape.WriteString(", ")
		}
		shape.WriteString(strconv.Itoa(d))
	}
	if len(h.Shape) == 1 {
		shape.WriteByte(',')
	}
	shape.WriteByte(')')
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", h.DType, shape.String())
	if len(h.Shape) > 0 {
		dict += strings.Repeat(" ", max(0, growthDigits-len(strconv.Itoa(h.Shape[0]))))
	}
	major, lenBytes := 1, 2
	hlen := len(dict) + 1
	pad := align - (len(magic)+2+lenBytes+hlen)%align
	if hlen+pad > 0xffff {
		major, lenBytes = 2, 4
		pad = align - (len(magic)+2+lenBytes+hlen)%align
	}
	var b bytes.Buffer
	b.WriteString(magic)
	b.WriteByte(byte(major))
	b.WriteByte(0)
	if lenBytes == 2 {
		b.Write(binary.LittleEndian.AppendUint16(nil, uint16(hlen+pad)))
	} else {
		b.Write(binary.LittleEndian.AppendUint32(nil, uint32(hlen+pad)))
	}
	b.WriteString(dict)
	b.WriteString(strings.Repeat(" ", pad))
	b.WriteByte('\n')
	return b.Bytes()
}

// growthDigits is NumPy's GROWTH_AXIS_MAX_DIGITS.
const growthDigits = 21

// parseDict parses the restricted Python literal of a header: a dict of
// quoted keys to quoted strings, True/False, or tuples of integers.
func parseDict(s string) (map[string]any, error) {
	p := &litParser{s: s}
	if !p.eat('{') {
		return nil, fmt.Errorf("want '{'")
	}
	out := map[string]any{}
	for {
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if !p.eat(':') {
			return nil, fmt.Errorf("want ':' after %q", key)
		}
		if out[key], err = p.value(); err != nil {
			return nil, fmt.Errorf("%s: %v", key, err)
		}
		if !p.eat(',') {
			if !p.eat('}') {
				return nil, fmt.Errorf("want ',' or '}' after %q", key)
			}
			break
		}
	}
	if p.skip(); p.i != len(p.s) {
		return nil, fmt.Errorf("trailing %q", p.s[p.i:])
	}
	return out, nil
}

type litParser struct {
	s string
	i int
}

func (p *litParser) skip() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *litParser) eat(c byte) bool {
	p.skip()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *litParser) str() (string, error) {
	p.skip()
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", fmt.Errorf("want a quoted string at %q", p.s[p.i:])
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", fmt.Errorf("unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+end]
	p.i += end + 2
	return v, nil
}

func (p *litParser) value() (any, error) {
	p.skip()
	rest := p.s[p.i:]
	switch {
	case strings.HasPrefix(rest, "True"):
		p.i += 4
		return true, nil
	case strings.HasPrefix(rest, "False"):
		p.i += 5
		return false, nil
	case strings.HasPrefix(rest, "("):
		return p.tuple()
	case strings.HasPrefix(rest, "'"), strings.HasPrefix(rest, "\""):
		return p.str()
	}
	return nil, fmt.Errorf("unsupported value at %q", rest)
}

// tuple reads (), (5,) or (3, 4); Python 2 files may write 3L.
func (p *litParser) tuple() ([]int, error) {
	p.eat('(')
	dims := []int{}
	for {
		if p.eat(')') {
			return dims, nil
		}
		p.skip()
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		d, err := strconv.Atoi(p.s[p.i:j])
		if err != nil {
			return nil, fmt.Errorf("want a dimension at %q", p.s[p.i:])
		}
		p.i = j
		p.eat('L')
		dims = append(dims, d)
		if !p.eat(',') {
			if !p.eat(')') {
				return nil, fmt.Errorf("want ',' or ')' in the shape")
			}
			return dims, nil
		}
	}
}
