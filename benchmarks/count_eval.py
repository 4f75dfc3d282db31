"""Accuracy, calibration and speed of the pit counter (``vision.count.count_pit``).

Usage::

    python benchmarks/count_eval.py [--singles sample_images/singles] [--styles 150] [--camera]
                                    [--split odd|even|all] [--views 8] [--networks both|board]
                                    [--fill 0.85] [--degrade none|jpeg|small|noise|blur|cast|dark|webcam]
                                    [--out benchmarks/results/count_eval.json]

Each crop is read as ``bao count-pit`` reads it: 8 turned and mirrored views, both
networks (``--views``, ``--networks board``: as the board pipeline's first look,
``--views 1 --networks board``).

Two test sets, neither used for training or tuning:

* **photoreal**: pit crops cut from the labelled renders in ``--singles``
  (homography from ``corners_px`` to the canonical top view, a square around
  each pit centre with the pit diameter 0.85 of the side, as the board
  pipeline does; docs/vision.md; :mod:`vision.count_data`). The sample singles
  0000-0079 are among the networks' training pits (0080-0099 chose their
  epochs): for a fair figure, render a fresh folder (``bao render --count 40
  --seed S --out DIR``) and pass ``--singles DIR --split all``. ``--camera``
  cuts them from the image as the camera sees them instead (an oblique pit is an
  ellipse, its seeds seen from the side): the nearest stand-in for a photo of
  one pit. ``--fill`` frames them looser or tighter (the pit's diameter as a
  share of the crop's side, 0.85 by default as the pipeline cuts them) and
  ``--degrade`` spoils each crop as a cheap webcam might (:data:`DEGRADE`):
  how much a framing or a camera unlike the renders' costs. Each
  image is scored without a look and with the look fitted on that image's own
  pits and true counts (what calibration learns from the start position).
* **procedural**: fresh styles from ``vision.synth_pits`` with a seed never
  used by the trainer (``--seed``, default 777), with and without the look
  fitted on the style's calibration pits.

Per set: exact accuracy per count bucket (0, 1-3, 4-8, 9-15, 16+), mean
absolute error, coverage of the 90 % interval for 16+ (``cover90``: the
shortest run around the mode holding 90 %, :func:`vision.count.interval`;
``cover90q``: the 5 %..95 % quantiles), mean confidence vs
accuracy (calibration), milliseconds per pit. Prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.count import count_pit, fit_seed_look, interval  # noqa: E402
from vision.count_data import COUNT_BUCKETS, FILL, check_fill, image_pits, labelled_images  # noqa: E402
from vision.synth_pits import random_style, render_pit  # noqa: E402


def _jpeg(c: np.ndarray, quality: int) -> np.ndarray:
    ok, buf = cv2.imencode(".jpg", c, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def _small(c: np.ndarray, side: int) -> np.ndarray:
    low = cv2.resize(c, (side, side), interpolation=cv2.INTER_AREA)
    return cv2.resize(low, c.shape[1::-1], interpolation=cv2.INTER_LINEAR)


def _noise(c: np.ndarray, sd: float, rng: np.random.Generator) -> np.ndarray:
    return np.clip(c + rng.normal(0, sd, c.shape), 0, 255).astype(np.uint8)


def _blur(c: np.ndarray, share: float) -> np.ndarray:
    return cv2.GaussianBlur(c, (0, 0), share * c.shape[0])


#: webcam-like spoiling of a crop (``--degrade``): (crop, rng) -> crop
DEGRADE = {
    "none": lambda c, rng: c,
    "jpeg": lambda c, rng: _jpeg(c, 30),  # heavy compression
    "small": lambda c, rng: _small(c, 48),  # the pit only ~40 px across in the photo
    "noise": lambda c, rng: _noise(c, 10, rng),  # sensor noise, sd 10 of 255
    "blur": lambda c, rng: _blur(c, 0.015),  # out of focus
    "cast": lambda c, rng: np.clip(c * np.array([0.75, 0.95, 1.25]), 0, 255).astype(np.uint8),
    "dark": lambda c, rng: _noise(np.clip(c * 0.35, 0, 255).astype(np.uint8), 4, rng),
    "webcam": lambda c, rng: _jpeg(_noise(_blur(_small(c, 72), 0.008), 5, rng), 50),
}
CALIB = (6, 2, 2, 0, 0, 0)


def score(rows: list[tuple[int, np.ndarray, float]]) -> dict:
    """rows: (true count, probabilities, seconds)."""
    out: dict = {"n": len(rows)}
    if not rows:
        return out
    y = np.array([r[0] for r in rows])
    probs = np.stack([r[1] for r in rows])
    pred = probs.argmax(axis=1)
    conf = probs.max(axis=1)
    for key, lo, hi in COUNT_BUCKETS:
        sel = (y >= lo) & (y <= hi)
        out[f"exact_{key}"] = round(float(np.mean(pred[sel] == y[sel])), 4) if sel.any() else None
        out[f"n_{key}"] = int(sel.sum())
    small = y <= 8
    out["exact_0-8"] = round(float(np.mean(pred[small] == y[small])), 4) if small.any() else None
    out["exact_all"] = round(float(np.mean(pred == y)), 4)
    out["mae"] = round(float(np.mean(np.abs(pred - y))), 3)
    big = y >= 16
    if big.any():
        cover = [lo <= t <= hi for (lo, hi), t in zip(map(interval, probs[big]), y[big], strict=True)]
        out["cover90_16+"] = round(float(np.mean(cover)), 4)
        cdf = np.cumsum(probs[big], axis=1)
        q05 = (cdf < 0.05).sum(axis=1)
        q95 = (cdf < 0.95).sum(axis=1)
        out["cover90q_16+"] = round(float(np.mean((y[big] >= q05) & (y[big] <= q95))), 4)
        out["mae_16+"] = round(float(np.mean(np.abs(pred[big] - y[big]))), 3)
    out["mean_confidence"] = round(float(conf.mean()), 4)
    out["ms_per_pit"] = round(1000 * float(np.mean([r[2] for r in rows])), 3)
    return out


def _timed(crop: np.ndarray, look, read: dict) -> tuple[np.ndarray, float]:
    """``read``: count_pit's keywords (views, broad), as the options ask."""
    t = time.perf_counter()
    pc = count_pit(crop, look, **read)
    return pc.probabilities, time.perf_counter() - t


def procedural(n_styles: int, per_style: int, seed: int, read: dict) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    plain, looked = [], []
    for _ in range(n_styles):
        style = random_style(rng)
        look = fit_seed_look([render_pit(style, c, rng) for c in CALIB], CALIB)
        for _ in range(per_style):
            u = rng.random()
            c = int(rng.integers(0, 9)) if u < 0.5 else int(rng.integers(9, 16)) if u < 0.7 \
                else int(rng.integers(16, 41))
            crop = render_pit(style, c, rng)
            plain.append((c, *_timed(crop, None, read)))
            looked.append((c, *_timed(crop, look, read)))
    return score(plain), score(looked)


def photoreal(folder: Path, split: str, read: dict, camera: bool = False,
              fill: float = FILL, degrade: str = "none") -> tuple[dict, dict, list[dict]]:
    """Score every pit of the labelled renders in ``folder`` (without look, and with the
    look fitted on the same image's pits and their true counts, as calibration would).
    ``camera``: the pits cut as the camera sees them, not rectified; ``fill``: the pit's
    share of the crop side; ``degrade``: a :data:`DEGRADE` spoiling of every crop."""
    plain, looked, worst = [], [], []
    spoil, rng = DEGRADE[degrade], np.random.default_rng(5)
    for lp, img, label in labelled_images(folder, split):
        names, crops, counts = image_pits(img, label, camera, fill)
        crops = [spoil(c, rng) for c in crops]
        try:
            look = fit_seed_look(crops, counts)
        except ValueError:
            look = None
        for n, crop, c in zip(names, crops, counts, strict=True):
            p, dt = _timed(crop, None, read)
            plain.append((c, p, dt))
            if look is not None:
                looked.append((c, *_timed(crop, look, read)))
            if int(np.argmax(p)) != c:
                worst.append({"image": lp.stem, "pit": n, "true": c, "pred": int(np.argmax(p)),
                              "conf": round(float(p.max()), 3),
                              "seeds": ((label.get("render") or {}).get("seeds") or {}).get("kind")})
    return score(plain), score(looked), worst


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--singles", type=Path, default=ROOT / "sample_images" / "singles")
    ap.add_argument("--split", choices=("odd", "even", "all"), default="odd")
    ap.add_argument("--styles", type=int, default=150)
    ap.add_argument("--per-style", type=int, default=8)
    ap.add_argument("--seed", type=int, default=777)
    ap.add_argument("--views", type=int, default=8, choices=range(1, 9), metavar="{1..8}",
                    help="turned views averaged per crop (default 8, as bao count-pit)")
    ap.add_argument("--networks", choices=("both", "board"), default="both",
                    help="both networks (default, as bao count-pit) or the board one alone "
                         "(as bao recognize)")
    ap.add_argument("--camera", action="store_true",
                    help="cut the render pits as the camera sees them (like a photo of one "
                         "pit), not from the rectified top view")
    ap.add_argument("--fill", type=float, default=FILL,
                    help="the render pits' diameter as a share of the crop side (default "
                         "%(default)s, as the pipeline cuts them; lower: a looser photo)")
    ap.add_argument("--degrade", choices=sorted(DEGRADE), default="none",
                    help="spoil every render crop as a cheap webcam might (default none)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "count_eval.json")
    args = ap.parse_args(argv)
    try:
        check_fill(args.fill)
    except ValueError as exc:
        ap.error(f"--fill: {exc}")
    cv2.setNumThreads(1)
    read = {"views": args.views, "broad": args.networks == "both"}
    result: dict = {"command": " ".join(["python", "benchmarks/count_eval.py", *(argv or sys.argv[1:])]),
                    "views": args.views, "networks": args.networks}
    pr_plain, pr_look = procedural(args.styles, args.per_style, args.seed, read)
    result["procedural"] = {"no_look": pr_plain, "with_look": pr_look,
                            "styles": args.styles, "seed": args.seed}
    if args.singles.is_dir():
        ph_plain, ph_look, worst = photoreal(args.singles, args.split, read, args.camera,
                                             args.fill, args.degrade)
        result["photoreal"] = {"no_look": ph_plain, "with_look_same_image": ph_look,
                               "split": args.split, "camera_crops": args.camera,
                               "fill": args.fill, "degrade": args.degrade, "folder": str(args.singles.relative_to(ROOT))
                               if args.singles.is_relative_to(ROOT) else str(args.singles),
                               "errors": worst[:40]}
    for name, block in result.items():
        if isinstance(block, dict):
            for sub, s in block.items():
                if isinstance(s, dict) and "n" in s:
                    print(f"{name:10s} {sub:22s} " + " ".join(
                        f"{k}={v}" for k, v in s.items() if not k.startswith("n_")))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
