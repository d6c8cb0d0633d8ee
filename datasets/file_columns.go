package datasets

import (
	"fmt"
	"path"
	"strings"

	"github.com/dpaudit/dpaudit/internal/textdist"
)

// selectColumns finds the label column and the feature columns of a
// table with the given column names (see FileSource.Features).
func selectColumns(names []string, label string, features []string, what string) (int, []int, error) {
	index := make(map[string]int, len(names))
	for i, n := range names {
		if _, dup := index[n]; dup {
			return 0, nil, formatf("%s has two columns named %q", what, n)
		}
		index[n] = i
	}
	li, ok := index[label]
	if !ok {
		return 0, nil, &FieldError{Field: "label", Err: invalidf("%s has no label column %q%s", what, label, columnHint(label, names))}
	}
	var feats []int
	if len(features) == 0 {
		for i := range names {
			if i != li {
				feats = append(feats, i)
			}
		}
		if len(feats) == 0 {
			return 0, nil, &FieldError{Field: "features", Err: invalidf("%s has no column besides the label %q", what, label)}
		}
		return li, feats, nil
	}
	seen := map[int]string{}
	add := func(i int, entry string) error {
		if i == li {
			return &FieldError{Field: "features", Err: invalidf("features: %q is the label column %q", entry, label)}
		}
		if prev, dup := seen[i]; dup {
			return &FieldError{Field: "features", Err: invalidf("features: column %q is selected twice (by %q and by %q)", names[i], prev, entry)}
		}
		seen[i] = entry
		feats = append(feats, i)
		return nil
	}
	for _, f := range features {
		if !strings.ContainsAny(f, "*?[") {
			i, ok := index[f]
			if !ok {
				return 0, nil, &FieldError{Field: "features", Err: invalidf("%s has no feature column %q%s", what, f, columnHint(f, names))}
			}
			if err := add(i, f); err != nil {
				return 0, nil, err
			}
			continue
		}
		matched := 0
		for i, n := range names {
			ok, err := path.Match(f, n)
			if err != nil {
				return 0, nil, &FieldError{Field: "features", Err: invalidf("features: bad pattern %q: %v", f, err)}
			}
			if ok && i != li {
				if err := add(i, f); err != nil {
					return 0, nil, err
				}
				matched++
			}
		}
		if matched == 0 {
			return 0, nil, &FieldError{Field: "features", Err: invalidf("features: pattern %q matches no column of %s%s", f, what, columnHint("", names))}
		}
	}
	return li, feats, nil
}

// columnHint suggests the closest column name to a misspelt one and lists
// what there is (the first dozen of a wide table).
func columnHint(want string, names []string) string {
	var b strings.Builder
	if want != "" {
		best, bestD := "", len(want)/3+2
		for _, n := range names {
			if d := textdist.Distance(strings.ToLower(want), strings.ToLower(n)); d < bestD {
				best, bestD = n, d
			}
		}
		if best != "" {
			fmt.Fprintf(&b, " (did you mean %q?)", best)
		}
	}
	const show = 12
	list := names
	if len(list) > show {
		list = list[:show]
	}
	quoted := make([]string, len(list))
	for i, n := range list {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	fmt.Fprintf(&b, "; its columns are %s", strings.Join(quoted, ", "))
	if len(names) > show {
		fmt.Fprintf(&b, ", … (%d columns)", len(names))
	}
	return b.String()
}
