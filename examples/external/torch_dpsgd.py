#!/usr/bin/env python3
"""DP-SGD in PyTorch as a dpaudit external trainer (protocol version 1).

dpaudit runs `python3 torch_dpsgd.py [--bug NAME] REQUEST.json`; this
script trains every trial the request lists and writes the final model's
loss on each canary (docs/external-trainers.md). Needs numpy and torch
with functorch (Debian 12: python3-torch, which ships functorch).

Honest DP-SGD: Poisson sampling with rate q, per-example gradients
(functorch vmap), each clipped to norm C, summed, Gaussian noise of std
sigma*C added, divided by the request's expected batch size, plain SGD.

--bug NAME plants one of the implementation bugs audits find:
  noise_unscaled   noise std sigma instead of sigma*C (right only for C = 1)
  clip_after_sum   the batch's summed gradient is clipped, not each example's
  shuffle_batches  fixed-size shuffled batches of q*n, accounted as Poisson
  unnoised_bias    no noise on the bias (one parameter group forgotten)
"""
import argparse
import json
import os

import numpy as np
import torch
from functorch import grad, make_functional, vmap

BUGS = ("noise_unscaled", "clip_after_sum", "shuffle_batches", "unnoised_bias")


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


def train(req, x, y, bug):
    hp = req["dpsgd"]
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
    n = len(y)
    theta = [t.detach() for t in theta]
    for _ in range(steps):
        if bug == "shuffle_batches":
            idx = torch.randperm(n, generator=gen)[: int(round(q * n))]
        else:
            idx = torch.nonzero(torch.rand(n, generator=gen) < q).flatten()
        summed = [torch.zeros_like(t) for t in theta]
        if len(idx) > 0:
            g = per_example(theta, x[idx], y[idx])
            flat = torch.cat([gi.reshape(len(idx), -1) for gi in g], dim=1)
            if bug == "clip_after_sum":
                # The batch's mean gradient is clipped to C (clip_grad_norm_
                # after backward() of the mean loss): in sum units, to C*norm.
                total = flat.sum(0)
                scale = torch.clamp(C * norm / (total.norm() + 1e-12), max=1.0)
                summed = [gi.sum(0) * scale for gi in g]
            else:
                scale = torch.clamp(C / (flat.norm(dim=1) + 1e-12), max=1.0)
                summed = [(gi * scale.view(-1, *[1] * (gi.dim() - 1))).sum(0) for gi in g]
        std = sigma if bug == "noise_unscaled" else sigma * C
        for k, s in enumerate(summed):
            if not (bug == "unnoised_bias" and k == len(summed) - 1):
                s = s + std * torch.randn(s.shape, generator=gen)
            theta[k] = theta[k] - lr * s / norm
    return fmodel, theta


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bug", choices=BUGS)
    ap.add_argument("request")
    args = ap.parse_args()
    with open(args.request) as f:
        req = json.load(f)
    if req.get("protocol") != "dpaudit-external-trainer" or req.get("version") != 1:
        raise SystemExit("unknown protocol %r version %r" % (req.get("protocol"), req.get("version")))
    out = req["output_dir"]
    if req["report"] != "final_loss" or req["dpsgd"]["sampling"] != "poisson" or req["dpsgd"]["clip"] != "hard":
        with open(os.path.join(out, "refusal.txt"), "w") as f:
            f.write("this trainer reports final_loss with Poisson sampling and hard clipping only")
        return
    torch.set_num_threads(1)
    x = torch.from_numpy(np.load(req["data"]["x"])).float()
    y = torch.from_numpy(np.load(req["data"]["y"])).long()
    cx = torch.from_numpy(np.load(req["canaries"]["x"])).float()
    cy = torch.from_numpy(np.load(req["canaries"]["y"])).long()
    rows = []
    for t in req["trials"]:
        if req["game"] == "one_run":
            keep = torch.tensor(t["include"], dtype=torch.bool)
        else:
            keep = torch.tensor([t["world"] == 1])
        tx, ty = torch.cat([x, cx[keep]]), torch.cat([y, cy[keep]])
        req["_trial"] = t
        fmodel, theta = train(req, tx, ty, args.bug)
        with torch.no_grad():
            losses = torch.nn.functional.cross_entropy(fmodel(theta, cx), cy, reduction="none")
        for j, v in enumerate(losses.tolist()):
            rows.append("%d,%d,%.17g" % (t["trial"], j, v))
    with open(os.path.join(out, "observations.csv"), "w") as f:
        f.write("trial,canary,score\n" + "\n".join(rows) + "\n")
    used = dict(req["dpsgd"])
    with open(os.path.join(out, "hyperparameters.json"), "w") as f:
        json.dump(used, f)


if __name__ == "__main__":
    main()
