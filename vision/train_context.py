"""Train the board-context model of :mod:`vision.context` (numpy only, seconds).

    python -m vision.train_context cut OUT.npz DIR [DIR ...]      # pits of labelled renders, as the pipeline reads them
    python -m vision.train_context cv DATA.npz [...] [--results OUT.json]   # grouped by render set: counter vs context
    python -m vision.train_context fit DATA.npz [...] --out vision/models/counter_context.npz

``cut`` runs the board pipeline's geometry and counter on every labelled render
without a hand over the board whose pits the fit puts in place (median centre
error under a fifth of the pit pitch) and keeps, per board, the counter's 32
distributions, the crops as the empty-pit template sees them and the true counts.
``cv`` trains on all render sets but one and reads the one left out, for each set
in turn, and compares the pits read exactly with the counter alone. ``fit`` trains
on all the sets given. Use render sets the counter network was never trained on:
its readings of its own training boards are surer than those of any new photo.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vision.context import (
    DEFAULT_SETTINGS,
    ContextModel,
    FeatureSettings,
    context_features,
    model_inputs,
)
from vision.count import crop_smalls
from vision.count_data import COUNT_BUCKETS

K = 9  # counts 0..8 re-read; a pit read as 9 or more is left to the counter (a heap's area says little)
HIDDEN = 16


def _cut_one(path: str) -> dict | None:
    import cv2

    from vision.context import counter_reading
    from vision.count_data import label_counts
    from vision.errors import VisionError
    from vision.holes import HOLES
    from vision.io import read_image

    cv2.setNumThreads(1)
    label = json.loads(Path(path).with_suffix(".json").read_text())
    if label.get("hand_over_board"):
        return None
    try:
        rec, crops, probs = counter_reading(read_image(path), label["south_side"])
    except VisionError:
        return None
    found = np.array([rec.pit_centers_px[n] for n in HOLES], np.float64)
    true = np.array([label["pit_centers_px"][n] for n in HOLES], np.float64)
    d = np.linalg.norm(true[:, None] - true[None], axis=2)
    d[d == 0] = np.inf
    pitch = float(np.median(d.min(axis=1)))
    if float(np.median(np.linalg.norm(found - true, axis=1))) > 0.2 * pitch:
        return None
    counts = label_counts(label["position"])
    return {"path": path, "set": Path(path).parent.name, "probs": probs.astype(np.float32),
            "smalls": crop_smalls(crops).astype(np.float16),
            "truth": np.array([counts[n] for n in HOLES], np.int16)}


def cut(folders: Sequence[Path], out: Path, procs: int = 2) -> int:
    """Write the pits of every usable labelled render in ``folders`` to ``out``; returns boards kept."""
    from multiprocessing import Pool

    files = sorted(f for d in folders for f in glob.glob(os.path.join(d, "*.jpg"))
                   if os.path.exists(f[:-4] + ".json"))
    if not files:
        raise SystemExit(f"no labelled renders (IMAGE.jpg + IMAGE.json) in {', '.join(map(str, folders))}")
    with Pool(procs) as pool:
        rows = [r for r in pool.imap(_cut_one, files, chunksize=2) if r is not None]
    if not rows:
        raise SystemExit("no board was found in place on any of the renders")
    np.savez_compressed(out, path=np.array([r["path"] for r in rows]), set=np.array([r["set"] for r in rows]),
                        probs=np.stack([r["probs"] for r in rows]), smalls=np.stack([r["smalls"] for r in rows]),
                        truth=np.stack([r["truth"] for r in rows]))
    print(f"wrote {out}: {len(rows)} boards of {len(files)} renders", file=sys.stderr)
    return len(rows)


def load(paths: Sequence[Path], settings: FeatureSettings = DEFAULT_SETTINGS) -> dict[str, np.ndarray]:
    """Boards of ``cut`` files with their features: per pit log-probabilities (n, 41),
    features, truth and render set; boards with too few sure pits left out."""
    lps, fs, ys, sets = [], [], [], []
    for p in paths:
        with np.load(p) as z:  # (each z[...] reads its array anew: once each)
            all_probs, smalls, truth, names = z["probs"], z["smalls"], z["truth"], z["set"]
        for b in range(len(truth)):
            probs = all_probs[b].astype(np.float64)
            feats, ok = context_features(smalls[b].astype(np.float32), probs, settings)
            if not ok:
                continue
            lps.append(np.log(np.clip(probs, 1e-9, 1.0)))
            fs.append(feats)
            ys.append(truth[b].astype(np.int64))
            sets.append(np.full(len(probs), str(names[b])))
    if not lps:
        raise SystemExit("no board with enough sure pits to compare with")
    return {"logp": np.concatenate(lps), "feats": np.concatenate(fs), "truth": np.concatenate(ys),
            "set": np.concatenate(sets)}


def train(logp: np.ndarray, feats: np.ndarray, truth: np.ndarray, *, hidden: int = HIDDEN, k: int = K,
          epochs: int = 300, lr: float = 3e-3, weight_decay: float = 1e-4, seed: int = 0,
          settings: FeatureSettings = DEFAULT_SETTINGS, note: str = "") -> ContextModel:
    """Full-batch Adam on the cross-entropy over 0..k-1 of the pits the counter reads as
    fewer than k seeds and that hold fewer than k. The output layer starts at zero, so
    the model starts as the counter itself."""
    use = (logp.argmax(axis=1) < k) & (truth < k)
    if not use.any():
        raise ValueError("no pit to train on (none read and holding fewer than k seeds)")
    lk = logp[use, :k]
    x = model_inputs(lk, feats[use])
    y = truth[use]
    n = len(y)
    onehot = np.zeros((n, k))
    onehot[np.arange(n), y] = 1.0
    rng = np.random.default_rng(seed)
    bound = 1.0 / np.sqrt(x.shape[1])
    params = {"w1": rng.uniform(-bound, bound, (x.shape[1], hidden)), "b1": rng.uniform(-bound, bound, hidden),
              "w2": np.zeros((hidden, k)), "b2": np.zeros(k)}
    m = {key: np.zeros_like(v) for key, v in params.items()}
    v2 = {key: np.zeros_like(v) for key, v in params.items()}
    b1_, b2_ = 0.9, 0.999
    for t in range(1, epochs + 1):
        h = np.tanh(x @ params["w1"] + params["b1"])
        z = lk + h @ params["w2"] + params["b2"]
        z -= z.max(axis=1, keepdims=True)
        q = np.exp(z)
        q /= q.sum(axis=1, keepdims=True)
        dz = (q - onehot) / n
        dh = dz @ params["w2"].T * (1.0 - h * h)
        grads = {"w2": h.T @ dz, "b2": dz.sum(axis=0), "w1": x.T @ dh, "b1": dh.sum(axis=0)}
        for key in params:
            g = grads[key] + weight_decay * params[key]
            m[key] = b1_ * m[key] + (1 - b1_) * g
            v2[key] = b2_ * v2[key] + (1 - b2_) * g * g
            params[key] -= lr * (m[key] / (1 - b1_ ** t)) / (np.sqrt(v2[key] / (1 - b2_ ** t)) + 1e-8)
    return ContextModel(params["w1"], params["b1"], params["w2"], params["b2"], settings, note)


def _scores(pred: np.ndarray, truth: np.ndarray) -> dict[str, float | int]:
    ok = pred == truth
    out: dict[str, float | int] = {"pits": int(len(truth)), "exact": round(float(ok.mean()), 4),
                                   "mae": round(float(np.abs(pred - truth).mean()), 4)}
    for name, lo, hi in COUNT_BUCKETS:
        sel = (truth >= lo) & (truth <= hi)
        if sel.any():
            out[name] = round(float(ok[sel].mean()), 4)
    return out


def cross_validate(data: dict[str, np.ndarray], **kw: object) -> dict[str, object]:
    """Each render set read by a model trained on the others: counter vs context."""
    sets = sorted(set(data["set"].tolist()))
    if len(sets) < 2:
        raise SystemExit("cross-validation needs boards of two render sets or more")
    base_all, ctx_all, truth_all, ll_b, ll_c, per_set = [], [], [], [], [], {}
    for s in sets:
        tr, te = data["set"] != s, data["set"] == s
        model = train(data["logp"][tr], data["feats"][tr], data["truth"][tr], **kw)  # type: ignore[arg-type]
        p = np.exp(data["logp"][te])
        q = model.adjust(p, data["feats"][te])
        y = data["truth"][te]
        base, ctx = p.argmax(axis=1), q.argmax(axis=1)
        base_all.append(base)
        ctx_all.append(ctx)
        truth_all.append(y)
        ll_b.append(-np.log(np.clip(p[np.arange(len(y)), y], 1e-9, 1)))
        ll_c.append(-np.log(np.clip(q[np.arange(len(y)), y], 1e-9, 1)))
        per_set[s] = {"pits": int(len(y)), "counter": round(float((base == y).mean()), 4),
                      "context": round(float((ctx == y).mean()), 4)}
        print(f"{s}: {len(y)} pits, counter {per_set[s]['counter']:.4f}, in context {per_set[s]['context']:.4f}",
              file=sys.stderr)
    y = np.concatenate(truth_all)
    b = np.concatenate(base_all)
    c = np.concatenate(ctx_all)
    return {"sets": sets, "per_set": per_set, "counter": _scores(b, y), "context": _scores(c, y),
            "log_loss": {"counter": round(float(np.concatenate(ll_b).mean()), 4),
                         "context": round(float(np.concatenate(ll_c).mean()), 4)},
            "pits_righted": int(((c == y) & (b != y)).sum()), "pits_spoilt": int(((c != y) & (b == y)).sum())}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Train the board-context model (vision.context).")
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("cut", help="pits of labelled renders as the pipeline reads them")
    c.add_argument("out", type=Path)
    c.add_argument("folders", type=Path, nargs="+")
    c.add_argument("--procs", type=int, default=2)
    v = sub.add_parser("cv", help="grouped by render set: the counter alone against the context model")
    v.add_argument("data", type=Path, nargs="+")
    v.add_argument("--results", type=Path, default=None, help="also write the figures to this JSON file")
    f = sub.add_parser("fit", help="train on all the boards given and write the model")
    f.add_argument("data", type=Path, nargs="+")
    f.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.cmd == "cut":
        cut(args.folders, args.out, args.procs)
        return 0
    data = load(args.data)
    if args.cmd == "cv":
        res = cross_validate(data)
        res["data"] = [str(p) for p in args.data]
        print(json.dumps({k: res[k] for k in ("counter", "context", "log_loss", "pits_righted", "pits_spoilt")},
                         indent=1))
        if args.results:
            args.results.write_text(json.dumps(res, indent=1) + "\n")
        return 0
    sets = sorted(set(data["set"].tolist()))
    model = train(data["logp"], data["feats"], data["truth"],
                  note=f"trained on {len(data['truth'])} pits of render sets {', '.join(sets)}")
    model.save(args.out)
    print(f"wrote {args.out}: {model.note}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
