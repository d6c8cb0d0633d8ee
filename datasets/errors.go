package datasets

import (
	"errors"
	"fmt"

	"github.com/dpaudit/dpaudit/internal/inputerr"
)

// Sentinel errors. Every error this package returns for a problem the user
// can fix (a bad option, a missing or corrupt data file) wraps one of them,
// so callers can tell bad input (exit code 2) from I/O failures with
// IsBadInput or errors.Is.
var (
	// ErrInvalid: an option or source parameter is out of range, or a
	// filter/size request cannot be met by the data. It keeps its own
	// wording but errors.Is also matches it to the module's one
	// input-error sentinel (internal/inputerr, privacy.ErrInvalid, …).
	ErrInvalid = inputerr.New("invalid dataset request")
	// ErrNotFetched: a data file is absent from the data directory.
	ErrNotFetched = errors.New("dataset not fetched")
	// ErrChecksum: a file's SHA-256 differs from the pinned digest.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrFormat: a file is present but malformed (bad IDX header, bad CSV,
	// NaN or Inf values, trailing bytes).
	ErrFormat = errors.New("malformed data")
)

// IsBadInput reports whether err is the user's to fix (wraps ErrInvalid,
// ErrNotFetched, ErrChecksum or ErrFormat) rather than an I/O failure.
func IsBadInput(err error) bool {
	return errors.Is(err, ErrInvalid) || errors.Is(err, ErrNotFetched) ||
		errors.Is(err, ErrChecksum) || errors.Is(err, ErrFormat)
}

// invalidf formats an ErrInvalid error.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// formatf formats an ErrFormat error.
func formatf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrFormat, fmt.Sprintf(format, args...))
}

// MissingError says which data file is missing and how to get it.
type MissingError struct {
	Dataset string // canonical dataset name, e.g. "mnist"
	File    string // canonical file name, e.g. "train-images-idx3-ubyte"
	Dir     string // directory that was searched
	Hint    string // the exact command(s) that fetch it
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("%s: %s not found in %s (looked for %s and %s.gz); %s",
		e.Dataset, e.File, e.Dir, e.File, e.File, e.Hint)
}

// Unwrap makes errors.Is(err, ErrNotFetched) true.
func (e *MissingError) Unwrap() error { return ErrNotFetched }

// ChecksumError reports a digest mismatch. The file is never used (and a
// file being fetched is never moved into place).
type ChecksumError struct {
	Path string // file or URL whose content was hashed
	Want string // pinned SHA-256 of the uncompressed content, hex
	Got  string // SHA-256 actually computed, hex
	Hint string // what to do about it; may be empty
}

func (e *ChecksumError) Error() string {
	msg := fmt.Sprintf("%s: sha256 of the uncompressed content is %s, want %s; refusing to use it",
		e.Path, e.Got, e.Want)
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

// Unwrap makes errors.Is(err, ErrChecksum) true.
func (e *ChecksumError) Unwrap() error { return ErrChecksum }
