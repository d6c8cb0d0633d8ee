package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
)

// File states reported by List.
const (
	StateOK      = "ok"      // present, digest verified
	StateMissing = "missing" // neither the raw file nor its .gz exists
	StateCorrupt = "corrupt" // present but the digest or gzip stream is wrong
	StateError   = "error"   // could not be read (permissions, I/O)
)

// FileStatus describes one file of a fetchable data set.
type FileStatus struct {
	Name    string // canonical (uncompressed) name
	Path    string // where it was found; empty when missing
	Gzipped bool   // stored as <Name>.gz
	State   string // StateOK, StateMissing, StateCorrupt or StateError
	Err     error  // why, when State is not StateOK
}

// verifyStored hashes the stored form of f (uncompressed content) and
// compares it with the pin.
func verifyStored(ds *fetchable, dataDir string, f pinnedFile) FileStatus {
	st := FileStatus{Name: f.Name}
	path, gz, err := locate(ds, dataDir, f)
	if err != nil {
		st.State, st.Err = StateError, err
		if errors.Is(err, ErrNotFetched) {
			st.State = StateMissing
		}
		return st
	}
	st.Path, st.Gzipped = path, gz
	got, err := hashFile(path, gz)
	switch {
	case err != nil && IsBadInput(err):
		st.State, st.Err = StateCorrupt, fmt.Errorf("%s: %w", path, err)
	case err != nil:
		st.State, st.Err = StateError, fmt.Errorf("%s: %w", path, err)
	case got != f.SHA256:
		st.State, st.Err = StateCorrupt, &ChecksumError{Path: path, Want: f.SHA256, Got: got,
			Hint: "delete it and " + fetchHint(ds, dataDir)}
	default:
		st.State = StateOK
	}
	return st
}

// hashFile returns the hex SHA-256 of a file's content, decompressed
// first when gz is set. A broken gzip stream is an ErrFormat error.
func hashFile(path string, gz bool) (string, error) {
	file, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer file.Close()
	var src io.Reader = file
	if gz {
		zr, closeZr, err := maybeGunzip(file)
		if err != nil {
			return "", err
		}
		defer closeZr()
		src = zr
	}
	h := sha256.New()
	if _, err := io.Copy(h, src); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return "", formatf("truncated gzip stream")
		}
		return "", gzipErr(err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
