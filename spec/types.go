package spec

// The Go types below are the single source of truth for the experiment
// language: the decoder, the validator, the defaults and the JSON Schema
// (schemas/experiment.schema.json) are all driven by their struct tags.
//
// Tags:
//   yaml:"name"           the key in the spec
//   doc:"..."             one-line description (schema "description")
//   default:"..."         value used when the key is absent (YAML syntax)
//   check:"..."           comma-separated range checks: >x, >=x, <x, <=x,
//                         len>=n, nonempty
//   enum:"a|b|c"          allowed string values
//   required:"true"       the key must be present (after sweep substitution)
//   kind:"name"           on a pointer field of a union type: the branch
//                         selected when the discriminator equals name
//   discriminator:"true"  on the string field that selects a union branch
//   schemamin:"x"         a "minimum" for the JSON Schema only, where the
//                         validator has a rule the tags cannot express
//
// Union types (dataset, model, crafter, distinguisher, bound entries,
// figures) have one discriminator field and one pointer field per branch;
// the branch's own keys sit beside the discriminator in YAML.

// Experiment is one spec file.
type Experiment struct {
	Name           string          `yaml:"name" required:"true" check:"name" doc:"Experiment name; results go to <results>/<name>/. Letters, digits, '-', '_' and '.'."`
	Description    string          `yaml:"description" doc:"Free text: what this spec reproduces and what the reader should see."`
	Seed           int64           `yaml:"seed" default:"0" check:">=0" doc:"The one seed every random stream derives from."`
	Vars           map[string]any  `yaml:"vars" doc:"User variables (scalars or expressions), addressable by name in sweeps and expressions."`
	Dataset        *Dataset        `yaml:"dataset" doc:"Training data."`
	Model          *Model          `yaml:"model" doc:"Model architecture."`
	DPSGD          *DPSGD          `yaml:"dpsgd" doc:"DP-SGD configuration: the mechanism that is accounted and audited."`
	Crafter        *Crafter        `yaml:"crafter" doc:"How the adversary builds the neighbouring datasets (canary, poison, prior)."`
	Distinguisher  *Distinguisher  `yaml:"distinguisher" doc:"The attack that guesses the world from what training released."`
	Train          *Train          `yaml:"train" doc:"Train models with DP-SGD and report their utility (privacy–utility sweeps)."`
	Audit          *Audit          `yaml:"audit" doc:"Trials and estimator of the empirical privacy audit."`
	Reconstruction *Reconstruction `yaml:"reconstruction" doc:"Reconstruction audit: train, run a reconstruction attack, report its success or error beside the bounds of the same point."`
	Bound          []Bound         `yaml:"bound" doc:"Theoretical values computed per point (accountants, bounds)."`
	Sweep          *Sweep          `yaml:"sweep" doc:"Sweep grid: which parameters vary across points."`
	Report         *Report         `yaml:"report" doc:"Figures drawn from the results."`

	// Trainer stands apart so that gofmt's alignment of the block above is
	// untouched (merge-friendly); spec/types_external.go.
	Trainer *Trainer `yaml:"trainer" doc:"An external training command that trains the membership games' runs (with model: {arch: external}): dpaudit writes each call's request, runs the command and validates the scores it writes back (docs/external-trainers.md)."`

	// Identifiability stands apart so that gofmt's alignment of the block
	// above is untouched (merge-friendly); spec/types_identifiability.go.
	Identifiability *Identifiability `yaml:"identifiability" doc:"Identifiability audit (Bernau et al. 2021): the adversary who knows D and D′ tracks its posterior belief through full-batch DP-SGD; empirical advantage, δ′ and ε′ beside ρ_β and ρ_α."`

	// Expect stands apart for the same reason; spec/types_expect.go.
	Expect []Expect `yaml:"expect" doc:"Numbers this spec states about its results (column, point, value, tolerance), checked by the example test and scripts/check-examples.sh; not part of a point's identity."`

	// dir is the spec file's folder: paths in the spec are relative to it
	// (ResolvePath).
	dir string
}

// DPSGD is the mechanism: T steps of the Poisson-subsampled Gaussian with
// noise multiplier σ (noise std σ·C on the clipped sum).
type DPSGD struct {
	NoiseMultiplier float64 `yaml:"noise_multiplier" required:"true" schemamin:"0" doc:"σ: noise standard deviation divided by the clipping norm; > 0, or 0 with clip_norm .inf for non-private training."`
	SamplingRate    float64 `yaml:"sampling_rate" required:"true" check:">0,<=1" doc:"q: Poisson sampling rate (expected batch size / dataset size)."`
	Steps           int     `yaml:"steps" required:"true" check:">=1" doc:"T: number of DP-SGD steps."`
	Delta           float64 `yaml:"delta" default:"1e-5" check:">0,<1" doc:"δ at which ε is reported."`
	ClipNorm        float64 `yaml:"clip_norm" default:"1" check:">0" doc:"C: per-example gradient clipping norm (.inf for none)."`
	LearningRate    float64 `yaml:"learning_rate" default:"0.1" check:">=0" doc:"SGD learning rate η."`
	Momentum        float64 `yaml:"momentum" default:"0" check:">=0,<1" doc:"SGD momentum."`
	WeightDecay     float64 `yaml:"weight_decay" default:"0" check:">=0" doc:"L2 weight decay."`
	Sampling        string  `yaml:"sampling" default:"poisson" enum:"poisson|shuffle|fixed_size|balls_in_bins|cyclic" doc:"Batch sampling. poisson: each record in each batch with probability q. fixed_size: a uniformly random subset of round(q·N) records each step (accounted under replace_one adjacency only). balls_in_bins: each epoch of 1/q steps (a whole number) puts every record into one of its batches at random (accounted by pld only). shuffle: fixed-size batches of a fresh permutation per epoch, which no accountant covers (docs/which-sampler.md). cyclic: the records split at random, once, into groups groups; step t samples each record of group t mod groups with probability q (q = 1: the whole group), accounted as ⌈T/groups⌉ Poisson steps (matrix-factorization noise: dpsgd.correlated)."`
	Clip            string  `yaml:"clip" default:"hard" enum:"hard|soft" doc:"Clipping function: hard (Abadi et al.) or the soft clip of Guo et al."`
	Adjacency       string  `yaml:"adjacency" enum:"add_remove|replace_one" doc:"Neighbouring datasets of the run's guarantee (absent: add_remove): add_remove (one record more or less) or replace_one (one record replaced by another; dataset size public). The accountant bounds account it, the audit's claim assumes it unless audit.claim.adjacency says otherwise, and the ideal mechanism simulates it."`

	// Groups and Correlated stand apart so that gofmt's alignment of the
	// block above is untouched (merge-friendly); spec/types_correlated.go.
	Groups     int         `yaml:"groups" check:">=0" doc:"Cyclic sampling: the number of groups the records are split into (≥ 1, at most dpsgd.steps)."`
	Correlated *Correlated `yaml:"correlated" doc:"Matrix-factorization (DP-FTRL, BandMF, BLT) noise instead of independent noise, with the participation schema its accountant assumes (docs/mechanisms.md)."`
}

// Dataset selects a data source.
type Dataset struct {
	Source   string            `yaml:"source" discriminator:"true" doc:"Data source."`
	Digits   *DatasetDigits    `kind:"digits" doc:"sklearn digits, 1797 × 8×8, 10 classes, embedded (no download)."`
	MNIST    *DatasetImage     `kind:"mnist" doc:"MNIST (60,000/10,000, 28×28) from the data directory (dpaudit data fetch mnist)."`
	Fashion  *DatasetImage     `kind:"fashion-mnist" doc:"Fashion-MNIST (60,000/10,000, 28×28) from the data directory (dpaudit data fetch fashion-mnist)."`
	Gaussian *DatasetGaussian  `kind:"gaussian" doc:"Synthetic Gaussian-mixture classification."`
	Purchase *DatasetPurchase  `kind:"purchase-like" doc:"Synthetic stand-in for Purchase-100 (600 binary features, clustered classes)."`
	Adult    *DatasetSynthetic `kind:"adult-like" doc:"Synthetic stand-in for Adult (104 one-hot features, binary label)."`
	File     *DatasetFile      `kind:"file" doc:"Your own data: a Parquet or CSV table (a label column, numeric feature columns) or arrays in .npz/.npy (spec/types_data_models.go)."`
}

// DatasetCommon holds the options every source supports. Whether images
// are flattened is decided by the model (a CNN takes [C, H, W], the others
// flat vectors).
type DatasetCommon struct {
	Classes   []int   `yaml:"classes" doc:"Keep only these labels, remapped to 0..k-1 in the order given (e.g. [0, 1] for MNIST 0-vs-1)."`
	TrainSize int     `yaml:"train_size" default:"0" check:">=0" doc:"Training examples: a seeded uniform subsample of this size; 0 = all."`
	TestSize  int     `yaml:"test_size" default:"0" check:">=0" doc:"Test examples: a seeded uniform subsample of this size; 0 = all."`
	Normalize string  `yaml:"normalize" default:"auto" enum:"auto|unit|none|standardize" doc:"Feature normalisation: auto = [0,1] pixels for images, none for the Gaussian mixture."`
	L2Ball    float64 `yaml:"l2_ball" default:"0" check:">=0" doc:"If > 0, project every example into the ℓ2 ball of this radius (after normalisation)."`
	L2Exact   bool    `yaml:"l2_exact" default:"false" doc:"With l2_ball, rescale every example to norm exactly l2_ball instead."`
}

// DatasetImage is a canonical image data set (fixed train/test split).
type DatasetImage struct {
	DatasetCommon `yaml:",inline"`
}

// DatasetDigits is the embedded sklearn digits set.
type DatasetDigits struct {
	DatasetCommon `yaml:",inline"`
	TestFraction  float64 `yaml:"test_fraction" default:"0.25" check:">0,<1" doc:"Share of each class held out as the test split (stratified, fixed)."`
}

// DatasetGaussian is a Gaussian-mixture classification task.
type DatasetGaussian struct {
	DatasetCommon `yaml:",inline"`
	N             int     `yaml:"n" default:"10000" check:">=2" doc:"Total examples generated (train + test)."`
	Dim           int     `yaml:"dim" default:"20" check:">=1" doc:"Feature dimension."`
	NumClasses    int     `yaml:"num_classes" default:"2" check:">=2" doc:"Number of mixture components / classes."`
	Separation    float64 `yaml:"separation" default:"2" check:">=0" doc:"Distance between any two class means in units of the noise std."`
	TestFraction  float64 `yaml:"test_fraction" default:"0.2" check:">0,<1" doc:"Share held out as the test split."`
}

// DatasetSynthetic is a synthetic stand-in for a data set that cannot be
// obtained here.
type DatasetSynthetic struct {
	DatasetCommon `yaml:",inline"`
	N             int     `yaml:"n" default:"10000" check:">=2" doc:"Total examples generated (train + test)."`
	TestFraction  float64 `yaml:"test_fraction" default:"0.2" check:">0,<1" doc:"Share held out as the test split."`
}

// DatasetPurchase is the Purchase-100 stand-in.
type DatasetPurchase struct {
	DatasetCommon `yaml:",inline"`
	N             int     `yaml:"n" default:"10000" check:">=2" doc:"Total examples generated (train + test)."`
	NumClasses    int     `yaml:"num_classes" default:"100" check:">=2" doc:"Number of clusters / classes (Purchase-100: 100; Nasr et al. used 10)."`
	TestFraction  float64 `yaml:"test_fraction" default:"0.2" check:">0,<1" doc:"Share held out as the test split."`
}

// Model selects an architecture.
type Model struct {
	Arch               string                   `yaml:"arch" discriminator:"true" doc:"Architecture."`
	LogReg             *ModelLogReg             `kind:"logreg" doc:"Logistic regression (sigmoid for 2 classes, softmax otherwise)."`
	MLP                *ModelMLP                `kind:"mlp" doc:"Multi-layer perceptron."`
	CNN                *ModelCNN                `kind:"cnn" doc:"Small convolutional network (conv, average pooling, tanh)."`
	Ideal              *ModelEmpty              `kind:"ideal" doc:"The ideal mechanism: simulates only the scalar observation stream of the Poisson-subsampled Gaussian."`
	OutputPerturbation *ModelOutputPerturbation `kind:"output_perturbation" doc:"L2-regularised logistic regression solved by Newton's method, released with Gaussian, ℓ2-Laplace (ε-DP) or metric-DP noise (Guo et al. 2022; Mukherjee & Lokam 2023). For reconstruction: {attack: glm}."`
	PNSGD              *ModelPNSGD              `kind:"pnsgd" doc:"L2-regularised logistic regression trained by projected noisy SGD, one pass, final iterate released (Feldman et al. 2018, Alg. 1). For reconstruction: {attack: glm}."`
	Layers             *ModelLayers             `kind:"layers" doc:"Your own network for the Go trainer: dense, conv2d, maxpool, avgpool, flatten and activations, checked against the data's shape (spec/types_data_models.go)."`
	// External stands apart (merge-friendly); spec/types_external.go.
	External *ModelExternal `kind:"external" doc:"A model trained by the trainer block's command, not by dpaudit (membership games; docs/external-trainers.md)."`
}

// ModelEmpty is an architecture without parameters.
type ModelEmpty struct{}

// ModelLogReg is logistic regression.
type ModelLogReg struct {
	Bias bool   `yaml:"bias" default:"true" doc:"Learn a bias (Guo et al. use none)."`
	Init string `yaml:"init" default:"pytorch" enum:"pytorch|glorot|zeros" doc:"Parameter initialisation: pytorch = U(±1/√fan_in); glorot; zeros."`
}

// ModelMLP is a fully connected network.
type ModelMLP struct {
	Hidden     []int  `yaml:"hidden" required:"true" check:"nonempty" doc:"Hidden layer widths. The same network as arch layers: dense, activation for each width, then a dense layer of one unit per class."`
	Activation string `yaml:"activation" default:"relu" enum:"relu|tanh|elu" doc:"Hidden activation."`
	Init       string `yaml:"init" default:"pytorch" enum:"pytorch|glorot" doc:"Parameter initialisation: pytorch = U(±1/√fan_in); glorot."`
}

// ModelCNN is a small convolutional network.
type ModelCNN struct {
	Preset string `yaml:"preset" default:"mnist-tanh" enum:"mnist-tanh|bernau-mnist|bernau-mnist-maxpool" doc:"Named architecture: mnist-tanh = conv 16 k8 s2 p3, tanh, avgpool 2 s1, conv 32 k4 s2, tanh, avgpool 2 s1, dense 32, tanh, dense (26,010 parameters on 1×28×28; Papernot et al. / Guo et al.); bernau-mnist = conv 16 k3, relu, avgpool 2 s2, conv 16 k3, relu, avgpool 2 s2, dense (6,490 parameters; Bernau et al. with average pooling for their max pooling and without their batch norm); bernau-mnist-maxpool = the same with max pooling, as theirs."`
	Init   string `yaml:"init" default:"pytorch" enum:"pytorch|glorot" doc:"Parameter initialisation."`
}

// Crafter selects how the adversary builds the two neighbouring worlds
// (Nasr et al. 2021, Crafters 1–5, and the common canaries of audit tools).
// Crafting runs once per audit point (a "craft" node).
type Crafter struct {
	Kind           string                 `yaml:"kind" discriminator:"true" doc:"Crafter."`
	RandomRecord   *CrafterRecord         `kind:"random_record" doc:"Crafter 1 (API access): a random in-distribution record, add/remove."`
	Mislabeled     *CrafterRecord         `kind:"mislabeled_record" doc:"A random record with a wrong label, add/remove (the usual audit canary)."`
	Constant       *CrafterConstant       `kind:"constant_input" doc:"A record whose features all equal value (0: the all-zero input), add/remove."`
	Noise          *CrafterNoise          `kind:"noise_input" doc:"An out-of-distribution record with uniform random features, add/remove."`
	StaticPoison   *CrafterStaticPoison   `kind:"static_poison" doc:"Crafter 2: an input-space poison by gradient ascent of the loss over shadow models trained with the same DP-SGD."`
	AdaptivePoison *CrafterAdaptivePoison `kind:"adaptive_poison" doc:"Crafter 3: a poison re-crafted before every step by double backpropagation (intermediate models)."`
	GradientCanary *CrafterGradientCanary `kind:"gradient_canary" doc:"Crafter 4: a gradient of norm C on the least-changing coordinates, inserted with probability q each step."`
	Malicious      *CrafterMalicious      `kind:"malicious_dataset" doc:"Crafter 5: inputs labelled by the initial model, learning rate 0, plus the gradient canary."`

	// The node parameters hold this struct as JSON: a crafter added later
	// is omitted when absent, so the others keep their keys.
	Swapped *CrafterSwapped `json:",omitempty" kind:"swapped_label" doc:"Replace-one label audit: a random record with its own label (world 0) or a different one (world 1); the claim must be replace_one (dpsgd.adjacency or audit.claim.adjacency) or replace_one_sigma_half."`
}

// CrafterSwapped picks an existing record whose label the worlds differ in.
type CrafterSwapped struct {
	Source string `yaml:"source" default:"pool" enum:"pool|train" doc:"pool: a record outside the training set (from the test split); train: a training record (its label is swapped in world 1)."`
}

// CrafterRecord picks an existing record.
type CrafterRecord struct {
	Source   string `yaml:"source" default:"pool" enum:"pool|train" doc:"pool: a record outside the training set (from the test split), added in world 1; train: a training record, removed in world 0."`
	PerTrial bool   `yaml:"per_trial" default:"false" doc:"random_record only: draw a fresh pool record in every trial (Nasr et al.'s protocol: the average record's leakage). false: one record fixed for all trials (that record's leakage, which DP bounds for every record)."`
}

// CrafterConstant is a blank canary.
type CrafterConstant struct {
	Value float64 `yaml:"value" default:"0" doc:"Every feature's value (0: the all-zero input)."`
	Label int     `yaml:"label" default:"0" check:">=0" doc:"The canary's label."`
}

// CrafterNoise is an out-of-distribution canary.
type CrafterNoise struct {
	Low   float64 `yaml:"low" default:"0" doc:"Lower end of the uniform features."`
	High  float64 `yaml:"high" default:"1" doc:"Upper end of the uniform features."`
	Label int     `yaml:"label" default:"-1" check:">=-1" doc:"The canary's label; -1 draws a random class."`
}

// CrafterStaticPoison configures Crafter 2.
type CrafterStaticPoison struct {
	Shadows     int     `yaml:"shadows" default:"4" check:">=1" doc:"Shadow models trained with the target's DP-SGD."`
	ShadowSteps int     `yaml:"shadow_steps" default:"0" check:">=0" doc:"Steps per shadow run; 0 = the target's T."`
	Steps       int     `yaml:"steps" default:"100" check:">=1" doc:"Gradient-ascent steps on the poison's input."`
	StepSize    float64 `yaml:"step_size" default:"0.1" check:">0" doc:"Ascent step size."`
	StepRule    string  `yaml:"step_rule" default:"normalized" enum:"normalized|gradient" doc:"normalized: steps of fixed length along the gradient; gradient: plain gradient steps."`
	Clamp       string  `yaml:"clamp" default:"data" enum:"data|box|none" doc:"Clamp of the poison's features after every step: data = to [min, max] of the normalised training features (the dataset's normalisation: [0, 1] for unit pixels, the z-score range when standardised); box = [feature_min, feature_max]; none = no clamp."`
	FeatureMin  float64 `yaml:"feature_min" default:"0" doc:"With clamp: box, the lower end (equal values: no clamp)."`
	FeatureMax  float64 `yaml:"feature_max" default:"1" doc:"With clamp: box, the upper end."`
	ShadowData  string  `yaml:"shadow_data" default:"pool" enum:"pool|train" doc:"Data of the shadow models: the pool (test split) or the training set."`
}

// CrafterAdaptivePoison configures Crafter 3.
type CrafterAdaptivePoison struct {
	Query          string  `yaml:"query" default:"static_poison" enum:"static_poison|pool" doc:"The query record: a static poison (Crafter 2 with its defaults) or a pool record."`
	InnerSteps     int     `yaml:"inner_steps" default:"10" check:">=1" doc:"Descent steps on the poison per training step."`
	InputStepSize  float64 `yaml:"input_step_size" default:"0.1" check:">0" doc:"Descent step size on the poison's input."`
	VirtualLR      float64 `yaml:"virtual_lr" default:"0" check:">=0" doc:"Scale of the virtual step; 0 = the trainer's η/(qN)."`
	StepRule       string  `yaml:"step_rule" default:"normalized" enum:"normalized|gradient" doc:"Descent step rule."`
	WarmStart      bool    `yaml:"warm_start" default:"false" doc:"Start each step's descent from the previous poison instead of x = 0."`
	IgnoreClipping bool    `yaml:"ignore_clipping" default:"false" doc:"Drop the clip from the virtual step (the paper's pseudo-code)."`
	Method         string  `yaml:"method" default:"auto" enum:"auto|closed_form|finite_difference" doc:"Double backpropagation: closed form (logistic regression) or finite differences."`
	Clamp          string  `yaml:"clamp" default:"data" enum:"data|box|none" doc:"Clamp of the poison's features (and of its static-poison query): data = [min, max] of the normalised training features; box = [feature_min, feature_max]; none = no clamp."`
	FeatureMin     float64 `yaml:"feature_min" default:"0" doc:"With clamp: box, the lower end (equal values: no clamp)."`
	FeatureMax     float64 `yaml:"feature_max" default:"1" doc:"With clamp: box, the upper end."`
}

// CrafterGradientCanary configures Crafter 4.
type CrafterGradientCanary struct {
	Coordinates  int    `yaml:"coordinates" default:"2" check:">=2" doc:"2n: canary coordinates (even); values ±C/√(2n), alternating."`
	MeasureSteps int    `yaml:"measure_steps" default:"0" check:">=0" doc:"Length of the adversary's reference run that finds the least-changing coordinates; 0 = min(T, 100)."`
	Measure      string `yaml:"measure" default:"clean_gradient" enum:"clean_gradient|param_change" doc:"What 'least change' measures in the reference run."`
}

// CrafterMalicious configures Crafter 5.
type CrafterMalicious struct {
	Size        int     `yaml:"size" default:"0" check:">=0" doc:"n: records of the malicious dataset; 0 = the training set's size."`
	Inputs      string  `yaml:"inputs" default:"uniform" enum:"uniform|pool" doc:"The dataset's inputs: uniform random features or pool records."`
	Low         float64 `yaml:"low" default:"0" doc:"Lower end of uniform features."`
	High        float64 `yaml:"high" default:"1" doc:"Upper end of uniform features."`
	Coordinates int     `yaml:"coordinates" default:"2" check:">=2" doc:"2n: coordinates of the gradient canary."`
}

// Distinguisher selects the attack that guesses the world from what the
// threat model releases.
type Distinguisher struct {
	Kind         string            `yaml:"kind" discriminator:"true" doc:"Distinguisher."`
	Loss         *DistEmpty        `kind:"loss_threshold" doc:"Distinguisher 1: the query record's loss on the final model (black box); low loss suggests world 1."`
	Intermediate *DistIntermediate `kind:"intermediate_loss" doc:"Distinguisher 2: the query's loss over every intermediate model, reduced by max or mean."`
	Watermark    *DistWatermark    `kind:"watermark" doc:"Distinguisher 3: the projection of the privatised gradients on the canary (llr: the Neyman–Pearson log-likelihood ratio)."`
}

// DistEmpty is a distinguisher without parameters.
type DistEmpty struct{}

// DistIntermediate configures Distinguisher 2.
type DistIntermediate struct {
	Reduce string `yaml:"reduce" default:"max" enum:"max|mean" doc:"The score used for the estimate (both are recorded per trial)."`
}

// DistWatermark configures Distinguisher 3.
type DistWatermark struct {
	Form      string `yaml:"form" default:"llr" enum:"llr|watermark|projection|decorrelated" doc:"The score used for the estimate (all three are recorded per trial). decorrelated: the one-run game's Dirac canaries under matrix-factorization noise, scored white-box by the projection of the decorrelated updates C·y on C·u (docs/mechanisms.md)."`
	Observe   string `yaml:"observe" default:"gradients" enum:"gradients|intermediate_models" doc:"Read the privatised sums directly, or recover them from parameter differences."`
	SkipSteps int    `yaml:"skip_steps" default:"0" check:">=0" doc:"Ignore the first steps."`
}

// Train asks for K independently seeded DP-SGD training runs per point.
type Train struct {
	Runs int       `yaml:"runs" default:"1" check:">=1" doc:"K: independently seeded training runs per point; accuracy is reported as the mean with a 95% interval over runs."`
	FIL  *TrainFIL `yaml:"fil" doc:"Account the per-sample Fisher information leakage of every run (Guo et al. 2022, Algorithm 1): columns fil_*."`
}

// Audit configures the empirical audit: trials of the distinguishing
// game, and the estimate of an ε lower bound from their scores.
type Audit struct {
	ThreatModel            string    `yaml:"threat_model" enum:"api_access|static_poison|intermediate_poison|adaptive_poison|gradient|malicious_dataset" doc:"What the adversary may do and see (Nasr et al. 2021, Table I); the crafter and distinguisher must fit in it. Required, except with audit.source."`
	Trials                 int       `yaml:"trials" check:">=4" doc:"Number of trials, alternating between the two worlds (trial i is in world i mod 2). Required, except with audit.source."`
	ShardSize              int       `yaml:"shard_size" default:"0" check:">=0" doc:"Trials per pipeline node; 0 = 64 for trained models, 65536 for the ideal mechanism. Results do not depend on it."`
	Estimator              string    `yaml:"estimator" default:"clopper_pearson" enum:"clopper_pearson|one_run|per_step" doc:"clopper_pearson: the ε lower bound of Nasr et al. Eq. 5 (estimate_family eps_delta_cp; a GDP estimate is reported beside it); one_run: the trials are canaries, each in with probability ½, audited by Steinke, Nasr & Jagielski (2023) (epsilon_lb, family one_run), and beside it the f-DP bound of Mahloujifar et al. (2024) and the order-statistics bound of Xiang et al. (2025) (columns one_run_fdp_*, one_run_os_*; they test a Gaussian-family claim). On a trained model, audit.trials canaries each in with probability ½ in ONE training run: Dirac gradient canaries scored by their LLR from the privatised updates (audit.canaries: gradient, the default; threat_model gradient, no crafter or distinguisher), or canary records scored by the final model's loss (audit.canaries: input; crafter and distinguisher loss_threshold). per_step (trained model, threat_model gradient): the per-step white-box audit of Nasr et al. (2023): audit.trials Dirac canaries in ONE run, half inserted at every step (with probability q) and half never; each step's privatised update on a canary's parameter, minus the data's clipped gradient, is one sample of the per-step mechanism; a Clopper–Pearson-based lower bound on the per-step μ in the claim's family is composed over T steps (estimate_family per_step_gdp: tests the Gaussian / subsampled-Gaussian claim, not (ε, δ)-DP in general; columns per_step_*)."`
	Canaries               string    `yaml:"canaries" default:"gradient" enum:"gradient|input" doc:"estimator one_run on a trained model: what the audit.trials canaries are. gradient: Dirac gradient canaries scored by their LLR from every privatised update (threat_model gradient, no crafter or distinguisher). input: canary RECORDS (Steinke, Nasr & Jagielski 2023, §7 black box): the crafter (random_record, mislabeled_record or noise_input) makes audit.trials distinct records (source pool: from the test split, added; source train: taken out of the training set; noise_input: fresh uniform inputs), each included in the training set with probability ½ in ONE DP-SGD run, scored by the distinguisher (loss_threshold: the final model's loss on each canary, lower = guess 'included', threat_model api_access; intermediate_loss: its loss on every intermediate model reduced by max or mean, threat_model intermediate_poison); the threat model must grant the crafter and distinguisher."`
	OneRun                 *OneRun   `yaml:"one_run" doc:"Guesses of the three one-run estimators (estimator: one_run), fixed before the canaries are scored; 0 = the default."`
	Headline               string    `yaml:"headline" enum:"eps_delta_cp|gdp_fit|one_run|one_run_fdp|one_run_order_stats|per_step_gdp" doc:"Copy one of the point's estimates into the headline_* columns (family, the claim it tests, validity, lower bound, point estimate, upper end, ratio to epsilon_accountant), so that a sweep over audit families gives one comparable row per family (examples/audit/tightness.yaml). clopper_pearson offers eps_delta_cp and gdp_fit, one_run offers one_run, one_run_fdp and one_run_order_stats, per_step offers per_step_gdp. Absent: no headline columns."`
	MeasureCPU             bool      `yaml:"measure_cpu" default:"false" doc:"Add audit_cpu_seconds: the CPU time measured while the point's craft and trial nodes ran (whenever they ran; nodes running at once share the process's CPU time equally, exact with -j 1). A measurement, not a result: it differs between runs and machines and is in no node key."`
	Confidence             float64   `yaml:"confidence" default:"0.95" check:">0,<1" doc:"Confidence level of the lower bound (two-sided Clopper–Pearson, α/2 per error rate)."`
	Threshold              string    `yaml:"threshold" default:"split" enum:"split|posthoc|bonferroni" doc:"split: choose the threshold on a seeded share of the trials, evaluate on the rest (valid); posthoc: maximise over thresholds on all trials (optimistic, labelled invalid, never a violation); bonferroni: a corrected scan over bonferroni_grid, or over a grid built from a seeded held-out share and evaluated on the rest (valid)."`
	SplitFraction          float64   `yaml:"split_fraction" default:"0.2" check:">0,<1" doc:"Share of each world's trials used to choose the split threshold (or to build the default Bonferroni grid). The default 0.2 leaves more trials to the bound than a half and gave more power in dpaudit selftest."`
	Splits                 int       `yaml:"splits" default:"1" check:">=1" doc:"k: threshold split draws k seeded splits, bounds each at α/k and reports the largest (Bonferroni over the splits: still valid). More power at large trial counts, k times the estimate's cost."`
	BonferroniGrid         []float64 `yaml:"bonferroni_grid" doc:"Thresholds (in the score's units, at least 2) scanned by threshold: bonferroni, fixed before the trials run, evaluated on all trials. If absent, 100 thresholds at quantiles of the pooled scores of a held-out share (split_fraction) of the trials, evaluated on the others."`
	Accountant             string    `yaml:"accountant" default:"best" enum:"best|pld|rdp|gdp" doc:"The accountant of the claim when claim.accountant is absent (epsilon_accountant is the claim's ε). best: the smaller of the RDP and PLD upper bounds (PLD's interval is coarsened automatically where its grid would be too large)."`
	Claim                  *Claim    `yaml:"claim" doc:"What the implementation claims about itself, which the audit tests: accountant, noise multiplier, sampling, clipping, adjacency. Every absent key is the trained configuration (dpsgd block, the crafter's adjacency). A violation means ε_lb above this claim's ε."`
	ClaimedNoiseMultiplier float64   `yaml:"claimed_noise_multiplier" default:"0" check:">=0" doc:"Deprecated spelling of claim.noise_multiplier (0 = absent); give one of the two."`
	Familywise             string    `yaml:"familywise" default:"holm" enum:"holm|none" doc:"Correction of the violation flag over the points of the run: holm (Holm's step-down at 1 − confidence family-wise, on the points' p-values) or none (each point at its own confidence)."`
	Runs                   int       `yaml:"runs" default:"1" check:">=1" doc:"estimator per_step: training runs (each with audit.trials Dirac canaries) whose per-step samples are pooled into ONE audit (audit.repeats repeats the whole audit)."`
	Repeats                int       `yaml:"repeats" default:"1" check:">=1" doc:"R: run the whole audit R times with derived seeds (repeat 0 is the audit of repeats: 1) and report the median, min and max of epsilon_lb over repeats, so seed noise is visible."`
	RandomInit             bool      `yaml:"random_init" default:"false" doc:"Draw a fresh initial model per trial instead of one fixed θ_0 (the fixed start is the stronger audit)."`

	// Sequential audits (audit/sequential.go).
	Stop       string      `yaml:"stop" default:"fixed" enum:"fixed|sequential" doc:"fixed: run audit.trials trials, then estimate. sequential: an anytime-valid audit — look at the trials at doubling trial counts (audit.sequential.first_look, twice that, …, audit.trials), each look with its own split threshold and miss probability α/(k(k+1)), and stop at the first look that refutes the claim (or when audit.trials, the budget, is spent); trials beyond the stopping look are not computed. Columns sequential_*."`
	Sequential *Sequential `yaml:"sequential" doc:"Settings of stop: sequential."`

	// WorstCaseInit stands apart so that gofmt's alignment of the block
	// above is untouched (merge-friendly); spec/types_lastiter.go.
	WorstCaseInit *WorstCaseInit `yaml:"worst_case_init" doc:"Last-iterate black-box audit with worst-case initial parameters (Annamalai & De Cristofaro 2024): θ_0 is pre-trained without privacy on held-out records of the training pool (disjoint from the training set) and fixed for every trial."`

	// Source stands apart for the same reason; spec/types_scores.go.
	Source *AuditSource `yaml:"source" doc:"Audit scores that were computed elsewhere: the estimate of dpaudit estimate on the user's own table (spec/types_scores.go). The threat model, trials, crafter, distinguisher and model do not apply; confidence, threshold, split_fraction, splits, bonferroni_grid, one_run, accountant, claim and familywise do."`
}

// Sequential configures a sequential audit (audit.stop: sequential).
type Sequential struct {
	FirstLook int    `yaml:"first_look" default:"0" check:">=0" doc:"Trials at the first look (≥ 20, ≤ audit.trials); later looks double it until audit.trials; 0 = 100."`
	Test      string `yaml:"test" enum:"profile|epsilon" doc:"What each look tests; absent: profile. profile: the claim's whole privacy profile, (ε, δ(ε))-DP at 24 values of ε in [0, ε_claim) from the claim's accountant and (ε_claim, δ) — what an accountant asserts, refuted far earlier by a moderate-FPR attack. epsilon: the single pair (ε_claim, δ), the fixed audit's test."`
}

// OneRun fixes how many guesses each one-run estimator makes. The number
// must be chosen before the scores are seen (choosing it after is a
// post-hoc scan); each estimator has its own because they are tight at
// different numbers (Steinke et al. at few confident guesses, the
// order-statistics bound of a Gaussian at all of them).
type OneRun struct {
	SteinkeGuesses    int `yaml:"steinke_guesses" default:"0" check:">=0" doc:"Guesses of the Steinke et al. audit: half 'included' for the highest scores, half 'excluded' for the lowest; 0 = 10% of the canaries."`
	FDPGuesses        int `yaml:"fdp_guesses" default:"0" check:">=0" doc:"Guesses of the f-DP audit (Mahloujifar et al.), two-sided as steinke_guesses; 0 = 10% of the canaries."`
	OrderStatsGuesses int `yaml:"order_stats_guesses" default:"0" check:">=0" doc:"Released guesses r of the order-statistics audit (Xiang et al.): the r canaries with the largest |log-likelihood ratio|, guessed by its sign; 0 = all canaries (tightest for the Gaussian; about 10% is tighter for the subsampled Gaussian)."`
}

// Claim is what a DP-SGD implementation asserts: the configuration its
// accountant analyses. Each absent key is taken from what was trained, so
// an empty claim audits the training against its own analysis; setting a
// key audits an implementation that trains one way and accounts another
// (shuffled batches accounted as Poisson, an under-noising bug).
type Claim struct {
	Accountant      string  `yaml:"accountant" enum:"best|pld|rdp|gdp" doc:"Accountant of the claimed ε; absent: audit.accountant."`
	NoiseMultiplier float64 `yaml:"noise_multiplier" check:">0" doc:"σ the implementation claims; absent: dpsgd.noise_multiplier. The crafter and distinguisher are told this σ."`
	Sampling        string  `yaml:"sampling" enum:"poisson|shuffle|fixed_size|balls_in_bins|cyclic" doc:"Batch sampling the accountant assumes; absent: dpsgd.sampling. fixed_size is accounted under replace_one adjacency only, balls_in_bins under add_remove by pld only; shuffle has no accountant (no tight upper bound is known) and is refused."`
	SamplingRate    float64 `yaml:"sampling_rate" check:">0,<=1" doc:"q the accountant assumes; absent: dpsgd.sampling_rate."`
	Steps           int     `yaml:"steps" check:">=1" doc:"T the accountant assumes; absent: dpsgd.steps."`
	Clip            string  `yaml:"clip" enum:"hard|soft" doc:"Clipping the accountant assumes; absent: dpsgd.clip. soft: sensitivity 1.11524·C (Guo et al.'s clip), accounted as σ/1.11524."`
	Adjacency       string  `yaml:"adjacency" enum:"add_remove|replace_one|replace_one_sigma_half|replace" doc:"Neighbouring datasets of the claim; absent: dpsgd.adjacency. replace_one: one record replaced by another, accounted exactly (the ±C mixture pair, dp_accounting's REPLACE_ONE); it needs a game whose worlds differ by a replacement (the ideal mechanism with dpsgd.adjacency replace_one, crafter swapped_label). replace_one_sigma_half (older name: replace): replace-one accounted as add/remove at sensitivity 2C (σ/2), a loose upper bound that also covers an add/remove game."`

	// Correlated stands apart so that gofmt's alignment of the block above
	// is untouched (merge-friendly); spec/types_correlated.go.
	Correlated *Correlated `yaml:"correlated" doc:"The matrix-factorization strategy and participation schema the accountant assumes; absent: dpsgd.correlated. Setting it audits an implementation that accounts another strategy than it trains (e.g. max_participations below what was trained)."`
}

// Bound is one theoretical value computed per point.
type Bound struct {
	Kind       string           `yaml:"kind" discriminator:"true" doc:"Bound kind."`
	Accountant *AccountantBound `kind:"accountant" doc:"Privacy accountants: ε at the point's δ (and δ at a given ε)."`
	Rero       *ReroBound       `kind:"rero" doc:"Reconstruction robustness (Hayes, Mahloujifar & Balle 2023, Corollary 4): the largest success probability of any reconstruction attack against a prior, from the point's dpsgd (σ, q, T). Columns rero_*."`
	MSE        *MSERDPBound     `kind:"mse_rdp" doc:"Lower bound on the per-coordinate MSE of unbiased reconstruction from order-2 Rényi DP (Guo et al. 2022, Theorem 1). Columns mse_rdp_epsilon, mse_lower_bound."`
	Minimax    *MinimaxBound    `kind:"minimax_mse" doc:"Minimax lower bounds on the total squared reconstruction error E‖ẑ − z‖² (Mukherjee & Lokam 2023). Columns minimax_*."`
	Belief     *BeliefBound     `kind:"belief" doc:"Bounds on the posterior belief ρ_β and the advantage ρ_α of the DP adversary, who knows both neighbouring datasets (Bernau et al. 2021). Columns rho_beta, rho_alpha, belief_*."`
	Risk       *RiskBound       `kind:"risk" doc:"What the point's accountant means for an attacker, read off its trade-off curve: membership advantage, TPR at given FPRs, Bayes accuracy, reconstruction (attribute-inference, re-identification) success at a baseline (Kulynych et al. 2025), and the μ-GDP fit (an approximation). Columns risk_*."`
}

// ReroBound is the reconstruction-robustness bound of Hayes et al. for the
// point's DP-SGD, with optional comparators. The prior is given by its size
// (uniform, exact reconstruction: κ = 1/n) or directly by κ.
type ReroBound struct {
	PriorSize  int      `yaml:"prior_size" check:">=2" doc:"n: size of a uniform prior over candidates, success = exact reconstruction, so κ = 1/n. Give prior_size or kappa."`
	Kappa      float64  `yaml:"kappa" check:">0,<1" doc:"κ: the prior's baseline success probability (the best guess without seeing the output), instead of prior_size."`
	Method     string   `yaml:"method" default:"exact" enum:"exact|robust|montecarlo" doc:"How the bound B_κ(μ, ν) is computed: exact = privacy-loss distributions composed by FFT, a guaranteed bracket (deterministic, milliseconds); robust = Neyman–Pearson Monte Carlo with an exact confidence interval; montecarlo = the paper's Algorithm 1 (under-estimates at large ε)."`
	Samples    int      `yaml:"samples" default:"1000000" check:">=1" doc:"N: Monte Carlo samples of the robust and montecarlo methods and of the guo_fano_mc comparator; ⌈κN⌉ must be ≥ 100."`
	Confidence float64  `yaml:"confidence" default:"0.999" check:">0,<1" doc:"Confidence of the Monte Carlo interval [rero_gamma_lo, rero_gamma_hi] (the exact bracket always holds)."`
	Tolerance  float64  `yaml:"tolerance" default:"0.001" check:">0,<1" doc:"exact: the widest bracket rero_gamma_hi − rero_gamma_lo accepted before the grid is refined."`
	Compare    []string `yaml:"compare" enum:"rdp|guo_fano|guo_fano_mc" doc:"Comparators, each adding columns: rdp = the RDP bound of Balle et al. 2022 (Hayes et al. Eq. 2 at q = 1); guo_fano = Guo et al.'s Fano bound (Hayes et al. Table 2); guo_fano_mc = the same with Monte Carlo mutual information. guo_fano* need prior_size."`
}

// MSERDPBound is Theorem 1 of Guo et al. (2022) for unbiased attackers on
// data in a box whose coordinates all have the same range.
type MSERDPBound struct {
	Epsilon  float64 `yaml:"epsilon" check:">0" doc:"ε (nats) of (2, ε)-RDP: the order-2 Rényi DP of the whole training run. Absent: from the point's dpsgd, T·log(1 + q²(e^{1/σ²} − 1)), with σ/1.115 when dpsgd.clip is soft (Guo et al.'s code)."`
	Diameter float64 `yaml:"diameter" default:"1" check:">0" doc:"diam_i: the range of every input coordinate (1 for pixels in [0, 1]), in data units."`
}

// MinimaxBound holds the lower bounds of Mukherjee & Lokam (2023) on the
// minimax reconstruction error, and Guo et al.'s bound as they compare it.
type MinimaxBound struct {
	Epsilon            float64 `yaml:"epsilon" check:">0" doc:"ε (nats) of the learner, plugged into every bound as the paper compares them (its Fig. 1): (ε, δ)-DP for Theorem 4.1, (alpha, ε)-RDP for Corollary E.2, (ε_L, δ)-metric DP for Theorems E.4 and 4.4, (2, ε)-RDP for Guo et al. Absent: from the point's dpsgd (see accountant); the metric-DP columns are then left out."`
	Delta              float64 `yaml:"delta" check:">=0,<1" doc:"δ, only with epsilon (absent: 0, pure DP). With ε from dpsgd, δ is dpsgd.delta."`
	Models             int     `yaml:"models" default:"1" check:">=1" doc:"n: i.i.d. trained models the adversary observes (the paper's query budget)."`
	Diameter           float64 `yaml:"diameter" default:"1" check:">0" doc:"diam(Z): the diameter of the data space in its metric (Theorem 4.1, Corollary E.2)."`
	Dimension          int     `yaml:"dimension" check:">=1" doc:"d: the data dimension, for the high-dimensional bound (Theorem 4.4) and Guo et al.'s comparator (Σ diam_i² = d·diam², the paper's App. E.3.1); absent: those columns are left out."`
	EffectiveDimension string  `yaml:"effective_dimension" default:"low" enum:"low|high" doc:"d̃ of Theorem 4.4 for a d-dimensional normed space: low = d·ln 2, high = d·ln 5 (the covering bounds of Lemma D.1)."`
	Alpha              float64 `yaml:"alpha" default:"2" check:">1" doc:"α: the Rényi order of Corollary E.2."`
	MDPConstant        string  `yaml:"mdp_constant" default:"paper" enum:"paper|separation_corrected" doc:"Theorem E.4: paper = (1 − δ)/(2·n·e·ε_L²); separation_corrected = a factor 4 smaller (the proof's two points are 2t apart)."`
	Accountant         string  `yaml:"accountant" default:"rdp" enum:"rdp|pld|gdp" doc:"With ε from dpsgd: the accountant giving ε at dpsgd.delta."`
	Conversion         string  `yaml:"conversion" default:"classic" enum:"classic|improved" doc:"RDP → (ε, δ) conversion of accountant rdp (classic: Mironov's, as the papers use)."`
}

// BeliefBound holds the identifiability bounds of Bernau et al. (2021).
// ε is given, chosen from a target ρ_β or ρ_α, or accounted from dpsgd.
type BeliefBound struct {
	Epsilon        float64 `yaml:"epsilon" check:">0" doc:"ε (nats) of the whole training run (total over all steps). Give at most one of epsilon, target_rho_beta, target_rho_alpha; none: ε from the point's dpsgd (see accountant)."`
	TargetRhoBeta  float64 `yaml:"target_rho_beta" check:">0.5,<1" doc:"Choose ε from a target posterior belief ρ_β ∈ (0.5, 1): ε = ln(ρ_β/(1 − ρ_β)) (Eq. 10)."`
	TargetRhoAlpha float64 `yaml:"target_rho_alpha" check:">0,<1" doc:"Choose ε from a target advantage ρ_α ∈ (0, 1) at delta: ε = 2·c(δ)·Φ⁻¹((ρ_α + 1)/2), c(δ) = √(2 ln(1.25/δ)) (Eq. 15 with the factor 2 it drops)."`
	Delta          float64 `yaml:"delta" check:">0,<1" doc:"δ of ρ_α and of the expected confidence; absent: dpsgd.delta."`
	Accountant     string  `yaml:"accountant" default:"rdp" enum:"rdp|pld|gdp" doc:"With ε from dpsgd: the accountant giving ε at δ (rdp with the classic conversion is the paper's Eq. 17)."`
	Conversion     string  `yaml:"conversion" default:"classic" enum:"classic|improved" doc:"RDP → (ε, δ) conversion of accountant rdp."`
}

// AccountantBound computes ε (and optionally δ) with one or more accountants.
type AccountantBound struct {
	Accountants []string `yaml:"accountants" default:"[rdp, pld, gdp]" enum:"rdp|pld|gdp|best" check:"nonempty" doc:"Accountants to run; each adds a column epsilon_<name>. best: the smallest valid upper bound (RDP, PLD, and GDP where it is exact, q = 1), with column best_accountant naming the winner. gdp is the CLT approximation except at q = 1, where it is exact."`
	Conversion  string   `yaml:"conversion" default:"improved" enum:"improved|classic" doc:"RDP → (ε, δ) conversion."`
	PLDInterval float64  `yaml:"pld_interval" default:"1e-4" check:">0,<=0.1" doc:"PLD discretisation interval of the privacy loss. Where the composed grid would not fit in pld_memory_mib the interval is coarsened by a power of two until it fits (column pld_interval_used)."`
	PLDMemMiB   int64    `yaml:"pld_memory_mib" check:">0" doc:"Memory (MiB) the PLD grids may use before the interval is coarsened; absent: a quarter of this machine's RAM (the interval used then depends on the machine; see pld_interval_used)."`
	Epsilon     float64  `yaml:"epsilon" check:">0" doc:"If set, also report δ at this ε (columns delta_<accountant>)."`
	Adjacency   string   `yaml:"adjacency" enum:"add_remove|replace_one|replace_one_sigma_half" doc:"Neighbouring relation to account; absent: dpsgd.adjacency. E.g. add_remove beside a replace-one audit, to show where its ε_lb falls."`
}

// Sweep says which parameters vary across points.
type Sweep struct {
	Grid  SweepAxes `yaml:"grid" doc:"Cartesian product of the listed values, first key outermost."`
	Zip   SweepAxes `yaml:"zip" doc:"Lists advanced in lockstep (all the same length); combined with grid as a product."`
	Where string    `yaml:"where" doc:"Filter expression; points where it is false are dropped."`
}

// SweepAxes maps a spec path (dpsgd.noise_multiplier, bound[0].pld_interval)
// or a variable name to its values: a list, or {linspace|logspace: [a, b, n]}.
// The order of keys in the file is kept.
type SweepAxes []SweepAxis

// SweepAxis is one swept key with its values.
type SweepAxis struct {
	Key    string
	Values []*Node
	Pos    Pos
}
