"""Train the pit counter's network on procedural crops (numpy only, CPU).

Two steps, each a subcommand::

    python -m vision.train_counter gen CROPS.npz --styles 2500 --seed 1  # render crops
    python -m vision.train_counter features CROPS.npz FEATS.npz          # image features
    python -m vision.train_counter photo sample_images/singles PHOTO.npz  # even renders
    python -m vision.train_counter fit FEATS.npz [...] --photo PHOTO.npz  # train, write model

``gen`` draws random styles (:func:`vision.synth_pits.random_style`); for each
it renders the start-position calibration pits (6, 2, 2, 0, 0, 0), fits a
:class:`~vision.count.SeedLook` from them exactly as calibration does, then
renders ``--per-style`` pits with random counts and stores their features
both without and with the look. ``photo`` cuts the pits of labelled photoreal
renders (even-numbered images only by default: the odd ones are the
benchmark's) and fits each image's look from its own pits. ``fit`` trains a
2-hidden-layer perceptron with Adam on the cross-entropy over counts 0..40
(photoreal pits repeated ``--photo-weight`` times), keeps the epoch with the
best loss on 10 % held-out styles, fits on those the softmax temperature and
the widening of large counts (so that the 90 % interval covers the truth),
and writes ``vision/models/counter.npz``.
Run it single-threaded (``OMP_NUM_THREADS=1``); gen makes ~50 crops/s.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision.count import (
    MODEL_PATH,
    N_COUNTS,
    SeedLook,
    calibrate,
    fit_seed_look,
    interval,
    normalise,
)
from vision.features import N_LOOK, SIZE, base_features, prepare
from vision.synth_pits import random_style, render_pit

CALIB_COUNTS = (6, 2, 2, 0, 0, 0)


def sample_count(rng: np.random.Generator) -> int:
    """Training count prior: many small counts (the 0-8 target), heaps up to 40."""
    u = rng.random()
    if u < 0.1:
        return 0
    if u < 0.5:
        return int(rng.integers(0, 9))
    if u < 0.72:
        return int(rng.integers(9, 17))
    return int(rng.integers(17, 41))


def generate(n_styles: int, per_style: int, seed: int,
             checkpoint: Path | None = None) -> dict[str, np.ndarray]:
    """Render crops (stored at the feature size, so features can be recomputed) and their looks.

    With ``checkpoint``, everything made so far is saved there every 100 styles.
    """
    rng = np.random.default_rng(seed)
    crops, looks, ys, sid, empties = [], [], [], [], []
    t0 = time.time()
    for s in range(n_styles):
        style = random_style(rng)
        calib = [render_pit(style, c, rng) for c in CALIB_COUNTS]
        sl = fit_seed_look(calib, CALIB_COUNTS)
        for _ in range(per_style):
            c = sample_count(rng)
            crops.append(to_size(render_pit(style, c, rng)))
            looks.append([*sl.seed_lab, *sl.floor_lab, sl.seed_diam_px])
            empties.append(sl.empty)
            ys.append(c)
            sid.append(seed * 1_000_000 + s)
        if s % 100 == 0:
            print(f"style {s}/{n_styles} {time.time() - t0:.0f}s", file=sys.stderr, flush=True)
        if checkpoint is not None and s % 100 == 99:
            np.savez(checkpoint, **_pack(crops, looks, ys, sid, empties))  # type: ignore[arg-type]
    return _pack(crops, looks, ys, sid, empties)


def _pack(crops, looks, ys, sid, empties) -> dict[str, np.ndarray]:
    return {"crops": np.stack(crops), "looks": np.asarray(looks, np.float32),
            "empty": np.stack(empties).astype(np.float16),
            "y": np.asarray(ys, np.int16), "style": np.asarray(sid, np.int64)}


def to_size(crop: np.ndarray) -> np.ndarray:
    """Resize a crop to SIZE x SIZE exactly as :func:`vision.features.prepare` does."""
    h, w = crop.shape[:2]
    interp = cv2.INTER_AREA if min(h, w) > SIZE else cv2.INTER_LINEAR
    return cv2.resize(crop, (SIZE, SIZE), interpolation=interp)


def featurize(data_path: Path, out: Path) -> None:
    """Compute base and look features of every stored crop."""
    d = np.load(data_path)
    base, look = [], []
    t0 = time.time()
    empties = d["empty"] if "empty" in d else [None] * len(d["y"])  # older files: no template
    for i, (crop, lk, em) in enumerate(zip(d["crops"], d["looks"], empties, strict=True)):
        lab = prepare(crop)
        base.append(base_features(lab))
        sl = SeedLook(tuple(lk[:3]), tuple(lk[3:6]), float(lk[6]),
                      empty=None if em is None else em.astype(np.float32))
        look.append(sl.features(lab))
        if i % 2000 == 0:
            print(f"crop {i}/{len(d['y'])} {time.time() - t0:.0f}s", file=sys.stderr, flush=True)
    np.savez_compressed(out, base=np.stack(base), look=np.stack(look), y=d["y"], style=d["style"])
    print(f"wrote {out}", file=sys.stderr)


def featurize_photo(folder: Path, out: Path, split: str) -> None:
    """Features of the pits of labelled photoreal renders (look fitted per image from its pits)."""
    from vision.count_data import image_number, image_pits, labelled_images

    base, look, ys, sid = [], [], [], []
    for lp, img, label in labelled_images(folder, split):
        _, crops, counts = image_pits(img, label)
        try:
            sl = fit_seed_look(crops, counts)
        except ValueError:
            continue
        for crop, c in zip(crops, counts, strict=True):
            lab = prepare(crop)
            base.append(base_features(lab))
            look.append(sl.features(lab))
            ys.append(c)
            sid.append(-1 - image_number(lp))
    np.savez_compressed(out, base=np.stack(base), look=np.stack(look),
                        y=np.asarray(ys, np.int16), style=np.asarray(sid, np.int64))
    print(f"wrote {out}: {len(ys)} pits", file=sys.stderr)


# ---------------------------------------------------------------- training


def _init(rng: np.random.Generator, sizes: list[int]) -> list[list[np.ndarray]]:
    return [[rng.normal(0, np.sqrt(2.0 / a), (a, b)).astype(np.float32), np.zeros(b, np.float32)]
            for a, b in zip(sizes[:-1], sizes[1:], strict=True)]


def _forward(params, x):
    acts = [x]
    h = x
    for i, (w, b) in enumerate(params):
        h = h @ w + b
        if i < len(params) - 1:
            h = np.maximum(h, 0.0)
        acts.append(h)
    return acts


def train_mlp(x: np.ndarray, y: np.ndarray, hidden: int, epochs: int, seed: int,
              xv: np.ndarray, yv: np.ndarray,
              lr: float = 2e-3, wd: float = 3e-4, batch: int = 256, noise: float = 0.1):
    """Adam on cross-entropy; returns the parameters of the epoch with the best held-out loss."""
    rng = np.random.default_rng(seed)
    params = _init(rng, [x.shape[1], hidden, hidden, N_COUNTS])
    m = [[np.zeros_like(p) for p in layer] for layer in params]
    v = [[np.zeros_like(p) for p in layer] for layer in params]
    step = 0
    n = len(x)
    best: tuple[float, list] = (np.inf, params)
    for ep in range(epochs):
        order = rng.permutation(n)
        rate = lr * 0.5 * (1 + np.cos(np.pi * ep / epochs))
        tot = 0.0
        for k in range(0, n, batch):
            idx = order[k:k + batch]
            xb = x[idx] + rng.normal(0, noise, (len(idx), x.shape[1])).astype(np.float32)
            acts = _forward(params, xb)
            z = acts[-1] - acts[-1].max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            tot += -np.log(p[np.arange(len(idx)), y[idx]] + 1e-9).sum()
            g = p
            g[np.arange(len(idx)), y[idx]] -= 1.0
            g /= len(idx)
            step += 1
            for i in range(len(params) - 1, -1, -1):
                w, b = params[i]
                gw = acts[i].T @ g + wd * w
                gb = g.sum(axis=0)
                if i:
                    g = (g @ w.T) * (acts[i] > 0)
                for j, gr in enumerate((gw, gb)):
                    m[i][j] = 0.9 * m[i][j] + 0.1 * gr
                    v[i][j] = 0.999 * v[i][j] + 0.001 * gr * gr
                    mh = m[i][j] / (1 - 0.9**step)
                    vh = v[i][j] / (1 - 0.999**step)
                    params[i][j] -= rate * mh / (np.sqrt(vh) + 1e-8)
        pv = _softmax(_logits(params, xv))
        val = float(-np.log(pv[np.arange(len(yv)), yv] + 1e-9).mean())
        if val < best[0]:
            best = (val, [[p.copy() for p in layer] for layer in params])
        print(f"epoch {ep} loss {tot / n:.4f} held-out {val:.4f}", file=sys.stderr, flush=True)
    return best[1]


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


def _logits(params, x):
    return _forward(params, x)[-1]


def _fit_calibration(logits: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    best_t, best_nll = 1.0, np.inf
    for t in np.linspace(0.6, 2.5, 39):
        p = calibrate(logits, t, 0.0, 0.0)
        nll = -np.log(p[np.arange(len(y)), y] + 1e-12).mean()
        if nll < best_nll:
            best_t, best_nll = float(t), nll
    widen_from = 8.0
    big = y >= 16
    widen = 0.0
    for w in np.linspace(0.0, 0.6, 61):
        p = calibrate(logits[big], best_t, w, widen_from)
        cover = np.mean([lo <= t <= hi for (lo, hi), t in zip(map(interval, p), y[big], strict=True)])
        widen = float(w)
        if cover >= 0.96:  # margin over the 95 % target for unseen looks
            break
    return best_t, widen, widen_from


def fit(paths: list[Path], out: Path, hidden: int, epochs: int, seed: int,
        photo: Path | None = None, photo_weight: int = 10, widen_set: float | None = None) -> None:
    parts = [np.load(p) for p in paths]
    base = np.concatenate([d["base"] for d in parts]).astype(np.float32)
    look = np.concatenate([d["look"] for d in parts]).astype(np.float32)
    y = np.concatenate([d["y"] for d in parts]).astype(np.int64)
    style = np.concatenate([d["style"] for d in parts])
    # Every crop twice: without the look (zeros) and with it.
    x = np.concatenate([np.concatenate([base, np.zeros_like(look)], 1),
                        np.concatenate([base, look], 1)])
    yy = np.concatenate([y, y])
    ss = np.concatenate([style, style])
    rng = np.random.default_rng(seed)
    styles = np.unique(ss)
    held = set(rng.choice(styles, max(1, len(styles) // 10), replace=False).tolist())
    val = np.array([s in held for s in ss])
    mean = x[~val].mean(axis=0)
    std = x[~val].std(axis=0) + 1e-3
    has_look = x[:, -N_LOOK] > 0.5
    mean[-N_LOOK:] = x[~val & has_look, -N_LOOK:].mean(axis=0)
    std[-N_LOOK:] = x[~val & has_look, -N_LOOK:].std(axis=0) + 1e-3
    xn = normalise(x, mean, std)
    xt, yt = xn[~val], yy[~val]
    if photo is not None:  # photoreal pits: training only, repeated photo_weight times
        d = np.load(photo)
        xp = np.concatenate([np.concatenate([d["base"], np.zeros_like(d["look"])], 1),
                             np.concatenate([d["base"], d["look"]], 1)]).astype(np.float32)
        yp = np.concatenate([d["y"], d["y"]]).astype(np.int64)
        xt = np.concatenate([xt, *[normalise(xp, mean, std)] * photo_weight])
        yt = np.concatenate([yt, *[yp] * photo_weight])
        print(f"photoreal training pits: {len(d['y'])} x {photo_weight}", file=sys.stderr)
    params = train_mlp(xt, yt, hidden, epochs, seed, xn[val], yy[val])
    lv = _logits(params, xn[val])
    t, widen, widen_from = _fit_calibration(lv, yy[val])
    if widen_set is not None:
        widen = widen_set
    p = calibrate(lv, t, widen, widen_from)
    pred = p.argmax(axis=1)
    yv = yy[val]
    print(f"held-out styles: n={len(yv)} T={t:.2f} widen={widen:.2f}", file=sys.stderr)
    for lo, hi in ((0, 0), (1, 3), (4, 8), (9, 15), (16, 40)):
        sel = (yv >= lo) & (yv <= hi)
        if not sel.any():
            continue
        print(f"  {lo}-{hi}: exact {np.mean(pred[sel] == yv[sel]):.3f} "
              f"mae {np.mean(np.abs(pred[sel] - yv[sel])):.2f} n={sel.sum()}", file=sys.stderr)
    arrays = {"mean": mean, "std": std, "n_layers": np.int64(len(params)),
              "temperature": np.float64(t), "widen": np.float64(widen),
              "widen_from": np.float64(widen_from)}
    for i, (w, b) in enumerate(params):
        arrays[f"W{i}"] = w.astype(np.float32)
        arrays[f"b{i}"] = b.astype(np.float32)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, **arrays)
    print(f"wrote {out}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("out", type=Path)
    g.add_argument("--styles", type=int, default=2500)
    g.add_argument("--per-style", type=int, default=16)
    g.add_argument("--seed", type=int, default=1)
    fe = sub.add_parser("features")
    fe.add_argument("data", type=Path)
    fe.add_argument("out", type=Path)
    f = sub.add_parser("fit")
    f.add_argument("data", type=Path, nargs="+")
    f.add_argument("--out", type=Path, default=MODEL_PATH)
    f.add_argument("--hidden", type=int, default=128)
    f.add_argument("--epochs", type=int, default=40)
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--photo", type=Path, help="features of photoreal pits (from the photo step)")
    f.add_argument("--photo-weight", type=int, default=10)
    f.add_argument("--widen", type=float, help="set the widening instead of fitting it")
    ph = sub.add_parser("photo")
    ph.add_argument("folder", type=Path)
    ph.add_argument("out", type=Path)
    ph.add_argument("--split", choices=("even", "odd", "all"), default="even")
    args = ap.parse_args(argv)
    if args.cmd == "gen":
        data = generate(args.styles, args.per_style, args.seed, checkpoint=args.out)
        np.savez_compressed(args.out, **data)  # type: ignore[arg-type]
        print(f"wrote {args.out}: {len(data['y'])} crops", file=sys.stderr)
    elif args.cmd == "features":
        featurize(args.data, args.out)
    elif args.cmd == "photo":
        featurize_photo(args.folder, args.out, args.split)
    else:
        fit(args.data, args.out, args.hidden, args.epochs, args.seed, args.photo, args.photo_weight,
            args.widen)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
