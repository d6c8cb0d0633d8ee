package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// plantLease writes raw bytes as the lease of key, modified at mod.
func plantLease(t *testing.T, s *Store, key string, b []byte, mod time.Time) {
	t.Helper()
	p := s.leasePath(key)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mod, mod); err != nil {
		t.Fatal(err)
	}
}

func noticeWith(s *Store, parts ...string) bool {
	for _, n := range s.Notices() {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(n, p)
		}
		if all {
			return true
		}
	}
	return false
}

// A lease file that cannot be parsed (what a process killed while taking
// it, or a damaged disk, leaves) stalled every run for the full staleness
// timeout, naming "pid 0 on host ?". It is reclaimed at once, and the
// message says why.
func TestUnreadableLeaseIsReclaimedAtOnce(t *testing.T) {
	s := initStore(t, t.TempDir())
	key := strings.Repeat("12", 32)
	plantLease(t, s, key, []byte("{\"pid\": 17, \"ho"), time.Now())
	l, holder, err := s.tryLease(key)
	if err != nil || l == nil || holder != nil {
		t.Fatalf("garbage lease kept: lease %v holder %v err %v", l, holder, err)
	}
	l.release()
	if !noticeWith(s, "reclaimed", "cannot be parsed", key[:12]) {
		t.Fatalf("reclaim of an unreadable lease not reported: %q", s.Notices())
	}
}

// An empty lease is what a process leaves between creating the file and
// writing it: waited for a few seconds (the waiting message says the
// lease is empty, naming no made-up holder), then reclaimed at once.
func TestEmptyLeaseIsReclaimedAfterAFewSeconds(t *testing.T) {
	s := initStore(t, t.TempDir())
	t0 := time.Now().Add(time.Hour) // injected clock, ahead of the file times
	now := t0
	s.Clock = func() time.Time { return now }
	key := strings.Repeat("34", 32)
	plantLease(t, s, key, nil, t0)
	now = t0.Add(time.Second)
	l, holder, err := s.tryLease(key)
	if err != nil || l != nil || holder == nil {
		t.Fatalf("a lease being written was taken: lease %v holder %v err %v", l, holder, err)
	}
	if msg := holder.String(); strings.Contains(msg, "pid 0") || strings.Contains(msg, "host ?") || !strings.Contains(msg, "empty") {
		t.Fatalf("holder of an empty lease described as %q", msg)
	}
	now = t0.Add(emptyLeaseGrace + time.Second)
	l, holder, err = s.tryLease(key)
	if err != nil || l == nil || holder != nil {
		t.Fatalf("an old empty lease stalls: lease %v holder %v err %v", l, holder, err)
	}
	l.release()
	if !noticeWith(s, "reclaimed", "empty") {
		t.Fatalf("reclaim of an empty lease not reported: %q", s.Notices())
	}
}

// A run that meets a garbage lease computes the node at once (well before
// the staleness timeout) and says so.
func TestRunIsNotStalledByAGarbageLease(t *testing.T) {
	root := t.TempDir()
	s := initStore(t, root)
	var counts sync.Map
	g := countingGraph(&counts, "g", 0)
	plantLease(t, s, g.Nodes()[0].Key(), []byte("\x00\x00garbage"), time.Now())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	if err := (Local{Jobs: 2}).Execute(ctx, Plan(g, s, nil), s, nil); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("stalled %s by a garbage lease", d)
	}
	if !noticeWith(s, "reclaimed", "cannot be parsed") {
		t.Fatalf("notices %q", s.Notices())
	}
}

// A heartbeat never leaves the lease file torn or empty for a reader
// (which would now reclaim it at once).
func TestHeartbeatNeverTearsTheLease(t *testing.T) {
	s := initStore(t, t.TempDir())
	s.Heartbeat = 100 * time.Microsecond
	key := strings.Repeat("56", 32)
	l, _, err := s.tryLease(key)
	if err != nil || l == nil {
		t.Fatal(err)
	}
	defer l.release()
	deadline := time.Now().Add(300 * time.Millisecond)
	for reads := 0; time.Now().Before(deadline); reads++ {
		lf, err := readLease(s.leasePath(key))
		if err != nil || lf.info.Token != l.info.Token {
			t.Fatalf("read %d during heartbeats: %+v %v", reads, lf, err)
		}
	}
}
