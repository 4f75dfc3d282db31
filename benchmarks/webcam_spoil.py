"""Copies of labelled images spoilt as a poor webcam spoils them.

Usage::

    python benchmarks/webcam_spoil.py SRC [SRC ...] --out OUT [--seed 57]
    python benchmarks/vision_eval.py OUT --name spoilt
    python benchmarks/locate_variants.py OUT --variant ...

Each labelled image in each ``SRC`` (``*.json`` beside its image, as written by ``bao
render``; :func:`vision.count_data.labelled_images`) is given, with draws of its own from ``--seed``: a colour cast (each channel x
0.8-1.2), a gamma of 0.8-1.3, half the resolution, a blur of 0.3-1 px, noise of 3-7 grey
levels, JPEG at quality 35-60, then its own size again, and written to ``OUT`` with its
label unchanged (the corners and pits stay where they were). With ``--half-size`` the copy
stays at half the resolution, as a webcam of that resolution gives it, and the label's
pixel coordinates are halved with it. The renders' own camera finish
(``vision.synth.post``) is milder; this is a stress set, not a likeness of one camera.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.count_data import labelled_images  # noqa: E402


def spoil(image: np.ndarray, rng: np.random.Generator, half: bool = False) -> np.ndarray:
    """``image`` (BGR uint8) spoilt as the module doc says, at its own size (``half``: at
    half its size)."""
    h, w = image.shape[:2]
    out = image.astype(np.float32) * rng.uniform(0.8, 1.2, 3).astype(np.float32)
    out = 255.0 * np.clip(out / 255.0, 0.0, 1.0) ** rng.uniform(0.8, 1.3)
    small = cv2.resize(out, (max(w // 2, 1), max(h // 2, 1)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), rng.uniform(0.3, 1.0))
    small = small + rng.normal(0.0, rng.uniform(3.0, 7.0), small.shape).astype(np.float32)
    ok, buf = cv2.imencode(".jpg", np.clip(small, 0, 255).astype(np.uint8),
                           [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 60))])
    if not ok:
        raise ValueError("JPEG encoding failed")
    if half:
        return cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return cv2.resize(cv2.imdecode(buf, cv2.IMREAD_COLOR), (w, h), interpolation=cv2.INTER_LINEAR)


def scaled_label(label: dict, sx: float, sy: float) -> dict:
    """A copy of ``label`` for its image scaled by ``sx`` x ``sy``: its size, board
    corners, pit centres and the render's seed points (pixel coordinates of the
    pixel-centre convention: (x + 0.5) * s - 0.5) scaled with it."""
    def pt(p: list) -> list:
        return [round((p[0] + 0.5) * sx - 0.5, 2), round((p[1] + 0.5) * sy - 0.5, 2)]

    out = json.loads(json.dumps(label))
    if "width" in out and "height" in out:
        out["width"], out["height"] = round(out["width"] * sx), round(out["height"] * sy)
    if "corners_px" in out:
        out["corners_px"] = [pt(p) for p in out["corners_px"]]
    if "pit_centers_px" in out:
        out["pit_centers_px"] = {k: pt(p) for k, p in out["pit_centers_px"].items()}
    points = (out.get("render") or {}).get("seed_points_px")
    if points:
        out["render"]["seed_points_px"] = {k: [pt(p) for p in v] for k, v in points.items()}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", type=Path, nargs="+")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=57)
    ap.add_argument("--half-size", action="store_true",
                    help="keep the copies at half the resolution (the labels' pixel coordinates halved)")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    n = 0
    for src in args.src:
        before = n
        for lp, image, label in labelled_images(src):
            spoilt = spoil(image, rng, args.half_size)
            if args.half_size:
                label = scaled_label(label, spoilt.shape[1] / image.shape[1], spoilt.shape[0] / image.shape[0])
            cv2.imwrite(str(args.out / label.get("image", lp.stem + ".jpg")), spoilt,
                        [cv2.IMWRITE_JPEG_QUALITY, 90])
            (args.out / lp.name).write_text(json.dumps(label))
            n += 1
        if n == before:
            print(f"webcam_spoil: no labelled images (*.json beside a readable image) in {src}", file=sys.stderr)
            return 2
    print(f"wrote {n} spoilt copies to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
