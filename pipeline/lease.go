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

// LeaseInfo is the content of a lease file.
type LeaseInfo struct {
	Pid       int       `json:"pid"`
	Host      string    `json:"host"`
	Token     string    `json:"token"`
	Acquired  time.Time `json:"acquired"`
	Heartbeat time.Time `json:"heartbeat"`
}

func (l *LeaseInfo) String() string {
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

// readLease reads a lease file; the error wraps fs.ErrNotExist when it
// vanished, and is a JSON error when it is being written (or torn).
func readLease(path string) (info *LeaseInfo, mod time.Time, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, time.Time{}, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, st.ModTime(), err
	}
	var li LeaseInfo
	if err := json.Unmarshal(b, &li); err != nil {
		return nil, st.ModTime(), err // being written, or written by a crashed process
	}
	return &li, st.ModTime(), nil
}

// stale reports whether a lease can be taken over: its heartbeat is older
// than the timeout, or its owner is a dead process of this machine.
func (s *Store) stale(li *LeaseInfo, mod time.Time) bool {
	now := s.now()
	if li == nil { // unreadable: judge by the file's time
		return now.Sub(mod) > s.leaseTimeout()
	}
	if li.Host == hostname() && !pidAlive(li.Pid) {
		return true
	}
	return now.Sub(li.Heartbeat) > s.leaseTimeout()
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
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			b, _ := json.Marshal(li)
			_, werr := f.Write(b)
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				os.Remove(path)
				return nil, nil, werr
			}
			l := &lease{s: s, path: path, info: li, stop: make(chan struct{}), done: make(chan struct{})}
			go l.beat()
			return l, nil, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, nil, err
		}
		held, mod, rerr := readLease(path)
		if errors.Is(rerr, os.ErrNotExist) {
			continue // released meanwhile
		}
		if !s.stale(held, mod) {
			if held == nil {
				held = &LeaseInfo{Host: "?", Heartbeat: mod}
			}
			return nil, held, nil
		}
		s.reclaim(path, held)
	}
	return nil, &LeaseInfo{Host: "?", Heartbeat: s.now()}, nil
}

// reclaim removes a stale lease. It renames the file to a unique name first
// and checks it moved the stale lease it judged (not a fresh one another
// process made meanwhile, which it puts back).
func (s *Store) reclaim(path string, stale *LeaseInfo) {
	moved := path + ".reclaim-" + hex.EncodeToString(randBytes(6))
	if os.Rename(path, moved) != nil {
		return
	}
	got, _, _ := readLease(moved)
	if got != nil && (stale == nil || got.Token != stale.Token) {
		os.Link(moved, path) // a fresh lease: restore it (fails harmlessly if taken again)
	}
	os.Remove(moved)
	if stale != nil {
		s.notify("reclaimed the stale lease of %s held by %s", filepath.Base(path), stale)
	}
}

// beat refreshes the heartbeat until release.
func (l *lease) beat() {
	defer close(l.done)
	t := time.NewTicker(l.s.heartbeat())
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			cur, _, err := readLease(l.path)
			if err != nil || cur.Token != l.info.Token {
				return // lost (reclaimed by another process): commits stay safe
			}
			l.info.Heartbeat = l.s.now()
			b, _ := json.Marshal(l.info)
			if f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_TRUNC, 0); err == nil {
				f.Write(b)
				f.Close()
			}
		}
	}
}

// release stops the heartbeat and removes the lease if it is still ours.
func (l *lease) release() {
	l.once.Do(func() {
		close(l.stop)
		<-l.done
		if cur, _, err := readLease(l.path); err == nil && cur.Token == l.info.Token {
			os.Remove(l.path)
		}
	})
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
