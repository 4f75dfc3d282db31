"""Crop sets for training and measuring the counter (``python -m vision.train_cnn gen |
photo | pipeline``): procedural pits, pits of labelled renders cut with the true
geometry, and pits as the board pipeline cuts them. Each set is a dict of arrays
saved as ``.npz``: ``crops`` (N, STORE, STORE, 3) BGR, ``y`` counts, ``style`` (a
procedural style id, or minus the folder and image number of a render), and where
known ``points`` / ``npoints``, each crop's seed points (:mod:`vision.seed_density`).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision.seed_density import pad_points
from vision.synth_pits import random_style, render_pit_with_points

STORE = 96  # stored crop side


def sample_count(rng: np.random.Generator) -> int:
    """Training count prior: many small counts (the 0-8 target), heaps up to 40."""
    u = rng.random()
    if u < 0.12:
        return 0
    if u < 0.6:
        return int(rng.integers(1, 9))
    if u < 0.8:
        return int(rng.integers(9, 17))
    return int(rng.integers(17, 41))


def _store(crop: np.ndarray) -> np.ndarray:
    h, w = crop.shape[:2]
    interp = cv2.INTER_AREA if min(h, w) > STORE else cv2.INTER_LINEAR
    return cv2.resize(crop, (STORE, STORE), interpolation=interp)


def _stored_points(points: np.ndarray, side: int) -> np.ndarray:
    """Seed points of a ``side`` px square crop, moved as :func:`_store` resizes it."""
    return ((np.asarray(points, np.float32) + 0.5) * (STORE / side) - 0.5).astype(np.float32)


def generate(n: int, seed: int, per_style: int = 4) -> dict[str, np.ndarray]:
    """``n`` procedural crops with their counts, style ids and seed points."""
    rng = np.random.default_rng(seed)
    crops, ys, sid, pts = [], [], [], []
    t0 = time.time()
    style = None
    for i in range(n):
        if i % per_style == 0:
            style = random_style(rng)
        c = sample_count(rng)
        crop, where = render_pit_with_points(style, c, rng)  # type: ignore[arg-type]
        crops.append(_store(crop))
        pts.append(_stored_points(where, crop.shape[0]))
        ys.append(c)
        sid.append(seed * 1_000_000 + i // per_style)
        if i % 2000 == 0:
            print(f"gen {i}/{n} {time.time() - t0:.0f}s", file=sys.stderr, flush=True)
    points, npoints = pad_points(pts)
    return {"crops": np.stack(crops), "y": np.asarray(ys, np.int16),
            "style": np.asarray(sid, np.int64), "points": points, "npoints": npoints}


def photo(folders: list[Path], every: int = 1, holes: set[str] | None = None,
          camera: bool = False) -> dict[str, np.ndarray]:
    """Every visible pit of the labelled renders in ``folders`` (one image in ``every``);
    only the pits named in ``holes`` when given (e.g. the square nyumba, to add more of
    them to the training mix). ``camera``: cut as the camera sees each pit, not from
    the rectified top view (:func:`vision.count_data.camera_pit_crops`). Where the
    labels record their seeds' image points, each crop's seed points (all its seeds,
    buried ones too) are kept for the density target (:mod:`vision.seed_density`)."""
    from vision.count_data import crop_seed_points, image_number, image_pits, labelled_images

    crops, ys, sid = [], [], []
    pts: list[np.ndarray | None] = []
    for fi, folder in enumerate(folders):
        for k, (lp, img, label) in enumerate(labelled_images(folder)):
            if k % every:
                continue
            names, cs, counts = image_pits(img, label, camera)
            where = crop_seed_points(label, img.shape, camera, seen_from=0.0)
            pick = [i for i, n in enumerate(names) if holes is None or n in holes]
            crops += [_store(cs[i]) for i in pick]
            ys += [counts[i] for i in pick]
            sid += [-(fi + 1) * 100_000 - image_number(lp)] * len(pick)
            pts += [None if where is None else _stored_points(where[names[i]], cs[i].shape[0])
                    for i in pick]
    if not crops:
        raise SystemExit(f"no labelled pits in {', '.join(map(str, folders))}"
                         + (f" named {', '.join(sorted(holes))}" if holes else ""))
    points, npoints = pad_points(pts)
    return {"crops": np.stack(crops), "y": np.asarray(ys, np.int16),
            "style": np.asarray(sid, np.int64), "points": points, "npoints": npoints}


def pipeline_pits(folders: list[Path], max_offset_px: float = 20.0) -> dict[str, np.ndarray]:
    """Every visible pit of the labelled renders in ``folders`` as the board pipeline
    crops it (its own board, grid and crop radius, :func:`vision.pipeline.recognize`),
    skipping images whose board is not found and pits whose fitted centre is more than
    ``max_offset_px`` from the labelled one (a wrong board's crops teach nothing about
    counting). Heaps cut this way read lower than with the true geometry (a crop
    radius a few per cent off moves a heap's reading by several seeds), so the heap
    widening is fitted on them."""
    from vision.count import flat_counts
    from vision.count_data import image_number, label_counts, labelled_images
    from vision.errors import BoardNotFound
    from vision.holes import HOLES
    from vision.pipeline import recognize

    crops, ys, sid = [], [], []
    for fi, folder in enumerate(folders):
        for lp, img, label in labelled_images(folder):
            got: list[list[np.ndarray]] = []

            def keep(cs, look, got=got):  # noqa: ANN001 - the pipeline's counter hook
                got.append(list(cs))
                return flat_counts(cs, look)

            try:
                rec = recognize(img, south=label["south_side"], counter=keep)
            except BoardNotFound:
                continue
            truth = label_counts(label["position"])
            hidden = set(label.get("occluded_pits") or [])
            for name, crop in zip(HOLES, got[0], strict=True):
                off = np.hypot(*(np.subtract(rec.pit_centers_px[name], label["pit_centers_px"][name])))
                if name in hidden or off > max_offset_px:
                    continue
                crops.append(_store(crop))
                ys.append(truth[name])
                sid.append(-(fi + 1) * 100_000 - image_number(lp))
    if not crops:
        raise SystemExit(f"no board found with labelled pits in {', '.join(map(str, folders))}")
    return {"crops": np.stack(crops), "y": np.asarray(ys, np.int16),
            "style": np.asarray(sid, np.int64)}
