package dpaudit

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/dpaudit/dpaudit/pipeline"
)

// The sources of the code that computes nodes: the stages and every
// package of this module they import, except spec (it only produces the
// parameters, which are in the keys) and the pipeline engine (only its
// Parquet encoding, with internal/parquetio, shapes stored bytes).
// TestFingerprintCoversStages keeps this list complete. Embedding the
// sources makes the fingerprint right under go build, go run and go test
// alike, with no generated file to forget; build-info VCS stamps are
// absent under go run and go test.
//
//go:embed stages/*.go audit/*.go attack/*.go attack/*.s bounds/*.go datasets/*.go learn/*.go learn/*.s learn/gemm/*.go learn/gemm/*.s internal/chacha8/*.go internal/chacha8/*.s learn/glm/*.go learn/glm/*.s internal/parallel/*.go internal/numeric/*.go internal/numeric/*.s attack/glm/*.go attack/recon/*.go attack/identify/*.go report/*.go privacy/*.go rng/*.go pipeline/table.go pipeline/table_parquet.go internal/parquetio/*.go
var codeSources embed.FS

// fingerprintPackages are the module packages the embed above covers.
var fingerprintPackages = []string{"stages", "audit", "attack", "bounds", "datasets", "learn", "learn/gemm", "learn/glm", "internal/parallel", "internal/numeric", "internal/chacha8", "internal/parquetio", "attack/glm", "attack/recon", "attack/identify", "report", "privacy", "rng"}

// CodeFingerprint is a hash of every non-test source file in codeSources
// (the raw bytes: tokenising to ignore comments cost 60 ms per start, so a
// comment-only change also counts as a code change). It is part of every
// node key.
var CodeFingerprint = sync.OnceValue(func() string {
	var names []string
	fs.WalkDir(codeSources, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, "_test.go") {
			names = append(names, p)
		}
		return nil
	})
	sort.Strings(names)
	h := sha256.New()
	for _, name := range names {
		src, _ := codeSources.ReadFile(name)
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(src))
		h.Write(src)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
})

// The fingerprint is computed when a node key first needs it (hashing the
// embedded sources took a third of the start-up of commands that build no
// graph).
func init() { pipeline.SetCodeFingerprintFunc(CodeFingerprint) }
