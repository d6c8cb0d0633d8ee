package dpaudit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/stages"
)

// publishHook, when set by a test, is called at each named step of a
// publish and can fail it (to simulate a full disk half-way).
var publishHook func(step string) error

func hook(step string) error {
	if publishHook != nil {
		return publishHook(step)
	}
	return nil
}

// PublishError is a publish that failed; the previous results (if any)
// are untouched.
type PublishError struct {
	Dir string
	Had bool // previous results existed (and are kept)
	Err error
}

func (e *PublishError) Error() string {
	if e.Had {
		return fmt.Sprintf("publishing %s failed: %v; the previous results in %s are untouched", e.Dir, e.Err, e.Dir)
	}
	return fmt.Sprintf("publishing %s failed: %v; nothing was published", e.Dir, e.Err)
}

func (e *PublishError) Unwrap() error { return e.Err }

// publish builds results/<name>/ beside its final place under a unique
// temporary name — summary.parquet, trials/point=<id>/part-<k>.parquet
// (Hive partitioning) and manifest.json, each file a copy of verified store
// bytes (copy_file_range, which file systems such as btrfs and XFS turn
// into a reflink), fsynced — then swaps it in under a per-name lock:
// results/<name> → results/<name>.prev, new → results/<name>, remove .prev.
// A reader sees the old or the new folder whole, never two runs mixed; a
// failure before the last rename puts the old folder back. Results are
// copies, not hard links, so editing a result cannot change the store.
func (p *Plan) publish(res *Result) error {
	root := p.Options.Results
	final := p.ResultsDir()
	_, statErr := os.Stat(final)
	had := statErr == nil
	fail := func(err error) error { return &PublishError{Dir: final, Had: had, Err: err} }
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fail(err)
	}
	// Folders of publishes killed half-way, by dead processes of this host.
	prefix := "." + p.Spec.Name + ".new-"
	if old, _ := filepath.Glob(filepath.Join(root, prefix+"*")); len(old) > 0 {
		for _, o := range old {
			if st, err := os.Stat(o); err == nil && pipeline.StaleTemp(filepath.Base(o), prefix, st.ModTime(), 24*time.Hour) {
				os.RemoveAll(o)
			}
		}
	}
	tmp, err := pipeline.MkdirTemp(root, prefix+pipeline.OwnerTag()+".*")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(tmp) // gone after a successful swap; cleans a failed one
	if err := p.buildResults(res, tmp); err != nil {
		return fail(err)
	}

	unlock, err := p.Store.Lock(context.Background(), filepath.Join(root, "."+p.Spec.Name+".lock"))
	if err != nil {
		return fail(err)
	}
	defer unlock()
	prev := final + ".prev"
	// An earlier publish killed between its two renames left only .prev.
	if _, err := os.Stat(final); os.IsNotExist(err) {
		if _, err := os.Stat(prev); err == nil {
			os.Rename(prev, final)
		}
	}
	os.RemoveAll(prev) // left by a publish killed after its swap
	if err := checkResultsDir(final); err != nil {
		return err // a file put there while this run computed
	}
	_, statErr = os.Stat(final)
	had = statErr == nil
	if had {
		if err := os.Rename(final, prev); err != nil {
			return fail(err)
		}
	}
	err = hook("swap")
	if err == nil {
		err = os.Rename(tmp, final)
	}
	if err != nil {
		if had {
			if rerr := os.Rename(prev, final); rerr != nil {
				return fail(fmt.Errorf("%v; restoring the previous results also failed (%v): they are in %s", err, rerr, prev))
			}
		}
		return fail(err)
	}
	pipeline.SyncDir(root)
	os.RemoveAll(prev)
	res.Summary = filepath.Join(final, stages.SummaryFile)
	res.Manifest = filepath.Join(final, "manifest.json")
	res.Report = filepath.Join(final, "report.html")
	return nil
}

// buildResults writes the complete results folder into dir.
func (p *Plan) buildResults(res *Result, dir string) error {
	if err := p.publishNodeFile(p.Compiled.Summary, stages.SummaryFile, filepath.Join(dir, stages.SummaryFile)); err != nil {
		return err
	}
	if err := hook("summary"); err != nil {
		return err
	}
	if len(p.Compiled.Trials) > 0 {
		var parts []string
		for _, pt := range p.Points {
			for _, id := range []string{pt.ID, pt.ID + "/reconstruction"} {
				shards, ok := p.Compiled.Trials[id]
				if !ok {
					continue
				}
				pd := filepath.Join(dir, "trials", "point="+id)
				if err := os.MkdirAll(pd, 0o777); err != nil {
					return err
				}
				for k, n := range shards {
					dst := filepath.Join(pd, fmt.Sprintf("part-%05d.parquet", k))
					if err := p.publishNodeFile(n, stages.TrialsFile, dst); err != nil {
						return err
					}
					parts = append(parts, dst)
				}
			}
		}
		// One schema for every trials table of the folder, rewritten from
		// the verified copies (a column a distinguisher lacks is null).
		schema, err := trialsSchema(parts)
		if err != nil {
			return err
		}
		for _, part := range parts {
			if err := conformTrialPart(part, schema); err != nil {
				return err
			}
		}
		if err := syncTree(filepath.Join(dir, "trials")); err != nil {
			return err
		}
	}
	if err := hook("trials"); err != nil {
		return err
	}
	figs, err := p.publishFigures(dir)
	if err != nil {
		return err
	}
	res.Figures = figs
	if err := writeManifest(p, res, filepath.Join(dir, "manifest.json")); err != nil {
		return err
	}
	if _, err := writeReportPage(dir); err != nil {
		return err
	}
	return pipeline.SyncDir(dir)
}

// syncTree fsyncs every folder below root, and root.
func syncTree(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		return pipeline.SyncDir(path)
	})
}

// publishNodeFile copies one output file of a node and checks the copy
// against the node's meta, so a run never publishes unverified bytes. A
// node that another process is replacing (--force) can be absent for a
// moment where the file system cannot swap folders atomically: retry.
func (p *Plan) publishNodeFile(n *pipeline.Node, name, dst string) error {
	delay := 20 * time.Millisecond
	for attempt := 0; ; attempt++ {
		err := p.publishNodeFileOnce(n, name, dst)
		if err == nil || !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if attempt == 6 {
			return &pipeline.VanishedError{Node: n}
		}
		os.Remove(dst)
		time.Sleep(delay)
		delay *= 2
	}
}

func (p *Plan) publishNodeFileOnce(n *pipeline.Node, name, dst string) error {
	key := n.StoreKey()
	m, err := p.Store.ReadMeta(key)
	if err != nil {
		return fmt.Errorf("%s %s: %w", n.Kind, n.Label, err)
	}
	sum, ok := m.Files[name]
	if !ok {
		return fmt.Errorf("%s %s: no %s in its meta", n.Kind, n.Label, name)
	}
	if err := copyFile(filepath.Join(p.Store.Dir(key), name), dst); err != nil {
		return err
	}
	got, size, err := pipeline.HashFile(dst)
	if err != nil {
		return err
	}
	if size != sum.Size || got != sum.SHA256 {
		err := &pipeline.CorruptError{Key: key, Kind: n.Kind, File: name, Expected: "sha256 " + sum.SHA256, Found: "sha256 " + got}
		p.Store.Quarantine(key, err)
		return fmt.Errorf("%w (changed while publishing); run again to recompute it", err)
	}
	return nil
}

// copyFile copies src to a new file dst and fsyncs it.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666) // less the umask
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
