package main

import (
	"fmt"
	"io"

	"github.com/dpaudit/dpaudit"
)

// reportReconViolations prints the points whose reconstruction attack beat
// the ReRo bound, as loudly as a membership violation, and ends the run
// with exit code 3 under --fail-on-violation.
func reportReconViolations(summary string, plan *dpaudit.Plan, dir string, fail bool, stderr io.Writer) error {
	vs, err := dpaudit.ReconViolations(summary)
	if err != nil || len(vs) == 0 {
		return err
	}
	fmt.Fprintf(stderr, "\n!!! RECONSTRUCTION BOUND VIOLATED: %d of %d point(s) of %s reconstruct more often than the ReRo bound allows !!!\n", len(vs), len(plan.Points), plan.Spec.Name)
	for _, v := range vs {
		fmt.Fprintf(stderr, "  point %d (%s): success %.4g, lower end %.4g (%.0f%% confidence) > rero bound %.4g (|π| = %d)\n",
			v.PointIndex, v.PointID, v.Success, v.SuccessLo, 100*v.Confidence, v.Bound, v.PriorSize)
	}
	fmt.Fprintf(stderr, "No attack can beat the bound of the claimed mechanism: the trainer, the claimed noise multiplier or the bound is wrong.\nTrials: %s/trials/point=<id>/\n", dir)
	if fail {
		return silent{errViolation}
	}
	return nil
}
