package spec

// WorstCaseInit crafts the worst-case initial parameters of a last-iterate
// black-box audit (Annamalai & De Cristofaro, NeurIPS 2024): DP-SGD's
// analysis holds for every θ_0, so the auditor pre-trains θ_0 (plain SGD,
// no clipping or noise) on records it holds out of the training pool. The
// other records' gradients are then small at θ_0 and the target's gradient
// dominates what the final model reveals. The defaults are the paper's
// MNIST pre-training (craft_initial_params.ipynb).
type WorstCaseInit struct {
	HeldOut      int     `yaml:"held_out" required:"true" check:">=1" doc:"Records of the dataset's training pool, outside the training set (dataset.train_size), that θ_0 is pre-trained on (the paper: 30,000, half of MNIST). More than the pool holds beyond the training set is an error."`
	Epochs       int     `yaml:"epochs" default:"5" check:">=1" doc:"Passes of the pre-training over the held-out records."`
	BatchSize    int     `yaml:"batch_size" default:"32" check:">=1" doc:"Minibatch size of the pre-training (mean loss per batch)."`
	LearningRate float64 `yaml:"learning_rate" default:"0.01" check:">0" doc:"SGD learning rate of the pre-training."`
}
