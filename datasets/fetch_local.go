package datasets

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxFromDepth bounds how deep fetchFromDir looks, so pointing --from at
// a large tree fails fast instead of walking it all.
const maxFromDepth = 4

// wanted maps a base name found in a tarball or folder ("x" or "x.gz") to
// the needed file it provides.
func wanted(need []pinnedFile, base string) (pinnedFile, bool) {
	name := strings.TrimSuffix(base, ".gz")
	for _, f := range need {
		if f.Name == name {
			return f, true
		}
	}
	return pinnedFile{}, false
}

// fetchFromTar installs the needed files from a (gzipped) tarball in one
// pass over it.
func fetchFromTar(ds *fetchable, dir string, need []pinnedFile, o FetchOptions) error {
	file, err := os.Open(o.From)
	if err != nil {
		return invalidf("fetch %s --from %s: %v", ds.Name, o.From, err)
	}
	defer file.Close()
	src, closeSrc, err := maybeGunzip(file)
	if err != nil {
		return fmt.Errorf("fetch %s --from %s: %w", ds.Name, o.From, err)
	}
	defer closeSrc()
	tr := tar.NewReader(src)
	done := map[string]bool{}
	var errs []error
	for len(done) < len(need) {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("fetch %s --from %s: %w: %v (not a tar or tar.gz file?)", ds.Name, o.From, ErrFormat, err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		f, ok := wanted(need, path.Base(hdr.Name))
		if !ok || done[f.Name] {
			continue
		}
		origin := o.From + ":" + hdr.Name
		progressf(o.Progress, "%s: extracting %s", ds.Name, origin)
		if err := install(dir, f, cancellable(o.ctx(), tr), origin); err != nil {
			if o.ctx().Err() != nil {
				return fmt.Errorf("fetch %s --from %s: %w", ds.Name, o.From, o.ctx().Err())
			}
			progressf(o.Progress, "%s: %v", ds.Name, err)
			errs = append(errs, err)
			continue
		}
		progressf(o.Progress, "%s: %s ok (content verified)", ds.Name, f.Name)
		done[f.Name] = true
	}
	return missingFrom(ds, need, done, o.From, errs)
}

// fetchFromDir installs the needed files found in a folder tree.
func fetchFromDir(ds *fetchable, dir string, need []pinnedFile, o FetchOptions) error {
	done := map[string]bool{}
	var errs []error
	root := filepath.Clean(o.From)
	walkErr := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel, _ := filepath.Rel(root, p); rel != "." && strings.Count(rel, string(filepath.Separator)) >= maxFromDepth-1 {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		f, ok := wanted(need, d.Name())
		if !ok || done[f.Name] {
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		progressf(o.Progress, "%s: copying %s", ds.Name, p)
		if err := install(dir, f, cancellable(o.ctx(), in), p); err != nil {
			if o.ctx().Err() != nil {
				return fmt.Errorf("fetch %s --from %s: %w", ds.Name, o.From, o.ctx().Err())
			}
			progressf(o.Progress, "%s: %v", ds.Name, err)
			errs = append(errs, err)
			return nil
		}
		progressf(o.Progress, "%s: %s ok (content verified)", ds.Name, f.Name)
		done[f.Name] = true
		return nil
	})
	if walkErr != nil {
		return fmt.Errorf("fetch %s --from %s: %w", ds.Name, o.From, walkErr)
	}
	return missingFrom(ds, need, done, o.From, errs)
}

// missingFrom reports needed files a local source did not provide, with
// the verification errors met on the way (so a checksum mismatch stays
// visible to errors.Is).
func missingFrom(ds *fetchable, need []pinnedFile, done map[string]bool, from string, errs []error) error {
	var missing []string
	for _, f := range need {
		if !done[f.Name] {
			missing = append(missing, f.Name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if len(errs) > 0 {
		return fmt.Errorf("fetch %s --from %s: no verified copy of %s: %w",
			ds.Name, from, strings.Join(missing, ", "), errors.Join(errs...))
	}
	return invalidf("fetch %s --from %s: no file named %s (raw or .gz) inside; for example `%s` works (%s)",
		ds.Name, from, strings.Join(missing, ", "), ds.OfflineCommand, ds.OfflineNote)
}
