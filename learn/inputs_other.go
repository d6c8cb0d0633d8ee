//go:build !amd64 || purego

package learn

// decodeBlocks has no vector kernel here: decodeRow uses the table.
func decodeBlocks(dst []float32, src []uint8) int { return 0 }

func prefetchRow(c []uint8) {}

// decodeVectorized: no vector kernel here.
func decodeVectorized() bool { return false }
