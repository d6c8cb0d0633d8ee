package datasets

import "path/filepath"

// Status is what List reports about one data set.
type Status struct {
	Name     string
	Dir      string // folder in the data dir; empty for embedded sets
	Embedded bool   // compiled into the binary (digits): always available
	Ready    bool   // every file present and verified: Load will work
	Files    []FileStatus
	Hint     string // the command that fetches it, when not ready
}

// List reports, for `dpaudit data ls`, which data sets are available in
// dataDir: the embedded digits set first, then every fetchable set with
// the state of each of its files. It hashes every file present (about
// 110 MB for MNIST and Fashion-MNIST together), so a corrupt file shows up
// here rather than at training time. Synthetic sources are generated on
// demand and not listed.
func List(dataDir string) []Status {
	out := []Status{{Name: SourceDigits, Embedded: true}}
	if _, err := parsedDigits(); err == nil {
		out[0].Ready = true
	}
	for _, name := range FetchableNames() {
		ds := fetchables[name]
		st := Status{Name: name, Dir: filepath.Join(dataDir, name), Ready: true}
		for _, f := range ds.Files {
			fs := verifyStored(ds, dataDir, f)
			if fs.State != StateOK {
				st.Ready = false
			}
			st.Files = append(st.Files, fs)
		}
		if !st.Ready {
			st.Hint = fetchHint(ds, dataDir)
		}
		out = append(out, st)
	}
	return out
}
