package membership

import (
	"fmt"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/spec"
)

// crafterFor turns the spec's crafter block into package attack's crafter.
// Each branch copies its keys one to one; the defaults are the spec's.
func crafterFor(c *spec.Crafter) (attack.Crafter, error) {
	switch {
	case c.RandomRecord != nil:
		return attack.RandomRecord{Source: c.RandomRecord.Source, PerTrial: c.RandomRecord.PerTrial}, nil
	case c.Mislabeled != nil:
		if c.Mislabeled.PerTrial {
			return nil, fmt.Errorf("mislabeled_record: per_trial is not implemented yet (random_record only)")
		}
		return attack.MislabeledRecord{Source: c.Mislabeled.Source}, nil
	case c.Swapped != nil:
		return attack.SwappedLabel{Source: c.Swapped.Source}, nil
	case c.Constant != nil:
		return attack.ConstantInput{Value: float32(c.Constant.Value), Label: int32(c.Constant.Label)}, nil
	case c.Noise != nil:
		return attack.NoiseInput{Low: c.Noise.Low, High: c.Noise.High, Label: int32(c.Noise.Label)}, nil
	case c.StaticPoison != nil:
		return staticPoison(c.StaticPoison), nil
	case c.AdaptivePoison != nil:
		a := c.AdaptivePoison
		return attack.AdaptivePoison{
			Query: a.Query, InnerSteps: a.InnerSteps, InputStepSize: a.InputStepSize, VirtualLR: a.VirtualLR,
			StepRule: a.StepRule, WarmStart: a.WarmStart, IgnoreClipping: a.IgnoreClipping, Method: a.Method,
			FeatureMin: a.FeatureMin, FeatureMax: a.FeatureMax,
		}, nil
	case c.GradientCanary != nil:
		g := c.GradientCanary
		return attack.GradientCanary{Coordinates: g.Coordinates, MeasureSteps: g.MeasureSteps, Measure: g.Measure}, nil
	case c.Malicious != nil:
		m := c.Malicious
		return attack.MaliciousDataset{Size: m.Size, Inputs: m.Inputs, Low: m.Low, High: m.High,
			Canary: attack.GradientCanary{Coordinates: m.Coordinates, Measure: attack.MeasureCleanGradient}}, nil
	}
	return nil, fmt.Errorf("crafter %q has no implementation", c.Kind)
}

// withClamp sets a poison's feature clamp from the spec's clamp mode:
// data = the range of the normalised training features X (so a poison
// stays in the data's own box whatever the normalisation), box = the
// spec's [feature_min, feature_max], none = no clamp (equal ends).
func withClamp(c attack.Crafter, s *spec.Crafter, X []float32) attack.Crafter {
	mode, lo, hi := "", 0.0, 0.0
	switch {
	case s.StaticPoison != nil:
		mode, lo, hi = s.StaticPoison.Clamp, s.StaticPoison.FeatureMin, s.StaticPoison.FeatureMax
	case s.AdaptivePoison != nil:
		mode, lo, hi = s.AdaptivePoison.Clamp, s.AdaptivePoison.FeatureMin, s.AdaptivePoison.FeatureMax
	default:
		return c
	}
	switch mode {
	case "data":
		lo, hi = dataRange(X)
	case "none":
		lo, hi = 0, 0
	}
	switch p := c.(type) {
	case attack.StaticPoison:
		p.FeatureMin, p.FeatureMax = lo, hi
		return p
	case attack.AdaptivePoison:
		p.FeatureMin, p.FeatureMax = lo, hi
		p.Static.FeatureMin, p.Static.FeatureMax = lo, hi
		return p
	}
	return c
}

// dataRange is [min, max] over every feature of X ([0, 0], no clamp, if
// X is empty).
func dataRange(X []float32) (lo, hi float64) {
	if len(X) == 0 {
		return 0, 0
	}
	l, h := X[0], X[0]
	for _, v := range X {
		l, h = min(l, v), max(h, v)
	}
	return float64(l), float64(h)
}

func staticPoison(s *spec.CrafterStaticPoison) attack.StaticPoison {
	return attack.StaticPoison{
		Shadows: s.Shadows, ShadowSteps: s.ShadowSteps, Steps: s.Steps, StepSize: s.StepSize,
		StepRule: s.StepRule, FeatureMin: s.FeatureMin, FeatureMax: s.FeatureMax, ShadowData: s.ShadowData,
	}
}

// distinguisherFor turns the spec's distinguisher block into package
// attack's distinguisher.
func distinguisherFor(d *spec.Distinguisher) (attack.Distinguisher, error) {
	switch {
	case d.Loss != nil:
		return attack.LossThreshold{}, nil
	case d.Intermediate != nil:
		return attack.IntermediateLoss{Reduce: d.Intermediate.Reduce}, nil
	case d.Watermark != nil:
		obs, err := attack.ParseObservation(d.Watermark.Observe)
		if err != nil {
			return nil, err
		}
		return attack.Watermark{Form: d.Watermark.Form, Observe: obs, SkipSteps: d.Watermark.SkipSteps}, nil
	}
	return nil, fmt.Errorf("distinguisher %q has no implementation", d.Kind)
}
