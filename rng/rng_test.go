package rng

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestStreamsAreReproducibleAndDistinct(t *testing.T) {
	a := New(1, "point", 3, "trial", 7)
	b := New(1, "point", 3, "trial", 7)
	for i := 0; i < 100; i++ {
		if a.Uint64() != b.Uint64() {
			t.Fatal("same path gave different streams")
		}
	}
	paths := [][]any{{"ab", "c"}, {"a", "bc"}, {"trial", 1}, {"trial", "1"}, {"trial", 2}}
	seen := map[uint64]int{}
	for i, p := range paths {
		s := Seed(1, p...)
		if j, ok := seen[s]; ok {
			t.Fatalf("paths %v and %v collide", paths[j], p)
		}
		seen[s] = i
	}
	if Seed(1, "x") == Seed(2, "x") {
		t.Fatal("seed is ignored")
	}
}

// referenceKey is Key as it was first written (one sha256 Write per
// piece): the bytes every stored stream was drawn from, which Key and
// Prefix must keep.
func referenceKey(seed uint64, path ...any) [32]byte {
	h := sha256.New()
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], seed)
	h.Write([]byte("dpaudit/rng/v1"))
	h.Write(buf[:])
	for _, p := range path {
		var tag byte
		var b []byte
		switch v := p.(type) {
		case string:
			tag, b = 's', []byte(v)
		case int:
			tag, b = 'i', binary.LittleEndian.AppendUint64(nil, uint64(v))
		case int64:
			tag, b = 'i', binary.LittleEndian.AppendUint64(nil, uint64(v))
		case uint64:
			tag, b = 'i', binary.LittleEndian.AppendUint64(nil, v)
		case uint32:
			tag, b = 'i', binary.LittleEndian.AppendUint64(nil, uint64(v))
		case int32:
			tag, b = 'i', binary.LittleEndian.AppendUint64(nil, uint64(v))
		default:
			tag, b = 'f', []byte(fmt.Sprint(v))
		}
		h.Write([]byte{tag})
		binary.LittleEndian.PutUint64(buf[:], uint64(len(b)))
		h.Write(buf[:])
		h.Write(b)
	}
	var k [32]byte
	copy(k[:], h.Sum(nil))
	return k
}

// randomPath is a path of 0–6 labels of every kind Key encodes, strings
// up to 300 bytes long (past any fixed buffer).
func randomPath(r *rand.Rand) []any {
	path := make([]any, r.IntN(7))
	for i := range path {
		switch r.IntN(8) {
		case 0:
			path[i] = strings.Repeat("ab", r.IntN(150))
		case 1:
			path[i] = r.IntN(1<<40) - 1<<39
		case 2:
			path[i] = int64(r.Uint64())
		case 3:
			path[i] = r.Uint64()
		case 4:
			path[i] = r.Uint32()
		case 5:
			path[i] = int32(r.Uint32())
		case 6:
			path[i] = r.Float64()
		default:
			path[i] = []int{r.IntN(9), r.IntN(9)}
		}
	}
	return path
}

func TestKeysKeepTheirBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		seed, path := r.Uint64(), randomPath(r)
		if got, want := Key(seed, path...), referenceKey(seed, path...); got != want {
			t.Fatalf("Key(%d, %v) = %x, want %x", seed, path, got, want)
		}
		p := NewPrefix(seed, path...)
		for range 5 {
			i := r.IntN(1<<31) - 1<<30
			if got, want := p.Key(i), referenceKey(seed, append(path, i)...); got != want {
				t.Fatalf("NewPrefix(%d, %v).Key(%d) = %x, want %x", seed, path, i, got, want)
			}
		}
	}
}

func TestPrefixKeyDoesNotAllocate(t *testing.T) {
	p := NewPrefix(7, "trial", "bench", 3)
	i := 0
	if n := testing.AllocsPerRun(100, func() { p.Key(i); i++ }); n != 0 {
		t.Errorf("Prefix.Key allocates %v times per key", n)
	}
}

// go test -run '^$' -bench Key ./rng/
func BenchmarkKey(b *testing.B) {
	b.Run("Key", func(b *testing.B) {
		i := 0
		for b.Loop() {
			Key(1, "trial", "bench", 3, i)
			i++
		}
	})
	b.Run("Prefix", func(b *testing.B) {
		p := NewPrefix(1, "trial", "bench", 3)
		i := 0
		for b.Loop() {
			p.Key(i)
			i++
		}
	})
	b.Run("reference", func(b *testing.B) {
		i := 0
		for b.Loop() {
			referenceKey(1, "trial", "bench", 3, i)
			i++
		}
	})
}
