package pipeline

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// CreateTemp is os.CreateTemp with the permissions of an ordinary file:
// 0666 less the user's umask (os.CreateTemp makes 0600, which hides
// results from the group of a shared project directory). pattern holds
// one '*', replaced by a random string.
func CreateTemp(dir, pattern string) (*os.File, error) {
	for try := 0; try < 100; try++ {
		name := filepath.Join(dir, randomName(pattern))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, &os.PathError{Op: "createtemp", Path: filepath.Join(dir, pattern), Err: os.ErrExist}
}

// MkdirTemp is os.MkdirTemp with mode 0777 less the umask (not 0700).
func MkdirTemp(dir, pattern string) (string, error) {
	for try := 0; try < 100; try++ {
		name := filepath.Join(dir, randomName(pattern))
		err := os.Mkdir(name, 0o777)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		return name, nil
	}
	return "", &os.PathError{Op: "mkdirtemp", Path: filepath.Join(dir, pattern), Err: os.ErrExist}
}

func randomName(pattern string) string {
	r := strconv.FormatUint(rand.Uint64(), 36)
	if i := strings.LastIndexByte(pattern, '*'); i >= 0 {
		return pattern[:i] + r + pattern[i+1:]
	}
	return pattern + r
}
