package scorefile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/dpaudit/dpaudit/datasets"
)

// Digest identifies the table Read reads from path by its content: the
// SHA-256 of a file, and of a directory the SHA-256 over one
// "name<TAB>sha256<LF>" line per *.parquet part in name order (the order
// Read concatenates them in), so that changing, adding, removing or
// renaming a part changes it and touching none does not. size is the
// bytes hashed (of a directory, the sum over its parts).
func Digest(path string) (sum string, size int64, err error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", 0, invalidf("%s does not exist", path)
	}
	if err != nil {
		return "", 0, invalidf("%v", err)
	}
	if !st.IsDir() {
		sum, err := datasets.Digest(path)
		return sum, st.Size(), err
	}
	parts, err := Parts(path)
	if err != nil {
		return "", 0, err
	}
	h := sha256.New()
	for _, p := range parts {
		ps, err := datasets.Digest(p)
		if err != nil {
			return "", 0, err
		}
		pst, err := os.Stat(p)
		if err != nil {
			return "", 0, invalidf("%v", err)
		}
		size += pst.Size()
		fmt.Fprintf(h, "%s\t%s\n", filepath.Base(p), ps)
	}
	return hex.EncodeToString(h.Sum(nil)), size, nil
}

// Parts lists the *.parquet files of a directory in name order: the
// parts Read reads as one table.
func Parts(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if err != nil || len(files) == 0 {
		return nil, invalidf("%s: a directory without *.parquet files", dir)
	}
	slices.Sort(files)
	return files, nil
}
