"""Contact sheet and variety tables of a rendered sample set.

Usage: ``python -m vision.synth.catalog sample_images`` writes
``sample_images/contact_sheet.jpg`` (a grid of thumbnails) and prints Markdown
tables of the parameter distribution actually rendered (read from the labels),
which ``sample_images/README.md`` quotes.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.synth.labels import counts_from_position
from vision.synth.scene import BoardGeometry


def labels_in(root: Path) -> list[tuple[Path, dict[str, Any]]]:
    """All single-image and game-frame labels under ``root`` (sorted by path)."""
    paths = sorted(root.glob("singles/*.json")) + sorted(root.glob("games/*/frame_*.json"))
    return [(p, json.loads(p.read_text())) for p in paths]


def contact_sheet(items: list[tuple[Path, dict[str, Any]]], cols: int = 10,
                  thumb_w: int = 192) -> np.ndarray:
    """Grid of thumbnails (BGR), in the order given."""
    thumb_h = thumb_w * 9 // 16
    rows = (len(items) + cols - 1) // cols
    sheet = np.full((rows * (thumb_h + 4) + 4, cols * (thumb_w + 4) + 4, 3), 30, np.uint8)
    for k, (path, label) in enumerate(items):
        img = cv2.imread(str(path.parent / label["image"]))
        if img is None:
            continue
        t = cv2.resize(img, (thumb_w, thumb_h), interpolation=cv2.INTER_AREA)
        r, c = divmod(k, cols)
        y, x = 4 + r * (thumb_h + 4), 4 + c * (thumb_w + 4)
        sheet[y:y + thumb_h, x:x + thumb_w] = t
    return sheet


def _bins(values: list[float], edges: list[float], unit: str = "") -> str:
    hist = np.histogram(values, bins=edges)[0]
    return ", ".join(f"{edges[i]:g}-{edges[i + 1]:g}{unit}: {n}" for i, n in enumerate(hist))


def variety_table(items: list[tuple[Path, dict[str, Any]]]) -> str:
    """Markdown table of what the labels say was rendered."""
    rs = [lb["render"] for _p, lb in items]
    def cnt(values: Any) -> str:
        return ", ".join(f"{k}: {v}" for k, v in sorted(Counter(values).items()))

    max_pit = [float(max(counts_from_position(lb["position"]).values())) for _p, lb in items]
    rows = [
        ("images", str(len(items))),
        ("wood", cnt(r["wood"]["kind"] for r in rs)),
        ("seed kind", cnt(r["seeds"]["kind"] for r in rs)),
        ("seed diameter (mm)", _bins([1000 * r["seeds"]["diameter"] for r in rs],
                                     [10, 14, 18, 22, 26, 30])),
        ("pit pitch (mm)", _bins([1000 * r["geometry"]["pitch_x"] for r in rs],
                                 [55, 65, 75, 85, 95])),
        ("pit depth / radius", _bins([r["geometry"]["pit_depth"] / r["geometry"]["pit_radius"]
                                      for r in rs], [0.4, 0.55, 0.7, 0.85, 1.0])),
        ("pit wall (0.6 a crisp rim .. 2 a dimple)", _bins([BoardGeometry(**r["geometry"]).pit_wall for r in rs],
                                                            [0.3, 0.7, 1.2, 1.8, 3.01])),
        ("end margin beyond the pits' cells (pit radii)",
         _bins([r["geometry"]["margin_x"] / r["geometry"]["pit_radius"] for r in rs], [1, 2, 3, 4.5])),
        ("middle gap between the halves (mm)", _bins([1000 * r["geometry"]["middle_gap"] for r in rs],
                                                     [0, 0.5, 20, 40, 60.01])),
        ("table", cnt(r["table"]["kind"] for r in rs)),
        ("light", cnt(r["light"]["kind"] for r in rs)),
        ("light softness (0 harsh .. 1 soft)", _bins([r["light"]["softness"] for r in rs],
                                                     [0, 0.33, 0.67, 1.0])),
        ("camera side", cnt(r["camera"]["side"] for r in rs)),
        ("south_side in image", cnt(lb["south_side"] for _p, lb in items)),
        ("camera elevation (deg, 90 = straight down)",
         _bins([r["camera"]["elevation"] for r in rs], [45, 55, 65, 75, 85, 90.01])),
        ("focal length (mm, 36 mm sensor)", _bins([r["camera"]["focal_mm"] for r in rs],
                                                  [20, 30, 40, 50.01])),
        ("exposure (EV, before metering)", _bins([r["sensor"]["exposure"] for r in rs],
                                                 [-1.5, -0.5, 0.5, 1.5])),
        ("sensor noise sigma (of 255)", _bins([r["sensor"]["noise_sigma"] for r in rs],
                                              [0, 2, 4, 6])),
        ("JPEG quality used", _bins([r["jpeg_quality_used"] for r in rs], [30, 70, 80, 93])),
        ("view transform", cnt(r["sensor"]["view_transform"] for r in rs)),
        ("hand over board", cnt(str(lb["hand_over_board"]) for _p, lb in items)),
        ("largest pit count", _bins(max_pit, [0, 5, 10, 20, 31, 65])),
        ("seeds moved by physics (holes off request)",
         _bins([float(len(r["holes_changed_by_physics"])) for r in rs], [0, 1, 3, 6, 33])),
        ("render seconds per image (2 shared cores)",
         _bins([r["seconds"]["total"] for r in rs], [0, 30, 60, 120, 600])),
    ]
    out = ["| parameter | images per value / range |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in rows]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.synth.catalog", description=__doc__)
    ap.add_argument("root", type=Path, help="sample set folder (holds singles/ and games/)")
    ap.add_argument("--sheet", type=Path, default=None,
                    help="contact sheet path (default ROOT/contact_sheet.jpg)")
    args = ap.parse_args(argv)
    items = labels_in(args.root)
    if not items:
        print(f"catalog: error: no labels under {args.root}", file=sys.stderr)
        return 2
    singles = [it for it in items if it[0].parent.name == "singles"]
    games = [it for it in items if it[0].parent.name != "singles"]
    # every single plus every third game frame
    sheet = contact_sheet(singles + games[::3])
    ok, buf = cv2.imencode(".jpg", sheet, [cv2.IMWRITE_JPEG_QUALITY, 80])
    if not ok:
        print("catalog: error: JPEG encoding failed", file=sys.stderr)
        return 2
    (args.sheet or args.root / "contact_sheet.jpg").write_bytes(buf.tobytes())
    print("### Single images\n")
    print(variety_table(singles))
    if games:
        print("\n### Game frames\n")
        print(variety_table(games))
    return 0


if __name__ == "__main__":
    sys.exit(main())
