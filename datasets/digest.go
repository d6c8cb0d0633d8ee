package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// fileStamp identifies a file's state without reading it: a changed size,
// modification time or inode means changed content.
type fileStamp struct {
	size  int64
	mtime time.Time
	ino   uint64
}

func stampOf(st os.FileInfo) fileStamp {
	return fileStamp{size: st.Size(), mtime: st.ModTime(), ino: inode(st)}
}

type digestEntry struct {
	stamp fileStamp
	sum   string
}

// digests remembers, per absolute path, the SHA-256 of the content last
// hashed and the stamp it had, so that a plan and the loads of its nodes in
// one process hash a large file once.
var digests sync.Map // string → digestEntry

// Digest returns the hex SHA-256 of a file's content. It is remembered for
// the process while the file's size, modification time and inode stay the
// same. A missing or unreadable file is an ErrInvalid error.
func Digest(path string) (string, error) {
	sum, _, err := digest(path)
	return sum, err
}

func digest(path string) (string, fileStamp, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fileStamp{}, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", fileStamp{}, openError(path, err)
	}
	if st.IsDir() {
		return "", fileStamp{}, invalidf("%s is a directory, not a data file", path)
	}
	stamp := stampOf(st)
	if e, ok := digests.Load(abs); ok && e.(digestEntry).stamp == stamp {
		return e.(digestEntry).sum, stamp, nil
	}
	f, err := os.Open(abs)
	if err != nil {
		return "", fileStamp{}, openError(path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fileStamp{}, err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	// Remember it only if the file did not change while it was hashed.
	if st2, err := f.Stat(); err == nil && stampOf(st2) == stamp {
		digests.Store(abs, digestEntry{stamp, sum})
	}
	return sum, stamp, nil
}

func openError(path string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return invalidf("data file %s does not exist", path)
	case errors.Is(err, fs.ErrPermission):
		return invalidf("data file %s cannot be read (permission denied)", path)
	}
	return err
}

// verify checks the file against its recorded digest (if any) and
// returns the stamp the check belongs to.
func (r *FileRef) verify() (fileStamp, error) {
	if r.SHA256 == "" {
		// Nothing to compare with: only the stamp, to notice a change
		// while the file is read.
		st, err := os.Stat(r.Path)
		if err != nil {
			return fileStamp{}, openError(r.Path, err)
		}
		return stampOf(st), nil
	}
	sum, stamp, err := digest(r.Path)
	if err != nil {
		return fileStamp{}, err
	}
	if r.SHA256 != "" && sum != r.SHA256 {
		return fileStamp{}, &ChecksumError{Path: r.Path, Want: r.SHA256, Got: sum,
			Hint: "the data file changed since this run was planned; run again to use its new content"}
	}
	return stamp, nil
}

// unchanged checks, after the file was read, that it still has the
// stamp it had when its digest was taken.
func (r *FileRef) unchanged(stamp fileStamp) error {
	st, err := os.Stat(r.Path)
	if err != nil {
		return openError(r.Path, err)
	}
	if stampOf(st) != stamp {
		return &ChecksumError{Path: r.Path, Want: r.SHA256, Got: "(changed while it was read)",
			Hint: "the data file changed while it was read; run again once it is written"}
	}
	return nil
}

// FileSize returns a file's size in bytes.
func FileSize(path string) (int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, openError(path, err)
	}
	return st.Size(), nil
}
