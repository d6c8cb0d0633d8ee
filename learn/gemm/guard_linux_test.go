//go:build linux

package gemm

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// guardedAlloc returns an allocator whose slices end exactly at the start of
// an inaccessible page, so a kernel that reads even one element past the end
// of a matrix dies with SIGSEGV instead of passing silently.
func guardedAlloc(t *testing.T) func(n int) []float32 {
	page := unix.Getpagesize()
	return func(n int) []float32 {
		if n == 0 {
			return nil
		}
		size := (n*4+page-1)/page*page + page
		mem, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
		if err != nil {
			t.Fatalf("mmap %d bytes: %v", size, err)
		}
		if err := unix.Mprotect(mem[size-page:], unix.PROT_NONE); err != nil {
			t.Fatalf("mprotect guard page: %v", err)
		}
		t.Cleanup(func() { unix.Munmap(mem) })
		start := size - page - n*4
		return unsafe.Slice((*float32)(unsafe.Pointer(&mem[start])), n)
	}
}
