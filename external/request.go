// Package external is the protocol between dpaudit and a training command
// it does not implement (a PyTorch, JAX or Opacus script): dpaudit decides
// what each run trains on and which canaries are in, writes that down as a
// request, runs the command, and reads back the scores the threat model
// lets an auditor see. The statistics stay dpaudit's.
//
// One call is one run of the command for one or more trials:
//
//  1. dpaudit writes <call>/request.json (Request, versioned) and makes
//     <call>/out/;
//  2. it runs the command with the request's path as its last argument
//     (and in $DPAUDIT_REQUEST), in its own process group, killed whole
//     at the timeout;
//  3. the command writes <call>/out/observations.csv, .jsonl or .npy
//     (one row per trial and canary — and step, when the request's report
//     is per step: trial, canary, [step,] score) and
//     <call>/out/hyperparameters.json (Hyperparameters: what it trained
//     with), or <call>/out/refusal.txt saying why it cannot serve the
//     request;
//  4. dpaudit checks the table against the request (Read): every
//     (trial, canary[, step]) exactly once, finite scores, the
//     hyperparameters the request asked for.
//
// Data travel as .npy files, which numpy reads with nothing else
// installed. The package knows nothing of specs or stores: it is handed
// paths and a Request and returns scores or an error that wraps
// ErrInvalid (the trainer is the user's input).
package external

import (
	"encoding/json"
	"fmt"
	"math"
	"os"

	"github.com/dpaudit/dpaudit/internal/inputerr"
)

// ErrInvalid is wrapped by every error a trainer or its output causes.
var ErrInvalid = inputerr.ErrInvalid

// Protocol and Version name the request format. A change that an existing
// trainer could misread raises Version. Version 2 added the per-step
// reports (step_loss, step_projection) and the step column; a request
// with report final_loss means what it meant in version 1, and a version-1
// trainer's output (no step column) is read as before.
const (
	Protocol = "dpaudit-external-trainer"
	Version  = 2
)

// The games a request can ask for.
const (
	// GameMembership is the classic membership game: each trial is one
	// training run in world 0 (without the canary) or world 1 (with it);
	// the trainer scores the one canary.
	GameMembership = "membership"
	// GameOneRun is the one-run game (Steinke, Nasr & Jagielski 2023):
	// one training run with each of m canaries in or out by its own bit;
	// the trainer scores every canary.
	GameOneRun = "one_run"
)

// What a request asks the trainer to report: what the audit's threat
// model lets an auditor see.
const (
	// ReportFinalLoss (black box, api_access): the final model's loss on
	// each canary, one score per trial and canary.
	ReportFinalLoss = "final_loss"
	// ReportStepLoss (intermediate models, intermediate_poison): the loss
	// on each canary of θ_{t+1}, the parameters after step t, for
	// t = 0…T−1.
	ReportStepLoss = "step_loss"
	// ReportStepProjection (white box, gradient): step t's released
	// update — the clipped per-example gradients summed plus the noise,
	// before any division by the batch size — projected on the canary's
	// own gradient direction at θ_t: ⟨s_t, g_c⟩/‖g_c‖, in the units of the
	// sum (an included canary adds at most C).
	ReportStepProjection = "step_projection"
)

// PerStep says whether a report has one score per step.
func PerStep(report string) bool {
	return report == ReportStepLoss || report == ReportStepProjection
}

// Request is one call's request.json.
type Request struct {
	Protocol string `json:"protocol" doc:"Always dpaudit-external-trainer."`
	Version  int    `json:"version" doc:"Protocol version (2; version 1 had only report final_loss). A trainer refuses versions it does not know."`
	Game     string `json:"game" doc:"membership (each trial trains in world 0 without the canary or world 1 with it) or one_run (one run, each canary in by its own bit)."`
	Call     int    `json:"call" doc:"The call's index within the point (0, 1, …), for messages."`
	Point    string `json:"point" doc:"The point's key: with seed, point and trial a trial's randomness is named."`
	Threat   string `json:"threat_model" doc:"The audit's threat model (api_access: only the final model's losses; intermediate_poison: every intermediate model; gradient, malicious_dataset: every released update)."`
	Report   string `json:"report" doc:"What each score is: final_loss (the final model's loss on the canary; one row per trial and canary), step_loss (the canary's loss on θ_{t+1}, after step t) or step_projection (step t's released sum of clipped gradients plus noise projected on the canary's gradient direction at θ_t, in the units of the sum); the step reports have one row per trial, canary and step t = 0…T−1."`
	// DPSGD is the mechanism the audit claims: train with exactly these.
	DPSGD Hyperparameters `json:"dpsgd" doc:"The DP-SGD parameters to train with."`
	// Model is the spec's model.params, passed through untouched.
	Model    map[string]any `json:"model" doc:"model.params of the spec, passed through untouched."`
	Data     Data           `json:"data" doc:"The training set as dpaudit resolved it."`
	Canaries Canaries       `json:"canaries" doc:"The canary records."`
	Trials   []Trial        `json:"trials" doc:"The trials of this call."`
	Output   string         `json:"output_dir" doc:"Where the trainer writes observations.{csv,jsonl,npy} and hyperparameters.json (or refusal.txt)."`
}

// Canaries is m: how many canaries each trial scores (1 in the membership
// game).
func (r *Request) canaries() int {
	if r.Game == GameOneRun {
		return r.Canaries.Count
	}
	return 1
}

// Steps is how many scores each trial and canary has: T for a per-step
// report, 1 for the final loss.
func (r *Request) Steps() int {
	if PerStep(r.Report) {
		return r.DPSGD.Steps
	}
	return 1
}

// Hyperparameters are DP-SGD's parameters: asked for in the request, and
// reported back by the trainer as what it used.
type Hyperparameters struct {
	NoiseMultiplier float64 `json:"noise_multiplier" doc:"σ: noise standard deviation over the clip norm."`
	SamplingRate    float64 `json:"sampling_rate" doc:"q: each record is in a step's batch with probability q (Poisson sampling)."`
	Steps           int     `json:"steps" doc:"T: optimiser steps."`
	ClipNorm        float64 `json:"clip_norm" doc:"C: per-example gradient clipping norm."`
	LearningRate    float64 `json:"learning_rate" doc:"SGD learning rate."`
	Momentum        float64 `json:"momentum" doc:"SGD momentum."`
	WeightDecay     float64 `json:"weight_decay" doc:"L2 weight decay."`
	Sampling        string  `json:"sampling" doc:"poisson (each record in each step's batch with probability q: what the accountant analyses), or the spec's dpsgd.sampling (shuffle, fixed_size, balls_in_bins) when the trained sampler differs from the claim."`
	Clip            string  `json:"clip" doc:"hard (Abadi et al.) or soft."`
	Adjacency       string  `json:"adjacency" doc:"add_remove: neighbouring datasets differ by one record."`
	// ExpectedBatchSize is the constant the clipped, noised gradient sum
	// is divided by (a post-processing: any constant that does not depend
	// on the data keeps the guarantee).
	ExpectedBatchSize float64 `json:"expected_batch_size,omitempty" doc:"The constant the noisy gradient sum is divided by: q·n (one_run: q·(n + m/2), so that it does not depend on which canaries are in). A trainer may leave it out of hyperparameters.json."`
}

// Data is the training set as .npy files: X of shape [N, features…]
// (float32), Y of shape [N] (int64 labels).
type Data struct {
	X       string `json:"x" doc:"Path of the features, float32 .npy of shape [n, …]."`
	Y       string `json:"y" doc:"Path of the labels, int64 .npy of shape [n]."`
	Digest  string `json:"sha256" doc:"SHA-256 of the x file then the y file (hex): the export's identity."`
	N       int    `json:"n" doc:"Number of records."`
	Shape   []int  `json:"shape" doc:"Shape of one record's features."`
	Classes int    `json:"classes" doc:"Number of classes."`
}

// Canaries are the canary records as .npy files, canary j at row j.
type Canaries struct {
	X     string `json:"x" doc:"Path of the canaries' features, float32 .npy of shape [m, …]."`
	Y     string `json:"y" doc:"Path of the canaries' labels, int64 .npy of shape [m]."`
	Count int    `json:"count" doc:"m: number of canaries."`
}

// Trial is one training run of a call.
type Trial struct {
	Trial int    `json:"trial" doc:"The trial's index in the audit."`
	Seed  uint64 `json:"seed" doc:"Seed of the run's sampling and noise, derived from (spec seed, point, trial)."`
	// InitSeed is θ_0's: one for the whole audit (the stronger audit),
	// or per trial with audit.random_init.
	InitSeed uint64 `json:"init_seed" doc:"Seed of the initial parameters: the same for every trial of the audit unless audit.random_init."`
	// World is the classic game's bit: 1 trains with canary 0 added.
	World *int `json:"world,omitempty" doc:"membership: 1 = train on the data plus canary 0, 0 = the data alone."`
	// Include is the one-run game's bits: canary j is trained on iff
	// Include[j].
	Include []bool `json:"include,omitempty" doc:"one_run: canary j is added to the training set iff include[j]."`
}

// Write writes r as path (indented JSON).
func (r *Request) Write(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Rows is the number of observations the request asks for: trials ×
// canaries × steps.
func (r *Request) Rows() int { return len(r.Trials) * r.canaries() * r.Steps() }

// relTol is how far a reported float may be from the requested one: the
// trainer echoes what it read, so only a printing round-off is allowed.
const relTol = 1e-9

// Mismatch lists how used differs from asked (none when they agree).
func (asked Hyperparameters) Mismatch(used Hyperparameters) []string {
	var out []string
	f := func(name string, a, u float64) {
		if math.Abs(a-u) > relTol*math.Max(math.Abs(a), math.Abs(u)) || math.IsNaN(u) {
			out = append(out, fmt.Sprintf("%s %g (requested %g)", name, u, a))
		}
	}
	s := func(name, a, u string) {
		if a != u {
			out = append(out, fmt.Sprintf("%s %q (requested %q)", name, u, a))
		}
	}
	f("noise_multiplier", asked.NoiseMultiplier, used.NoiseMultiplier)
	f("sampling_rate", asked.SamplingRate, used.SamplingRate)
	f("steps", float64(asked.Steps), float64(used.Steps))
	f("clip_norm", asked.ClipNorm, used.ClipNorm)
	f("learning_rate", asked.LearningRate, used.LearningRate)
	f("momentum", asked.Momentum, used.Momentum)
	f("weight_decay", asked.WeightDecay, used.WeightDecay)
	if used.ExpectedBatchSize != 0 {
		f("expected_batch_size", asked.ExpectedBatchSize, used.ExpectedBatchSize)
	}
	s("sampling", asked.Sampling, used.Sampling)
	s("clip", asked.Clip, used.Clip)
	s("adjacency", asked.Adjacency, used.Adjacency)
	return out
}

// ReportFor is what a trainer reports under a threat model: the final
// model's losses (api_access), every intermediate model's (intermediate
// _poison) or every step's projected update (gradient, malicious_dataset);
// "" for a threat model the protocol does not serve.
func ReportFor(threat string) string {
	switch threat {
	case "api_access":
		return ReportFinalLoss
	case "intermediate_poison":
		return ReportStepLoss
	case "gradient", "malicious_dataset":
		return ReportStepProjection
	}
	return ""
}
