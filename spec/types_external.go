package spec

// Trainer is a training command dpaudit does not implement (a PyTorch,
// JAX or Opacus script) that trains the membership games' runs: dpaudit
// writes each call's request (what to train on, which canaries are in,
// the DP-SGD parameters, the seeds), runs the command, and reads back the
// canaries' scores (package external; docs/external-trainers.md). It goes
// with model: {arch: external}.
type Trainer struct {
	Command       []string       `yaml:"command" required:"true" check:"nonempty" doc:"The program and its arguments; the request's path is appended (and in $DPAUDIT_REQUEST). A relative program with a '/' is relative to workdir; a bare name is searched in PATH."`
	Inputs        []string       `yaml:"inputs" doc:"Files the command reads besides the ones its arguments name (modules it imports, configs): glob patterns relative to the spec file's folder; a directory stands for every file under it. Their SHA-256s enter each call's cache key, so editing one trains again. A pattern that matches nothing is an error."`
	Workdir       string         `yaml:"workdir" doc:"Working directory of the command, relative to the spec file's folder (default: that folder)."`
	Env           map[string]any `yaml:"env" doc:"Environment variables added to the command's (name: value)."`
	Timeout       float64        `yaml:"timeout" default:"3600" check:">=0" doc:"Seconds one call may run before its whole process group is killed (0 = no limit)."`
	TrialsPerCall int            `yaml:"trials_per_call" default:"16" check:">=1" doc:"Trials one call trains (the classic game): the interpreter and framework start once per call. One-run audits train one run per call. Results do not depend on it."`
}

// ModelExternal is a model only the trainer command knows.
type ModelExternal struct {
	Params map[string]any `yaml:"params" doc:"Free parameters passed through to the trainer's request untouched (model in request.json); part of the point, so a changed value trains again."`
}
