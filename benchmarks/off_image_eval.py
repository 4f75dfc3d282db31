"""How often a board running off the image is named as such (:func:`vision.pit_scan.off_image`).

Usage::

    python benchmarks/off_image_eval.py DIR [DIR ...] [--bare BARE_DIR] [--name NAME]

Each labelled image in the ``DIR`` folders (``*.json`` beside its image, as written
by ``bao render``) is cut four ways, a share (``--shares``, 0.25 and 0.4 by default) of
its width or height taken away on one side, so that part of the board lies outside
the new image. A cut that leaves all 32 labelled pit centres inside, or fewer than 8,
is skipped. :func:`vision.pit_scan.off_image` is asked about each remaining cut (as
``locate_board`` asks once its search has found no board) and scored:

* **named**: the side cut away is among the sides it names;
* **wrong side**: it names sides, none of them the one cut away;
* **nothing**: it names none (the message is then the search's own).

Also, over the uncut images (whole boards, which the search finds and never asks
about): how many it would call cut, and, with ``--bare``, over photos of tables
without a board: how many it would call cut (a false hint). Prints the figures and
writes ``benchmarks/results/off_image_eval[_NAME].json``.
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

from vision.count_data import labelled_images  # noqa: E402
from vision.pit_scan import off_image  # noqa: E402

SIDES = ("left", "right", "top", "bottom")


def cut(image: np.ndarray, side: str, share: float) -> tuple[np.ndarray, tuple[int, int]]:
    """``image`` with ``share`` of it taken away on ``side``, and the kept part's top-left."""
    h, w = image.shape[:2]
    x0, y0, x1, y1 = 0, 0, w, h
    if side == "left":
        x0 = int(w * share)
    elif side == "right":
        x1 = int(w * (1 - share))
    elif side == "top":
        y0 = int(h * share)
    else:
        y1 = int(h * (1 - share))
    return image[y0:y1, x0:x1], (x0, y0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("--shares", type=float, nargs="+", default=[0.25, 0.4])
    ap.add_argument("--bare", type=Path, help="folder of photos without a board (*.jpg, *.png)")
    ap.add_argument("--name", default="")
    args = ap.parse_args(argv)

    counts = {"named": 0, "wrong_side": 0, "nothing": 0}
    by_pits: dict[str, dict[str, int]] = {}
    wrong: list[dict] = []
    whole, whole_called_cut = 0, []
    times: list[float] = []
    for folder in args.dirs:
        for lp, image, label in labelled_images(folder):
            whole += 1
            if off_image(image) is not None:
                whole_called_cut.append(lp.stem)
            centres = np.array(list(label["pit_centers_px"].values()), float)
            for share in args.shares:
                for side in SIDES:
                    part, (x0, y0) = cut(image, side, share)
                    h, w = part.shape[:2]
                    rel = centres - (x0, y0)
                    inside = int(((rel[:, 0] >= 0) & (rel[:, 0] < w) & (rel[:, 1] >= 0) & (rel[:, 1] < h)).sum())
                    if inside == 32 or inside < 8:
                        continue
                    t0 = time.perf_counter()
                    found = off_image(part)
                    times.append(1000 * (time.perf_counter() - t0))
                    key = "nothing" if found is None else "named" if side in found[0] else "wrong_side"
                    counts[key] += 1
                    band = "8-15" if inside < 16 else "16-23" if inside < 24 else "24-31"
                    by_pits.setdefault(band, {"named": 0, "wrong_side": 0, "nothing": 0})[key] += 1
                    if key == "wrong_side" and found is not None:
                        wrong.append({"image": lp.stem, "side": side, "share": share, "named": found[0]})
    bare = None
    if args.bare is not None:
        files = sorted(p for p in args.bare.iterdir() if p.suffix.lower() in (".jpg", ".png"))
        called = [p.name for p in files if (im := cv2.imread(str(p))) is not None and off_image(im) is not None]
        bare = {"photos": len(files), "called_cut": len(called), "which": called}
    cuts = sum(counts.values())
    result = {
        "dirs": [str(d) for d in args.dirs],
        "shares": args.shares,
        "cuts": cuts,
        **counts,
        "named_rate": round(counts["named"] / cuts, 4) if cuts else None,
        "by_pits_in_view": by_pits,
        "wrong": wrong,
        "whole_boards": whole,
        "whole_boards_called_cut": whole_called_cut,
        "bare_tables": bare,
        "ms_per_cut_median": round(float(np.median(times)), 1) if times else None,
    }
    print(f"{cuts} cut images: side named {counts['named']}, wrong side {counts['wrong_side']}, "
          f"nothing {counts['nothing']}; by pits in view {by_pits}")
    print(f"whole boards called cut: {len(whole_called_cut)} of {whole} {whole_called_cut}")
    if bare is not None:
        print(f"bare tables called cut: {bare['called_cut']} of {bare['photos']} {bare['which']}")
    print(f"median {result['ms_per_cut_median']} ms a cut image")
    out = ROOT / "benchmarks" / "results" / f"off_image_eval{'_' + args.name if args.name else ''}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
