package rng

import "testing"

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
