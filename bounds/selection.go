package bounds

import (
	"slices"
)

// topSorted rearranges x so that x[:k] holds its k largest values in
// decreasing order (the rest in no particular order) and returns x[:k].
// Quickselect (expected O(n)) followed by sorting only the k selected
// values: a full sort of 10⁶ samples would cost several times more.
// Deterministic: the same input always gives the same arrangement.
func topSorted(x []float64, k int) []float64 {
	k = min(max(k, 0), len(x))
	selectLargest(x, k)
	top := x[:k]
	slices.SortFunc(top, func(a, b float64) int {
		switch {
		case a > b:
			return -1
		case a < b:
			return 1
		}
		return 0
	})
	return top
}

// selectLargest partially orders x so that x[:k] are its k largest values.
// Hoare partitioning around a median-of-three pivot; on adversarial inputs
// it degrades to O(n²), which samples of a continuous distribution are not.
func selectLargest(x []float64, k int) {
	lo, hi := 0, len(x)-1
	for lo < hi && k > lo && k <= hi {
		mid := lo + (hi-lo)/2
		// Median of three, moved to x[mid].
		if x[lo] < x[mid] {
			x[lo], x[mid] = x[mid], x[lo]
		}
		if x[mid] < x[hi] {
			x[mid], x[hi] = x[hi], x[mid]
			if x[lo] < x[mid] {
				x[lo], x[mid] = x[mid], x[lo]
			}
		}
		pivot := x[mid]
		i, j := lo, hi
		for i <= j {
			for x[i] > pivot {
				i++
			}
			for x[j] < pivot {
				j--
			}
			if i <= j {
				x[i], x[j] = x[j], x[i]
				i++
				j--
			}
		}
		// Now x[lo..j] ≥ pivot ≥ x[i..hi], and j < i.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return // the k-th boundary falls among values equal to the pivot
		}
	}
}
