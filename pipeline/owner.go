package pipeline

import (
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

func randBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

var hostOnce = sync.OnceValue(func() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "unknown"
	}
	// Keep temp names parseable: the host ends at the first '.'.
	return strings.NewReplacer(".", "_", "/", "_", "@", "_").Replace(h)
})

// hostname is this machine's name as written in leases and temp names.
func hostname() string { return hostOnce() }

// OwnerTag names this process in temporary names: p<pid>@<host>. Names
// that start with it can be judged by StaleTemp.
func OwnerTag() string { return ownerTag() }

// StaleTemp reports whether a temporary file or folder named
// prefix + OwnerTag + "." + anything can be removed: its owner is a dead
// process of this machine, or (other machines, or no owner) it is older
// than olderThan.
func StaleTemp(name, prefix string, mod time.Time, olderThan time.Duration) bool {
	return tempStale(strings.TrimPrefix(name, prefix), mod, time.Now(), olderThan)
}

func ownerTag() string { return "p" + strconv.Itoa(os.Getpid()) + "@" + hostname() }

// parseOwner reads the owner of a temporary name made by ownerTag.
func parseOwner(name string) (pid int, host string, ok bool) {
	if !strings.HasPrefix(name, "p") {
		return 0, "", false
	}
	at := strings.IndexByte(name, '@')
	if at < 0 {
		return 0, "", false
	}
	pid, err := strconv.Atoi(name[1:at])
	if err != nil {
		return 0, "", false
	}
	rest := name[at+1:]
	if i := strings.IndexByte(rest, '.'); i >= 0 {
		rest = rest[:i]
	}
	return pid, rest, true
}

// pidAlive reports whether a process with this pid exists on this machine.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// tempStale reports whether a temporary entry named by ownerTag belongs to a
// dead process of this machine (so it can go at once); entries of other
// machines, or without an owner, are stale only after olderThan.
func tempStale(name string, mod time.Time, now time.Time, olderThan time.Duration) bool {
	if pid, host, ok := parseOwner(name); ok && host == hostname() {
		return pid != os.Getpid() && !pidAlive(pid)
	}
	return now.Sub(mod) > olderThan
}

// CleanTemp removes temporary folders left by killed runs: at once for dead
// processes of this machine, after olderThan for other machines' (their
// pid cannot be checked from here). It returns what it removed (or would
// remove, with dryRun) and the bytes.
func (s *Store) CleanTemp(olderThan time.Duration) {
	s.cleanTemp(olderThan, false)
}

func (s *Store) cleanTemp(olderThan time.Duration, dryRun bool) (paths []string, bytes int64) {
	dir := filepath.Join(s.Root, "tmp")
	if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
		return nil, 0 // never clean through a link (Check refuses such a store)
	}
	entries, _ := os.ReadDir(dir)
	now := time.Now()
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			continue
		}
		if tempStale(e.Name(), info.ModTime(), now, olderThan) {
			p := filepath.Join(dir, e.Name())
			paths = append(paths, p)
			bytes += DiskUsage(p)
			if !dryRun {
				os.RemoveAll(p)
			}
		}
	}
	return paths, bytes
}

// DiskUsage is the size of the files under p.
func DiskUsage(p string) int64 {
	var n int64
	filepath.Walk(p, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return n
}
