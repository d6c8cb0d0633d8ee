package membership

import (
	"testing"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/spec"
)

// Poison clamping follows the data's normalisation: clamp data
// takes the training features' range (here standardised, [−1.5, 2.25]),
// box the spec's ends, none no clamp; the adaptive poison's static query
// is clamped alike.
func TestPoisonClampFollowsData(t *testing.T) {
	X := []float32{-1.5, 0.2, 2.25, 0}
	for mode, want := range map[string][2]float64{"data": {-1.5, 2.25}, "box": {0, 1}, "none": {0, 0}} {
		s := &spec.Crafter{StaticPoison: &spec.CrafterStaticPoison{Clamp: mode, FeatureMin: 0, FeatureMax: 1}}
		c, err := crafterFor(s)
		if err != nil {
			t.Fatal(err)
		}
		p := withClamp(c, s, X).(attack.StaticPoison)
		if p.FeatureMin != want[0] || p.FeatureMax != want[1] {
			t.Errorf("static %s: clamp [%v, %v], want %v", mode, p.FeatureMin, p.FeatureMax, want)
		}
		a := &spec.Crafter{AdaptivePoison: &spec.CrafterAdaptivePoison{Clamp: mode, FeatureMin: 0, FeatureMax: 1}}
		c, _ = crafterFor(a)
		ap := withClamp(c, a, X).(attack.AdaptivePoison)
		if ap.FeatureMin != want[0] || ap.FeatureMax != want[1] || ap.Static.FeatureMin != want[0] || ap.Static.FeatureMax != want[1] {
			t.Errorf("adaptive %s: clamp [%v, %v] (query [%v, %v]), want %v", mode, ap.FeatureMin, ap.FeatureMax, ap.Static.FeatureMin, ap.Static.FeatureMax, want)
		}
	}
}
