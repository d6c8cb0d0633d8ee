package spec

// ModelOutputPerturbation is L2-regularised logistic regression solved to
// optimality and released once with additive noise (Chaudhuri et al.
// 2011; Guo et al. 2022 §7.1; Mukherjee & Lokam 2023 §5).
type ModelOutputPerturbation struct {
	Bias       bool    `yaml:"bias" default:"true" doc:"Prepend a constant-1 feature (regularised like the other weights). The GLM attack needs it; Guo et al.'s §7.1 has none."`
	Lambda     float64 `yaml:"lambda" required:"true" check:">0" doc:"λ of the objective Σ BCE(θᵀx̃_j, y_j) + (Nλ/2)‖θ‖² (Guo et al.'s code: 1e-2)."`
	Tolerance  float64 `yaml:"tolerance" default:"1e-8" check:">0" doc:"Newton's method stops when ‖∇F(θ)‖₂ ≤ tolerance (the sum objective); the value reached is reported."`
	MaxSteps   int     `yaml:"max_steps" default:"100" check:">=1" doc:"Newton steps at most."`
	Noise      string  `yaml:"noise" default:"gaussian" enum:"gaussian|laplace|laplace_mdp" doc:"gaussian: θ* + σ·N(0, I) (Guo et al.); laplace: density ∝ exp(−‖b‖/s), s = 2R̃/(Nλε), ε-DP (Chaudhuri et al.); laplace_mdp: s = L/ε_L with L = (1 + R̃²/(4λ))/(Nλ) the input-Lipschitz bound of θ*, ε_L-metric DP in ‖x − x'‖ (Chatzikokolakis et al.). R̃ = √(norm_bound² + 1) with a bias, norm_bound without."`
	Sigma      float64 `yaml:"sigma" check:">0" doc:"σ of noise gaussian: the absolute noise standard deviation, not a multiplier."`
	Epsilon    float64 `yaml:"epsilon" check:">0" doc:"ε of noise laplace (ε-DP) or ε_L of laplace_mdp."`
	RDPFormula string  `yaml:"rdp_formula" default:"paper_v1" enum:"paper_v1|corrected" doc:"Order-2 RDP ε of noise gaussian for Guo et al.'s Theorem 1: paper_v1 = 2/(Nλσ) (the paper: 1.58 at N = 12665, λ = σ = 1e-2); corrected = 4/(Nλσ)² (their code after commit dc87132). Both assume ‖x̃‖ ≤ 1."`
	NormBound  float64 `yaml:"norm_bound" default:"1" check:">0" doc:"R: the bound on every input's ‖x‖₂ (without the bias) that the laplace mechanisms' sensitivity assumes. Data beyond it are refused unless normalize: l2_ball."`
	Normalize  string  `yaml:"normalize" default:"none" enum:"none|l2_ball" doc:"none: use the inputs as loaded (refused by the laplace mechanisms if some ‖x‖ > norm_bound); l2_ball: scale every input with ‖x‖ > norm_bound onto the ball (MSEs are then in these units)."`
}

// ModelPNSGD is L2-regularised logistic regression trained by projected
// noisy SGD (Feldman et al. 2018, Algorithm 1; Mukherjee & Lokam App. C).
type ModelPNSGD struct {
	Bias         bool    `yaml:"bias" default:"true" doc:"Prepend a constant-1 feature (needed by the GLM attack)."`
	Lambda       float64 `yaml:"lambda" required:"true" check:">0" doc:"λ of the per-sample loss BCE + (λ/2)‖w‖²; the GLM attack inverts Σ ∇ℓ + Nλθ."`
	LearningRate float64 `yaml:"learning_rate" required:"true" check:">0" doc:"η; must be ≤ 2/β with β = R̃²/4 + λ (Feldman et al.'s analysis)."`
	Radius       float64 `yaml:"radius" required:"true" check:">0" doc:"Radius of the ball K the iterates are projected onto."`
	Epsilon      float64 `yaml:"epsilon" check:">0" doc:"Calibrate σ so that the first sample of the pass is (ε, delta)-DP (Feldman et al. Thm 23 with G = R̃ + λ·radius, Mironov's conversion at the best order). Give epsilon or noise_std."`
	Delta        float64 `yaml:"delta" default:"1e-5" check:">0,<1" doc:"δ of epsilon and of the per-sample ε reported."`
	NoiseStd     float64 `yaml:"noise_std" check:">0" doc:"σ of the gradient noise directly, instead of epsilon."`
	Privacy      string  `yaml:"privacy" default:"dp" enum:"dp|mdp" doc:"dp: epsilon is (ε, δ)-DP (Feldman et al. Thm 23, G = R̃ + λ·radius); mdp: epsilon is ε_L of (ε_L, δ)-metric DP in ‖x − x'‖₂ (Mukherjee & Lokam Prop. 6.2: G² replaced by L_input²·diam(X), L_input = R̃·radius/4 + 1 the input-Lipschitz bound of the gradient, diam(X) = 2·norm_bound), with the same RDP conversion."`
	NormBound    float64 `yaml:"norm_bound" default:"1" check:">0" doc:"R: the bound on every input's ‖x‖₂ (without the bias) the accounting assumes; data beyond it are refused unless normalize: l2_ball."`
	Normalize    string  `yaml:"normalize" default:"none" enum:"none|l2_ball" doc:"none: refuse inputs with ‖x‖ > norm_bound; l2_ball: scale them onto the ball."`
}

// TrainFIL is Guo et al.'s (2022) FIL accounting inside DP-SGD: per step,
// for every sample of the batch, κ/(σ²C²)·‖J eᵢ‖² with J the input-Jacobian
// of its soft-clipped per-example gradient and i a random coordinate.
type TrainFIL struct {
	Coordinates int     `yaml:"coordinates" default:"1" check:">=1" doc:"Random input coordinates per sample and step (Guo et al.'s code effectively draws 1; their paper says 50)."`
	Delta       float64 `yaml:"delta" default:"1e-9" check:">0,<1" doc:"Per-step δ of the step's ε = 1.115·2√(2 ln(1.25/δ))/σ inside κ (Guo et al.'s code: 1e-9 for MNIST)."`
	Subsampling bool    `yaml:"subsampling" default:"true" doc:"Multiply by κ = q/(q + (1 − q)e^{−ε}) (Guo et al. Theorem 4); false: κ = 1."`
	Step        float64 `yaml:"step" default:"1e-2" check:">0" doc:"Central finite-difference step along the input coordinate, in input units (the layers run in float32)."`
}
