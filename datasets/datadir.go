package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// DataDirEnv names the environment variable that overrides the data
// directory.
const DataDirEnv = "DPAUDIT_DATA"

// DefaultDataDir is $DPAUDIT_DATA if set, else <user cache dir>/dpaudit/data
// (e.g. ~/.cache/dpaudit/data on Linux), else, when no cache dir can be
// determined (no $HOME), <temp dir>/dpaudit/data.
//
// Layout: one folder per data set holding its four files in canonical
// form, the raw (uncompressed) IDX files under their canonical names:
//
//	<dir>/mnist/train-images-idx3-ubyte
//	<dir>/mnist/train-labels-idx1-ubyte
//	<dir>/mnist/t10k-images-idx3-ubyte
//	<dir>/mnist/t10k-labels-idx1-ubyte
//	<dir>/fashion-mnist/… (same four names)
//
// Raw is canonical because loading then needs no decompression (MNIST loads
// in tens of milliseconds instead of hundreds). A gzipped file placed by
// hand under the same name plus ".gz" is recognised too; it verifies
// against the same digest (of the uncompressed content) but loads slower.
func DefaultDataDir() string {
	if d := os.Getenv(DataDirEnv); d != "" {
		return d
	}
	if c, err := os.UserCacheDir(); err == nil {
		return filepath.Join(c, "dpaudit", "data")
	}
	return filepath.Join(os.TempDir(), "dpaudit", "data")
}

// canonicalName folds case and underscores: "Fashion_MNIST" → "fashion-mnist".
func canonicalName(name string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "_", "-")
}

// fetchHint is the exact command that fetches ds into dataDir.
func fetchHint(ds *fetchable, dataDir string) string {
	env := ""
	if filepath.Clean(dataDir) != filepath.Clean(DefaultDataDir()) {
		env = DataDirEnv + "=" + dataDir + " "
	}
	return fmt.Sprintf("fetch it with `%sdpaudit data fetch %s` or, offline, `%s%s` (%s)",
		env, ds.Name, env, ds.OfflineCommand, ds.OfflineNote)
}

// locate finds the stored form of f: the raw file if present, else the
// .gz. It returns a *MissingError when neither exists.
func locate(ds *fetchable, dataDir string, f pinnedFile) (path string, gz bool, err error) {
	dir := filepath.Join(dataDir, ds.Name)
	raw := filepath.Join(dir, f.Name)
	if _, err := os.Stat(raw); err == nil {
		return raw, false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", false, fmt.Errorf("%s: %w", ds.Name, err)
	}
	if _, err := os.Stat(raw + ".gz"); err == nil {
		return raw + ".gz", true, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", false, fmt.Errorf("%s: %w", ds.Name, err)
	}
	return "", false, &MissingError{Dataset: ds.Name, File: f.Name, Dir: dir, Hint: fetchHint(ds, dataDir)}
}

// openStoredIDX reads and parses the stored file of f and starts checking
// the SHA-256 of its uncompressed content in the background, so the check
// overlaps the float conversion that follows. The returned verify func
// blocks until the check is done; callers must not hand out anything
// derived from the array before verify returns nil — we never train on a
// corrupt file.
func openStoredIDX(ds *fetchable, dataDir string, f pinnedFile) (*IDXArray, func() error, error) {
	path, gz, err := locate(ds, dataDir, f)
	if err != nil {
		return nil, nil, err
	}
	buf, err := readStored(path, gz, f.Size)
	if err != nil {
		if IsBadInput(err) {
			return nil, nil, fmt.Errorf("%s: %s: %w (the file is corrupt; delete it and %s)",
				ds.Name, path, err, fetchHint(ds, dataDir))
		}
		return nil, nil, fmt.Errorf("%s: %w", ds.Name, err)
	}
	done := make(chan error, 1)
	go func() {
		sum := sha256.Sum256(buf)
		if got := hex.EncodeToString(sum[:]); got != f.SHA256 {
			done <- &ChecksumError{Path: path, Want: f.SHA256, Got: got,
				Hint: "delete it and " + fetchHint(ds, dataDir)}
		}
		close(done)
	}()
	verify := sync.OnceValue(func() error { return <-done })
	a, err := ParseIDX(buf)
	if err != nil {
		// A digest mismatch explains a parse failure better than the
		// parse error does.
		if verr := verify(); verr != nil {
			return nil, nil, verr
		}
		return nil, nil, fmt.Errorf("%s: %s: %w", ds.Name, path, err)
	}
	return a, verify, nil
}

// readStored returns the uncompressed content of a stored file. A raw file
// is read with one exact-size allocation; a file larger than the pinned
// size is refused before reading (it cannot verify).
func readStored(path string, gz bool, want int64) ([]byte, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	if gz {
		return readAllMaybeGzip(file, want)
	}
	info, err := file.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() != want {
		return nil, fmt.Errorf("%w: %d bytes, want %d", ErrChecksum, info.Size(), want)
	}
	buf := make([]byte, want)
	if _, err := io.ReadFull(file, buf); err != nil {
		return nil, err
	}
	return buf, nil
}
