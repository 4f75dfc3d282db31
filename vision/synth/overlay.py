"""Draw a label onto its image to check it by eye.

Usage: ``python -m vision.synth.overlay LABEL.json OUT.png`` - draws the board
corners (TL red, TR green, BR blue, BL yellow), every pit centre with its name
and labelled count, the South side and the occluded pits.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.holes import flatten
from vision.synth.labels import load_label

CORNER_COLOURS = [(0, 0, 255), (0, 200, 0), (255, 0, 0), (0, 220, 255)]  # BGR


def draw(label: dict[str, Any], img: np.ndarray) -> np.ndarray:
    """Copy of ``img`` with the label drawn on it."""
    out = img.copy()
    pts = np.array(label["corners_px"], dtype=np.float32)
    cv2.polylines(out, [np.round(pts).astype(np.int32)], True, (255, 255, 255), 1, cv2.LINE_AA)
    for (x, y), col in zip(pts, CORNER_COLOURS, strict=True):
        cv2.circle(out, (round(x), round(y)), 7, col, -1, cv2.LINE_AA)
    counts = flatten(label["position"])
    hidden = set(label["occluded_pits"])
    for name, (x, y) in label["pit_centers_px"].items():
        p = (round(x), round(y))
        col = (0, 0, 255) if name in hidden else (0, 255, 255)
        cv2.drawMarker(out, p, col, cv2.MARKER_CROSS, 10, 1, cv2.LINE_AA)
        text = f"{name}:{counts[name]}"
        cv2.putText(out, text, (p[0] - 18, p[1] - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.4,
                    (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(out, text, (p[0] - 18, p[1] - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.4,
                    (255, 255, 255), 1, cv2.LINE_AA)
    pos = label["position"]
    info = (f"South: {label['south_side']}  reserves S{pos['south']['reserve']} "
            f"N{pos['north']['reserve']}  hand: {label['hand_over_board']}")
    cv2.putText(out, info, (10, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 4, cv2.LINE_AA)
    cv2.putText(out, info, (10, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1,
                cv2.LINE_AA)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.synth.overlay", description=__doc__)
    ap.add_argument("label", type=Path, help="label JSON (the image is read from beside it)")
    ap.add_argument("out", type=Path, help="output image (PNG or JPEG)")
    args = ap.parse_args(argv)
    try:
        label = load_label(args.label)
        img_path = args.label.parent / label["image"]
        img = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
        if img is None:
            raise OSError(f"cannot read image {img_path}")
        if not cv2.imwrite(str(args.out), draw(label, img)):
            raise OSError(f"cannot write {args.out}")
    except (ValueError, OSError) as exc:
        print(f"overlay: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
