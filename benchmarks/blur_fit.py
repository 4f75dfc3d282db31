"""Fit and check the softening of blurred photos' readings (:mod:`vision.focus`).

Usage::

    python benchmarks/blur_fit.py --fit DIR [DIR ...] --check DIR [DIR ...] [--sigmas 0 1.5 2.5 4]
        [--name NAME]

Every labelled render in the folders is read by the board pipeline as it is and
blurred by a Gaussian of each ``--sigmas`` px (a camera out of focus), with the
softening off; each pit's distribution is kept with the blur effect of its
photo's pit crops (:func:`vision.focus.crops_blur`) and its true count (pits
under a hand left out). On the ``--fit`` folders, the temperature
1 + ``blur_temper`` x (blur - ``blur_from``) past ``blur_from`` is chosen by log
loss over a grid; on the ``--check`` folders (never fitted on) the log loss, mean
confidence, exact share and the share of misread pits confident under
``DecodeConfig.uncertain_below`` are given per blur, without softening, with the
shipped ``CountConfig`` values and with the fitted ones. Prints them and writes
``benchmarks/results/blur_fit[_NAME].json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.config import DEFAULT  # noqa: E402
from vision.count_data import label_counts, labelled_images  # noqa: E402
from vision.focus import soften  # noqa: E402
from vision.holes import flatten  # noqa: E402
from vision.pipeline import recognize  # noqa: E402

STARTS = (0.6, 0.65, 0.7, 0.75, 0.8)
SLOPES = (0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 14.0, 20.0, 30.0)


def collect(folders: list[Path], sigmas: list[float]) -> dict[str, np.ndarray]:
    """Per pit: the sigma its photo was blurred by, its photo's pit crops' blur (as the
    pipeline measured it), the true count and the unsoftened distribution."""
    cfg = dataclasses.replace(DEFAULT, count=dataclasses.replace(DEFAULT.count, blur_temper=0.0, blur_flag=0.0))
    sig, blur, truth, probs = [], [], [], []
    for folder in folders:
        for _, image, label in labelled_images(folder):
            counts = label_counts(label["position"])
            hidden = set(label.get("occluded_pits") or [])
            for s in sigmas:
                img = cv2.GaussianBlur(image, (0, 0), s) if s > 0 else image
                rec = recognize(img, south=label["south_side"], cfg=cfg, on_missing="status")
                if not rec.position:
                    continue
                read = flatten(rec.probabilities)
                for name, n in counts.items():
                    if name in hidden or n > 40:
                        continue
                    sig.append(s)
                    blur.append(rec.blur)
                    truth.append(n)
                    probs.append(read[name])
    return {"sigma": np.array(sig), "blur": np.array(blur), "truth": np.array(truth, int),
            "probs": np.clip(np.array(probs, np.float64), 1e-12, 1.0)}


def figures(d: dict[str, np.ndarray], start: float, slope: float) -> dict[str, float]:
    q = np.vstack([soften(d["probs"][i:i + 1], float(d["blur"][i]), start, slope)
                   for i in range(len(d["truth"]))]) if slope > 0 else d["probs"]
    t = d["truth"]
    ok = q.argmax(axis=1) == t
    conf = q.max(axis=1)
    wrong = ~ok
    return {"pits": int(len(t)),
            "log_loss": round(float(-np.log(np.clip(q[np.arange(len(t)), t], 1e-12, 1)).mean()), 4),
            "exact": round(float(ok.mean()), 4),
            "mean_confidence": round(float(conf.mean()), 4),
            "misread_listed_uncertain": round(float((conf[wrong] < DEFAULT.decode.uncertain_below).mean()), 4)
            if wrong.any() else None}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fit", nargs="+", type=Path, required=True)
    ap.add_argument("--check", nargs="+", type=Path, required=True)
    ap.add_argument("--sigmas", nargs="+", type=float, default=[0.0, 1.5, 2.5, 4.0])
    ap.add_argument("--name", default="")
    args = ap.parse_args(argv)
    fit = collect(args.fit, args.sigmas)
    check = collect(args.check, args.sigmas)
    if not len(fit["truth"]) or not len(check["truth"]):
        print("no labelled pits read in the --fit or --check folders", file=sys.stderr)
        return 2
    grid = {(a, k): figures(fit, a, k)["log_loss"] for a in STARTS for k in SLOPES}
    best = min(grid, key=grid.__getitem__)
    shipped = (DEFAULT.count.blur_from, DEFAULT.count.blur_temper)
    blur_by_sigma = {str(s): [round(float(v), 3) for v in np.percentile(check["blur"][check["sigma"] == s], [5, 50, 95])]
                     for s in args.sigmas}
    result: dict = {"fit_dirs": [str(f) for f in args.fit], "check_dirs": [str(f) for f in args.check],
                    "sigmas": args.sigmas, "fitted": {"blur_from": best[0], "blur_temper": best[1],
                                                      "fit_log_loss": grid[best]},
                    "shipped": {"blur_from": shipped[0], "blur_temper": shipped[1]},
                    "check_blur_p5_50_95": blur_by_sigma, "check": {}}
    print(f"fitted on {len(fit['truth'])} pits: blur_from {best[0]}, blur_temper {best[1]} "
          f"(log loss {grid[best]:.4f}; shipped {shipped})")
    for s in args.sigmas:
        part = {k: v[check["sigma"] == s] for k, v in check.items()}
        row = {"raw": figures(part, 0.0, 0.0), "shipped": figures(part, *shipped), "fitted": figures(part, *best)}
        result["check"][str(s)] = row
        print(f"check, blur {s} px ({row['raw']['pits']} pits, crops' blur {blur_by_sigma[str(s)]}): "
              + "; ".join(f"{k} log loss {v['log_loss']}, confidence {v['mean_confidence']}, exact {v['exact']}, "
                          f"misreads listed {v['misread_listed_uncertain']}" for k, v in row.items()))
    out = ROOT / "benchmarks" / "results" / f"blur_fit{'_' + args.name if args.name else ''}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
