package audit

import (
	"math"
	"slices"
)

// orderByAbs returns the indices of l sorted by (|l[j]|, j) ascending.
// The channel's log-likelihood ratio grows with the grid position for
// both order-statistics families (μx − μ²/2, and its log-mixture with
// 1 − q), so the cells with l < 0 come in decreasing |l| and those with
// l ≥ 0 in increasing |l|: merging the two runs is O(n), where the sort
// it replaces was O(n log n) and most of a bisection step's time. The
// merged order is checked, and on any step out of order (a grid that is
// not monotone after rounding) the indices are sorted instead; the key
// (|l|, j) is unique, so both ways give the same permutation, bit for
// bit.
func orderByAbs(l []float64) []int {
	out, ok := mergeByAbs(l)
	if !ok {
		slices.SortFunc(out, func(a, b int) int {
			if c := cmpFloat(math.Abs(l[a]), math.Abs(l[b])); c != 0 {
				return c
			}
			return a - b
		})
	}
	return out
}

// mergeByAbs is the O(n) merge; ok reports that its order is right.
func mergeByAbs(l []float64) (out []int, ok bool) {
	n := len(l)
	less := func(a, b int) bool {
		x, y := math.Abs(l[a]), math.Abs(l[b])
		return x < y || (x == y && a < b)
	}
	m := 0 // the first j with l[j] ≥ 0
	for m < n && l[m] < 0 {
		m++
	}
	// The negative run reversed, each block of equal |l| kept in
	// ascending j.
	left := make([]int, 0, m)
	for hi := m; hi > 0; {
		lo := hi - 1
		for lo > 0 && l[lo-1] == l[hi-1] {
			lo--
		}
		for j := lo; j < hi; j++ {
			left = append(left, j)
		}
		hi = lo
	}
	out = make([]int, 0, n)
	i, j := 0, m
	for i < len(left) || j < n {
		if j == n || (i < len(left) && less(left[i], j)) {
			out = append(out, left[i])
			i++
		} else {
			out = append(out, j)
			j++
		}
	}
	for k := 1; k < n; k++ {
		if !less(out[k-1], out[k]) {
			return out, false
		}
	}
	return out, true
}
