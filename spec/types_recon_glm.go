package spec

// ReconGLM is the informed adversary's closed-form GLM reconstruction
// (Balle et al. 2022) as run by Guo et al. (2022, §7.2) and Mukherjee &
// Lokam (2023, §5, App. C), against a model block output_perturbation or
// pnsgd.
type ReconGLM struct {
	Releases        int     `yaml:"releases" default:"100" check:">=0" doc:"K: trials per target (0: no attack, only the dFIL and the bounds — then no bias is needed). Each trial attacks an independent release (fresh output noise, or a fresh projected noisy SGD run); a release is shared by every target, which leaves each target's expectation unbiased."`
	Average         int     `yaml:"average" default:"1" check:">=1" doc:"n: independent releases averaged into one reconstruction (Mukherjee & Lokam's ẑ = (1/n) Σ φ(h_i)); a trial then uses n releases."`
	Targets         string  `yaml:"targets" default:"all" enum:"all|subset|top_dfil" doc:"Which training samples are attacked: all, a seeded uniform subset of target_count, or the target_count samples of highest dFIL (output perturbation only)."`
	TargetCount     int     `yaml:"target_count" default:"100" check:">=1" doc:"Number of targets for subset and top_dfil."`
	Interval        bool    `yaml:"interval" default:"true" doc:"Report a per-sample interval over the trials (Student t); needs releases ≥ 2."`
	Confidence      float64 `yaml:"confidence" default:"0.95" check:">0,<1" doc:"Confidence of the per-sample and per-point intervals."`
	Guard           float64 `yaml:"guard" default:"1e-12" check:">=0" doc:"A trial whose normaliser |b[0]| is ≤ guard fails (the sample is fitted perfectly); failures are counted per sample and per point, and left out of the MSE."`
	DataSpace       string  `yaml:"data_space" default:"box" enum:"box|ball" doc:"The data space Z of the RDP and minimax bounds: box = every coordinate in a range of coordinate_range (pixels in [0, 1]); ball = the ℓ2 ball of radius model.norm_bound (after normalize: l2_ball), diameter 2·norm_bound."`
	CoordinateRange float64 `yaml:"coordinate_range" default:"1" check:">0" doc:"diam_i of the box data space, in data units."`
}
