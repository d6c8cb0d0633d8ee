package spec

import (
	"fmt"
	"sort"
	"strings"
)

// Error is one problem in a spec, with its position and spec path.
type Error struct {
	File string
	Pos  Pos
	Path string // e.g. "dpsgd.noise_multiplier"; empty for file-level errors
	Msg  string
	Err  error // the underlying error, when there is one
}

// Unwrap returns the underlying error.
func (e Error) Unwrap() error { return e.Err }

func (e Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Pos.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Pos.Line, e.Pos.Col)
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in one spec file. It is an error itself;
// Error() lists one problem per line, in file order.
type Errors []Error

func (es Errors) Error() string {
	es = es.Sorted()
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap lets errors.Is and errors.As look into every problem.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// Sorted returns the errors in file order without duplicates (a bad value
// shared by many sweep points is reported once).
func (es Errors) Sorted() Errors {
	out := append(Errors(nil), es...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		return a.Pos.Col < b.Pos.Col
	})
	seen := map[string]bool{}
	uniq := out[:0]
	for _, e := range out {
		k := e.Error()
		if seen[k] {
			continue
		}
		seen[k] = true
		uniq = append(uniq, e)
	}
	return uniq
}

// errs collects errors for one file and the command-line overrides
// applied to it.
type errs struct {
	file      string
	overrides []string
	list      Errors
}

func (e *errs) add(pos Pos, path, format string, args ...any) {
	e.list = append(e.list, Error{File: source(e.file, e.overrides, pos), Pos: pos, Path: path, Msg: fmt.Sprintf(format, args...)})
}

// source names where a position is: the file, or the override on the
// command line that a value came from ("spec.yaml (-s steps=x)").
func source(file string, overrides []string, pos Pos) string {
	if i := pos.Override - 1; i >= 0 && i < len(overrides) {
		return fmt.Sprintf("%s (-s %s)", file, overrides[i])
	}
	return file
}

func (e *errs) err() error {
	if len(e.list) == 0 {
		return nil
	}
	return e.list.Sorted()
}
