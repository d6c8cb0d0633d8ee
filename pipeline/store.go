package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Store is the content-addressed cache of node outputs:
// <root>/<key[:2]>/<key>/ holds the node's files and meta.json. A node is
// written into <root>/tmp/, its files and folder are fsynced, meta.json
// (with the size and SHA-256 of every file) is written last, and the folder
// is renamed into place: a killed run leaves either a finished node or
// nothing, and a finished node can always be checked against its meta.
//
// Other folders: leases/ (one lock file per node being computed, see
// lease.go), quarantine/ (nodes and memos that failed verification),
// memo/ (small cached computations), slots/ (what each slot computed last,
// to explain plans), and the layout marker dpaudit-store.json.
//
// The zero values of the tuning fields are the defaults; a Store must not
// be copied after first use.
type Store struct {
	Root string

	// Clock is the time used by leases (nil: time.Now); tests inject it.
	Clock func() time.Time
	// LeaseTimeout is how old a lease's heartbeat may get before another
	// process reclaims it (0: DefaultLeaseTimeout).
	LeaseTimeout time.Duration
	// Heartbeat is how often a held lease is refreshed (0: DefaultHeartbeat).
	Heartbeat time.Duration
	// Poll is how often a process retries a node leased by another
	// (0: DefaultPoll).
	Poll time.Duration
	// Notify receives store events the user should see (a node that failed
	// verification, a lease held by another process). Nil: only Notices.
	Notify func(msg string)

	computed atomic.Int64 // nodes this Store's process computed and committed

	mu       sync.Mutex
	verified map[string]*Meta  // nodes whose digests this process checked, with their meta
	memoBad  map[string]string // memo files that failed verification → why
	notices  []string
}

// Layout is the store layout this code writes. A store with a larger
// layout was written by a newer, incompatible dpaudit and is refused.
const Layout = 2

// MarkerFile marks a folder as a dpaudit store.
const MarkerFile = "dpaudit-store.json"

type marker struct {
	Format string `json:"format"`
	Layout int    `json:"layout"`
}

// FileSum is the size and digest of one output file.
type FileSum struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Meta describes a finished node; it is the last file written, so its
// presence marks the node as complete, and Files lets any reader check the
// node's bytes.
type Meta struct {
	Key      string             `json:"key"`
	Kind     string             `json:"kind"`
	Version  int                `json:"version"`
	Code     string             `json:"code,omitempty"` // fingerprint of the code that computed it
	Label    string             `json:"label"`
	Params   json.RawMessage    `json:"params"`
	Inputs   []string           `json:"inputs"`
	Files    map[string]FileSum `json:"files"`
	Started  time.Time          `json:"started"`
	Finished time.Time          `json:"finished"`
	Seconds  float64            `json:"seconds"`
	Owner    string             `json:"owner,omitempty"` // pid@host that computed it

	// CPUSeconds is the CPU time the node's Run used (see cpuMeter);
	// absent where it was not measured (older stores, other platforms).
	CPUSeconds *float64 `json:"cpu_seconds,omitempty"`
}

// NewStore names a store without touching the disk (plans and validation
// must write nothing); call Init before running nodes.
func NewStore(root string) *Store { return &Store{Root: root} }

// NotAStoreError is a folder that holds files but is no dpaudit store.
type NotAStoreError struct {
	Root    string
	Entries []string
}

func (e *NotAStoreError) Error() string {
	return fmt.Sprintf("store %s is not a dpaudit store (it holds %s and no %s); refusing to write into it: choose an empty or new folder", e.Root, strings.Join(e.Entries, ", "), MarkerFile)
}

// LayoutError is a store written by a newer dpaudit.
type LayoutError struct {
	Root  string
	Found int
}

func (e *LayoutError) Error() string {
	return fmt.Sprintf("store %s has layout version %d; this dpaudit reads layout %d: upgrade dpaudit or use another store", e.Root, e.Found, Layout)
}

// MarkerError is a store whose marker file exists but cannot be read.
type MarkerError struct {
	Root string
	Err  error
}

func (e *MarkerError) Error() string {
	return fmt.Sprintf("store %s: its marker %s cannot be read (%v); if this folder is your dpaudit store, the marker was damaged: write {\"format\":\"dpaudit-store\",\"layout\":%d} into it; otherwise choose another --store", e.Root, filepath.Join(e.Root, MarkerFile), e.Err, Layout)
}

// FolderError is a top folder of the store that dpaudit writes and
// deletes in (tmp, leases, quarantine, memo, slots) which is a symbolic
// link or a file: a link could lead a write or a clean-up out of the
// store, so it is refused, never followed.
type FolderError struct {
	Path string
	Type string
}

func (e *FolderError) Error() string {
	return fmt.Sprintf("%s is a %s, not a folder of the store: dpaudit writes and deletes inside it and never follows a link out of the store; remove it (dpaudit recreates the folder)", e.Path, e.Type)
}

// ownFolders are the store's top folders that runs and gc write and
// delete in.
var ownFolders = []string{"tmp", "leases", "quarantine", "memo", "slots"}

// checkOwnFolders refuses a store whose ownFolders are links or files.
func (s *Store) checkOwnFolders() error {
	for _, name := range ownFolders {
		p := filepath.Join(s.Root, name)
		if st, err := os.Lstat(p); err == nil && !st.IsDir() {
			what := "file"
			if st.Mode()&fs.ModeSymlink != 0 {
				what = "symbolic link"
			}
			return &FolderError{Path: p, Type: what}
		}
	}
	return nil
}

// legacyEntry reports whether name is something a layout-1 store (before the
// marker existed) holds.
func legacyEntry(name string) bool {
	switch name {
	case "tmp", "slots", "memo", "leases", "quarantine":
		return true
	}
	if strings.HasPrefix(name, MarkerFile+".tmp-") { // another process writing the marker
		return true
	}
	if len(name) == 2 {
		_, err := hex.DecodeString(name)
		return err == nil
	}
	return false
}

// Check reads (never writes) whether Root can be used as a store: missing,
// empty, a dpaudit store of a layout this code reads, or a layout-1 store
// (which Init upgrades by writing the marker; its nodes have no digests and
// are recomputed).
func (s *Store) Check() error {
	b, err := os.ReadFile(filepath.Join(s.Root, MarkerFile))
	if err == nil {
		var m marker
		if err := json.Unmarshal(b, &m); err != nil {
			return &MarkerError{Root: s.Root, Err: err}
		}
		if m.Format != "dpaudit-store" || m.Layout < 1 {
			return &MarkerError{Root: s.Root, Err: fmt.Errorf("format %q, layout %d", m.Format, m.Layout)}
		}
		if m.Layout > Layout {
			return &LayoutError{Root: s.Root, Found: m.Layout}
		}
		return s.checkOwnFolders()
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return &MarkerError{Root: s.Root, Err: err} // a folder, a dangling link, unreadable
	}
	entries, err := os.ReadDir(s.Root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store %s: %w", s.Root, err)
	}
	var foreign []string
	for _, e := range entries {
		if e.Name() == MarkerFile {
			// Written by another process since we looked; or present but
			// not a readable file (say, a dangling link).
			if _, err := os.ReadFile(filepath.Join(s.Root, MarkerFile)); err != nil {
				return &MarkerError{Root: s.Root, Err: err}
			}
			return s.Check()
		}
		if !legacyEntry(e.Name()) {
			foreign = append(foreign, e.Name())
		}
	}
	if len(foreign) > 0 {
		sort.Strings(foreign)
		if len(foreign) > 3 {
			foreign = append(foreign[:3], "…")
		}
		return &NotAStoreError{Root: s.Root, Entries: foreign}
	}
	return s.checkOwnFolders()
}

// Init checks the store (see Check), creates it if needed, writes the
// layout marker and checks it is writable.
func (s *Store) Init() error {
	if err := s.Check(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(s.Root, "tmp"), 0o755); err != nil {
		return fmt.Errorf("store %s: %w", s.Root, err)
	}
	probe, err := os.CreateTemp(filepath.Join(s.Root, "tmp"), "probe-*")
	if err != nil {
		return fmt.Errorf("store %s is not writable: %w", s.Root, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	mp := filepath.Join(s.Root, MarkerFile)
	if _, err := os.Stat(mp); err != nil {
		b, _ := json.Marshal(marker{Format: "dpaudit-store", Layout: Layout})
		if err := writeAtomic(mp, append(b, '\n')); err != nil {
			return err
		}
		SyncDir(s.Root)
	}
	return nil
}

// Computed is the number of nodes this process has computed and committed
// through this Store (nodes picked up from other processes not counted).
func (s *Store) Computed() int { return int(s.computed.Load()) }

// Dir is where the outputs of key live.
func (s *Store) Dir(key string) string { return filepath.Join(s.Root, key[:2], key) }

// Has reports whether key is complete in the store and passes the cheap
// checks of checkMeta. (Digests are checked by Verify, when the node is
// used.)
func (s *Store) Has(key string) bool {
	_, err := s.checkMeta(key, nil)
	return err == nil
}

// errMissing is a node that is not in the store at all.
var errMissing = errors.New("not in the store")

// ValidKey reports whether key can name a node: 64 lower-case hex digits
// (a SHA-256), so that a folder name is never a path.
func ValidKey(key string) bool {
	if len(key) != 64 {
		return false
	}
	for _, c := range key {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// checkMeta is the cheap check done on every read (no file is hashed): the
// node folder is a real folder, its meta names this key and a kind (n's,
// when the reader knows the node) and lists at least one file (every file
// n declares), and the folder holds exactly the listed files, each a
// regular file of the listed size. A node is served only when its meta
// describes it completely: an empty or partial list, a folder copied under
// another key or a file planted beside the listed ones is corruption.
func (s *Store) checkMeta(key string, n *Node) (*Meta, error) {
	m, err := s.checkMetaOnce(key, n)
	// A node replaced (--force) while it is read can look incomplete for
	// a moment: its old folder is removed under the reader. Look again
	// before calling it corrupt; a real corruption stays.
	for attempt := 0; attempt < 2 && err != nil && !IsMissing(err); attempt++ {
		m, err = s.checkMetaOnce(key, n)
	}
	return m, err
}

func (s *Store) checkMetaOnce(key string, n *Node) (*Meta, error) {
	if !ValidKey(key) {
		return nil, &CorruptError{Key: key, File: key, Found: "not a node key (64 hex digits)"}
	}
	dir := s.Dir(key)
	if st, err := os.Lstat(filepath.Dir(dir)); err == nil && !st.IsDir() {
		return nil, &CorruptError{Key: key, File: filepath.Dir(dir), Found: "not a folder (" + st.Mode().Type().String() + ")"}
	}
	st, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errMissing
	}
	if err != nil {
		return nil, &CorruptError{Key: key, File: "(folder)", Found: err.Error()}
	}
	if !st.IsDir() {
		return nil, &CorruptError{Key: key, File: "(folder)", Found: "not a folder (" + st.Mode().Type().String() + ")"}
	}
	m, err := s.ReadMeta(key)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errMissing
	}
	if err != nil {
		return nil, &CorruptError{Key: key, File: "meta.json", Found: err.Error()}
	}
	if err := m.describes(key, n); err != nil {
		return nil, err
	}
	return m, checkFolder(dir, m)
}

// describes checks what the meta says about itself against the key it is
// stored under and the node the reader expects (nil: any).
func (m *Meta) describes(key string, n *Node) error {
	bad := func(expected, found string) error {
		return &CorruptError{Key: key, Kind: m.Kind, File: "meta.json", Expected: expected, Found: found}
	}
	switch {
	case m.Key != key:
		return bad("", fmt.Sprintf("names key %s, not its folder's (a node copied under another key)", short(m.Key)))
	case m.Kind == "":
		return bad("", "names no node kind")
	case n != nil && m.Kind != n.Kind:
		return bad(fmt.Sprintf("kind %q", n.Kind), fmt.Sprintf("kind %q", m.Kind))
	case m.Files == nil:
		return bad("file digests", "none (written by an older dpaudit)")
	case len(m.Files) == 0:
		return bad("", "lists no output files")
	}
	if n != nil {
		for _, name := range n.Outputs {
			if _, ok := m.Files[name]; !ok {
				return &CorruptError{Key: key, Kind: m.Kind, File: name, Found: "declared by the node but not listed in meta.json"}
			}
		}
	}
	return nil
}

// checkFolder compares the files under dir with the meta's list: the same
// names, regular files (never links), the listed sizes.
func checkFolder(dir string, m *Meta) error {
	seen := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		bad := func(expected, found string) error {
			return &CorruptError{Key: m.Key, Kind: m.Kind, File: rel, Expected: expected, Found: found}
		}
		if !d.Type().IsRegular() {
			return bad("a regular file", d.Type().String())
		}
		if rel == "meta.json" {
			return nil
		}
		sum, ok := m.Files[rel]
		if !ok {
			return bad("", "present but not listed in meta.json")
		}
		info, err := d.Info()
		if err != nil {
			return nil // vanished while listed: judged by the check of missing files below
		}
		if info.Size() != sum.Size {
			return bad(fmt.Sprintf("%d bytes", sum.Size), fmt.Sprintf("%d bytes", info.Size()))
		}
		seen++
		return nil
	})
	var ce *CorruptError
	if errors.As(err, &ce) {
		return ce
	}
	if err != nil {
		return &CorruptError{Key: m.Key, Kind: m.Kind, File: "(folder)", Found: err.Error()}
	}
	if seen < len(m.Files) {
		for _, name := range sortedNames(m.Files) {
			if st, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name))); err != nil || !st.Mode().IsRegular() {
				return &CorruptError{Key: m.Key, Kind: m.Kind, File: name, Expected: fmt.Sprintf("%d bytes", m.Files[name].Size), Found: "missing"}
			}
		}
	}
	return nil
}

func sortedNames(files map[string]FileSum) []string {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// CorruptError is a stored node (or memo) whose bytes differ from its meta.
type CorruptError struct {
	Key, Kind, File string
	Expected, Found string
}

func (e *CorruptError) Error() string {
	what := "node " + short(e.Key)
	if e.Kind != "" {
		what = e.Kind + " " + what
	}
	if e.Expected == "" {
		return fmt.Sprintf("%s: %s: %s", what, e.File, e.Found)
	}
	return fmt.Sprintf("%s: %s: expected %s, found %s", what, e.File, e.Expected, e.Found)
}

func short(key string) string {
	if len(key) > 12 {
		return key[:12]
	}
	return key
}

// Verify checks a finished node: checkMeta always, SHA-256 digests too
// when full. A node verified in full once by this process is not hashed
// again. It returns nil, errMissing-wrapping errors for absent nodes, or a
// *CorruptError.
func (s *Store) Verify(key string, full bool) error {
	return s.verify(key, nil, full)
}

// VerifyNode is Verify of the node's stored copy (its StoreKey), also
// checking that the meta names the node's kind and lists every file the
// node declares.
func (s *Store) VerifyNode(n *Node, full bool) error {
	return s.verify(n.StoreKey(), n, full)
}

func (s *Store) verify(key string, n *Node, full bool) error {
	if full {
		s.mu.Lock()
		m := s.verified[key]
		s.mu.Unlock()
		if m != nil {
			// Hashed already; but gc or a manual deletion may have removed
			// it since: see that it is still there.
			if _, err := os.Lstat(filepath.Join(s.Dir(key), "meta.json")); errors.Is(err, fs.ErrNotExist) {
				s.forgetVerified(key)
				return errMissing
			}
			return m.describes(key, n)
		}
	}
	m, err := s.checkMeta(key, n)
	if err != nil || !full {
		return err
	}
	for _, name := range sortedNames(m.Files) {
		sum := m.Files[name]
		got, size, err := HashFile(filepath.Join(s.Dir(key), filepath.FromSlash(name)))
		if err != nil {
			return &CorruptError{Key: key, Kind: m.Kind, File: name, Found: err.Error()}
		}
		if size != sum.Size || got != sum.SHA256 {
			return &CorruptError{Key: key, Kind: m.Kind, File: name, Expected: "sha256 " + sum.SHA256, Found: "sha256 " + got}
		}
	}
	s.markVerified(key, m)
	return nil
}

func (s *Store) markVerified(key string, m *Meta) {
	s.mu.Lock()
	if s.verified == nil {
		s.verified = map[string]*Meta{}
	}
	s.verified[key] = m
	s.mu.Unlock()
}

func (s *Store) forgetVerified(key string) {
	s.mu.Lock()
	delete(s.verified, key)
	s.mu.Unlock()
}

// IsMissing reports whether a Verify error means the node is simply absent.
func IsMissing(err error) bool { return errors.Is(err, errMissing) }

// notify records a store event and passes it to Notify.
func (s *Store) notify(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.mu.Lock()
	s.notices = append(s.notices, msg)
	f := s.Notify
	s.mu.Unlock()
	if f != nil {
		f(msg)
	}
}

// Notices returns the store events of this process so far.
func (s *Store) Notices() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.notices...)
}

// Quarantine moves a node's folder aside to <root>/quarantine/, so that it
// is recomputed and can still be inspected. why is reported.
func (s *Store) Quarantine(key string, why error) error {
	s.forgetVerified(key)
	src := s.Dir(key)
	if st, err := os.Lstat(filepath.Dir(src)); err == nil && !st.IsDir() {
		// A link (or file) in place of the prefix folder: move it, never
		// what it points to.
		return s.quarantinePath(filepath.Dir(src), filepath.Base(filepath.Dir(src)), why)
	}
	if _, err := os.Lstat(src); err != nil {
		return nil
	}
	return s.quarantinePath(src, key, why)
}

// quarantinePath moves the folder src (a copy of node key) to the quarantine.
func (s *Store) quarantinePath(src, key string, why error) error {
	dst := filepath.Join(s.Root, "quarantine", key+"-"+hex.EncodeToString(randBytes(4)))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.Rename(src, dst); err != nil {
		if os.IsNotExist(err) {
			return nil // another process moved it first
		}
		return err
	}
	SyncDir(filepath.Dir(src))
	s.notify("%v; moved to %s, it will be recomputed", why, dst)
	return nil
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

// tempDir makes a fresh temporary directory for a node being computed. Its
// name carries the owner (pid and host) so that a later run can remove the
// folders of dead processes at once.
func (s *Store) tempDir(key string) (string, error) {
	d := filepath.Join(s.Root, "tmp", ownerTag()+"."+key[:16]+"."+hex.EncodeToString(randBytes(6)))
	return d, os.MkdirAll(d, 0o755)
}

// sealDir fsyncs every file under dir and returns their sizes and digests
// (names relative, with '/').
func sealDir(dir string) (map[string]FileSum, error) {
	files := map[string]FileSum{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "meta.json" {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		h := sha256.New()
		n, err := io.Copy(h, f)
		if err != nil {
			return err
		}
		if err := f.Sync(); err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = FileSum{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}
		return nil
	})
	return files, err
}

// HashFile returns the SHA-256 (hex) and size of the file at p.
func HashFile(p string) (string, int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", n, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// commit seals tmp (fsync of data, digests into meta.json written last,
// fsync of the folder) and renames it to the node's place. Without replace,
// if another process finished the same node first, its copy is kept
// (identical by construction). With replace (--force, or a copy that
// failed verification) the new copy takes the place of the stored one:
// in one atomic exchange where the file system has it (Linux
// renameat2 RENAME_EXCHANGE), else by moving the old copy aside first, when
// the node is briefly absent (never mixed) and readers retry.
func (s *Store) commit(tmp string, m *Meta, replace bool) error {
	files, err := sealDir(tmp)
	if err != nil {
		return err
	}
	m.Files = files
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileSync(filepath.Join(tmp, "meta.json"), b); err != nil {
		return err
	}
	if err := SyncDir(tmp); err != nil {
		return err
	}
	final := s.Dir(m.Key)
	parent := filepath.Dir(final)
	if err := s.ownDir(parent); err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		err := os.Rename(tmp, final)
		if err == nil {
			s.markVerified(m.Key, m)
			return SyncDir(parent)
		}
		if attempt >= 3 {
			return err
		}
		if _, statErr := os.Stat(final); statErr != nil {
			return err
		}
		vErr := s.Verify(m.Key, true)
		if vErr == nil && !replace {
			os.RemoveAll(tmp) // first finished copy wins
			return nil
		}
		if !IsMissing(vErr) && renameExchange(tmp, final) == nil {
			// Swapped in one step (Linux): readers see the old or the new
			// folder at that path, never none. tmp now holds the old copy.
			s.markVerified(m.Key, m)
			SyncDir(parent)
			if vErr != nil {
				s.quarantinePath(tmp, m.Key, vErr)
			} else {
				os.RemoveAll(tmp)
			}
			return nil
		}
		switch {
		case vErr == nil || IsMissing(vErr):
			// A good copy being replaced, or a leftover incomplete folder
			// (no meta.json) from an old crash: move it out of the way.
			old := filepath.Join(s.Root, "tmp", ownerTag()+".old."+hex.EncodeToString(randBytes(6)))
			if err := os.Rename(final, old); err != nil && !os.IsNotExist(err) {
				return err
			}
			os.RemoveAll(old)
		default:
			if err := s.Quarantine(m.Key, vErr); err != nil {
				return err
			}
		}
	}
}

func writeFileSync(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
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

// SyncDir fsyncs a directory so that renames and new entries in it survive
// a crash.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

// slotRecord remembers what a slot last computed, to explain plans.
type slotRecord struct {
	Key     string          `json:"key"`
	Kind    string          `json:"kind"`
	Version int             `json:"version"`
	Code    string          `json:"code,omitempty"`
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
	if n.alias != "" {
		return nil // reused across versions: the slot keeps the old record
	}
	r := slotRecord{Key: n.Key(), Kind: n.Kind, Version: n.Version, Code: n.code(), Params: n.ParamsJSON()}
	for _, in := range n.Inputs {
		r.Inputs = append(r.Inputs, in.StoreKey())
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	p := s.slotPath(n.slot())
	if old, err := os.ReadFile(p); err == nil && string(old) == string(b) {
		return nil // unchanged: a cached re-run writes nothing here
	}
	return s.writeOwnFile(p, b)
}

// ownDir makes sure dir, a folder inside the store, is a real folder: a
// symbolic link or a file in its place is moved to the quarantine (the
// store never writes through a link, which could lead out of it), then
// the folder is made.
func (s *Store) ownDir(dir string) error {
	st, err := os.Lstat(dir)
	if err == nil && st.IsDir() {
		return nil
	}
	if err == nil {
		s.quarantinePath(dir, filepath.Base(dir), fmt.Errorf("%s is a %s where the store keeps a folder", dir, st.Mode().Type()))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(dir))
}

// writeOwnFile writes a small file of the store's own (a slot, a memo)
// atomically; whatever is in its place and is no regular file (a folder,
// a link) is moved to the quarantine first.
func (s *Store) writeOwnFile(p string, b []byte) error {
	if err := s.ownDir(filepath.Dir(p)); err != nil {
		return err
	}
	if st, err := os.Lstat(p); err == nil && !st.Mode().IsRegular() {
		s.quarantinePath(p, filepath.Base(p), fmt.Errorf("%s is a %s where the store keeps a file", p, st.Mode().Type()))
	}
	return writeAtomicNoSync(p, b)
}

// writeAtomic writes a small file through a unique temporary name and a
// rename, creating its folder; concurrent writers of equal content are
// harmless. The data is fsynced before the rename.
func writeAtomic(p string, b []byte) error { return writeAtomicOpt(p, b, true) }

// writeAtomicNoSync is writeAtomic without fsync, for files whose loss in a
// crash costs only a recomputation (slots, memos: a torn memo fails its
// digest and is recomputed).
func writeAtomicNoSync(p string, b []byte) error { return writeAtomicOpt(p, b, false) }

func writeAtomicOpt(p string, b []byte, sync bool) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	tmp := p + ".tmp-" + ownerTag() + "-" + hex.EncodeToString(randBytes(4))
	write := writeFileSync
	if !sync {
		write = func(p string, b []byte) error { return os.WriteFile(p, b, 0o644) }
	}
	if err := write(tmp, b); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
