package pipeline

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
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
	What  string // "node <kind>", "temp", "quarantine", "lease"
	Bytes int64
}

// Garbage lists what gc removes: nodes not in keep (all nodes with
// keepNone), temporary folders of dead processes (or older than a day),
// the quarantine, and stale leases. Nodes with a live lease are kept.
func (s *Store) Garbage(keep map[string]bool, keepNone bool) ([]Garbage, error) {
	var out []Garbage
	nodes, err := s.Nodes()
	if err != nil {
		return nil, err
	}
	for _, n := range nodes {
		if keep[n.Key] && !keepNone {
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
	tmps, _ := s.cleanTemp(24*time.Hour, true)
	for _, p := range tmps {
		out = append(out, Garbage{Path: p, What: "temp", Bytes: DiskUsage(p)})
	}
	q, _ := os.ReadDir(filepath.Join(s.Root, "quarantine"))
	for _, e := range q {
		p := filepath.Join(s.Root, "quarantine", e.Name())
		out = append(out, Garbage{Path: p, What: "quarantine", Bytes: DiskUsage(p)})
	}
	leases, _ := os.ReadDir(filepath.Join(s.Root, "leases"))
	for _, e := range leases {
		p := filepath.Join(s.Root, "leases", e.Name())
		if lf, err := readLease(p); err == nil && s.stale(lf) {
			out = append(out, Garbage{Path: p, What: "lease", Bytes: 0})
		}
	}
	return out, nil
}

// Remove deletes what Garbage listed.
func (s *Store) Remove(g []Garbage) error {
	for _, x := range g {
		p := x.Path
		if len(x.What) > 5 && x.What[:5] == "node " {
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
