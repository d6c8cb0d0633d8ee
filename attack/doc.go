// Package attack instantiates the adversaries of DP-SGD audits: the six
// of Nasr et al. (2021), "Adversary Instantiation: Lower Bounds for
// Differentially Private Machine Learning" (reference note
// ../shared/reference/nasr2021-adversary-instantiation.md), plus the
// common canaries of other auditing tools.
//
// # The game
//
// An adversary is a Crafter and a Distinguisher (§III-B). The crafter
// chooses two neighbouring worlds once per audit point (the craft stage)
// and returns a serialisable Crafted. A trial (Game.RunTrial) picks the
// world bit b — balanced, b = trial index mod 2 (WorldOf) — trains with
// learn.Train on world b from the trial's own random stream
// (rng.New(seed, "trial", point, trial), TrialStream), and hands the
// distinguisher exactly what the threat model releases; the distinguisher
// returns scores, and package audit turns scores and world bits into an
// empirical ε. Trials are independent and deterministic in their stream,
// so they can be sharded freely.
//
// # Threat models are enforced
//
// Every crafter and distinguisher declares its Access: an Observation
// level (black box < final model < intermediate models < gradients) and a
// set of Capabilities (insert a record, rewrite it every step, insert a
// gradient, choose the dataset, choose hyperparameters). CheckPair — spec
// validation — and NewGame reject a pair that needs more than the threat
// model grants, or that cannot work together. The trial runner gives a
// black-box distinguisher a LossOracle whose dynamic type has no
// parameters or gradients, an intermediate-model distinguisher a StepView
// per step (no gradients), and a gradient distinguisher a
// GradientStepView with the privatised sum; none sees the batch or the
// canary draw.
//
// # The adversaries (Table I of the paper)
//
//	threat model         crafter            distinguisher
//	api_access           RandomRecord       LossThreshold
//	static_poison        StaticPoison       LossThreshold
//	intermediate_poison  StaticPoison       IntermediateLoss
//	adaptive_poison      AdaptivePoison     IntermediateLoss
//	gradient             GradientCanary     Watermark
//	malicious_dataset    MaliciousDataset   Watermark (gradients)
//
// MislabeledRecord, ConstantInput and NoiseInput are the usual canaries
// of other audits (insert one record; score with either loss
// distinguisher). IdealMechanism simulates the malicious-dataset game's
// scalar observation stream without a model.
//
// # Testing implementations
//
// GameConfig.ClaimedNoiseMultiplier trains with σ_actual while the
// Watermark LLR (and the caller's accountant) are told σ_claimed: an audit
// of an implementation that under-noises must report a violation.
//
// # Cost
//
// A trial costs one DP-SGD run plus the distinguisher's work: nothing for
// LossThreshold, one forward pass of one record per step for
// IntermediateLoss, a sparse dot product over the canary's coordinates per
// step for Watermark. Crafting is free for record canaries, one reference
// run for GradientCanary and MaliciousDataset, and Shadows shadow runs
// for StaticPoison. AdaptivePoison adds InnerSteps double
// backpropagations per step to every world-1 trial.
package attack
