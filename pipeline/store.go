package pipeline

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Store is the content-addressed cache of node outputs:
// <root>/<key[:2]>/<key>/ holds the node's files and meta.json. A node is
// written into <root>/tmp/ and renamed into place, so a killed run leaves
// either a finished node or nothing.
type Store struct {
	Root string
}

// Meta describes a finished node; it is the last file written, so its
// presence marks the node as complete.
type Meta struct {
	Key      string          `json:"key"`
	Kind     string          `json:"kind"`
	Version  int             `json:"version"`
	Label    string          `json:"label"`
	Params   json.RawMessage `json:"params"`
	Inputs   []string        `json:"inputs"`
	Started  time.Time       `json:"started"`
	Finished time.Time       `json:"finished"`
	Seconds  float64         `json:"seconds"`
}

// NewStore names a store without touching the disk (plans and validation
// must write nothing); call Init before running nodes.
func NewStore(root string) *Store { return &Store{Root: root} }

// Init creates the store directory if needed and checks it is writable.
func (s *Store) Init() error {
	if err := os.MkdirAll(filepath.Join(s.Root, "tmp"), 0o755); err != nil {
		return fmt.Errorf("store %s: %w", s.Root, err)
	}
	probe, err := os.CreateTemp(filepath.Join(s.Root, "tmp"), "probe-*")
	if err != nil {
		return fmt.Errorf("store %s is not writable: %w", s.Root, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// Dir is where the outputs of key live.
func (s *Store) Dir(key string) string { return filepath.Join(s.Root, key[:2], key) }

// Has reports whether key is complete in the store.
func (s *Store) Has(key string) bool {
	_, err := os.Stat(filepath.Join(s.Dir(key), "meta.json"))
	return err == nil
}

// ReadMeta reads the meta.json of a finished node.
func (s *Store) ReadMeta(key string) (*Meta, error) {
	b, err := os.ReadFile(filepath.Join(s.Dir(key), "meta.json"))
	if err != nil {
		return nil, err
	}
	var m Meta
	return &m, json.Unmarshal(b, &m)
}

// tempDir makes a fresh temporary directory for a node being computed.
func (s *Store) tempDir(key string) (string, error) {
	var r [6]byte
	rand.Read(r[:])
	d := filepath.Join(s.Root, "tmp", key[:16]+"-"+hex.EncodeToString(r[:]))
	return d, os.MkdirAll(d, 0o755)
}

// commit writes meta.json into tmp and renames tmp to the node's place.
// If another process finished the same node first, its copy is kept.
func (s *Store) commit(tmp string, m *Meta) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileSync(filepath.Join(tmp, "meta.json"), b); err != nil {
		return err
	}
	final := s.Dir(m.Key)
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		if s.Has(m.Key) {
			os.RemoveAll(tmp)
			return nil
		}
		// A leftover incomplete directory (no meta.json) from an old crash.
		if _, statErr := os.Stat(final); statErr == nil {
			if err := os.RemoveAll(final); err != nil {
				return err
			}
			return os.Rename(tmp, final)
		}
		return err
	}
	return nil
}

func writeFileSync(path string, b []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// CleanTemp removes temporary directories left by killed runs.
func (s *Store) CleanTemp(olderThan time.Duration) {
	entries, _ := os.ReadDir(filepath.Join(s.Root, "tmp"))
	for _, e := range entries {
		info, err := e.Info()
		if err == nil && time.Since(info.ModTime()) > olderThan {
			os.RemoveAll(filepath.Join(s.Root, "tmp", e.Name()))
		}
	}
}

// slotRecord remembers what a slot last computed, to explain plans.
type slotRecord struct {
	Key     string          `json:"key"`
	Kind    string          `json:"kind"`
	Version int             `json:"version"`
	Params  json.RawMessage `json:"params"`
	Inputs  []string        `json:"inputs"`
}

func (s *Store) slotPath(slot string) string {
	h := sha256.Sum256([]byte(slot))
	return filepath.Join(s.Root, "slots", hex.EncodeToString(h[:12])+".json")
}

func (s *Store) readSlot(slot string) *slotRecord {
	b, err := os.ReadFile(s.slotPath(slot))
	if err != nil {
		return nil
	}
	var r slotRecord
	if json.Unmarshal(b, &r) != nil {
		return nil
	}
	return &r
}

func (s *Store) writeSlot(n *Node) error {
	r := slotRecord{Key: n.Key(), Kind: n.Kind, Version: n.Version, Params: n.ParamsJSON()}
	for _, in := range n.Inputs {
		r.Inputs = append(r.Inputs, in.Key())
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return writeAtomic(s.slotPath(n.slot()), b)
}

// writeAtomic writes a small file through a temporary name and a rename,
// creating its folder; concurrent writers of equal content are harmless.
func writeAtomic(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	tmp := p + ".tmp" + hex.EncodeToString(randBytes(4))
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

func randBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// Memos cache small JSON-able computations under (namespace, args), e.g.
// noise calibrations made while expanding a sweep. Reads never write, so a
// plan stays side-effect free; the caller puts new entries after the spec
// has validated.

func (s *Store) memoPath(namespace string, args any) (string, error) {
	ab, err := canonicalJSON(args)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(append([]byte(namespace+"\x00"), ab...))
	return filepath.Join(s.Root, "memo", namespace, hex.EncodeToString(h[:16])+".json"), nil
}

// MemoGet reads a memo into out; it reports whether one was found.
func (s *Store) MemoGet(namespace string, args, out any) bool {
	p, err := s.memoPath(namespace, args)
	if err != nil {
		return false
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	return json.Unmarshal(b, out) == nil
}

// MemoPut stores a memo (atomically; concurrent writers write equal content).
func (s *Store) MemoPut(namespace string, args, v any) error {
	p, err := s.memoPath(namespace, args)
	if err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeAtomic(p, b)
}
