package attack

import (
	"slices"
	"strings"
)

// NewCrafter returns the crafter of the given spec kind with every
// parameter at its default (the zero value), for the spec layer to fill
// in. Unknown kinds are ErrInvalid errors.
func NewCrafter(kind string) (Crafter, error) {
	for _, c := range allCrafters() {
		if c.Kind() == kind {
			return c, nil
		}
	}
	return nil, invalidf("unknown crafter kind %q (want one of %s)", kind, strings.Join(CrafterKinds(), ", "))
}

// NewDistinguisher returns the distinguisher of the given spec kind with
// default parameters. Unknown kinds are ErrInvalid errors.
func NewDistinguisher(kind string) (Distinguisher, error) {
	for _, d := range allDistinguishers() {
		if d.Kind() == kind {
			return d, nil
		}
	}
	return nil, invalidf("unknown distinguisher kind %q (want one of %s)", kind, strings.Join(DistinguisherKinds(), ", "))
}

// CrafterKinds lists the crafter kinds in a stable order.
func CrafterKinds() []string {
	var out []string
	for _, c := range allCrafters() {
		out = append(out, c.Kind())
	}
	return out
}

// DistinguisherKinds lists the distinguisher kinds in a stable order.
func DistinguisherKinds() []string {
	var out []string
	for _, d := range allDistinguishers() {
		out = append(out, d.Kind())
	}
	return out
}

// ThreatModelNames lists the keys of ThreatModels from weakest to
// strongest (Table I's order).
func ThreatModelNames() []string {
	names := make([]string, 0, len(ThreatModels))
	for n := range ThreatModels {
		names = append(names, n)
	}
	order := []string{"api_access", "static_poison", "intermediate_poison", "adaptive_poison", "gradient", "malicious_dataset"}
	slices.SortFunc(names, func(a, b string) int { return slices.Index(order, a) - slices.Index(order, b) })
	return names
}

func allCrafters() []Crafter {
	return []Crafter{RandomRecord{}, MislabeledRecord{}, SwappedLabel{}, ConstantInput{}, NoiseInput{}, StaticPoison{},
		AdaptivePoison{}, GradientCanary{}, MaliciousDataset{}}
}

func allDistinguishers() []Distinguisher {
	return []Distinguisher{LossThreshold{}, IntermediateLoss{}, Watermark{}}
}
