package attack

import (
	"fmt"
	"strings"
)

// Observation is how much of a training run the adversary sees, ordered
// from least to most (Nasr et al. 2021, Table I, column "Access"). Each
// level includes everything below it.
type Observation int

const (
	// ObserveNothing: the adversary sees nothing of the target run (a
	// crafter that only needs the data and the hyperparameters).
	ObserveNothing Observation = iota
	// ObserveBlackBox: loss queries on the final model, no parameters
	// ("API access", §IV-A).
	ObserveBlackBox
	// ObserveFinalModel: the final parameters θ_T (white-box).
	ObserveFinalModel
	// ObserveIntermediateModels: every θ_t of the run (§IV-C to §IV-E).
	ObserveIntermediateModels
	// ObserveGradients: the privatised gradient sums s_t of every step as
	// well (federated learning; needed when θ_t never changes, §IV-F).
	ObserveGradients
)

var observationNames = []string{"nothing", "black_box", "final_model", "intermediate_models", "gradients"}

// String returns the spec name of o, e.g. "intermediate_models".
func (o Observation) String() string {
	if o >= 0 && int(o) < len(observationNames) {
		return observationNames[o]
	}
	return fmt.Sprintf("Observation(%d)", int(o))
}

// ParseObservation parses a spec name such as "black_box".
func ParseObservation(s string) (Observation, error) {
	for i, n := range observationNames {
		if s == n {
			return Observation(i), nil
		}
	}
	return 0, invalidf("unknown observation %q (want one of %s)", s, strings.Join(observationNames, ", "))
}

// Capability is a set of ways the adversary may change training (Table I,
// columns "Modification" and "Dataset").
type Capability uint

const (
	// InsertRecord: add one chosen record to the training set (a random
	// record, a mislabelled one, a poison).
	InsertRecord Capability = 1 << iota
	// AdaptiveRecord: rewrite the inserted record before every step, after
	// seeing the current parameters (§IV-D). Implies seeing θ_t during
	// training, so a crafter with it also observes intermediate models.
	AdaptiveRecord
	// InsertGradient: add an arbitrary gradient of norm ≤ C, sampled like a
	// record (§IV-E; federated learning).
	InsertGradient
	// ChooseDataset: replace the whole training set (§IV-F).
	ChooseDataset
	// ChooseHyperparameters: set hyperparameters such as the learning rate
	// (§IV-F sets it to 0).
	ChooseHyperparameters
)

var capabilityNames = []string{"insert_record", "adaptive_record", "insert_gradient", "choose_dataset", "choose_hyperparameters"}

// String lists the capabilities in c joined by "+", or "none".
func (c Capability) String() string {
	var parts []string
	for i, n := range capabilityNames {
		if c&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	if rest := c &^ (1<<len(capabilityNames) - 1); rest != 0 {
		parts = append(parts, fmt.Sprintf("0x%x", uint(rest)))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "+")
}

// ParseCapabilities parses spec names such as ["insert_gradient",
// "choose_dataset"] into a set.
func ParseCapabilities(names []string) (Capability, error) {
	var c Capability
	for _, s := range names {
		found := false
		for i, n := range capabilityNames {
			if s == n {
				c |= 1 << i
				found = true
			}
		}
		if !found {
			return 0, invalidf("unknown capability %q (want one of %s)", s, strings.Join(capabilityNames, ", "))
		}
	}
	return c, nil
}

// Access is what an adversary component needs, or what a threat model
// grants: how much of the run it observes and how it may change training.
type Access struct {
	Observe Observation `json:"observe"`
	Modify  Capability  `json:"modify"`
}

// Covers reports whether a (granted) includes everything need asks for.
func (a Access) Covers(need Access) bool {
	return need.Observe <= a.Observe && need.Modify&^a.Modify == 0
}

// String renders the access as "observe=…, modify=…".
func (a Access) String() string {
	return fmt.Sprintf("observe=%s, modify=%s", a.Observe, a.Modify)
}

// ThreatModels are the six threat models of Nasr et al. (2021), Table I,
// by spec name, from weakest to strongest. The gradient attack's row says
// "Intermediate Models": from the parameters and the public learning rate
// the privatised sums follow by post-processing, so granting gradients
// adds nothing there; it is granted here so that the watermark
// distinguisher may read the sums directly (and the malicious dataset's
// learning rate 0 leaves no other way).
var ThreatModels = map[string]Access{
	"api_access":          {ObserveBlackBox, InsertRecord},
	"static_poison":       {ObserveFinalModel, InsertRecord},
	"intermediate_poison": {ObserveIntermediateModels, InsertRecord},
	"adaptive_poison":     {ObserveIntermediateModels, InsertRecord | AdaptiveRecord},
	"gradient":            {ObserveGradients, InsertGradient},
	"malicious_dataset":   {ObserveGradients, InsertGradient | ChooseDataset | ChooseHyperparameters},
}

// Products says what a crafted result offers a distinguisher.
type Products uint

const (
	// HasQuery: a record whose loss a membership distinguisher queries
	// (the inserted record, or the adaptive attack's query input).
	HasQuery Products = 1 << iota
	// HasCanary: a gradient canary (watermark) direction.
	HasCanary
	// FreezesModel: training runs with learning rate 0, so θ_t = θ_0 and
	// parameter differences carry no signal.
	FreezesModel
)

var productNames = []string{"query", "canary", "frozen_model"}

// String lists the products, e.g. "query+canary".
func (p Products) String() string {
	var parts []string
	for i, n := range productNames {
		if p&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "+")
}

// CheckPair is the spec validation of a crafter–distinguisher pair under
// a declared threat model: it returns an ErrInvalid error when either
// needs more access than the threat model grants, or when the distinguisher
// cannot work on what the crafter produces (a loss distinguisher without a
// query record, a watermark detector without a canary, a parameter-based
// detector on a frozen model). Calling it constructs nothing and trains
// nothing.
func CheckPair(c Crafter, d Distinguisher, threat Access) error {
	if c == nil || d == nil {
		return invalidf("crafter and distinguisher must both be set")
	}
	return checkPair(c.Kind(), c.Access(), c.Products(), d, threat)
}

func checkPair(crafter string, ca Access, p Products, d Distinguisher, threat Access) error {
	if !threat.Covers(ca) {
		return invalidf("crafter %s needs %s, more than the threat model grants (%s)", crafter, ca, threat)
	}
	da := d.Access()
	if !threat.Covers(da) {
		return invalidf("distinguisher %s needs %s, more than the threat model grants (%s)", d.Kind(), da, threat)
	}
	if err := d.Accepts(p); err != nil {
		return fmt.Errorf("crafter %s with distinguisher %s: %w", crafter, d.Kind(), err)
	}
	return nil
}
