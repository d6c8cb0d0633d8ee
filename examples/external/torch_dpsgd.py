#!/usr/bin/env python3
"""DP-SGD in PyTorch as a dpaudit external trainer (protocol version 2).

dpaudit runs `python3 torch_dpsgd.py [--bug NAME] REQUEST.json`; this
script trains every trial the request lists and writes what the request's
report asks for (docs/external-trainers.md): the final model's loss on
each canary (final_loss), its loss after every step (step_loss), or every
step's released update projected on the canary's gradient direction
(step_projection). Needs numpy and torch with functorch (Debian 12:
python3-torch, which ships functorch).

Honest DP-SGD: Poisson sampling with rate q, per-example gradients
(functorch vmap), each clipped to norm C, summed, Gaussian noise of std
sigma*C added, divided by the request's expected batch size, plain SGD.

--bug NAME plants one of the implementation bugs audits find:
  noise_unscaled   noise std sigma instead of sigma*C (right only for C = 1)
  clip_after_sum   the batch's summed gradient is clipped, not each example's
  shuffle_batches  shuffled epochs (DataLoader(shuffle=True)): a fresh
                   permutation per epoch cut into fixed batches of
                   round(q*n), every record once per epoch, accounted as
                   Poisson
  unnoised_bias    no noise on the bias (one parameter group forgotten)
"""
import argparse
import json
import os

import numpy as np
import torch
from functorch import grad, make_functional, vmap

BUGS = ("noise_unscaled", "clip_after_sum", "shuffle_batches", "unnoised_bias")
REPORTS = ("final_loss", "step_loss", "step_projection")


def model_for(params, in_dim, classes):
    hidden = params.get("hidden") or []
    if isinstance(hidden, int):
        hidden = [hidden]
    layers, d = [torch.nn.Flatten()], in_dim
    for h in hidden:
        layers += [torch.nn.Linear(d, h), torch.nn.Tanh()]
        d = h
    layers.append(torch.nn.Linear(d, classes))
    return torch.nn.Sequential(*layers)


def batches(n, q, steps, gen, bug):
    """The index tensor of every step's batch."""
    if bug != "shuffle_batches":
        for _ in range(steps):  # Poisson: each record with probability q
            yield torch.nonzero(torch.rand(n, generator=gen) < q).flatten()
        return
    size = max(1, int(round(q * n)))
    perm, k = None, n // size
    for t in range(steps):
        if t % k == 0:
            perm = torch.randperm(n, generator=gen)
        yield perm[(t % k) * size:(t % k + 1) * size]


def flat(tensors):
    return torch.cat([t.reshape(-1) for t in tensors])


def train(req, x, y, cx, cy, bug):
    """Trains one trial; returns the final parameters and the per-step
    observations (a list of steps, each a list over canaries), if any."""
    hp, report = req["dpsgd"], req["report"]
    sigma, q, steps, C, lr = hp["noise_multiplier"], hp["sampling_rate"], hp["steps"], hp["clip_norm"], hp["learning_rate"]
    norm = hp["expected_batch_size"]
    gen = torch.Generator().manual_seed(req["_trial"]["seed"] % (1 << 63))
    torch.manual_seed(req["_trial"]["init_seed"] % (1 << 63))
    model = model_for(req.get("model") or {}, int(np.prod(x.shape[1:])), req["data"]["classes"])
    fmodel, theta = make_functional(model)

    def loss1(th, xi, yi):
        out = fmodel(th, xi.unsqueeze(0))
        return torch.nn.functional.cross_entropy(out, yi.unsqueeze(0))

    per_example = vmap(grad(loss1), in_dims=(None, 0, 0))
    theta = [t.detach() for t in theta]
    observed = []
    project = report == "step_projection"
    for idx in batches(len(y), q, steps, gen, bug):
        summed = [torch.zeros_like(t) for t in theta]
        if project:
            # The canaries' gradients at θ_t ride in the batch's vmap call.
            g = per_example(theta, torch.cat([cx, x[idx]]), torch.cat([cy, y[idx]]))
            gc = torch.cat([gi[: len(cy)].reshape(len(cy), -1) for gi in g], dim=1)
            g = [gi[len(cy):] for gi in g]
        elif len(idx) > 0:
            g = per_example(theta, x[idx], y[idx])
        if len(idx) > 0:
            flat_g = torch.cat([gi.reshape(len(idx), -1) for gi in g], dim=1)
            if bug == "clip_after_sum":
                # The batch's mean gradient is clipped to C (clip_grad_norm_
                # after backward() of the mean loss): in sum units, to C*norm.
                total = flat_g.sum(0)
                scale = torch.clamp(C * norm / (total.norm() + 1e-12), max=1.0)
                summed = [gi.sum(0) * scale for gi in g]
            else:
                scale = torch.clamp(C / (flat_g.norm(dim=1) + 1e-12), max=1.0)
                summed = [(gi * scale.view(-1, *[1] * (gi.dim() - 1))).sum(0) for gi in g]
        std = sigma if bug == "noise_unscaled" else sigma * C
        for k, s in enumerate(summed):
            if not (bug == "unnoised_bias" and k == len(summed) - 1):
                summed[k] = s + std * torch.randn(s.shape, generator=gen)
        if project:
            # The released sum projected on each canary's gradient at θ_t.
            u = gc / gc.norm(dim=1, keepdim=True).clamp_min(1e-30)
            observed.append((u @ flat(summed)).tolist())
        theta = [t - lr * s / norm for t, s in zip(theta, summed)]
        if report == "step_loss":
            with torch.no_grad():
                observed.append(torch.nn.functional.cross_entropy(fmodel(theta, cx), cy, reduction="none").tolist())
    return fmodel, theta, observed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bug", choices=BUGS)
    ap.add_argument("request")
    args = ap.parse_args()
    with open(args.request) as f:
        req = json.load(f)
    if req.get("protocol") != "dpaudit-external-trainer" or req.get("version") not in (1, 2):
        raise SystemExit("unknown protocol %r version %r" % (req.get("protocol"), req.get("version")))
    out = req["output_dir"]
    report = req["report"]
    if report not in REPORTS or req["dpsgd"]["sampling"] != "poisson" or req["dpsgd"]["clip"] != "hard":
        with open(os.path.join(out, "refusal.txt"), "w") as f:
            f.write("this trainer reports %s with Poisson sampling and hard clipping only" % ", ".join(REPORTS))
        return
    torch.set_num_threads(1)
    x = torch.from_numpy(np.load(req["data"]["x"])).float()
    y = torch.from_numpy(np.load(req["data"]["y"])).long()
    cx = torch.from_numpy(np.load(req["canaries"]["x"])).float()
    cy = torch.from_numpy(np.load(req["canaries"]["y"])).long()
    if req["game"] == "membership":  # one canary, scored in both worlds
        cx, cy = cx[:1], cy[:1]
    rows = []
    for t in req["trials"]:
        if req["game"] == "one_run":
            keep = torch.tensor(t["include"], dtype=torch.bool)
        else:
            keep = torch.tensor([t["world"] == 1])
        tx, ty = torch.cat([x, cx[keep]]), torch.cat([y, cy[keep]])
        req["_trial"] = t
        fmodel, theta, observed = train(req, tx, ty, cx, cy, args.bug)
        if report == "final_loss":
            with torch.no_grad():
                losses = torch.nn.functional.cross_entropy(fmodel(theta, cx), cy, reduction="none")
            rows += ["%d,%d,%.17g" % (t["trial"], j, v) for j, v in enumerate(losses.tolist())]
        else:
            rows += ["%d,%d,%d,%.17g" % (t["trial"], j, s, v) for s, vs in enumerate(observed) for j, v in enumerate(vs)]
    header = "trial,canary,score" if report == "final_loss" else "trial,canary,step,score"
    with open(os.path.join(out, "observations.csv"), "w") as f:
        f.write(header + "\n" + "\n".join(rows) + "\n")
    used = dict(req["dpsgd"])
    with open(os.path.join(out, "hyperparameters.json"), "w") as f:
        json.dump(used, f)


if __name__ == "__main__":
    main()
