//go:build unix

package datasets

import (
	"os"
	"syscall"
)

// inode returns the file's inode number (0 where unknown), so that a file
// replaced by another of the same size and time still counts as changed.
func inode(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}
