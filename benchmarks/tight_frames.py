"""Tightly framed copies of labelled images: a camera close over the board.

Usage::

    python benchmarks/tight_frames.py SRC OUT --margin 0.7
    python benchmarks/vision_eval.py OUT --name tight

Each labelled image in ``SRC`` (``*.json`` beside its image, as written by ``bao
render``) is cropped to the bounding box of its 32 pit centres plus ``--margin``
pit pitches on every side (clipped to the image), scaled so its long side is
``--long-side`` px, and written to ``OUT`` with its label's corners and pit
centres moved to match (so the playing surface's corners may lie outside the
image). At a margin of about 0.55 the board's edges are all out of the frame and
its pits all in.
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

from vision.rectify import pit_spacing  # noqa: E402


def tight_copy(image: np.ndarray, label: dict, margin: float, long_side: int) -> tuple[np.ndarray, dict]:
    """The cropped, scaled image and its label (see the module doc)."""
    centres = np.array(list(label["pit_centers_px"].values()), float)
    pitch = pit_spacing(centres)
    h, w = image.shape[:2]
    x0, y0 = np.maximum(np.floor(centres.min(axis=0) - margin * pitch), 0).astype(int)
    x1, y1 = np.minimum(np.ceil(centres.max(axis=0) + margin * pitch), (w, h)).astype(int)
    crop = image[y0:y1, x0:x1]
    s = long_side / max(crop.shape[:2])
    out = cv2.resize(crop, (round(crop.shape[1] * s), round(crop.shape[0] * s)),
                     interpolation=cv2.INTER_CUBIC if s > 1 else cv2.INTER_AREA)
    sx, sy = out.shape[1] / crop.shape[1], out.shape[0] / crop.shape[0]

    def move(p: list[float]) -> list[float]:
        return [round((p[0] - x0) * sx, 2), round((p[1] - y0) * sy, 2)]

    new = dict(label)
    new["corners_px"] = [move(p) for p in label["corners_px"]]
    new["pit_centers_px"] = {k: move(v) for k, v in label["pit_centers_px"].items()}
    new["width"], new["height"] = out.shape[1], out.shape[0]
    return out, new


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--margin", type=float, default=0.7, help="pit pitches kept round the outer pits")
    ap.add_argument("--long-side", type=int, default=1280)
    args = ap.parse_args(argv)
    labels = sorted(p for p in args.src.glob("*.json") if p.name != "game.json")
    if not labels:
        print(f"tight_frames: no labels (*.json) in {args.src}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    n = 0
    for lp in labels:
        label = json.loads(lp.read_text())
        if "pit_centers_px" not in label or "image" not in label:
            continue
        image = cv2.imread(str(args.src / label["image"]))
        if image is None:
            print(f"tight_frames: cannot read {args.src / label['image']}", file=sys.stderr)
            return 2
        img, new = tight_copy(image, label, args.margin, args.long_side)
        cv2.imwrite(str(args.out / label["image"]), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
        (args.out / lp.name).write_text(json.dumps(new))
        n += 1
    print(f"wrote {n} tight copies to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
