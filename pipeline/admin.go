package pipeline

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// StoredNode is one node folder found in a store.
type StoredNode struct {
	Key   string
	Kind  string // "" when the meta is missing or unreadable
	Bytes int64
}

// Nodes lists the node folders of the store (finished or not).
func (s *Store) Nodes() ([]StoredNode, error) {
	tops, err := os.ReadDir(s.Root)
	if err != nil {
		return nil, err
	}
	var out []StoredNode
	for _, top := range tops {
		if len(top.Name()) != 2 || !top.IsDir() {
			continue
		}
		if _, err := hex.DecodeString(top.Name()); err != nil {
			continue
		}
		keys, _ := os.ReadDir(filepath.Join(s.Root, top.Name()))
		for _, k := range keys {
			n := StoredNode{Key: k.Name(), Bytes: DiskUsage(filepath.Join(s.Root, top.Name(), k.Name()))}
			if m, err := s.ReadMeta(k.Name()); err == nil {
				n.Kind = m.Kind
			}
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// VerifyReport is the outcome of VerifyAll.
type VerifyReport struct {
	Nodes, Memos int
	Bytes        int64 // bytes hashed
	Seconds      float64
	Bad          []string // one line per node or memo that failed
}

// VerifyAll checks the digests of every node and memo; failures are moved
// to the quarantine when quarantine is set.
func (s *Store) VerifyAll(quarantine bool) (*VerifyReport, error) {
	start := time.Now()
	nodes, err := s.Nodes()
	if err != nil {
		return nil, err
	}
	r := &VerifyReport{}
	for _, n := range nodes {
		r.Nodes++
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
		if li, mod, err := readLease(s.leasePath(n.Key)); err == nil && !s.stale(li, mod) {
			continue // being replaced by a live process
		}
		kind := n.Kind
		if kind == "" {
			kind = "(unfinished)"
		}
		out = append(out, Garbage{Path: s.Dir(n.Key), What: "node " + kind, Bytes: n.Bytes})
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
		if li, mod, err := readLease(p); err == nil || !os.IsNotExist(err) {
			if s.stale(li, mod) {
				out = append(out, Garbage{Path: p, What: "lease", Bytes: 0})
			}
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
