package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Memos cache small JSON-able computations under (namespace, args), e.g.
// noise calibrations made while expanding a sweep. Reads never write, so a
// plan stays side-effect free; the caller puts new entries after the spec
// has validated. A memo file records its namespace, the code fingerprint,
// its arguments, value and a SHA-256 over the four; its name is a hash of
// (namespace, code, arguments), so like a node a memo is checked against
// its own address (git refuses an object whose hash is not its path): a
// memo copied over another, edited, or torn is ignored (the value is
// recomputed), MemoPut moves it to the quarantine and says so, and store
// verify reports it.

type memoFile struct {
	Namespace string          `json:"namespace"`
	Code      string          `json:"code"`
	Args      json.RawMessage `json:"args"`
	Value     json.RawMessage `json:"value"`
	SHA256    string          `json:"sha256"`
}

func memoDigest(ns, code string, args, value []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "dpaudit-memo/v3\x00%s\x00%s\x00", ns, code)
	h.Write(args)
	h.Write([]byte{0})
	h.Write(value)
	return hex.EncodeToString(h.Sum(nil))
}

// olderMemoDigest is the digest of the memos of layout 2 before they
// recorded the code fingerprint, to name them as such.
func olderMemoDigest(ns string, args, value []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "dpaudit-memo/v2\x00%s\x00", ns)
	h.Write(args)
	h.Write([]byte{0})
	h.Write(value)
	return hex.EncodeToString(h.Sum(nil))
}

// memoName is the file name of a memo: a hash of its namespace, the code
// fingerprint and its canonical arguments.
func memoName(ns, code string, args []byte) string {
	h := sha256.Sum256(append([]byte(ns+"\x00"+code+"\x00"), args...))
	return hex.EncodeToString(h[:16]) + ".json"
}

func (s *Store) memoPath(namespace string, args any) (string, []byte, error) {
	ab, err := canonicalJSON(args)
	if err != nil {
		return "", nil, err
	}
	return filepath.Join(s.Root, "memo", namespace, memoName(namespace, CodeFingerprint(), ab)), ab, nil
}

// checkMemo decodes and verifies the bytes of the memo file named name in
// the folder of namespace ns: its digest, and that the namespace, code and
// arguments it records hash to its name. When args is not nil the record
// must also be for those arguments and this code.
func checkMemo(b []byte, ns, name string, args []byte) (json.RawMessage, error) {
	var m memoFile
	if err := json.Unmarshal(b, &m); err != nil || m.SHA256 == "" {
		return nil, fmt.Errorf("not a memo record (%d bytes)", len(b))
	}
	if got := memoDigest(m.Namespace, m.Code, m.Args, m.Value); got != m.SHA256 {
		if m.Code == "" && olderMemoDigest(m.Namespace, m.Args, m.Value) == m.SHA256 {
			return nil, errors.New("written by an older dpaudit, whose memos record no code fingerprint to check their name against")
		}
		return nil, fmt.Errorf("expected sha256 %s, found %s (value %s)", m.SHA256, got, m.Value)
	}
	if m.Namespace != ns || memoName(m.Namespace, m.Code, m.Args) != name {
		return nil, fmt.Errorf("records %s%s, which is not this file's address (a memo copied over another)", m.Namespace, m.Args)
	}
	if args != nil && (!bytes.Equal(m.Args, args) || m.Code != CodeFingerprint()) {
		return nil, fmt.Errorf("records %s%s, expected %s%s", m.Namespace, m.Args, ns, args)
	}
	return m.Value, nil
}

// MemoGet reads a memo into out; it reports whether a verified one was
// found. A memo that fails verification is remembered for MemoPut.
func (s *Store) MemoGet(namespace string, args, out any) bool {
	p, ab, err := s.memoPath(namespace, args)
	if err != nil {
		return false
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	v, err := checkMemo(b, namespace, filepath.Base(p), ab)
	if err != nil {
		s.mu.Lock()
		if s.memoBad == nil {
			s.memoBad = map[string]string{}
		}
		s.memoBad[p] = err.Error()
		s.mu.Unlock()
		return false
	}
	return json.Unmarshal(v, out) == nil
}

// MemoPut stores a memo (atomically; concurrent writers write equal
// content). A memo file that failed verification is first moved to the
// quarantine.
func (s *Store) MemoPut(namespace string, args, v any) error {
	p, ab, err := s.memoPath(namespace, args)
	if err != nil {
		return err
	}
	vb, err := canonicalJSON(v)
	if err != nil {
		return err
	}
	b, err := json.Marshal(memoFile{Namespace: namespace, Code: CodeFingerprint(), Args: ab, Value: vb, SHA256: memoDigest(namespace, CodeFingerprint(), ab, vb)})
	if err != nil {
		return err
	}
	s.mu.Lock()
	why, bad := s.memoBad[p]
	delete(s.memoBad, p)
	s.mu.Unlock()
	if bad {
		s.quarantineFile(p, fmt.Sprintf("memo %s/%s failed verification: %s", namespace, filepath.Base(p), why))
	}
	return s.writeOwnFile(p, b)
}

// quarantineFile moves one file to <root>/quarantine/ and reports why.
func (s *Store) quarantineFile(p, why string) {
	dst := filepath.Join(s.Root, "quarantine", "memo-"+filepath.Base(p)+"-"+hex.EncodeToString(randBytes(4)))
	if os.MkdirAll(filepath.Dir(dst), 0o755) != nil || os.Rename(p, dst) != nil {
		s.notify("%s; recomputed", why)
		return
	}
	s.notify("%s; moved to %s, recomputed", why, dst)
}

// VerifyMemos checks every memo file; bad ones are returned (and moved to
// the quarantine when quarantine is set).
func (s *Store) VerifyMemos(quarantine bool) (checked int, bytesRead int64, bad []string, err error) {
	root := filepath.Join(s.Root, "memo")
	nss, err := os.ReadDir(root)
	if os.IsNotExist(err) {
		return 0, 0, nil, nil
	}
	if err != nil {
		return 0, 0, nil, err
	}
	for _, ns := range nss {
		files, _ := os.ReadDir(filepath.Join(root, ns.Name()))
		for _, f := range files {
			if filepath.Ext(f.Name()) != ".json" {
				continue
			}
			p := filepath.Join(root, ns.Name(), f.Name())
			b, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			checked++
			bytesRead += int64(len(b))
			if _, err := checkMemo(b, ns.Name(), f.Name(), nil); err != nil {
				why := fmt.Sprintf("memo %s/%s failed verification: %v", ns.Name(), f.Name(), err)
				bad = append(bad, why)
				if quarantine {
					s.quarantineFile(p, why)
				}
			}
		}
	}
	return checked, bytesRead, bad, nil
}
