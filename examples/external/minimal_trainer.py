#!/usr/bin/env python3
"""A complete dpaudit external trainer: DP-SGD softmax regression in numpy."""
import json, os, sys
import numpy as np

req = json.load(open(sys.argv[-1]))
hp, out = req["dpsgd"], req["output_dir"]
if req["report"] != "final_loss":  # a per-step report (docs/external-trainers.md)
    open(os.path.join(out, "refusal.txt"), "w").write("final_loss only"); sys.exit()
x = np.load(req["data"]["x"]).reshape(req["data"]["n"], -1)
y = np.load(req["data"]["y"])
cx = np.load(req["canaries"]["x"]).reshape(req["canaries"]["count"], -1)
cy = np.load(req["canaries"]["y"])
k = req["data"]["classes"]

def loss(w, xs, ys):  # per-example cross-entropy
    z = xs @ w; z -= z.max(1, keepdims=True)
    return np.log(np.exp(z).sum(1)) - z[np.arange(len(ys)), ys]

rows = ["trial,canary,score"]
for t in req["trials"]:
    keep = np.array(t["include"]) if "include" in t else np.array([t["world"] == 1])
    tx, ty = np.vstack([x, cx[keep]]), np.concatenate([y, cy[keep]])
    w = np.random.default_rng(t["init_seed"]).normal(0, 0.01, (tx.shape[1], k))
    rng = np.random.default_rng(t["seed"])
    for _ in range(hp["steps"]):
        b = rng.random(len(ty)) < hp["sampling_rate"]          # Poisson sampling
        z = tx[b] @ w; p = np.exp(z - z.max(1, keepdims=True)); p /= p.sum(1, keepdims=True)
        p[np.arange(b.sum()), ty[b]] -= 1
        g = tx[b][:, :, None] * p[:, None, :]                    # per-example gradients
        n = np.sqrt((g ** 2).sum((1, 2)))[:, None, None]
        g = (g * np.minimum(1, hp["clip_norm"] / np.maximum(n, 1e-12))).sum(0)
        g += rng.normal(0, hp["noise_multiplier"] * hp["clip_norm"], w.shape)
        w -= hp["learning_rate"] * g / hp["expected_batch_size"]
    rows += ["%d,%d,%.17g" % (t["trial"], j, s) for j, s in enumerate(loss(w, cx, cy))]
open(os.path.join(out, "observations.csv"), "w").write("\n".join(rows) + "\n")
json.dump(hp, open(os.path.join(out, "hyperparameters.json"), "w"))
