package pipeline

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Leases keep processes that share a store (on one machine or many, over a
// network file system) from computing the same node at the same time. A
// lease is the file <root>/leases/<key>.lease, created with O_EXCL, holding
// the owner's pid, host and a heartbeat time that the owner refreshes every
// Heartbeat. Another process that finds the file waits (working on other
// nodes meanwhile) and picks up the finished node; it reclaims the lease
// when the heartbeat is older than LeaseTimeout, or at once when the owner
// is a dead process of its own machine.
//
// Leases are an economy, not the guarantee of correctness: commits are
// atomic renames and the first finished copy wins, so a lease reclaimed
// from a process that was only slow costs duplicate work, never mixed
// bytes. Nothing is kept in memory between processes, so Slurm workers on
// other machines take part by the same files.
//
// What the file system must provide: atomic rename within a folder,
// O_EXCL create that fails when the file exists (NFSv3+ does both), fsync
// that reaches stable storage, and close-to-open consistency (a file
// written and closed by one client is seen whole by the next open on
// another). Clocks of the machines must agree to well within LeaseTimeout.

// Lease defaults.
const (
	DefaultLeaseTimeout = 2 * time.Minute
	DefaultHeartbeat    = 15 * time.Second
	DefaultPoll         = 20 * time.Millisecond // first retry; doubles up to 1 s
)

// emptyLeaseGrace is how long an empty lease file is taken for one being
// written.
const emptyLeaseGrace = 5 * time.Second

// LeaseInfo is the content of a lease file.
type LeaseInfo struct {
	Pid       int       `json:"pid"`
	Host      string    `json:"host"`
	Token     string    `json:"token"`
	Acquired  time.Time `json:"acquired"`
	Heartbeat time.Time `json:"heartbeat"`

	// Unreadable says why the lease file could not be read (then the
	// fields above are zero): a waiting message names no made-up holder.
	Unreadable string `json:"-"`
}

func (l *LeaseInfo) String() string {
	if l.Unreadable != "" {
		return "an unreadable lease (" + l.Unreadable + ")"
	}
	return fmt.Sprintf("pid %d on host %s (since %s, heartbeat %s)", l.Pid, l.Host,
		l.Acquired.Format(time.RFC3339), l.Heartbeat.Format(time.RFC3339))
}

// lease is one held lease.
type lease struct {
	s    *Store
	path string
	info LeaseInfo
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

func (s *Store) now() time.Time {
	if s.Clock != nil {
		return s.Clock()
	}
	return time.Now()
}

func (s *Store) leaseTimeout() time.Duration {
	if s.LeaseTimeout > 0 {
		return s.LeaseTimeout
	}
	return DefaultLeaseTimeout
}

func (s *Store) heartbeat() time.Duration {
	if s.Heartbeat > 0 {
		return s.Heartbeat
	}
	return DefaultHeartbeat
}

func (s *Store) poll() time.Duration {
	if s.Poll > 0 {
		return s.Poll
	}
	return DefaultPoll
}

func (s *Store) leasePath(key string) string {
	return filepath.Join(s.Root, "leases", key+".lease")
}

// leaseFile is what a reader found in a lease file.
type leaseFile struct {
	info  LeaseInfo // Unreadable set when the content is not a lease
	mod   time.Time
	empty bool
}

// readLease reads a lease file; the error wraps fs.ErrNotExist when it
// vanished. A file that is not a lease is returned with info.Unreadable.
func readLease(path string) (*leaseFile, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return &leaseFile{mod: st.ModTime(), info: LeaseInfo{Unreadable: "not a regular file (" + st.Mode().Type().String() + ")"}}, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lf := &leaseFile{mod: st.ModTime(), empty: len(b) == 0}
	switch err := json.Unmarshal(b, &lf.info); {
	case lf.empty:
		lf.info = LeaseInfo{Unreadable: fmt.Sprintf("an empty file, as a process killed while taking the lease leaves it; reclaimed %s after its creation", emptyLeaseGrace)}
	case err != nil || lf.info.Token == "":
		why := "no token"
		if err != nil {
			why = err.Error()
		}
		lf.info = LeaseInfo{Unreadable: fmt.Sprintf("%d bytes that cannot be parsed: %s", len(b), why)}
	}
	return lf, nil
}

// stale reports whether a lease can be taken over: it cannot be parsed,
// it is empty and older than emptyLeaseGrace (a lease is written whole
// before it appears, so only an older dpaudit or a crash leaves one
// empty), its heartbeat is older than the timeout, or its owner is a dead
// process of this machine.
func (s *Store) stale(lf *leaseFile) bool {
	now := s.now()
	switch {
	case lf.empty:
		return now.Sub(lf.mod) > emptyLeaseGrace
	case lf.info.Unreadable != "":
		return true
	case lf.info.Host == hostname() && !pidAlive(lf.info.Pid):
		return true
	}
	return now.Sub(lf.info.Heartbeat) > s.leaseTimeout()
}

// tryLease takes the lease of key. It returns the held lease, or the
// holder's information when another live process holds it.
func (s *Store) tryLease(key string) (*lease, *LeaseInfo, error) {
	return s.tryLeaseAt(s.leasePath(key))
}

func (s *Store) tryLeaseAt(path string) (*lease, *LeaseInfo, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, err
	}
	for attempt := 0; attempt < 4; attempt++ {
		now := s.now()
		li := LeaseInfo{Pid: os.Getpid(), Host: hostname(), Token: hex.EncodeToString(randBytes(8)), Acquired: now, Heartbeat: now}
		err := createLease(path, li)
		if err == nil {
			l := &lease{s: s, path: path, info: li, stop: make(chan struct{}), done: make(chan struct{})}
			go l.beat()
			return l, nil, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, nil, err
		}
		held, rerr := readLease(path)
		if errors.Is(rerr, os.ErrNotExist) {
			continue // released meanwhile
		}
		if rerr != nil {
			return nil, nil, rerr
		}
		if !s.stale(held) {
			return nil, &held.info, nil
		}
		s.reclaim(path, held)
	}
	return nil, &LeaseInfo{Unreadable: "taken and released by other processes again and again; retrying"}, nil
}

// createLease makes the lease file at path, failing with an os.ErrExist
// error when it exists. The content is written to a temporary file first
// and hard-linked into place (link fails if the name exists, like O_EXCL,
// also over NFS), so a lease is never seen empty or half-written; where
// the file system has no hard links it falls back to O_EXCL and a write.
func createLease(path string, li LeaseInfo) error {
	b, _ := json.Marshal(li)
	tmp := path + ".new-" + ownerTag() + "." + hex.EncodeToString(randBytes(4))
	if err := os.WriteFile(tmp, b, 0o644); err == nil {
		err = os.Link(tmp, path)
		os.Remove(tmp)
		if err == nil || errors.Is(err, os.ErrExist) {
			return err
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
	}
	return werr
}

// reclaim removes a stale lease. It renames the file to a unique name first
// and checks it moved the stale lease it judged (not a fresh one another
// process made meanwhile, which it puts back).
func (s *Store) reclaim(path string, stale *leaseFile) {
	moved := path + ".reclaim-" + hex.EncodeToString(randBytes(6))
	if os.Rename(path, moved) != nil {
		return
	}
	got, _ := readLease(moved)
	if got != nil && got.info.Unreadable == "" && got.info.Token != stale.info.Token {
		os.Link(moved, path) // a fresh lease: restore it (fails harmlessly if taken again)
		os.Remove(moved)
		return
	}
	os.Remove(moved)
	if stale.info.Unreadable != "" {
		s.notify("reclaimed the lease %s at once: it is %s", filepath.Base(path), stale.info.Unreadable)
		return
	}
	s.notify("reclaimed the stale lease of %s held by %s", filepath.Base(path), &stale.info)
}

// beat refreshes the heartbeat until release. The new content replaces the
// file in one rename, so a reader never sees it torn.
func (l *lease) beat() {
	defer close(l.done)
	t := time.NewTicker(l.s.heartbeat())
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			cur, err := readLease(l.path)
			if err != nil || cur.info.Token != l.info.Token {
				return // lost (reclaimed by another process): commits stay safe
			}
			l.info.Heartbeat = l.s.now()
			b, _ := json.Marshal(l.info)
			writeAtomicNoSync(l.path, b)
		}
	}
}

// release stops the heartbeat and removes the lease if it is still ours.
func (l *lease) release() {
	l.once.Do(func() {
		close(l.stop)
		<-l.done
		if cur, err := readLease(l.path); err == nil && cur.info.Token == l.info.Token {
			os.Remove(l.path)
		}
	})
}

// TryLock takes the lease file at path (anywhere) if no live process holds
// it; otherwise it returns the holder. A stale lease is reclaimed.
func (s *Store) TryLock(path string) (unlock func(), holder *LeaseInfo, err error) {
	l, holder, err := s.tryLeaseAt(path)
	if err != nil || holder != nil {
		return nil, holder, err
	}
	return l.release, nil, nil
}

// LockHolder returns the live holder of the lease file at path, or nil
// when it is free, stale or unreadable.
func (s *Store) LockHolder(path string) *LeaseInfo {
	lf, err := readLease(path)
	if err != nil || s.stale(lf) {
		return nil
	}
	return &lf.info
}

// Lock takes the lease file at path (anywhere, e.g. beside a results
// folder to serialise publishers), waiting while another live process
// holds it; the wait is reported once, naming the holder. It uses the
// store's clock, timeout and poll interval.
func (s *Store) Lock(ctx context.Context, path string) (unlock func(), err error) {
	told := false
	for {
		l, holder, err := s.tryLeaseAt(path)
		if err != nil {
			return nil, err
		}
		if holder == nil {
			return l.release, nil
		}
		if !told {
			told = true
			s.notify("waiting for %s, held by %s", path, holder)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(s.poll()):
		}
	}
}
