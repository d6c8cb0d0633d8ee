package spec

import (
	"strings"
	"testing"
)

// The trainer block and model: {arch: external} need each other, and the
// games the external-trainer protocol does not cover are positioned
// errors at the key that asks for them.
func TestExternalTrainerSpecErrors(t *testing.T) {
	const audit = `name: x
dataset: {source: digits}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 10}
crafter: {kind: mislabeled_record}
distinguisher: {kind: loss_threshold}
`
	for _, c := range []struct{ body, want string }{
		{audit + "model: {arch: logreg}\ntrainer: {command: [python3, t.py]}\naudit: {threat_model: api_access, trials: 100}\n",
			"quick.yaml:7:10: trainer: a trainer block trains model: {arch: external}"},
		{audit + "model: {arch: external}\naudit: {threat_model: api_access, trials: 100}\n",
			"quick.yaml:6:15: model.arch: model external is trained by a command"},
		{audit + "model: {arch: external}\ntrainer: {command: [t]}\naudit: {threat_model: gradient, trials: 100, estimator: per_step}\n",
			"audit.estimator: the external-trainer protocol does not cover the per-step estimator yet"},
		{audit + "model: {arch: external}\ntrainer: {command: [t]}\naudit: {threat_model: gradient, trials: 100}\n",
			"distinguisher.kind: under threat_model gradient an external trainer reports step_projection: use distinguisher watermark, got loss_threshold"},
		{audit + "model: {arch: external}\ntrainer: {command: [t]}\naudit: {threat_model: static_poison, trials: 100}\n",
			"audit.threat_model: an external trainer reports the final model's losses"},
		{audit + "model: {arch: external}\ntrainer: {command: [t]}\naudit: {threat_model: api_access, trials: 100, stop: sequential, estimator: one_run, canaries: input}\n",
			"audit.stop: with an external trainer a sequential audit is the classic game's"},
		{audit + "model: {arch: external}\ntrainer: {command: [t]}\naudit: {threat_model: api_access, trials: 100, estimator: one_run}\n",
			"audit.canaries: with an external trainer the one-run canaries are records"},
		{audit + "model: {arch: external}\ntrainer: {command: []}\naudit: {threat_model: api_access, trials: 100}\n",
			"trainer.command"},
	} {
		_, _, err := expand(t, c.body, Options{})
		mustErr(t, err, c.want)
	}
	ok := audit + "model: {arch: external, params: {hidden: 8}}\ntrainer: {command: [t], env: {A: 1}}\naudit: {threat_model: api_access, trials: 100}\n"
	pts, _, err := expand(t, ok, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Every step's update, white box; the losses of every intermediate model.
	for _, body := range []string{
		strings.Replace(ok, "api_access", "gradient", 1),
		strings.Replace(ok, "api_access", "intermediate_poison", 1),
	} {
		body = strings.Replace(body, "distinguisher: {kind: loss_threshold}", "distinguisher: {kind: watermark}", 1)
		if strings.Contains(body, "intermediate_poison") {
			body = strings.Replace(body, "{kind: watermark}", "{kind: intermediate_loss}", 1)
		}
		if _, _, err := expand(t, body, Options{}); err != nil {
			t.Errorf("%v", err)
		}
	}
	if tr := pts[0].Exp.Trainer; tr.TrialsPerCall != 16 || tr.Timeout != 3600 || pts[0].Exp.Model.External.Params["hidden"] != int64(8) {
		t.Errorf("trainer %+v model %+v", tr, pts[0].Exp.Model.External)
	}
}
