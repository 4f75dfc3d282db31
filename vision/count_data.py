"""Labelled pit crops cut from the photoreal renders (sample_images/singles).

Used by the counter's trainer (even-numbered renders) and benchmark
(odd-numbered renders). A crop is cut like the board pipeline's
(docs/vision.md): homography from the label's ``corners_px`` to the canonical
top view, scaled so that the pit diameter is 0.85 of a 96 px square centred on
the labelled pit centre.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

CROP, FILL = 96, 0.85
# Nominal board (metres) when a label carries no geometry: vision/synth/scene.py defaults.
PIT_DIAM_M, LENGTH_M, WIDTH_M = 0.056, 0.68, 0.29


def label_counts(position: dict) -> dict[str, int]:
    """Hole name -> count from a position JSON."""
    out = {}
    for side, (front, back) in (("south", ("A", "B")), ("north", ("a", "b"))):
        for i, v in enumerate(position[side]["front"]):
            out[f"{front}{i + 1}"] = int(v)
        for i, v in enumerate(position[side]["back"]):
            out[f"{back}{i + 1}"] = int(v)
    return out


#: a seed showing less than this share of its camera-facing surface counts as hidden
HIDDEN_BELOW = 0.1
#: the count buckets the figures are given by: (name, fewest, most seeds)
COUNT_BUCKETS = (("0", 0, 0), ("1-3", 1, 3), ("4-8", 4, 8), ("9-15", 9, 15), ("16+", 16, 99))


def _visibility(label: dict) -> dict[str, list[float]] | None:
    """Hole name -> the share of each of its seeds' camera-facing surface in view (every
    hole, empty ones with an empty list), from the render's ``seed_visibility``; None when
    the label has none (renders made before it was recorded)."""
    render = label.get("render") if isinstance(label.get("render"), dict) else None
    vis = (render or {}).get("seed_visibility")
    if not isinstance(vis, dict):
        return None
    out: dict[str, list[float]] = {name: [] for name in label_counts(label["position"])}
    for name, shares in vis.items():
        if name not in out or not isinstance(shares, list):
            raise ValueError(f"seed_visibility: bad entry {name!r}: {shares!r:.80}")
        out[name] = [float(v) for v in shares]
    return out


def hidden_seeds(label: dict, below: float = HIDDEN_BELOW) -> dict[str, int] | None:
    """Hole name -> how many of its seeds the camera cannot see (less than ``below`` of
    a seed's camera-facing surface in view: under other seeds, behind the rim, under a
    hand), from the render's ``seed_visibility``; None when the label has none (renders
    made before it was recorded). No single photo can count such a seed, only guess it."""
    vis = _visibility(label)
    return None if vis is None else {n: sum(v < below for v in shares) for n, shares in vis.items()}


def least_seen(label: dict) -> dict[str, float] | None:
    """Hole name -> the share in view of its least visible seed (1.0 for an empty hole),
    from the render's ``seed_visibility``; None when the label has none. A pit whose
    least visible seed shows a fifth of itself is counted by guessing as much as by
    seeing; ``benchmarks/vision_eval.py`` reads per-pit exactness by this share."""
    vis = _visibility(label)
    return None if vis is None else {n: min(shares, default=1.0) for n, shares in vis.items()}


def check_fill(fill: float) -> None:
    """ValueError unless ``fill`` (a pit's diameter as a share of its crop's side) is 0.2..1.5."""
    if not 0.2 <= fill <= 1.5:
        raise ValueError(f"fill (the pit's share of the crop side) must be 0.2..1.5, not {fill}")


def board_size_m(label: dict) -> tuple[float, float, float]:
    """(length, width, pit diameter) in metres from the label's render geometry, or the
    nominal board's when the label carries none."""
    render = label.get("render") if isinstance(label.get("render"), dict) else {}
    geom = (render or {}).get("geometry") or {}
    try:
        return (8 * geom["pitch_x"] + 2 * geom["margin_x"],
                3 * geom["pitch_y"] + geom["middle_gap"] + 2 * geom["margin_y"],
                2 * geom["pit_radius"])
    except KeyError:
        return LENGTH_M, WIDTH_M, PIT_DIAM_M


def _top_view(label: dict, fill: float) -> tuple[np.ndarray, int, int]:
    """Homography from image pixels to the padded rectified top view, and its size."""
    check_fill(fill)
    length, width, diam = board_size_m(label)
    ppm = CROP * fill / diam  # canonical pixels per metre
    w, h = int(round(length * ppm)), int(round(width * ppm))
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    pad = CROP
    shift = np.array([[1, 0, pad], [0, 1, pad], [0, 0, 1]], np.float64)
    hom = shift @ cv2.getPerspectiveTransform(np.array(label["corners_px"], np.float32), dst)
    return hom, w + 2 * pad, h + 2 * pad


def _top_view_origins(label: dict, hom: np.ndarray) -> dict[str, tuple[int, int]]:
    """Each pit's crop's top-left corner in the padded top view."""
    out = {}
    for name, (x, y) in label["pit_centers_px"].items():
        p = hom @ np.array([x, y, 1.0])
        out[name] = (int(round(p[0] / p[2] - CROP / 2)), int(round(p[1] / p[2] - CROP / 2)))
    return out


def pit_crops(image: np.ndarray, label: dict, fill: float = FILL) -> dict[str, np.ndarray]:
    """Square CROP x CROP crops of every labelled pit, cut from the rectified top view,
    the pit's diameter ``fill`` of the side (the board pipeline's framing by default)."""
    hom, tw, th = _top_view(label, fill)
    top = cv2.warpPerspective(image, hom, (tw, th), flags=cv2.INTER_AREA,
                              borderMode=cv2.BORDER_REPLICATE)
    crops = {}
    for name, (x0, y0) in _top_view_origins(label, hom).items():
        crop = top[max(y0, 0):y0 + CROP, max(x0, 0):x0 + CROP]
        if crop.shape[:2] == (CROP, CROP):
            crops[name] = crop.copy()
    return crops


def _camera_squares(shape: tuple[int, ...], label: dict,
                    fill: float) -> dict[str, tuple[float, float, float]]:
    """(x0, y0, scale) of each pit's square as the camera sees it, for the pits whose
    square lies inside an image of ``shape``: image pixel p maps to (p - (x0, y0)) * scale."""
    check_fill(fill)
    corners = np.array(label["corners_px"], np.float32)
    length, width, diam = board_size_m(label)
    radius = diam / 2
    board = np.array([[0, 0], [length, 0], [length, width], [0, width]], np.float32)
    to_board = cv2.getPerspectiveTransform(corners, board)
    to_image = np.linalg.inv(to_board)
    ring = np.stack([np.cos(np.linspace(0, 2 * np.pi, 24, endpoint=False)),
                     np.sin(np.linspace(0, 2 * np.pi, 24, endpoint=False))], 1) * radius
    out = {}
    for name, (x, y) in label["pit_centers_px"].items():
        c = to_board @ np.array([x, y, 1.0])
        pts = np.column_stack([c[0] / c[2] + ring[:, 0], c[1] / c[2] + ring[:, 1],
                               np.ones(len(ring))]) @ to_image.T
        pts = pts[:, :2] / pts[:, 2:]
        side = float(np.max(pts.max(0) - pts.min(0))) / fill
        x0, y0 = x - side / 2, y - side / 2
        if x0 < 0 or y0 < 0 or x0 + side > shape[1] or y0 + side > shape[0]:
            continue
        out[name] = (x0, y0, CROP / side)
    return out


def camera_pit_crops(image: np.ndarray, label: dict, fill: float = FILL) -> dict[str, np.ndarray]:
    """Square CROP x CROP crops of every labelled pit as the camera sees it, not rectified.

    A stand-in for a photo of one pit (what ``bao count-pit`` is given): the square
    is cut from the image itself around the pit centre, its side the pit's larger
    extent in the image over ``fill``, so an obliquely seen pit is an ellipse and its
    seeds keep their perspective (seen from the side, heaps leaning away). ``fill``:
    the pit's larger extent as a share of the side (how tightly the photo is framed)."""
    crops = {}
    for name, (x0, y0, k) in _camera_squares(image.shape, label, fill).items():
        m = np.array([[k, 0, -x0 * k], [0, k, -y0 * k]], np.float32)
        crops[name] = cv2.warpAffine(image, m, (CROP, CROP),
                                     flags=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR)
    return crops


def crop_seed_points(label: dict, image_shape: tuple[int, ...], camera: bool = False,
                     fill: float = FILL, seen_from: float = HIDDEN_BELOW) -> dict[str, np.ndarray] | None:
    """Where the seeds of each pit lie in its crop (as :func:`pit_crops`, or
    :func:`camera_pit_crops` with ``camera``): ``{pit: (n, 2) array of crop pixels
    (x, y)}`` for the seeds showing at least ``seen_from`` of themselves (a hidden
    seed cannot be pointed at), from the render's ``seed_points_px`` and
    ``seed_visibility``. None when the label has no seed points."""
    render = label.get("render") if isinstance(label.get("render"), dict) else None
    pts = (render or {}).get("seed_points_px")
    vis = (render or {}).get("seed_visibility")
    if not isinstance(pts, dict) or not isinstance(vis, dict):
        return None
    out: dict[str, np.ndarray] = {}
    if camera:
        squares = _camera_squares(image_shape, label, fill)
        for name, (x0, y0, k) in squares.items():
            p = np.array(pts.get(name, []), np.float64).reshape(-1, 2)
            keep = np.array(vis.get(name, []), np.float64) >= seen_from
            out[name] = ((p[keep] - (x0, y0)) * k).astype(np.float32)
        return out
    hom, _tw, _th = _top_view(label, fill)
    for name, (x0, y0) in _top_view_origins(label, hom).items():
        p = np.array(pts.get(name, []), np.float64).reshape(-1, 2)
        keep = np.array(vis.get(name, []), np.float64) >= seen_from
        if not keep.any():
            out[name] = np.zeros((0, 2), np.float32)
            continue
        q = cv2.perspectiveTransform(p[keep][None], hom)[0]
        out[name] = (q - (x0, y0)).astype(np.float32)
    return out


def image_label(path: Path) -> dict | None:
    """The label at ``path`` when it is an image's (a JSON object naming an image file
    beside it), else None: a game's ``game.json`` or other JSON in the folder."""
    try:
        label = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None
    name = label.get("image") if isinstance(label, dict) else None
    return label if isinstance(name, str) and name and (Path(path).parent / name).is_file() else None


def image_number(path: Path) -> int:
    """The last number in a file stem (synth_1_0007 -> 7)."""
    nums = re.findall(r"\d+", path.stem)
    return int(nums[-1]) if nums else 0


def labelled_images(folder: Path, split: str = "all") -> Iterator[tuple[Path, np.ndarray, dict]]:
    """(label path, image, label) for each labelled image; split 'odd'/'even' by image number."""
    for lp in sorted(Path(folder).glob("*.json")):
        num = image_number(lp)
        if (split == "odd" and num % 2 == 0) or (split == "even" and num % 2 == 1):
            continue
        try:
            label = json.loads(lp.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        if not isinstance(label, dict) or "pit_centers_px" not in label or "position" not in label:
            continue
        img = cv2.imread(str(lp.with_name(label.get("image", lp.stem + ".jpg"))))
        if img is not None:
            yield lp, img, label


def image_pits(image: np.ndarray, label: dict, camera: bool = False,
               fill: float = FILL) -> tuple[list[str], list[np.ndarray], list[int]]:
    """Names, crops and true counts of the pits not marked occluded (``camera``: cut as
    :func:`camera_pit_crops` does, else from the rectified top view; ``fill``: the pit's
    share of the crop's side)."""
    counts = label_counts(label["position"])
    crops = camera_pit_crops(image, label, fill) if camera else pit_crops(image, label, fill)
    hidden = set(label.get("occluded_pits") or [])
    names = [n for n in crops if n not in hidden and n in counts and counts[n] <= 40]
    return names, [crops[n] for n in names], [counts[n] for n in names]
