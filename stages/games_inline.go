package stages

import (
	"github.com/dpaudit/dpaudit/spec"
)

// The games, while they still live in this package.

var MembershipGame = &Game{
	Name:         "membership",
	AppliesTo:    func(exp *spec.Experiment) bool { return exp.Audit != nil },
	Compile:      compileMembership,
	Kinds:        []string{"craft", "trials", "look", "onerun_train", "onerun_input_train", "perstep_train", "estimate"},
	TrialColumns: TrialColumns,
	Implements: map[string][]string{"audit": {""},
		"crafter": {"random_record", "mislabeled_record", "constant_input", "noise_input",
			"static_poison", "adaptive_poison", "gradient_canary", "malicious_dataset"},
		"distinguisher": {"loss_threshold", "intermediate_loss", "watermark"}},
}

func compileMembership(b *Build) error {
	st, shards, err := auditStages(b.Name, b.Point, b.Env, b)
	if err != nil {
		return err
	}
	b.Row(st.node, st.columns)
	b.Publish(b.Point.ID, shards)
	return nil
}

// Games are the games of this package, in compile order.
var Games = []*Game{MembershipGame}
