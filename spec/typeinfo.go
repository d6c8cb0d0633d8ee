package spec

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// typeinfo reads the struct tags of the spec types once; the decoder, the
// default filler, the path checker and the schema generator share it.

type fieldInfo struct {
	Key      string
	Doc      string
	Default  string // YAML text, "" = none
	Required bool
	Checks   []check
	Enum     []string
	Min      string // schemamin tag
	Index    []int
	Type     reflect.Type
}

type branchInfo struct {
	Kind  string
	Doc   string
	Index []int
	Type  reflect.Type // the pointed-to struct
}

type structInfo struct {
	Type          reflect.Type
	Fields        []*fieldInfo // ordinary fields, in declaration order
	byKey         map[string]*fieldInfo
	Discriminator *fieldInfo   // union types only
	Branches      []branchInfo // union types only
}

func (s *structInfo) field(key string) *fieldInfo { return s.byKey[key] }

func (s *structInfo) branch(kind string) *branchInfo {
	for i := range s.Branches {
		if s.Branches[i].Kind == kind {
			return &s.Branches[i]
		}
	}
	return nil
}

func (s *structInfo) kinds() []string {
	out := make([]string, len(s.Branches))
	for i, b := range s.Branches {
		out[i] = b.Kind
	}
	return out
}

var (
	infoMu    sync.Mutex
	infoCache = map[reflect.Type]*structInfo{}
)

// infoOf returns the struct info of t (a struct type).
func infoOf(t reflect.Type) *structInfo {
	infoMu.Lock()
	defer infoMu.Unlock()
	return infoOfLocked(t)
}

func infoOfLocked(t reflect.Type) *structInfo {
	if si, ok := infoCache[t]; ok {
		return si
	}
	si := &structInfo{Type: t, byKey: map[string]*fieldInfo{}}
	infoCache[t] = si
	collectFields(si, t, nil)
	return si
}

func collectFields(si *structInfo, t reflect.Type, prefix []int) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		idx := append(append([]int(nil), prefix...), i)
		tag := f.Tag.Get("yaml")
		if f.Anonymous && strings.Contains(tag, "inline") {
			collectFields(si, f.Type, idx)
			continue
		}
		if k := f.Tag.Get("kind"); k != "" {
			si.Branches = append(si.Branches, branchInfo{Kind: k, Doc: f.Tag.Get("doc"), Index: idx, Type: f.Type.Elem()})
			continue
		}
		if !f.IsExported() {
			continue
		}
		name := strings.Split(tag, ",")[0]
		if name == "" || name == "-" {
			continue
		}
		fi := &fieldInfo{
			Key:      name,
			Doc:      f.Tag.Get("doc"),
			Default:  f.Tag.Get("default"),
			Required: f.Tag.Get("required") == "true",
			Min:      f.Tag.Get("schemamin"),
			Index:    idx,
			Type:     f.Type,
		}
		if e := f.Tag.Get("enum"); e != "" {
			fi.Enum = strings.Split(e, "|")
		}
		if c := f.Tag.Get("check"); c != "" {
			fi.Checks = parseChecks(c)
		}
		if f.Tag.Get("discriminator") == "true" {
			si.Discriminator = fi
		}
		si.Fields = append(si.Fields, fi)
		si.byKey[name] = fi
	}
}

// check is one range constraint from a check tag.
type check struct {
	Op    string // ">", ">=", "<", "<=", "nonempty", "name"
	Bound float64
}

func parseChecks(tag string) []check {
	var out []check
	for _, c := range strings.Split(tag, ",") {
		c = strings.TrimSpace(c)
		switch {
		case c == "nonempty" || c == "name":
			out = append(out, check{Op: c})
		case strings.HasPrefix(c, ">="), strings.HasPrefix(c, "<="):
			out = append(out, check{Op: c[:2], Bound: mustFloat(c[2:])})
		case strings.HasPrefix(c, ">"), strings.HasPrefix(c, "<"):
			out = append(out, check{Op: c[:1], Bound: mustFloat(c[1:])})
		default:
			panic("spec: bad check tag " + tag)
		}
	}
	return out
}

func mustFloat(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic("spec: bad check bound " + s)
	}
	return f
}

// fails returns a message when x violates the check, or "".
func (c check) fails(x float64) string {
	ok := true
	switch c.Op {
	case ">":
		ok = x > c.Bound
	case ">=":
		ok = x >= c.Bound
	case "<":
		ok = x < c.Bound
	case "<=":
		ok = x <= c.Bound
	default:
		return ""
	}
	if ok {
		return ""
	}
	return fmt.Sprintf("must be %s %s, got %s", c.Op, fmtNum(c.Bound), fmtNum(x))
}

func fmtNum(x float64) string {
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// isUnion reports whether t is a union (discriminated) struct.
func isUnion(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && infoOf(t).Discriminator != nil
}
