package pipeline

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// StoredNode is one entry found under the store's node folders.
type StoredNode struct {
	Key   string
	Path  string
	Kind  string // "" when the meta is missing or unreadable
	Bytes int64
	// Foreign says why the entry is no node folder (a name that is not its
	// key's place, a file, a symbolic link); "" for node folders.
	Foreign string
}

// Nodes lists the entries of the store's node folders (<root>/<xx>/<key>),
// finished or not, without following a symbolic link.
func (s *Store) Nodes() ([]StoredNode, error) {
	tops, err := os.ReadDir(s.Root)
	if err != nil {
		return nil, err
	}
	var out []StoredNode
	for _, top := range tops {
		if len(top.Name()) != 2 {
			continue
		}
		if _, err := hex.DecodeString(top.Name()); err != nil {
			continue
		}
		tp := filepath.Join(s.Root, top.Name())
		if !top.IsDir() {
			out = append(out, StoredNode{Path: tp, Foreign: "not a folder (" + top.Type().String() + ")"})
			continue
		}
		keys, _ := os.ReadDir(tp)
		for _, k := range keys {
			out = append(out, s.storedNode(top.Name(), k))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func (s *Store) storedNode(top string, k os.DirEntry) StoredNode {
	n := StoredNode{Key: k.Name(), Path: filepath.Join(s.Root, top, k.Name())}
	switch {
	case !ValidKey(k.Name()) || k.Name()[:2] != top:
		n.Foreign = "not a node folder (its name is no key of this place)"
	case !k.IsDir():
		n.Foreign = "not a folder (" + k.Type().String() + ")"
	}
	n.Bytes = DiskUsage(n.Path)
	if n.Foreign == "" {
		if m, err := s.ReadMeta(k.Name()); err == nil {
			n.Kind = m.Kind
		}
	}
	return n
}

// VerifyReport is the outcome of VerifyAll.
type VerifyReport struct {
	Nodes, Memos int
	Bytes        int64 // bytes hashed
	Seconds      float64
	Bad          []string // one line per node or memo that failed
}

// VerifyAll checks every node as a run does before using it (checkMeta,
// then the digests) and every memo against its digest and address;
// failures are moved to the quarantine when quarantine is set.
func (s *Store) VerifyAll(quarantine bool) (*VerifyReport, error) {
	start := time.Now()
	nodes, err := s.Nodes()
	if err != nil {
		return nil, err
	}
	r := &VerifyReport{}
	for _, n := range nodes {
		r.Nodes++
		if n.Foreign != "" {
			err := &CorruptError{Key: n.Key, File: n.Path, Found: n.Foreign}
			r.Bad = append(r.Bad, err.Error())
			if quarantine {
				s.quarantinePath(n.Path, filepath.Base(n.Path), err)
			}
			continue
		}
		if m, err := s.ReadMeta(n.Key); err == nil {
			for _, f := range m.Files {
				r.Bytes += f.Size
			}
		}
		s.forgetVerified(n.Key)
		if err := s.Verify(n.Key, true); err != nil {
			if IsMissing(err) {
				err = &CorruptError{Key: n.Key, File: "meta.json", Found: "missing (an unfinished folder)"}
			}
			r.Bad = append(r.Bad, err.Error())
			if quarantine {
				s.Quarantine(n.Key, err)
			}
		}
	}
	memos, mb, bad, err := s.VerifyMemos(quarantine)
	if err != nil {
		return nil, err
	}
	r.Memos, r.Bytes, r.Bad = memos, r.Bytes+mb, append(r.Bad, bad...)
	r.Seconds = time.Since(start).Seconds()
	return r, nil
}

// Garbage is one thing store gc removes.
type Garbage struct {
	Path  string
	What  string // "node <kind>", "foreign entry", "temp", "quarantine", "lease", "symbolic link"
	Bytes int64
}

// Garbage lists what gc removes: nodes not in keep (all nodes with
// keepNone), temporary folders of dead processes (or older than a day),
// the quarantine, and stale leases. It never follows a symbolic link: a
// link in place of a store folder is listed itself (removing it removes
// the link, never what it points to). Nodes with a live lease, and nodes
// a live run may still read (see HoldRun), are kept.
func (s *Store) Garbage(keep map[string]bool, keepNone bool) ([]Garbage, error) {
	nodes, err := s.Nodes()
	if err != nil {
		return nil, err
	}
	held, holders := s.liveRunKeys()
	var out []Garbage
	kept := 0
	for _, n := range nodes {
		if n.Foreign != "" {
			out = append(out, Garbage{Path: n.Path, What: "foreign entry", Bytes: n.Bytes})
			continue
		}
		if keep[n.Key] && !keepNone {
			continue
		}
		if held[n.Key] {
			kept++
			continue
		}
		if lf, err := readLease(s.leasePath(n.Key)); err == nil && !s.stale(lf) {
			continue // being replaced by a live process
		}
		kind := n.Kind
		if kind == "" {
			kind = "(unfinished)"
		}
		out = append(out, Garbage{Path: n.Path, What: "node " + kind, Bytes: n.Bytes})
	}
	if kept > 0 {
		s.notify("kept %d node(s) that a live run may still read (%s); run gc again after it has published", kept, strings.Join(holders, "; "))
	}
	out = append(out, s.folderGarbage("tmp", func(e os.DirEntry, p string) (string, bool) {
		info, err := e.Info()
		return "temp", err == nil && tempStale(e.Name(), info.ModTime(), time.Now(), 24*time.Hour)
	})...)
	out = append(out, s.folderGarbage("quarantine", func(os.DirEntry, string) (string, bool) { return "quarantine", true })...)
	out = append(out, s.folderGarbage("leases", s.leaseGarbage)...)
	return out, nil
}

// folderGarbage lists the entries of the store folder name that pick
// selects; a symbolic link in place of the folder is listed itself and
// not followed.
func (s *Store) folderGarbage(name string, pick func(e os.DirEntry, p string) (what string, ok bool)) []Garbage {
	dir := filepath.Join(s.Root, name)
	st, err := os.Lstat(dir)
	if err != nil {
		return nil
	}
	if !st.IsDir() {
		return []Garbage{{Path: dir, What: "symbolic link"}}
	}
	entries, _ := os.ReadDir(dir)
	var out []Garbage
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if what, ok := pick(e, p); ok {
			out = append(out, Garbage{Path: p, What: what, Bytes: DiskUsage(p)})
		}
	}
	return out
}

// leaseGarbage picks stale leases (of nodes and runs), the key lists of
// runs whose lease is gone, and files left by a process killed while
// writing a lease.
func (s *Store) leaseGarbage(e os.DirEntry, p string) (string, bool) {
	name := e.Name()
	switch {
	case strings.HasSuffix(name, ".lease"):
		lf, err := readLease(p)
		return "lease", err == nil && s.stale(lf)
	case strings.HasPrefix(name, "run-") && strings.HasSuffix(name, ".keys"):
		lf, err := readLease(strings.TrimSuffix(p, ".keys") + ".lease")
		return "lease", errors.Is(err, fs.ErrNotExist) || (err == nil && s.stale(lf))
	}
	info, err := e.Info()
	return "lease", err == nil && time.Since(info.ModTime()) > time.Hour
}

// Remove deletes what Garbage listed. Right before each deletion it checks
// again that the path is inside the store and that no folder on the way
// is a symbolic link (one swapped in since the listing is refused).
func (s *Store) Remove(g []Garbage) error {
	for _, x := range g {
		if err := s.insideStore(x.Path); err != nil {
			return err
		}
		p := x.Path
		if strings.HasPrefix(x.What, "node ") && s.insideStore(filepath.Join(s.Root, "tmp", "x")) == nil {
			// Out of sight in one rename, so no reader sees half a node.
			trash := filepath.Join(s.Root, "tmp", ownerTag()+".gc."+hex.EncodeToString(randBytes(6)))
			if err := os.Rename(p, trash); err != nil {
				if os.IsNotExist(err) {
					continue
				}
				return err
			}
			p = trash
		}
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	}
	return nil
}

// insideStore checks that p is below the store's root and that every
// folder between the root and p is a real folder (p itself may be a
// link: removing it removes the link).
func (s *Store) insideStore(p string) error {
	rel, err := filepath.Rel(s.Root, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("refusing to remove %s: it is not inside the store %s", p, s.Root)
	}
	parts := strings.Split(rel, string(filepath.Separator))
	dir := s.Root
	for _, part := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, part)
		st, err := os.Lstat(dir)
		if err != nil {
			return err
		}
		if !st.IsDir() {
			return fmt.Errorf("refusing to remove %s: %s on its way is a symbolic link or a file, not a folder of the store (changed since gc listed it?)", p, dir)
		}
	}
	return nil
}

// HoldRun takes a run lease over keys, the nodes a run may read until it
// has published: gc keeps them while the lease is live. The key list is
// written beside the lease (leases/run-<token>.keys) before the lease
// appears; release removes both.
func (s *Store) HoldRun(keys []string) (release func(), err error) {
	token := hex.EncodeToString(randBytes(8))
	base := filepath.Join(s.Root, "leases", "run-"+token)
	if err := writeAtomicNoSync(base+".keys", []byte(strings.Join(keys, "\n")+"\n")); err != nil {
		return nil, err
	}
	l, holder, err := s.tryLeaseAt(base + ".lease")
	if err == nil && holder != nil {
		err = fmt.Errorf("run lease %s is taken by %s", base+".lease", holder)
	}
	if err != nil {
		os.Remove(base + ".keys")
		return nil, err
	}
	return func() {
		l.release()
		os.Remove(base + ".keys")
	}, nil
}

// liveRunKeys returns the keys held by live run leases, and their holders.
func (s *Store) liveRunKeys() (map[string]bool, []string) {
	leases, _ := filepath.Glob(filepath.Join(s.Root, "leases", "run-*.lease"))
	held := map[string]bool{}
	var holders []string
	for _, p := range leases {
		lf, err := readLease(p)
		if err != nil || s.stale(lf) {
			continue
		}
		b, err := os.ReadFile(strings.TrimSuffix(p, ".lease") + ".keys")
		if err != nil {
			continue
		}
		holders = append(holders, "a live run, "+lf.info.String())
		for _, k := range strings.Fields(string(b)) {
			held[k] = true
		}
	}
	return held, holders
}
