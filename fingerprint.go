package dpaudit

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/dpaudit/dpaudit/pipeline"
)

// The sources of the code that computes nodes: the stages and every
// package of this module they may import, except spec (it only produces
// the parameters, which are in the keys) and the pipeline engine (only its
// Parquet encoding, table.go and table_parquet.go, shapes stored bytes). Embedding the sources
// makes the fingerprints right under go build, go run and go test alike,
// with no generated file to forget (build-info VCS stamps are absent under
// go run and go test). TestFingerprintCoversStages checks that every
// package a game imports is here.
//
//go:embed stages/*.go stages/*/*.go audit/*.go audit/*/*.go attack/*.go attack/*/*.go bounds/*.go datasets/*.go
//go:embed learn/*.go learn/*.s learn/*/*.go learn/gemm/*.s learn/internal/*/*.go learn/internal/*/*.s
//go:embed privacy/*.go rng/*.go internal/*/*.go internal/*/*.s report/*.go pipeline/table.go pipeline/table_parquet.go
var codeSources embed.FS

// notFingerprinted are the module packages whose code never changes what
// a node computes (see above); pipeline enters as its table files alone.
var notFingerprinted = []string{"spec", "pipeline"}

// tableFile names the part of the pipeline package that shapes stored bytes
// (table.go and table_parquet.go, hashed together as the embedded pipeline).
const tableFile = "pipeline/table.go"

// codeIndex is the embedded sources' import graph: each package's
// non-test files, the module packages they import, and a hash of the
// files' bytes (a comment-only change counts as a change: tokenising the
// sources to skip comments cost 60 ms per start).
type codeIndex struct {
	imports map[string][]string // package (module-relative) → module packages it imports
	hash    map[string]string   // package → 12 hex digits of SHA-256 over its files
}

// newCodeIndex reads the import graph of the packages in fsys (a tree of
// this module's sources).
func newCodeIndex(fsys fs.FS) (*codeIndex, error) {
	files := map[string][]string{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, "_test.go") || (!strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, ".s")) {
			return err
		}
		files[path.Dir(p)] = append(files[path.Dir(p)], p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	ix := &codeIndex{imports: map[string][]string{}, hash: map[string]string{}}
	fset := token.NewFileSet()
	for pkg, names := range files {
		slices.Sort(names)
		h := sha256.New()
		for _, name := range names {
			src, err := fs.ReadFile(fsys, name)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(h, "%s\x00%d\x00", name, len(src))
			h.Write(src)
			if err := ix.addImports(fset, pkg, name, src); err != nil {
				return nil, err
			}
		}
		ix.hash[pkg] = hex.EncodeToString(h.Sum(nil))[:12]
	}
	return ix, nil
}

// addImports records the module packages that file name of pkg imports.
func (ix *codeIndex) addImports(fset *token.FileSet, pkg, name string, src []byte) error {
	if !strings.HasSuffix(name, ".go") {
		return nil
	}
	f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
	if err != nil {
		return err
	}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		if rel, ok := strings.CutPrefix(p, modulePath); ok && !slices.Contains(ix.imports[pkg], rel) {
			ix.imports[pkg] = append(ix.imports[pkg], rel)
		}
	}
	return nil
}

// modulePath is this module's import path with its trailing slash.
const modulePath = "github.com/dpaudit/dpaudit/"

// deps is pkg and every module package it imports, directly or not, that
// can change what a node computes (sorted; pipeline's table.go as
// tableFile). A package whose sources are not embedded is an error.
func (ix *codeIndex) deps(pkg string) ([]string, error) {
	seen := map[string]bool{}
	var walk func(p string) error
	walk = func(p string) error {
		switch {
		case seen[p]:
			return nil
		case p == "pipeline":
			seen[tableFile] = true
			return nil
		case slices.Contains(notFingerprinted, p):
			return nil
		}
		if _, ok := ix.hash[p]; !ok {
			return fmt.Errorf("package %s is imported by the stages but its sources are not embedded in fingerprint.go", p)
		}
		seen[p] = true
		for _, q := range ix.imports[p] {
			if err := walk(q); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(pkg); err != nil {
		return nil, err
	}
	return slices.Sorted(func(yield func(string) bool) {
		for p := range seen {
			if !yield(p) {
				return
			}
		}
	}), nil
}

// code is the code fingerprint of pkg: "<package>=<hash>" for it and each
// of its deps, space-separated in package order. It names its packages so
// that a plan can say which one changed (explainCode).
func (ix *codeIndex) code(pkg string) (string, error) {
	deps, err := ix.deps(pkg)
	if err != nil {
		return "", err
	}
	parts := make([]string, len(deps))
	for i, d := range deps {
		h := ix.hash[d]
		if d == tableFile {
			h = ix.hash["pipeline"]
		}
		parts[i] = d + "=" + h
	}
	return strings.Join(parts, " "), nil
}

// embeddedIndex is the index of the sources this binary was built from.
var embeddedIndex = sync.OnceValues(func() (*codeIndex, error) { return newCodeIndex(codeSources) })

// codeOf is the code fingerprint of a package of this module (see
// codeIndex.code): what stages.Env.Code returns. A package the index
// cannot account for (which TestFingerprintCoversStages prevents) gets
// the fingerprint of every embedded source, so no edit is missed.
var codeOf = func(pkg string) string {
	if c, ok := codes.Load(pkg); ok {
		return c.(string)
	}
	c := "all=" + allSourcesHash()
	if ix, err := embeddedIndex(); err == nil {
		if d, err := ix.code(pkg); err == nil {
			c = d
		}
	}
	codes.Store(pkg, c)
	return c
}

// codes memoises codeOf: every point of a spec asks for its games'.
var codes sync.Map

// allSourcesHash hashes every embedded source file.
var allSourcesHash = sync.OnceValue(func() string {
	h := sha256.New()
	fs.WalkDir(codeSources, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, "_test.go") {
			src, _ := codeSources.ReadFile(p)
			fmt.Fprintf(h, "%s\x00%d\x00", p, len(src))
			h.Write(src)
		}
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))[:16]
})

// CodeFingerprint is the process-wide code fingerprint: that of package
// stages (the kit, which declares the spec's expression functions), so
// memoised calibrations follow the code that computes them. Nodes key on
// their own packages' fingerprints (codeOf).
var CodeFingerprint = sync.OnceValue(func() string {
	h := sha256.Sum256([]byte(codeOf("stages")))
	return hex.EncodeToString(h[:8])
})

// The fingerprint is computed when a node key first needs it (reading the
// embedded sources' import graph is a cost commands that build no graph
// should not pay at start-up).
func init() { pipeline.SetCodeFingerprintFunc(CodeFingerprint) }

// explainCode says which packages differ between two code fingerprints of
// a node (plan's note for "code changed").
func explainCode(old, new string) string {
	before := map[string]string{}
	for _, f := range strings.Fields(old) {
		p, h, ok := strings.Cut(f, "=")
		if !ok {
			return "computed by a dpaudit that fingerprinted all its code as one"
		}
		before[p] = h
	}
	var changed []string
	for _, f := range strings.Fields(new) {
		p, h, _ := strings.Cut(f, "=")
		if before[p] != h {
			changed = append(changed, p)
		}
		delete(before, p)
	}
	for p := range before {
		changed = append(changed, p)
	}
	if len(changed) == 0 {
		return ""
	}
	slices.Sort(changed)
	return "changed: " + strings.Join(changed, ", ")
}
