package main

import (
	"fmt"
	"io"

	"github.com/dpaudit/dpaudit"
)

// printViolations prints a finished run's violations as loudly as dpaudit
// can, game by game: a headline with how many of the run's points break
// the claim, one entry per point (what was measured against what, what was
// claimed and what was trained, notes), then what a violation means and
// where the evidence is. It reports whether there was any.
func printViolations(stderr io.Writer, vs []dpaudit.Violation, name string, points int, dir string) bool {
	for start := 0; start < len(vs); {
		end := start + 1
		for end < len(vs) && vs[end].Alarm == vs[start].Alarm {
			end++
		}
		a := vs[start].Alarm
		fmt.Fprintf(stderr, "\n!!! %s: %d of %d point(s) of %s %s !!!\n", a.Title, end-start, points, name, a.Breaks)
		for _, v := range vs[start:end] {
			fmt.Fprintf(stderr, "  point %d (%s): %s\n", v.PointIndex, v.PointID, v.Message)
			if v.Claimed != "" {
				fmt.Fprintf(stderr, "    claimed: %s\n    trained: %s\n", v.Claimed, v.Trained)
			}
			for _, n := range v.Notes {
				fmt.Fprintf(stderr, "    %s\n", n)
			}
		}
		fmt.Fprintf(stderr, "%s\n%s: %s/trials/point=<id>/\n", a.Meaning, a.Evidence, dir)
		start = end
	}
	return len(vs) > 0
}
