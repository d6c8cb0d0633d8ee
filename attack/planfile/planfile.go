// Package planfile writes a canary plan (attack.CanaryPlan) as a Parquet
// file with a small JSON manifest beside it, and reads a plan back with
// its digests checked. The Parquet file is what the user's trainer
// reads; the manifest records how the plan was made and two SHA-256
// digests: of the Parquet file's bytes, and of its canary ids with their
// membership bits (one "id<TAB>bit<LF>" line per canary, in plan order),
// the plan digest a report quotes.
package planfile

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dpaudit/dpaudit/attack"
)

// FormatName and Version identify a manifest.
const (
	FormatName = "dpaudit canary plan"
	Version    = 1
)

// Manifest is the JSON beside a plan's Parquet file.
type Manifest struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Canaries is the crafter kind (or gradient_canary); Crafter its
	// parameters and Data the data set the records came from, as given.
	Canaries string         `json:"canaries"`
	Crafter  map[string]any `json:"crafter,omitempty"`
	Data     map[string]any `json:"data,omitempty"`
	Count    int            `json:"count"`
	Members  int            `json:"members"`
	Seed     uint64         `json:"seed"`
	// Shape and Classes of input canaries; Parameters of gradient ones.
	Shape      []int    `json:"shape,omitempty"`
	Classes    int      `json:"classes,omitempty"`
	Parameters int      `json:"parameters,omitempty"`
	Columns    []string `json:"columns"`
	// Parquet is the plan file's name (beside the manifest) and
	// ParquetSHA256 the digest of its bytes; MembershipSHA256 the plan
	// digest over ids and bits.
	Parquet          string   `json:"parquet"`
	ParquetSHA256    string   `json:"parquet_sha256"`
	MembershipSHA256 string   `json:"membership_sha256"`
	Notes            []string `json:"notes,omitempty"`
	Dpaudit          string   `json:"dpaudit"`
	// NPY lists the plan's arrays written as NumPy files beside it (a
	// caller asks for them by passing a non-nil map to Write): x, label
	// and member, or coordinate and member.
	NPY map[string]NPYFile `json:"npy,omitempty"`
}

// Plan is a plan read back: its canary ids (decimal text, as score
// tables carry them), bits and manifest.
type Plan struct {
	IDs      []string
	Member   []bool
	Manifest Manifest
	// Path is the Parquet file's path.
	Path string
}

// ManifestPath is the manifest beside a plan file: plan.parquet →
// plan.json.
func ManifestPath(parquet string) string {
	return strings.TrimSuffix(parquet, filepath.Ext(parquet)) + ".json"
}

// MembershipDigest is the plan digest: SHA-256 over one "id<TAB>bit<LF>"
// line per canary, in plan order.
func MembershipDigest(ids []string, member []bool) string {
	h := sha256.New()
	for j, id := range ids {
		b := 0
		if member[j] {
			b = 1
		}
		fmt.Fprintf(h, "%s\t%d\n", id, b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ids are a plan's canary ids: 0 … m−1.
func ids(m int) []string {
	out := make([]string, m)
	for j := range out {
		out[j] = strconv.Itoa(j)
	}
	return out
}

func fileSHA256(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:]), nil
}

// Write writes p to path (Parquet) and its manifest beside it. m carries
// what the caller knows of how the plan was made (Crafter, Data,
// Dpaudit); Write fills the rest. With m.NPY non-nil it also writes the
// plan's arrays as .npy files beside it (NPYPath) and lists them. An existing plan is never replaced: a
// plan that was trained with must survive a mistyped command.
func Write(path string, p *attack.CanaryPlan, m Manifest) (Manifest, error) {
	man := ManifestPath(path)
	for _, f := range []string{path, man} {
		if _, err := os.Stat(f); err == nil {
			return Manifest{}, invalidf("%s exists; a plan is never overwritten (remove it, or write the new plan elsewhere)", f)
		}
	}
	if m.NPY != nil {
		var err error
		if m.NPY, err = writeNPY(path, p); err != nil {
			return Manifest{}, err
		}
	}
	cols, err := writeParquet(path, p)
	if err != nil {
		removeNPY(path, m.NPY)
		return Manifest{}, err
	}
	m.Format, m.Version = FormatName, Version
	m.Canaries, m.Count, m.Seed = p.Kind, len(p.Member), p.Seed
	m.Shape, m.Classes, m.Parameters, m.Notes, m.Columns = p.Shape, p.Classes, p.Parameters, p.Notes, cols
	m.Members = 0
	for _, b := range p.Member {
		if b {
			m.Members++
		}
	}
	m.Parquet = filepath.Base(path)
	if m.ParquetSHA256, err = fileSHA256(path); err != nil {
		return Manifest{}, err
	}
	m.MembershipSHA256 = MembershipDigest(ids(len(p.Member)), p.Member)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return Manifest{}, err
	}
	if err := writeAtomic(man, append(b, '\n')); err != nil {
		os.Remove(path)
		removeNPY(path, m.NPY)
		return Manifest{}, err
	}
	return m, nil
}

// writeAtomic writes b to path through a temporary file in its folder.
func writeAtomic(path string, b []byte) error {
	f, err := createTemp(path)
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// createTemp creates a new file beside path with the user's umask (as
// any file the user writes; os.CreateTemp would make it 0600).
func createTemp(path string) (*os.File, error) {
	var rnd [6]byte
	for range 10 {
		if _, err := rand.Read(rnd[:]); err != nil {
			return nil, err
		}
		name := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"."+hex.EncodeToString(rnd[:]))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("%s: no free temporary name", path)
}

// removeNPY removes the .npy files of a plan whose writing failed.
func removeNPY(path string, files map[string]NPYFile) {
	for name := range files {
		os.Remove(NPYPath(path, name))
	}
}
