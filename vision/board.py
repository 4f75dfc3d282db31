"""Stage 2: the pit lattice on the board's top face, and the corners from it.

The located quad is only a start: at a 45 degree camera its outline may
include the board's side face, and a rectification by those corners shears the
grid. The pits, though, lie on the top face on a 4 x 8 lattice (equal column
pitch, equal row pitch, possibly a wider gap between rows 2 and 3), so a
homography from lattice indices to pit centres *is* the top face's
rectification, whatever the outline did:

1. a first lattice comes from the comb search of :func:`vision.grid.fit_grid`
   on the view rectified by the given corners;
2. the image is warped to the **lattice view** (pits exactly on a grid of
   ``lattice_pitch_px``), the pit radius and the pits' height/width ratio are
   measured there (:func:`rim_evidence`: rims are circles of radial gradient),
   each pit's rim is searched around its lattice point, and the lattice
   homography is refitted to those rims (RANSAC) with the middle gap that fits
   best, 3 passes; after the first, a comb one column or row off is moved back;
3. :attr:`PitGrid.score` says how sure: rim evidence at the lattice points minus
   that between them, over the view's mean gradient (or its inner part's, if
   lower: a busy floor around a board), x the share of inliers (about 0 for a
   lattice laid on a table);
4. the playing surface's corners are the innermost strong edges beyond the
   outer pits in that view (:func:`surface_edges`; on a wider view where the
   margins run past it).

``fit_board`` returns what the pipeline needs: corners (canonical TL, TR, BR,
BL, image px), the image -> view homography, the :class:`PitGrid` on that view
and the board's aspect. Points are OpenCV ``(x, y)``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.config import DEFAULT, GridConfig, VisionConfig
from vision.grid import PitGrid, fit_grid, radial_coherence
from vision.locate import dark_retry_copy, edge_magnitude, refine_sides
from vision.rectify import canonical_size, rectify, to_image


def rim_evidence(gx: np.ndarray, gy: np.ndarray, centres: np.ndarray, radii: np.ndarray,
                 sectors: int = 0) -> np.ndarray:
    """Per centre and ellipse: mean (|radial| - |tangential|) gradient on the ellipse.

    ``gx, gy``: the view's gradients; ``centres`` (N, 2); ``radii`` (E, 2) as
    (rx, ry). Pit rims are closed curves of radial gradient (high); wood grain,
    tiles and lines have no preferred direction around a point (about 0).
    ``sectors`` > 0: the median over that many equal arcs of each arc's mean
    instead of the plain mean, so the rim must show most of the way round (a
    straight edge touching the ellipse lights up only one or two arcs).
    Returns (N, E).
    """
    ang = np.linspace(0, 2 * np.pi, 32, endpoint=False)
    ca, sa = np.cos(ang), np.sin(ang)
    n, e = len(centres), len(radii)
    mx = centres[:, 0, None, None] + radii[None, :, 0, None] * ca[None, None, :]
    my = centres[:, 1, None, None] + radii[None, :, 1, None] * sa[None, None, :]
    mx32 = mx.reshape(n, -1).astype(np.float32)
    my32 = my.reshape(n, -1).astype(np.float32)
    step = 32000  # cv2.remap maps at most 32767 rows
    sx = np.concatenate([cv2.remap(gx, mx32[i : i + step], my32[i : i + step], cv2.INTER_LINEAR)
                         for i in range(0, n, step)]).reshape(n, e, -1)
    sy = np.concatenate([cv2.remap(gy, mx32[i : i + step], my32[i : i + step], cv2.INTER_LINEAR)
                         for i in range(0, n, step)]).reshape(n, e, -1)
    # normal of the ellipse at angle t is (cos t / rx, sin t / ry), normalised
    nx = ca[None, :] / radii[:, 0, None]
    ny = sa[None, :] / radii[:, 1, None]
    nn = np.hypot(nx, ny)
    nx, ny = (nx / nn).astype(np.float32), (ny / nn).astype(np.float32)
    rad = np.abs(sx * nx[None] + sy * ny[None])
    tan = np.abs(-sx * ny[None] + sy * nx[None])
    if sectors > 0:
        return _median_first(np.moveaxis((rad - tan).reshape(n, e, sectors, -1).mean(axis=3), 2, 0))
    return (rad - tan).mean(axis=2)


def _median_first(a: np.ndarray) -> np.ndarray:
    """``np.median(a, axis=0)`` for a short first axis, by sorting (numpy's median
    over a short axis partitions each of many tiny rows: ~5x slower)."""
    s = np.sort(a, axis=0)
    k = len(s)
    return s[k // 2] if k % 2 else (s[k // 2 - 1] + s[k // 2]) / 2


def rim_evidence_grid(gx: np.ndarray, gy: np.ndarray, circles: list[tuple[float, int]],
                      sectors: int = 8) -> list[np.ndarray]:
    """:func:`rim_evidence` of circles centred at every ``step``-th pixel,
    ``(y, x) = (i * step, j * step)``, for each ``(radius, step)`` of ``circles``:
    the same values (up to float rounding), computed for the whole grid at once.

    Each of the 32 directions is one resampling of gx and of gy on the grid shifted
    by the direction's offset (``cv2.warpAffine``: a scaled translation, no
    coordinate maps to build; on one-channel float images it interpolates at the
    exact position, as ``cv2.remap`` of the same points does). The radial and
    tangential gradients are linear in (gx, gy), so they are combined from those
    samples on the grid: bilinear sampling commutes with the combination, and the
    grid has a quarter of the view's pixels or fewer. (Two-channel images are
    interpolated at positions rounded to 1/32 px instead: errors of a few per cent.)
    Returns one (ceil(h / step), ceil(w / step)) array per circle.
    """
    h, w = gx.shape
    n_ang = 32
    ang = np.linspace(0, 2 * np.pi, n_ang, endpoint=False)
    per = n_ang // sectors if sectors > 0 else n_ang
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP  # m maps output (grid) px to input px
    out = []
    for radius, step in circles:
        nx, ny = len(range(0, w, step)), len(range(0, h, step))
        acc = np.zeros((max(sectors, 1), ny, nx), np.float32)
        for k, a in enumerate(ang):
            m = np.array([[step, 0.0, float(np.float32(radius * np.cos(a)))],
                          [0.0, step, float(np.float32(radius * np.sin(a)))]])
            sx = cv2.warpAffine(gx, m, (nx, ny), flags=flags)
            sy = cv2.warpAffine(gy, m, (nx, ny), flags=flags)
            c, s = float(np.cos(a)), float(np.sin(a))
            dst = acc[k // per if sectors > 0 else 0]
            dst += np.abs(cv2.addWeighted(sx, c, sy, s, 0.0))  # radial
            dst -= np.abs(cv2.addWeighted(sy, c, sx, -s, 0.0))  # tangential
        acc /= per
        out.append(_median_first(acc) if sectors > 0 else acc[0])
    return out


def _lattice_rows(gap: float) -> np.ndarray:
    return np.arange(4) + np.where(np.arange(4) >= 2, gap, 0.0)


@functools.lru_cache(maxsize=128)
def _lattice_points(gap: float) -> np.ndarray:
    """(32, 2) lattice coords (col, row + gap past row 1), row-major; read-only, made once
    for each gap (the middle gap's search asks for the same 41 gaps again and again)."""
    pts = np.stack(np.meshgrid(np.arange(8.0), _lattice_rows(gap)), -1).reshape(-1, 2)
    pts.flags.writeable = False
    return pts


def _view_matrix(hlat: np.ndarray, cfg: GridConfig, gap: float) -> tuple[np.ndarray, tuple[int, int]]:
    """Image -> lattice view matrix and the view size (pits on a pitch-spaced grid)."""
    p, b = cfg.lattice_pitch_px, cfg.lattice_border
    a = np.array([[p, 0, b * p], [0, p, b * p], [0, 0, 1]])
    size = (int(round(p * (7 + 2 * b))), int(round(p * (3 + gap + 2 * b))))
    return a @ np.linalg.inv(hlat), size


def _lattice_view(image: np.ndarray, hlat: np.ndarray, cfg: GridConfig, gap: float) -> tuple[np.ndarray, np.ndarray]:
    """The lattice view of ``image`` (:func:`_view_matrix`, the image's border repeated
    past its edge) and its image -> view matrix."""
    m, size = _view_matrix(hlat, cfg, gap)
    return cv2.warpPerspective(image, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), m


def _gap_fit(dst: np.ndarray, keep: np.ndarray, steps: tuple[float, ...]) -> tuple[np.ndarray, float] | None:
    """The middle gap (of ``steps``) whose lattice fits the points ``dst`` (image px, of
    the lattice points ``keep``) best, and its homography; None if none fits.
    Coarse to fine: every third step, then the steps beside the best (the fit error
    varies smoothly with the gap), 19 homography fits instead of 41. (With the
    inliers on three rows the gap is left open: every step fits alike and float
    noise picks one, here as in an exhaustive search.)"""
    cache: dict[int, tuple[float, np.ndarray | None]] = {}

    def err(i: int) -> float:
        if i not in cache:
            sg = _lattice_points(steps[i])[keep].reshape(-1, 1, 2)
            h_g, _ = cv2.findHomography(sg, dst, 0)
            e = np.inf if h_g is None else float(np.mean(np.linalg.norm(
                cv2.perspectiveTransform(sg, h_g).reshape(-1, 2) - dst, axis=1)))
            cache[i] = (e, h_g)
        return cache[i][0]

    n = len(steps)
    coarse = list(range(0, n, 3)) + ([n - 1] if (n - 1) % 3 else [])
    best = min(coarse, key=lambda i: (err(i), i))
    best = min((i for i in range(best - 2, best + 3) if 0 <= i < n), key=lambda i: (err(i), i))
    e, h_best = cache[best]
    if h_best is None or not np.isfinite(e):
        return None
    return h_best, float(steps[best])


def _best_gap(dst: np.ndarray, keep: np.ndarray, steps: tuple[float, ...], hlat: np.ndarray,
              gap: float) -> tuple[np.ndarray, float]:
    """:func:`_gap_fit` of the rim centres ``dst``; (``hlat``, ``gap``) if none fits."""
    return _gap_fit(dst, keep, steps) or (hlat, gap)


def _fit_gap(ys: np.ndarray) -> float:
    """Middle gap in row pitches from four row positions."""
    step = 0.5 * ((ys[1] - ys[0]) + (ys[3] - ys[2]))
    return float(np.clip((ys[2] - ys[1]) / max(step, 1e-6) - 1.0, 0.0, 0.8))


def _refine_peaks(gx: np.ndarray, gy: np.ndarray, pts: np.ndarray, r: tuple[float, float],
                  reach: int, sectors: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Each pit's rim centre within +/- reach px of ``pts`` (sub-pixel): (peaks, evidence).
    Coarse to fine: every other px over the reach, then the 3 x 3 px around the best.
    ``sectors``: as in :func:`rim_evidence` (the rim must show most of the way round)."""
    n = len(pts)
    radii = np.array([r])
    stride = 2 if reach > 3 else 1
    d = np.arange(-reach, reach + 1, stride, dtype=np.float64)
    ox, oy = (v.ravel() for v in np.meshgrid(d, d))
    off = np.stack([ox, oy], 1)
    ev = rim_evidence(gx, gy, (pts[:, None, :] + off[None]).reshape(-1, 2), radii,
                      sectors).reshape(n, -1)
    start = pts + off[np.argmax(ev, axis=1)]
    f = np.array([-1.0, 0.0, 1.0])
    fx, fy = (v.ravel() for v in np.meshgrid(f, f))
    fine = np.stack([fx, fy], 1)
    e = rim_evidence(gx, gy, (start[:, None, :] + fine[None]).reshape(-1, 2), radii,
                     sectors).reshape(n, 3, 3)
    k = np.argmax(e.reshape(n, 9), axis=1)
    iy, ix = k // 3, k % 3
    best = e.reshape(n, 9)[np.arange(n), k]
    peaks = start + np.stack([ix - 1, iy - 1], 1).astype(np.float64)
    centre = (ix == 1) & (iy == 1)  # sub-pixel where the best is inside the 3 x 3
    for j, line in enumerate((e[:, 1, :], e[:, :, 1])):
        den = line[:, 0] - 2 * line[:, 1] + line[:, 2]
        sub = np.where(centre & (den < 0), 0.5 * (line[:, 0] - line[:, 2]) / np.where(den < 0, den, -1.0), 0.0)
        peaks[:, j] += np.clip(sub, -0.5, 0.5)
    return peaks, best


def _measure_radius(gx: np.ndarray, gy: np.ndarray, pts: np.ndarray, cfg: GridConfig) -> tuple[float, float]:
    """(rx, ry) of the pits in the lattice view: the ellipse with the most rim evidence
    at the pits (median over the pits, so seeds and a hand on a few do not decide)."""
    p = cfg.lattice_pitch_px
    combos = np.array([(f * p, f * p * a) for f in cfg.rim_radius_fracs for a in cfg.rim_ratio_steps])
    ev = np.median(rim_evidence(gx, gy, pts, combos), axis=0)
    k = int(np.argmax(ev))
    return float(combos[k, 0]), float(combos[k, 1])


def _outer_radius(gx: np.ndarray, gy: np.ndarray, pts: np.ndarray, radius: tuple[float, float],
                  cfg: GridConfig) -> tuple[float, float]:
    """(rx, ry) of the rim's outer edge: the median rim evidence over the pits, on ellipses
    scaled from ``radius`` (the radius of most evidence), followed outwards from its peak
    to where it falls below ``crop_rim_level`` x the peak. Measured on renders: the
    radius of most evidence is below the true rim by 5 % (median) and by 15 % or more
    on one board in ten (a shaded bowl has its strongest radial gradient inside the rim);
    this edge is within -10..+15 % on all but a few."""
    scales = np.arange(0.8, cfg.crop_radius_max + 1e-9, 0.025)
    ev = np.median(rim_evidence(gx, gy, pts, np.outer(scales, radius)), axis=0)
    near = (scales >= 0.85) & (scales <= 1.15)
    k = int(np.flatnonzero(near)[np.argmax(ev[near])])
    peak = float(ev[k])
    if peak <= 0:
        return radius
    level = cfg.crop_rim_level * peak
    s = float(scales[-1])
    for j in range(k + 1, len(scales)):
        if ev[j] < level:
            t = (ev[j - 1] - level) / max(float(ev[j - 1] - ev[j]), 1e-9)
            s = float(scales[j - 1] + t * (scales[j] - scales[j - 1]))
            break
    s = max(s, 1.0)
    return radius[0] * s, radius[1] * s


def rim_centres(gx: np.ndarray, gy: np.ndarray, centres: np.ndarray, radius: tuple[float, float],
                cfg: GridConfig) -> tuple[np.ndarray, tuple[float, float]]:
    """Pit centres and radius for cutting the counter's crops: ((4, 8, 2), (rx, ry)).

    The lattice refit centres each pit on the most rim evidence, which at an
    oblique view leans towards the near rim (a sharp edge, while the far rim is
    faint against the lit inner wall) with a radius inside the rim. Here the
    radius is the rim's outer edge (:func:`_outer_radius`) and each pit is
    centred on that ellipse with the evidence taken as the median over 8 arcs
    (the rim must show all the way round). The shift is about the same for every
    pit (it comes from the viewing angle), so a pit whose rim shows weakly (below
    ``crop_recentre_min`` x the pits' median: the square nyumba, a pit under a heap
    or a hand) moves by the median shift of the others; no pit moves more than
    ``crop_recentre_frac`` pitch. The radius returned is at least ``crop_radius_min``
    x the pitch on each axis (:func:`_floored`)."""
    pts = centres.reshape(-1, 2)
    outer = _outer_radius(gx, gy, pts, radius, cfg)
    limit = cfg.crop_recentre_frac * cfg.lattice_pitch_px
    peaks, ev = _refine_peaks(gx, gy, pts, outer, max(2, int(round(limit))), sectors=8)
    shift = peaks - pts
    good = (ev >= cfg.crop_recentre_min * max(float(np.median(ev)), 0.0)) & (ev > 0) \
        & (np.linalg.norm(shift, axis=1) <= limit)
    if good.sum() < 8:  # too few pits seen well to say anything
        return centres, _floored(outer, cfg)
    shift = np.where(good[:, None], shift, np.median(shift[good], axis=0))
    new = pts + shift
    return new.reshape(centres.shape), _floored(_outer_radius(gx, gy, new, radius, cfg), cfg)


def _floored(radius: tuple[float, float], cfg: GridConfig) -> tuple[float, float]:
    """``radius`` (rx, ry, lattice-view px) at least ``crop_radius_min`` x the pitch on each axis."""
    least = cfg.crop_radius_min * cfg.lattice_pitch_px
    return max(radius[0], least), max(radius[1], least)


def log_intensity(view: np.ndarray, log_offset: float) -> np.ndarray:
    """The view's grey level as ``(128 + c) log(I + c)`` with ``c = log_offset`` (as
    steep as the intensity itself at mid-grey), float32; ``log_offset`` 0: the
    plain grey level."""
    grey = view if view.ndim == 2 else cv2.cvtColor(view, cv2.COLOR_BGR2GRAY)
    if log_offset > 0:
        return ((128.0 + log_offset) * np.log(grey.astype(np.float32) + log_offset)).astype(np.float32)
    return grey


def _gradients(view: np.ndarray, log_offset: float) -> tuple[np.ndarray, np.ndarray]:
    """Sobel gradients of the view's :func:`log_intensity`: a pit rim on near-black
    wood is as strong as one on pale wood, relative to the view's mean gradient."""
    grey = cv2.GaussianBlur(log_intensity(view, log_offset), (3, 3), 0)
    return cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)


def _slip(gx: np.ndarray, gy: np.ndarray, gap: float, radius: tuple[float, float],
          cfg: GridConfig) -> tuple[int, int]:
    """(columns, rows) to shift the lattice by: -1, 0 or 1 each. A line of pits just
    outside the lattice that looks as much like pits as the lattice's own, while the
    lattice's opposite line looks much less so, means the comb slipped by one."""
    p, b = cfg.lattice_pitch_px, cfg.lattice_border
    cols = np.arange(-1.0, 9.0)
    rows = np.arange(-1.0, 5.0) + np.where(np.arange(-1, 5) >= 2, gap, 0.0)
    pts = np.stack(np.meshgrid(cols, rows), -1).reshape(-1, 2) * p + b * p
    ev = rim_evidence(gx, gy, pts, np.array([radius])).reshape(6, 10)
    inner = float(np.median(ev[1:5, 1:9]))
    if inner <= 0:
        return (0, 0)
    col = np.median(ev[1:5], axis=0)  # per column -1..8
    row = np.median(ev[:, 1:9], axis=1)  # per row -1..4

    def pick(line: np.ndarray) -> int:
        before, first, last, after = line[0], line[1], line[-2], line[-1]
        if after > cfg.slip_abs * inner and after > cfg.slip_rel * max(first, 0.0) and after >= before:
            return 1
        if before > cfg.slip_abs * inner and before > cfg.slip_rel * max(last, 0.0):
            return -1
        return 0

    return pick(col), pick(row)


def line_evidence(gx: np.ndarray, gy: np.ndarray, gap: float, radius: tuple[float, float],
                  cfg: GridConfig) -> np.ndarray:
    """Rim evidence (median over 8 arcs) at the lattice points and one line beyond
    each side, in the lattice view: (6, 10) for rows -1..4 and columns -1..8."""
    pts = _line_points(gap, cfg).reshape(-1, 2)
    return rim_evidence(gx, gy, pts, np.array([radius]), sectors=8).reshape(6, 10)


def _line_points(gap: float, cfg: GridConfig) -> np.ndarray:
    """The lattice points and one line beyond each side, lattice-view px: (6, 10, 2)
    for rows -1..4 and columns -1..8 (:func:`line_evidence`, :func:`unseen_sides`)."""
    p, b = cfg.lattice_pitch_px, cfg.lattice_border
    cols = np.arange(-1.0, 9.0)
    rows = np.arange(-1.0, 5.0) + np.where(np.arange(-1, 5) >= 2, gap, 0.0)
    return np.stack(np.meshgrid(cols, rows), -1) * p + b * p


def _line_levels(table: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Median rim evidence of each column (-1..8) and each row (-1..4) of a
    :func:`line_evidence` table, over the lattice's median; None when that median is 0
    or less (no pits to compare with)."""
    inner = float(np.median(table[1:5, 1:9]))
    if inner <= 0:
        return None
    return np.median(table[1:5], axis=0) / inner, np.median(table[:, 1:9], axis=1) / inner


def _shifted(hlat: np.ndarray, shift: tuple[int, int]) -> np.ndarray:
    """The lattice homography ``hlat`` moved by (columns, rows) whole pitches."""
    return hlat @ np.array([[1.0, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1]])


def _slipped(table: np.ndarray, cfg: GridConfig, ratio: float | None = None) -> tuple[int, int]:
    """(columns, rows) to shift a fitted lattice by, from :func:`line_evidence`: an
    outer line of the lattice without pits (below ``edge_empty`` x the lattice's
    median) while the line beyond the opposite side shows them (at least
    ``edge_outside`` x) is a lattice one pitch off the pits; so is an outer line
    under ``edge_weak`` x while the line beyond the opposite side is at least
    ``edge_beyond`` x and ``edge_beyond_ratio`` times it (a fine pattern on the
    table seen through the lattice view lifts an empty line a little). ``ratio``:
    another ratio than ``edge_beyond_ratio`` (:func:`fit_from_lattice`'s second look)."""
    levels = _line_levels(table)
    if levels is None:
        return (0, 0)
    col, row = levels  # columns -1..8, rows -1..4

    def off(outer: float, beyond: float) -> bool:
        return bool((outer < cfg.edge_empty and beyond >= cfg.edge_outside)
                    or (outer < cfg.edge_weak and beyond >= cfg.edge_beyond
                        and beyond >= (cfg.edge_beyond_ratio if ratio is None else ratio) * max(outer, 0.0)))

    def pick(line: np.ndarray) -> int:
        up = off(line[1], line[-1])
        down = off(line[-2], line[0])
        if up and down:
            return 0
        return 1 if up else -1 if down else 0

    return pick(col), pick(row)


def _continues(table: np.ndarray, cfg: GridConfig, unseen: np.ndarray | None = None) -> bool:
    """Whether the lines beyond two or more sides of the lattice (from
    :func:`line_evidence`) look like pits too (at least ``continues_beyond`` x the
    lattice's median): a tiled table goes on, a board's pits end at its margins.
    ``unseen``: per side (columns -1 and 8, rows -1 and 4), whether that line lies
    off the image; with ``continues_unseen``, once a side in view goes on, the
    sides off the image count as going on too: a pattern cut by the image's edge
    has no end to see. (Not without one: a board filling the frame has its margins
    off the image, and its pits end at every side in view.) Once one side in view
    goes on, a second one in view at ``continues_also`` x or more goes on too: a
    brick pattern seen through the lattice lines beyond rows lifts them less."""
    levels = _line_levels(table)
    if levels is None:
        return False
    col, row = levels
    beyond = np.array([col[0], col[-1], row[0], row[-1]])
    off = np.zeros(4, bool) if unseen is None or not cfg.continues_unseen else np.asarray(unseen, bool)
    going = int(np.sum((beyond >= cfg.continues_beyond) & ~off))
    fainter = int(np.sum((beyond >= cfg.continues_also) & ~off)) if cfg.continues_also > 0 else 0
    return going >= 2 or (going >= 1 and (going + int(off.sum()) >= 2 or fainter >= 2))


def unseen_sides(m: np.ndarray, gap: float, shape: tuple[int, ...], cfg: GridConfig) -> np.ndarray:
    """Per side of the lattice (columns -1 and 8, rows -1 and 4, as in
    :func:`line_evidence`), whether most of the line beyond it lies off the image
    (``m``: image -> lattice view)."""
    h, w = shape[:2]
    xy = to_image(_line_points(gap, cfg).reshape(-1, 2), m).reshape(6, 10, 2)
    off = (xy[..., 0] < 0) | (xy[..., 0] > w - 1) | (xy[..., 1] < 0) | (xy[..., 1] > h - 1)
    sides = (off[1:5, 0], off[1:5, -1], off[0, 1:9], off[-1, 1:9])
    return np.array([2 * int(side.sum()) > len(side) for side in sides])


def _outer_line_void(table: np.ndarray, cfg: GridConfig) -> bool:
    """Whether an outer line of the lattice (from :func:`line_evidence`) shows no
    pits at all (median below ``edge_void`` x the lattice's): left after the shifts,
    such a lattice is one pitch off with the pits beyond it hidden (a hand), or has
    a line on the margin; either way its pits cannot be trusted."""
    levels = _line_levels(table)
    if levels is None:
        return False
    col, row = levels
    return bool(min(col[1], col[-2], row[1], row[-2]) < cfg.edge_void)


def _end_covered(table: np.ndarray, void: np.ndarray, view: np.ndarray, gx: np.ndarray,
                 points: np.ndarray, between: np.ndarray, cfg: GridConfig) -> bool:
    """Whether the outer lines void of pits (:func:`_outer_line_void`) are one end
    column only, lying with its void neighbours (``void``, :func:`void_columns`)
    under an arm (``GridConfig.covered_ends``): a hand over the end of the board
    hides that column's rims while the lattice is on the pits (synth_431_0039,
    synth_347_0001). Each such column must look unlike the board's surface
    (:func:`column_unlikeness`, ``covered_end_unlike``), and no straight edge may
    run along the end column, from the next column's rims to past the void column's
    centre (``covered_end_edge_max``: the mean x-gradient down the four rows, over
    the view's mean absolute one): a lattice one pitch off the board's end, the real
    end column hidden by a hand beyond its other end, has its void column on the
    margin and the table, and the board's end edge across it (7.8 and 21 against 1.7
    and 2.2 for the two arms above). The shifts have run already: a lattice one pitch
    off with pits beyond its other side has been moved. ``gx``: the view's x-gradient."""
    levels = _line_levels(table)
    if not cfg.covered_ends or levels is None:
        return False
    col, row = levels
    if min(row[1], row[-2]) < cfg.edge_void:
        return False  # a row void: an arm lies across the columns, not along one
    first, last = col[1] < cfg.edge_void, col[-2] < cfg.edge_void
    if first == last:
        return False
    cols = np.array(sorted(set(int(c) for c in void) | {0 if first else 7}))
    p = cfg.lattice_pitch_px
    if not covered_columns(view, points, between, p, cols, cfg, ends=True, unlike=cfg.covered_end_unlike):
        return False
    cells = np.asarray(points, float).reshape(4, 8, 2)
    xs = cells[0, :, 0]
    y0, y1 = int(max(cells[0, 0, 1] - 0.4 * p, 0)), int(cells[3, 0, 1] + 0.4 * p)
    x0, x1 = (xs[0] - 0.3 * p, xs[1] - 0.4 * p) if first else (xs[6] + 0.4 * p, xs[7] + 0.3 * p)
    x0, x1 = int(max(x0, 0)), int(min(x1, gx.shape[1]))
    if x1 <= x0 or y1 <= y0:
        return False
    along = np.abs(gx[y0:y1, x0:x1].mean(axis=0)) / (float(np.abs(gx).mean()) + 1e-9)
    return float(along.max()) <= cfg.covered_end_edge_max


def _row_covered(table: np.ndarray, view: np.ndarray, points: np.ndarray, between: np.ndarray,
                 cfg: GridConfig) -> bool:
    """Whether the outer line void of pits (:func:`_outer_line_void`) is one outer row
    whose pits an arm hides in part (``GridConfig.covered_rows``): a player's arm reaches
    in from a long side and lies over a run of that row's pits while the others show.
    Both end columns must show pits and only one outer row be void; in that row, a
    single run of at least ``covered_row_void_min`` cells under ``covered_row_void`` x
    the lattice's median evidence, at least ``covered_row_shown`` pits at
    ``covered_row_pit`` x or more, and each void cell as unlike the board's surface
    (the points between the pits away from the run's columns) as ``covered_row_unlike``
    (:func:`cell_unlikeness`). A lattice one pitch off has its whole
    outer row on the margin or the table, where no pit shows (synth_487_0022: half of
    row B under an arm)."""
    levels = _line_levels(table)
    if not cfg.covered_rows or levels is None:
        return False
    col, row = levels
    if min(col[1], col[-2]) < cfg.edge_void:
        return False  # an end column void too: not an arm along one row
    top, bottom = row[1] < cfg.edge_void, row[-2] < cfg.edge_void
    if top == bottom:
        return False
    r = 0 if top else 3
    ev = table[r + 1, 1:9] / float(np.median(table[1:5, 1:9]))
    run = np.flatnonzero(ev < cfg.covered_row_void)
    if (len(run) < cfg.covered_row_void_min or np.any(np.diff(run) != 1)
            or np.count_nonzero(ev >= cfg.covered_row_pit) < cfg.covered_row_shown):
        return False
    far = cell_unlikeness(view, points, between, cfg.lattice_pitch_px, run, [(r, int(c)) for c in run])
    return far is not None and bool(np.all(far >= cfg.covered_row_unlike))  # (NaN: off the view)


def void_columns(table: np.ndarray, cfg: GridConfig) -> np.ndarray:
    """The lattice columns (0..7) whose second-strongest pit (from
    :func:`line_evidence`) is below ``column_void`` x the lattice's median. Every
    column but one must show two pits or more: a lattice of the wrong column pitch
    puts whole columns between the pits, unless an arm lies over the board
    (:func:`covered_columns`)."""
    inner = float(np.median(table[1:5, 1:9]))
    if inner <= 0:
        return np.zeros(0, int)
    shown = np.sort(table[1:5, 1:9], axis=0)[-2] / inner
    return np.flatnonzero(shown < cfg.column_void)


def covered_columns(view: np.ndarray, points: np.ndarray, between: np.ndarray, pitch: float,
                    cols: np.ndarray, cfg: GridConfig, ends: bool = False,
                    unlike: float | None = None) -> bool:
    """Whether the void columns ``cols`` of a lattice are hidden under something lying
    over the board (an arm, a sleeve) rather than being wood between pits: at most
    ``covered_columns_max`` neighbouring inner columns (an arm is one piece; a
    lattice of the wrong pitch leaves columns apart, and one pitch off, an outer
    line), each looking unlike the board's surface by ``covered_unlike``
    (:func:`column_unlikeness`; ``unlike``: another bar). ``ends``: the run may take
    in one end column (an arm reaching over the board's end: :func:`_end_covered`).

    On about 1000 renders, the two arms over two columns that hid a board scored
    2.1-5.7 in each column; on 65 bare tables, lattices with neighbouring void
    columns scored at most 0.86 in their weaker column (1.96 in a stronger one)."""
    cols = np.sort(np.asarray(cols, int))
    at_end, both_ends = cols.min() <= 0 or cols.max() >= 7, cols.min() <= 0 and cols.max() >= 7
    if len(cols) > cfg.covered_columns_max or np.any(np.diff(cols) != 1) or both_ends or (at_end and not ends):
        return False
    far = column_unlikeness(view, points, between, pitch, cols, cols)
    bar = cfg.covered_unlike if unlike is None else unlike
    return far is not None and bool(np.all(far >= bar))  # (NaN: a cell off the view)


def column_unlikeness(view: np.ndarray, points: np.ndarray, between: np.ndarray, pitch: float,
                      void: np.ndarray, cols: np.ndarray) -> np.ndarray | None:
    """How unlike the board's surface each lattice column of ``cols`` (0..7) looks,
    the surface taken away from the ``void`` columns (an arm covers the wood beside
    them too): the median over its four cells of :func:`cell_unlikeness`. None when
    the surface points leave the view."""
    cols = np.asarray(cols, int)
    far = cell_unlikeness(view, points, between, pitch, void, [(r, int(c)) for c in cols for r in range(4)])
    return None if far is None else np.median(far.reshape(len(cols), 4), axis=1)


def cell_unlikeness(view: np.ndarray, points: np.ndarray, between: np.ndarray, pitch: float,
                    void: np.ndarray, cells: Sequence[tuple[int, int]]) -> np.ndarray | None:
    """How unlike the board's surface each lattice cell (row, column) of ``cells`` looks,
    the surface taken away from the ``void`` columns. ``view``: the lattice view (BGR),
    ``points``: its 32 lattice points (px, row by row), ``between``: the 21 points on the
    surface between four pits (3 rows x 7, row by row). A cell's unlikeness is the L1
    Lab distance of its mean (a square of 0.6 pitch) from the median of the surface
    points, in units of those points' own 75th percentile distance (NaN for a cell off
    the view). None when no surface point is left or one leaves the view."""
    lab = cv2.cvtColor(view.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    r = max(1, int(round(0.3 * pitch)))

    def mean_at(pt: np.ndarray) -> np.ndarray:
        x, y = int(round(pt[0])), int(round(pt[1]))
        patch = lab[max(y - r, 0):y + r + 1, max(x - r, 0):x + r + 1]
        return patch.reshape(-1, 3).mean(axis=0) if patch.size else np.full(3, np.nan)

    void = np.asarray(void, int)
    gaps = np.array([j for j in range(7) if j not in void and j + 1 not in void])
    if len(gaps) == 0:
        return None
    surface = np.array([mean_at(q) for q in np.asarray(between, float).reshape(3, 7, 2)[:, gaps].reshape(-1, 2)])
    if np.isnan(surface).any():
        return None
    ref = np.median(surface, axis=0)
    spread = max(float(np.percentile(np.abs(surface - ref).sum(axis=1), 75)), 1.0)
    grid = np.asarray(points, float).reshape(4, 8, 2)
    return np.array([float(np.abs(mean_at(grid[i, c]) - ref).sum()) / spread for i, c in cells])


def refine_lattice(image: np.ndarray, hlat: np.ndarray, gap: float, cfg: GridConfig = DEFAULT.grid,
                   ) -> tuple[np.ndarray, float, np.ndarray, tuple[float, float], int]:
    """Refit the lattice homography (lattice coords -> image px) to the pits' rims.

    Returns (hlat, gap, pit centres (4, 8, 2) in the final lattice view,
    radius (rx, ry) in that view, inliers).
    """
    p = cfg.lattice_pitch_px
    radius = (0.3 * p, 0.3 * p)
    inliers = 0
    centres = None
    for k in range(cfg.lattice_passes):
        view, m = _lattice_view(image, hlat, cfg, gap)
        gx, gy = _gradients(view, cfg.gradient_log_offset)
        nominal = _lattice_points(gap) * p + cfg.lattice_border * p
        radius = _measure_radius(gx, gy, nominal, cfg)
        if k == 1:  # the lattice is close now: is it one column or row off the pits?
            shift = _slip(gx, gy, gap, radius, cfg)
            if shift != (0, 0):
                hlat = _shifted(hlat, shift)
                view, m = _lattice_view(image, hlat, cfg, gap)
                gx, gy = _gradients(view, cfg.gradient_log_offset)
        reach = max(2, int(round((cfg.peak_search_frac if k <= 1 else 0.5 * cfg.peak_search_frac) * p)))
        peaks, _ = _refine_peaks(gx, gy, nominal, radius, reach)
        src = _lattice_points(gap)
        dst = to_image(peaks, m)
        pitch_img = float(np.median(np.linalg.norm(np.diff(dst.reshape(4, 8, 2), axis=1), axis=-1)))
        h_new, inl = cv2.findHomography(src, dst, cv2.RANSAC, cfg.lattice_inlier_frac * pitch_img,
                                        maxIters=300, confidence=0.99)
        if h_new is None or inl is None or int(inl.sum()) < cfg.min_inliers:
            break
        inliers = int(inl.sum())
        hlat = h_new
        # the middle gap: the one whose lattice fits the inlier rims best
        keep = inl.ravel() > 0
        hlat, gap = _best_gap(dst[keep], keep, cfg.gap_steps, hlat, gap)
    view, m = _lattice_view(image, hlat, cfg, gap)
    gx, gy = _gradients(view, cfg.gradient_log_offset)
    nominal = _lattice_points(gap) * p + cfg.lattice_border * p
    radius = _measure_radius(gx, gy, nominal, cfg)
    peaks, _ = _refine_peaks(gx, gy, nominal, radius, max(2, int(round(0.08 * p))))
    # each pit keeps its own rim centre where it agrees with the lattice
    close = np.linalg.norm(peaks - nominal, axis=1) <= cfg.own_peak_frac * p
    centres = np.where(close[:, None], 0.5 * (peaks + nominal), nominal).reshape(4, 8, 2)
    return hlat, gap, centres, radius, inliers


def _subpixel(prof: np.ndarray, k: int) -> float:
    """Index ``k`` of ``prof``, moved to the top of the parabola through it and its
    neighbours when it is a peak inside the profile."""
    if 0 < k < len(prof) - 1:
        den = prof[k - 1] - 2 * prof[k] + prof[k + 1]
        if den < 0:
            return k + float(np.clip(0.5 * (prof[k - 1] - prof[k + 1]) / den, -0.5, 0.5))
    return float(k)


def _innermost_peak(prof: np.ndarray, strength: float, inner: np.ndarray | None = None,
                    valley: float = 0.25) -> float | None:
    """Index (sub-px) of the first local peak of ``prof`` reaching ``strength`` x its max.

    ``inner``: the profile from just before index 0 in to the pits' rims. When it rises
    from ``prof[0]`` and shows no valley on the way to the rims (no value under ``1 -
    valley`` x the lower of the highest on either side of it), the profile starts on the
    outer slope of the pits' own rims (a bevel or a shadow carries their step beyond the
    measured radius), which is no edge: the search starts past that slope, at its foot,
    and only if no strong peak follows does the slope's start stand
    (``GridConfig.edge_past_rim_slope``). (A peak and a valley between the rims and
    index 0 are a narrow margin's edge: the search starts at index 0.)"""
    if len(prof) < 3 or prof.max() <= 0:
        return None
    top = strength * prof.max()
    start = 0
    run = None if inner is None or not len(inner) else np.concatenate([[prof[0]], inner])
    if run is not None and run[1] >= run[0] and not np.any(
            run < (1.0 - valley) * np.minimum(np.maximum.accumulate(run),
                                              np.maximum.accumulate(run[::-1])[::-1])):
        while start + 1 < len(prof) and prof[start + 1] <= prof[start]:
            start += 1  # down the rims' slope to its foot
    strong = np.flatnonzero(prof[start:] >= top)
    if not len(strong):  # nothing strong past the slope: its start stands
        start, strong = 0, np.flatnonzero(prof >= top)
    k = start + int(strong[0])
    while k + 1 < len(prof) and prof[k + 1] >= prof[k]:  # climb to the local peak
        k += 1
    return _subpixel(prof, k)


def _peaks(prof: np.ndarray, lo: float, hi: float, floor: float) -> list[tuple[float, float]]:
    """(position (sub-px), height) of each local peak of ``prof`` in ``[lo, hi]`` reaching ``floor``."""
    return [(_subpixel(prof, k), float(prof[k]))
            for k in range(max(int(np.ceil(lo)), 1), min(int(np.floor(hi)), len(prof) - 2) + 1)
            if prof[k] >= floor and prof[k] >= prof[k - 1] and prof[k] > prof[k + 1]]


def _search_starts(inner_lo: float, inner_hi: float, p: float, cfg: GridConfig) -> tuple[int, int]:
    """Where the edge search starts on either side of the pits' rims at ``inner_lo`` and
    ``inner_hi`` (``surface_gap_frac`` x the pitch ``p`` beyond them): the end of the
    part before the rims searched, and the start of the part after."""
    gap_px = cfg.surface_gap_frac * p
    return int(inner_lo - gap_px), int(np.ceil(inner_hi + gap_px))


def _edge_pair(prof: np.ndarray, inner_lo: float, inner_hi: float, p: float,
               cfg: GridConfig, alike: bool = True, past_slope: bool = False) -> tuple[float, float] | None:
    """The top face's two edges across one axis of the lattice view (positions along
    ``prof``), outside the pits' rims at ``inner_lo`` and ``inner_hi``; None if either
    side shows no step.

    Each is the innermost strong step on its side (``edge_strength`` x that side's
    strongest), searched from ``surface_gap_frac`` x the pitch beyond the rims. The
    pits sit in the middle of a Bao board, so the two margins beyond the rims are
    alike. When they differ by more than ``surface_symmetry`` x the pitch, the wider
    side most often took a shadow, the side face or the table beyond the top face, or
    a narrow margin's edge lay before the search began: a step on the wider side at
    the narrower one's margin (within ``surface_pair_within`` x the pitch, at least
    ``surface_symmetry_weak`` x that side's strongest) is its edge. Failing that, the
    pair of steps whose margins agree that closely, strongest first, then the pair
    whose margins agree within ``surface_pair_wider`` x the pitch (a board's margins
    in the lattice view differ a little: the pits' rims, seen at a slant, are not
    their top circles); failing all, the first choice stays. (``alike`` False: each
    side on its own.)
    """
    gap_px = cfg.surface_gap_frac * p
    lo_end, hi_start = _search_starts(inner_lo, inner_hi, p, cfg)
    slope = past_slope and 0 < lo_end < len(prof) and 0 < hi_start < len(prof)
    rim_lo, rim_hi = int(round(inner_lo)), int(round(inner_hi))
    before = _innermost_peak(prof[:lo_end][::-1], cfg.edge_strength,
                             prof[lo_end:max(rim_lo, lo_end) + 1] if slope else None)
    after = _innermost_peak(prof[hi_start:], cfg.edge_strength,
                            prof[min(rim_hi, hi_start - 1):hi_start][::-1] if slope else None)
    if before is None or after is None:
        return None
    lo_edge, hi_edge = lo_end - 1 - before, hi_start + after
    m_lo, m_hi = inner_lo - lo_edge, hi_edge - inner_hi
    if not alike or cfg.surface_symmetry is None or abs(m_lo - m_hi) <= cfg.surface_symmetry * p:
        return lo_edge, hi_edge
    # steps at least half the search gap beyond the rims (not the rims' own gradient)
    near, within = 0.5 * gap_px, cfg.surface_pair_within * p
    lo_side, hi_side = prof[: int(inner_lo - near)], prof[int(np.ceil(inner_hi + near)):]
    if not len(lo_side) or not len(hi_side):
        return lo_edge, hi_edge
    lo_max, hi_max = float(lo_side.max()), float(hi_side.max())  # each side's strongest step
    if lo_max <= 0 or hi_max <= 0:
        return lo_edge, hi_edge
    lows = _peaks(prof, 0, inner_lo - near, cfg.surface_symmetry_weak * lo_max)
    highs = _peaks(prof, inner_hi + near, len(prof) - 1, cfg.surface_symmetry_weak * hi_max)
    if m_lo > m_hi:  # the wider side's step at the narrower one's margin
        mirrored = [x for x, _h in lows if abs((inner_lo - x) - m_hi) <= within]
        if mirrored:
            return min(mirrored, key=lambda x: abs((inner_lo - x) - m_hi)), hi_edge
    else:
        mirrored = [y for y, _h in highs if abs((y - inner_hi) - m_lo) <= within]
        if mirrored:
            return lo_edge, min(mirrored, key=lambda y: abs((y - inner_hi) - m_lo))
    pairs: list[tuple[float, float, float]] = []
    for limit in (within, cfg.surface_pair_wider * p):
        pairs = pairs or [(a / lo_max + b / hi_max, x, y) for x, a in lows for y, b in highs
                          if abs((inner_lo - x) - (y - inner_hi)) <= limit]
    if not pairs:
        return lo_edge, hi_edge
    _s, x, y = max(pairs)
    return x, y


def _edge_profiles(view: np.ndarray, gap: float, cfg: GridConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Median gradient profiles of a lattice view across its rows (along y) and across
    its columns (along x), and the lattice's column and row centres along them."""
    grey = cv2.GaussianBlur(cv2.cvtColor(view, cv2.COLOR_BGR2GRAY) if view.ndim == 3 else view, (3, 3), 0)
    gx = np.abs(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3))
    gy = np.abs(cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3))
    p = cfg.lattice_pitch_px
    b = cfg.lattice_border * p
    xs = b + p * np.arange(8)
    ys = b + p * (np.arange(4) + np.where(np.arange(4) >= 2, gap, 0.0))
    half = int(0.3 * p)
    col_strips = [gy[:, max(int(x) - half, 0) : int(x) + half + 1].mean(axis=1) for x in xs]
    row_strips = [gx[max(int(y) - half, 0) : int(y) + half + 1].mean(axis=0) for y in ys]
    return np.median(np.array(col_strips), axis=0), np.median(np.array(row_strips), axis=0), xs, ys


def _sides_unseen(prof: np.ndarray, inner_lo: float, inner_hi: float, p: float, cfg: GridConfig) -> bool:
    """Whether both sides beyond the pits' rims show no step at all: the strongest value past
    the edge search's start on each under ``GridConfig.edge_unseen_ratio`` x the strongest
    at or between the rims (the view ends before the board's edges: wide margins, alike on
    both sides as a Bao board's are; one side alone so flat is a side face in shade, a
    hand or the image's border)."""
    lo_end, hi_start = _search_starts(inner_lo, inner_hi, p, cfg)
    inside = prof[max(int(inner_lo) - 3, 0) : int(inner_hi) + 4]
    if cfg.edge_unseen_ratio is None or not len(inside) or lo_end <= 0 or hi_start >= len(prof):
        return False
    level = cfg.edge_unseen_ratio * float(inside.max())
    return float(prof[:lo_end].max()) < level and float(prof[hi_start:].max()) < level


def surface_edges(view: np.ndarray, grid: PitGrid, gap: float, cfg: GridConfig = DEFAULT.grid,
                  alike: bool = True, wider: Callable[[GridConfig], np.ndarray] | None = None,
                  ) -> np.ndarray | None:
    """Playing-surface corners (TL, TR, BR, BL) in the lattice view, or None.

    In the lattice view the top face is rectified, so its edges are the view's
    rows and columns: each edge is the innermost strong step of a gradient
    profile taken beyond the outer pits' rims (the top face's edge comes before
    the side face and the table); the profile is the median over the 8 (or 4)
    strips along that side, so a hand or a seed on a few strips does not decide.
    With ``alike``, opposite margins are held alike (:func:`_edge_pair`).
    ``wider``: makes the same view for a config (``lattice_border`` set to
    ``GridConfig.edge_view_border`` pitches round the outer pits). An axis whose two
    sides show no step (:func:`_sides_unseen`: the board's margins run past the view)
    is searched again on it.
    """
    p = cfg.lattice_pitch_px
    rx, ry = grid.radius
    slope = cfg.edge_past_rim_slope

    def axes(profiles: tuple[np.ndarray, ...]) -> list[tuple[np.ndarray, float, float, bool]]:
        """(profile, rims before, rims after, past the rims' slope) across the rows, then the columns."""
        vprof, hprof, xs, ys = profiles
        return [(vprof, ys[0] - ry, ys[-1] + ry, slope == "both"),
                (hprof, xs[0] - rx, xs[-1] + rx, slope in ("both", "ends"))]

    def pairs(c: GridConfig, across: list[tuple[np.ndarray, float, float, bool]],
              ) -> list[tuple[float, float] | None]:
        return [_edge_pair(prof, lo, hi, p, c, alike, past_slope=past) for prof, lo, hi, past in across]

    here = axes(_edge_profiles(view, gap, cfg))
    rows, cols = pairs(cfg, here)
    unseen_rows, unseen_cols = (_sides_unseen(prof, lo, hi, p, cfg) for prof, lo, hi, _past in here)
    if wider is not None and (unseen_rows or unseen_cols):
        wc = replace(cfg, lattice_border=cfg.edge_view_border)
        shift = (wc.lattice_border - cfg.lattice_border) * p  # the wider view's offset
        wide_rows, wide_cols = ((None if got is None else (got[0] - shift, got[1] - shift))
                                for got in pairs(wc, axes(_edge_profiles(wider(wc), gap, wc))))
        rows = wide_rows if unseen_rows else rows
        cols = wide_cols if unseen_cols else cols
    if rows is None or cols is None:
        return None
    (top, bottom), (left, right) = rows, cols
    return np.array([[left, top], [right, top], [right, bottom], [left, bottom]], np.float64)


def _plausible(hlat: np.ndarray, gap: float, cfg: GridConfig) -> bool:
    """Whether the lattice's pitch in the image varies no more than a camera at
    45 degrees or more can make it (a degenerate fit folds rows onto one line)."""
    pts = cv2.perspectiveTransform(_lattice_points(gap).reshape(-1, 1, 2), hlat).reshape(4, 8, 2)
    dx = np.linalg.norm(np.diff(pts, axis=1), axis=-1).ravel()
    dy = np.linalg.norm(np.diff(pts, axis=0), axis=-1) / np.array([1.0, 1.0 + gap, 1.0])[:, None]
    steps = np.concatenate([dx, dy.ravel()])
    return bool(steps.min() > 0 and steps.max() / steps.min() <= cfg.max_pitch_ratio)


def lattice_from_centres(centres: np.ndarray, hmat: np.ndarray) -> tuple[np.ndarray, float]:
    """Lattice homography (lattice coords -> image px) and middle gap from pit
    centres (4, 8, 2) on a view with image -> view matrix ``hmat``."""
    ys = centres[..., 1].mean(axis=1)
    gap = _fit_gap(ys)
    dst = to_image(centres.reshape(-1, 2), hmat)
    h, _ = cv2.findHomography(_lattice_points(gap), dst, 0)
    return h, gap


@dataclass
class TopFace:
    """A fitted board: what :func:`fit_board` returns, kept by the locate stage."""

    corners: np.ndarray  # canonical TL, TR, BR, BL, image px
    hmat: np.ndarray  # image -> lattice view
    grid: PitGrid  # on the lattice view
    aspect: float  # playing surface width / height

    def turned(self, cfg: GridConfig = DEFAULT.grid) -> TopFace:
        """The same fit with the board's ends swapped (South on the other long side)."""
        g = self.grid
        p, b = cfg.lattice_pitch_px, cfg.lattice_border
        gap = float(g.centres[2, 0, 1] - g.centres[1, 0, 1]) / p - 1.0
        wv, hv = p * (7 + 2 * b), p * (3 + gap + 2 * b)
        rot = np.array([[-1.0, 0, wv], [0, -1.0, hv], [0, 0, 1]])
        centres = np.array([wv, hv]) - g.centres[::-1, ::-1]
        grid = PitGrid(centres, g.pitch, g.rim[::-1, ::-1].copy(), g.score, g.radius, g.anisotropy, g.inliers,
                       g.crop_radius, None if g.evidence is None else g.evidence[::-1, ::-1].copy())
        return TopFace(np.roll(self.corners, 2, axis=0), rot @ self.hmat, grid, self.aspect)


def lattice_from_points(points: np.ndarray, cfg: GridConfig = DEFAULT.grid) -> tuple[np.ndarray, float]:
    """Lattice homography (lattice coords -> image px) and middle gap (of
    ``cfg.gap_steps``) that best fit 32 pit centres in image px, row-major over the
    lattice (:data:`vision.holes.HOLES` order); :func:`_gap_fit` over all 32."""
    pts = np.asarray(points, np.float64).reshape(32, 2)
    fit = _gap_fit(pts, np.ones(32, bool), cfg.gap_steps)
    if fit is None:
        raise ValueError("pit centres fit no lattice (all on a line?)")
    return fit


def fit_board(
    image: np.ndarray, corners: np.ndarray, aspect: float, cfg: VisionConfig = DEFAULT,
    lap: Callable[[str], None] | None = None, prior: TopFace | None = None,
    pits: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, PitGrid, float]:
    """Pit lattice and playing-surface corners from rough corners (see module docstring).

    Returns the corners (canonical TL, TR, BR, BL, image px), the image -> view
    homography, the grid on that view, and the board's aspect (width / height).
    ``prior``: a fit of these corners already made (by the locate stage), reused
    as it is or turned by half a turn when ``corners`` name the other South side.
    ``pits``: the 32 pit centres (image px, :data:`vision.holes.HOLES` order) a
    calibration found with these corners. The fit starts from their lattice (one
    lattice refit, ~40 ms, where the camera has not moved) and from the corners (a
    comb search, restarted at other aspects when weak: 100-500 ms; neither from the
    lattices of typical boards in the corners, ``GridConfig.calibrated_margin_starts``,
    nor respaced to other row pitches, ``calibrated_respace``) only when that fit
    scores under ``GridConfig.restart_below``, and the better-scoring of the two is
    kept (seeds in many pits weaken a fixed camera's rims). A fit searched from the corners
    (given, not the locate stage's) is kept within them (:func:`_within_corners`), and
    is searched again on a brightened copy of a dark photo when it finds no board
    (``LocateConfig.dark_retry_gamma``, as the locate stage does).
    """
    corners = np.asarray(corners, np.float64)
    if prior is not None:
        for fit in (prior, prior.turned(cfg.grid)):
            if np.allclose(fit.corners, corners):
                if lap is not None:  # done by the locate stage: nothing more to time
                    lap("rectify")
                    lap("grid")
                return fit.corners, fit.hmat, fit.grid, fit.aspect
    calibrated: TopFace | None = None  # the fit from the calibration's pits, when weak
    if pits is not None and cfg.grid.start_from_calibrated_pits:
        try:
            hlat, gap = lattice_from_points(pits, cfg.grid)
        except ValueError:  # (a profile's centres on one line or point: the corners alone)
            hlat = None
        if hlat is not None:
            calibrated = fit_from_lattice(image, hlat, gap, cfg, lap)
            if calibrated.grid.score >= cfg.grid.restart_below:
                return calibrated.corners, calibrated.hmat, calibrated.grid, calibrated.aspect

    # with a calibration's lattice at hand, the lattices of typical boards in the corners
    # are not started from (GridConfig.calibrated_margin_starts), nor lattices respaced
    # from one with an inner row void (calibrated_respace)
    margins = None if calibrated is None or cfg.grid.calibrated_margin_starts else ()
    search = cfg
    if calibrated is not None and not cfg.grid.calibrated_respace:
        search = replace(cfg, grid=replace(cfg.grid, inner_row_void=None))

    def from_corners(view: np.ndarray) -> TopFace:
        return _within_corners(view, corners, aspect, search, lap,
                               fit_top_face(view, corners, aspect, search, lap), margins)

    fit = from_corners(image)
    if fit.grid.score < cfg.grid.min_lattice_score:
        # as the locate stage does: a near-black board in dim light shows its rims on a
        # brightened copy (the fit's geometry is the photo's own)
        lifted = dark_retry_copy(image, cfg.locate)
        if lifted is not None:
            again = from_corners(lifted)
            if again.grid.score > fit.grid.score:
                fit = again
    if calibrated is not None and calibrated.grid.score > fit.grid.score:
        # the camera has not moved (its pits still score better than any fit from the
        # corners), but seeds in many pits weaken their rims: the calibration's pits stay
        fit = calibrated
    return fit.corners, fit.hmat, fit.grid, fit.aspect


def given_offset(fit: TopFace, corners: np.ndarray, margins: Sequence[float]) -> float:
    """How far the fit's pits lie from where a board whose playing surface has these
    corners has them: the median over the 32 pits of the distance, in pitches, from the
    lattice of a board with no middle gap and each of ``margins`` (pitches from the
    surface's edges to the outer pit centres), the least over the margins. About 0.2 for
    a fit in place (at most 0.35 over 622 renders); a lattice a row off, or running off
    the board, lies 0.6 or more away."""
    pts = to_image(fit.grid.centres.reshape(-1, 2), fit.hmat).reshape(-1, 1, 2).astype(np.float64)
    cells = _lattice_points(0.0)  # (col, row) of each pit, row-major as the fit's centres
    best = np.inf
    for m in margins:
        lat = cv2.perspectiveTransform(pts, np.linalg.inv(nominal_lattice(corners, m))).reshape(-1, 2)
        best = min(best, float(np.median(np.hypot(*(lat - cells).T))))
    return best


def _within_corners(image: np.ndarray, corners: np.ndarray, aspect: float, cfg: VisionConfig,
                    lap: Callable[[str], None] | None, fit: TopFace,
                    margins: Sequence[float] | None = None) -> TopFace:
    """``fit`` of corners that were given (not found by the locate stage), or a better fit
    within them. Other fits are made when ``fit``'s pits lie outside where the corners put
    them (``GridConfig.given_offset_max``) or when it scores under ``restart_below``: from
    the comb that sees nothing outside the corners, and from the lattice of a board with
    each of ``margins`` (None: ``given_margins``). The comb and the lattice refit's checks weigh edges beyond
    the corners (a side face's foot, the table's pattern) that a person giving the
    corners has already ruled out, and a board's margins differ from the typical one.

    The best-scoring of those that lie within the corners is taken when it scores above
    ``fit``; in place of a ``fit`` outside them, only when it finds a board
    (``min_lattice_score``) and scores at least ``given_min_share`` of ``fit``'s score: a
    profile's corners go stale when the camera or the board moves, and the board is then
    found outside them."""
    gc = cfg.grid
    if gc.given_offset_max is None:
        return fit
    far = given_offset(fit, corners, gc.given_margins) > gc.given_offset_max
    if not far and fit.grid.score >= gc.restart_below:
        return fit
    outside = gc.masked_restart_frac if gc.masked_restart_frac is not None else 0.0
    starts = [_fit_once(image, corners, aspect, cfg, lap, outside=outside)]
    starts += [fit_from_lattice(image, nominal_lattice(corners, m), 0.0, cfg, lap)
               for m in (gc.given_margins if margins is None else margins)]
    inside = [f for f in starts if given_offset(f, corners, gc.given_margins) <= gc.given_offset_max]
    best = max(inside, key=lambda f: f.grid.score, default=None)
    if best is None:
        return fit
    if far:
        return best if best.grid.score >= max(gc.min_lattice_score, gc.given_min_share * fit.grid.score) else fit
    return best if best.grid.score > fit.grid.score else fit


def fit_top_face(image: np.ndarray, corners: np.ndarray, aspect: float, cfg: VisionConfig = DEFAULT,
                 lap: Callable[[str], None] | None = None, restart: bool = True,
                 first: TopFace | None = None, nominal: bool = True, comb_min: float = 0.0) -> TopFace:
    """:func:`fit_board`'s work, as a :class:`TopFace`.

    The comb search that starts the fit may land one column or row off (dark pits,
    steep views); when the fit is not clearly good (score below
    ``GridConfig.restart_below``) it is started again with the view stretched
    by each of ``restart_aspects`` and the best-scoring fit is kept (``restart``).
    ``first``: the first fit of these corners, already made (with ``restart=False,
    nominal=False``). A first fit scoring below ``GridConfig.nominal_start_below``
    is also tried (``nominal``) from the lattice that a board of typical margins
    would have in these corners (:func:`nominal_lattice`), and the better kept:
    the comb can miss pits that are plainly where a board has them. ``comb_min``:
    the first fit ends at once, scoring 0, when the comb lattice scores under it.
    """
    fit = first if first is not None else _fit_once(image, corners, aspect, cfg, lap, comb_min)
    if nominal and fit.grid.score < cfg.grid.nominal_start_below:
        again = fit_from_lattice(image, nominal_lattice(corners, cfg.grid.nominal_margin),
                                 0.0, cfg, lap)
        if again.grid.score > fit.grid.score:
            fit = again
    if restart:
        for k in cfg.grid.restart_aspects:
            if fit.grid.score >= cfg.grid.restart_below:
                break
            again = _fit_once(image, corners, aspect * k, cfg, lap)
            if again.grid.score > fit.grid.score:
                fit = again
        if fit.grid.score < cfg.grid.restart_below and cfg.grid.masked_restart_frac is not None:
            again = _fit_once(image, corners, aspect, cfg, lap, outside=cfg.grid.masked_restart_frac)
            if again.grid.score > fit.grid.score:
                fit = again
    return fit


def nominal_lattice(corners: np.ndarray, margin: float) -> np.ndarray:
    """Lattice homography (lattice coords -> image px) of a board whose playing
    surface has these corners (canonical TL, TR, BR, BL, side 0 -> 1 along the 8
    columns), no middle gap and margins of ``margin`` pitches from the surface's
    edges to the outer pits' centres."""
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    hq = cv2.getPerspectiveTransform(unit, np.asarray(corners, np.float32)).astype(np.float64)
    sx, sy = 1.0 / (2 * margin + 7), 1.0 / (2 * margin + 3)
    return hq @ np.array([[sx, 0, margin * sx], [0, sy, margin * sy], [0, 0, 1]])


def _fit_once(image: np.ndarray, corners: np.ndarray, aspect: float, cfg: VisionConfig,
              lap: Callable[[str], None] | None, comb_min: float = 0.0,
              outside: float | None = None) -> TopFace:
    """The fit from the comb lattice in the view rectified by ``corners``; a comb
    scoring under ``comb_min`` is not refined: a failed fit (score 0, on the
    rectified view), ~20 ms sooner. ``outside``: the comb sees no edges further
    than this share of the board's width outside the corners."""
    tick = lap or (lambda stage: None)
    gc, rc = cfg.grid, cfg.rectify
    corners = np.asarray(corners, np.float64)
    w, h = canonical_size(aspect, rc)
    pad = int(round(rc.pad_frac * w))
    view, hmat = rectify(image, corners, aspect, rc, width=w, pad=pad)
    tick("rectify")
    # the comb lattice, moved onto the pits' ring peaks, is only a start (the lattice
    # view refit moves each pit by up to a quarter pitch); whether it found a board is
    # decided by the final score
    inside = None
    if outside is not None:
        m = int(round(outside * w))
        inside = (pad - m, pad - m, pad + w + m, pad + h + m)
    grid0 = fit_grid(view, gc, board_width=w, inside=inside)
    if grid0.score < comb_min:
        return TopFace(corners, hmat, replace(grid0, score=0.0), aspect)
    hlat, gap = lattice_from_centres(grid0.centres, hmat)
    return fit_from_lattice(image, hlat, gap, cfg, lap)


def paired_ratios(gx: np.ndarray, gy: np.ndarray, nominal: np.ndarray, cfg: GridConfig,
                  ) -> tuple[float, float]:
    """How much better pairs of lattice lines look like single pits twice as long
    than the lattice points look like pits (best ellipse of a few sizes, median over
    8 arcs and over the points): (rows, columns).

    - Rows: the midpoints of lattice rows 0-1 and of rows 2-3 as the centres of pits
      twice as tall as they are wide. About 0.2-0.7 on boards. Above 1 each pit holds
      two lattice rows: the lattice has half the row pitch and covers half the board
      (its points on the top and the bottom of each pit score well, and the pits
      between them are plain wood).
    - Columns: the midpoints of columns 0-1, 2-3, 4-5 and 6-7 as the centres of pits
      twice as wide as they are tall. 0.17-0.66 on 119 boards. Above 1 each pit holds
      two lattice columns (on its left and right rims): half the column pitch, on
      half the board's length."""
    pts = nominal.reshape(4, 8, 2)
    sizes = np.asarray(cfg.paired_radius_fracs) * cfg.lattice_pitch_px
    own = rim_evidence(gx, gy, nominal, np.array([(r, k * r) for r in sizes for k in (0.8, 0.9, 1.0, 1.12, 1.25)]),
                       sectors=8)
    own_best = max(float(np.median(own, axis=0).max()), 1e-6)
    stretch = (1.6, 1.8, 2.0, 2.2, 2.4, 2.6)
    rows = np.concatenate([0.5 * (pts[0] + pts[1]), 0.5 * (pts[2] + pts[3])])
    tall = rim_evidence(gx, gy, rows, np.array([(r, k * r) for r in sizes for k in stretch]), sectors=8)
    cols = 0.5 * (pts[:, 0::2] + pts[:, 1::2]).reshape(-1, 2)
    wide = rim_evidence(gx, gy, cols, np.array([(k * r, r) for r in sizes for k in stretch]), sectors=8)
    return (float(np.median(tall, axis=0).max()) / own_best, float(np.median(wide, axis=0).max()) / own_best)


def _doubled(image: np.ndarray, hlat: np.ndarray, gap: float, cfg: VisionConfig,
             lap: Callable[[str], None] | None, rows: bool) -> TopFace:
    """The best fit started from a lattice of twice the row pitch (``rows``) or column
    pitch, its lines through the middles of ``hlat``'s line pairs (rows 0-1 and 2-3,
    or columns 0-1, 2-3, 4-5 and 6-7) and on beyond them to either side: which of
    the board's lines the middle of the first pair is, is not known."""
    if rows:
        pitch = 2.0 + gap  # from the middle of rows 0-1 to the middle of rows 2-3
        starts = [np.array([[1.0, 0, 0], [0, pitch, 0.5 + pitch * first], [0, 0, 1]]) for first in (-2, -1, 0)]
        gap = 0.0  # the middle gap lies inside the new pitch
    else:
        starts = [np.array([[2.0, 0, 0.5 + 2.0 * first], [0, 1.0, 0], [0, 0, 1]]) for first in (-4, -3, -2, -1, 0)]
    fits = [fit_from_lattice(image, hlat @ start, gap, cfg, lap, check_pairs=False) for start in starts]
    return max(fits, key=lambda fit: fit.grid.score)


def inner_void_row(table: np.ndarray, cfg: GridConfig) -> int | None:
    """The inner lattice row (1 or 2) showing no pits (median rim evidence, from
    :func:`line_evidence`, below ``inner_row_void`` x the lattice's median) while the
    other one shows them (at least ``inner_row_shown`` x), if there is one. (Both void:
    a lattice astride a pattern's rows, not one row of pits off.)"""
    levels = _line_levels(table)
    if cfg.inner_row_void is None or levels is None:
        return None
    row = levels[1][2:4]  # lattice rows 1 and 2
    weakest = int(np.argmin(row))
    if row[weakest] < cfg.inner_row_void and row[1 - weakest] >= cfg.inner_row_shown:
        return weakest + 1
    return None


def _respaced_rows(image: np.ndarray, hlat: np.ndarray, cfg: VisionConfig,
                   lap: Callable[[str], None] | None) -> TopFace:
    """The best fit started from lattices of ``inner_row_void_pitch`` x ``hlat``'s row
    pitch (each factor), their first row at each of ``inner_row_void_starts`` (in
    ``hlat``'s rows), with each of ``inner_row_void_gaps``: where the board's rows lie
    against the wrong lattice is not known, and the lattice refit only settles from a
    start within about a quarter pitch."""
    gc = cfg.grid
    fits = [fit_from_lattice(image, hlat @ np.array([[1.0, 0, 0], [0, k, first], [0, 0, 1]]),
                             gap, cfg, lap, respace=False)
            for k in gc.inner_row_void_pitch for first in gc.inner_row_void_starts
            for gap in gc.inner_row_void_gaps]
    return max(fits, key=lambda fit: fit.grid.score)


def fit_from_lattice(image: np.ndarray, hlat: np.ndarray, gap: float, cfg: VisionConfig = DEFAULT,
                     lap: Callable[[str], None] | None = None, check_pairs: bool = True,
                     respace: bool = True, second_look: bool = True) -> TopFace:
    """The top-face fit from a first lattice (``hlat``: lattice coords (col, row +
    gap past row 1) -> image px): lattice refits, score, playing-surface corners.
    A lattice with two rows on each pit (:func:`paired_ratios` above
    ``GridConfig.paired_rows_max``) is fitted again from twice the row pitch
    (``check_pairs``), and one with two columns on each pit (above
    ``paired_columns_max``) from twice the column pitch; it scores 0 itself. A
    lattice with an inner row void of pits (:func:`inner_void_row`) is fitted again
    from 4/3 and 3/2 of the row pitch, and the best of those fits kept when it scores
    ``inner_row_void_gain`` times as much and ``inner_row_void_min`` or more
    (``check_pairs`` and ``respace``; those fits are checked for pairs, not respaced).
    A lattice whose outer line is weak while the line beyond the other side shows
    pits, but not by ``edge_beyond_ratio`` (by ``edge_doubt_ratio``), is fitted again
    shifted one pitch that way, and the better-scoring fit kept (``second_look``):
    a thick board's front face, seen from low, has grain that lifts a line on it
    (synth_317_0019)."""
    tick = lap or (lambda stage: None)
    gc, rc = cfg.grid, cfg.rectify
    for attempt in range(gc.reslips + 1):
        hlat, gap, centres, radius, inliers = refine_lattice(image, hlat, gap, gc)
        lview, m = _lattice_view(image, hlat, gc, gap)
        gx, gy = _gradients(lview, gc.gradient_log_offset)
        # (a floor: on a flat, noiseless surface any speck would count as strong)
        mag = cv2.magnitude(gx, gy)
        norm = float(mag.mean())
        if gc.score_norm_margin is not None:
            # a busy floor (bricks, tiles) beside the board lifts the view's mean gradient and
            # so lowers a soft-rimmed board's score: the board's own area, if it is calmer
            k = max(int(round((gc.lattice_border - gc.score_norm_margin) * gc.lattice_pitch_px)), 0)
            inside = mag[k : mag.shape[0] - k, k : mag.shape[1] - k]
            if inside.size:
                norm = min(norm, float(inside.mean()))
        norm = max(norm, gc.min_mean_gradient)
        table = line_evidence(gx, gy, gap, radius, gc) / norm
        shift = _slipped(table, gc)
        if shift == (0, 0) or attempt == gc.reslips:
            break
        hlat = _shifted(hlat, shift)
    tick("grid")
    p = gc.lattice_pitch_px
    rim = radial_coherence(lview, centres, radius)
    rim = rim / (float(np.median(rim)) + 1e-6)
    # how sure: the pits' rim evidence (median, over ``norm`` above) x the
    # share of pits agreeing with the lattice; about 0 for a lattice on a table
    # at the lattice points themselves (a search for each pit's best spot would find
    # some evidence in noise too), against the same circles between the pits
    nominal = _lattice_points(gap) * p + gc.lattice_border * p
    mids = nominal.reshape(4, 8, 2)
    between = (0.25 * (mids[:-1, :-1] + mids[1:, :-1] + mids[:-1, 1:] + mids[1:, 1:])).reshape(-1, 2)
    # (median over 8 arcs: a straight edge tangent to a row of circles is no row of pits)
    ev = rim_evidence(gx, gy, np.concatenate([nominal, between]), np.array([radius]),
                      sectors=8)[:, 0] / norm
    # every row but one must show pits (a lattice half on an edge or a line is no board)
    level = min(float(np.median(ev[:32])), float(np.sort(np.median(ev[:32].reshape(4, 8), axis=1))[1]))
    score = (level - max(float(np.median(ev[32:])), 0.0)) * inliers / 32
    if not _plausible(hlat, gap, gc):
        score = 0.0  # a lattice folded onto an edge or a line is no board
    if gc.unsettled_void and shift != (0, 0):
        score = 0.0  # still one pitch off the pits after the last refit (GridConfig.reslips)
    if gap > gc.wide_gap_from + 1e-9 and score < gc.wide_gap_min_score:
        score = 0.0  # a middle gap wider than the usual boards' needs a clear fit (a floor's bricks)
    if _continues(table, gc, unseen_sides(m, gap, image.shape, gc)):
        score = 0.0  # tiles or a pattern going on beyond the lattice: no board
    void = void_columns(table, gc)
    if (_outer_line_void(table, gc) and not _end_covered(table, void, lview, gx, nominal, between, gc)
            and not _row_covered(table, lview, nominal, between, gc)):
        score = 0.0  # a lattice line on the margin: one pitch off, or astride a hand
    if len(void) >= 2 and not covered_columns(lview, nominal, between, p, void, gc, ends=gc.covered_ends):
        score = 0.0  # whole columns between the pits: the wrong column pitch
    in_image = to_image(centres.reshape(-1, 2), m)
    if not np.all((in_image >= 0) & (in_image <= (image.shape[1] - 1, image.shape[0] - 1))):
        score = 0.0  # pits outside the image cannot be read (and a pattern running off it has no end)
    if check_pairs and score > 0:
        pair_rows, pair_cols = paired_ratios(gx, gy, nominal, gc)
        for paired, limit, rows in ((pair_rows, gc.paired_rows_max, True),
                                    (pair_cols, gc.paired_columns_max, False)):
            if paired > limit:
                doubled = _doubled(image, hlat, gap, cfg, lap, rows)
                if doubled.grid.score > 0:
                    return doubled
                score = 0.0  # two lattice lines on each pit: half the board, or no board
                break
    if check_pairs and respace and score > 0 and inner_void_row(table, gc) is not None:
        respaced = _respaced_rows(image, hlat, cfg, lap)
        # (else the lattice stays: a row of heaps hides its rims too)
        if respaced.grid.score >= max(gc.inner_row_void_gain * score, gc.inner_row_void_min):
            return respaced
    if second_look and gc.edge_doubt_ratio > 0 and score > 0 and shift == (0, 0):
        doubt = _slipped(table, gc, ratio=gc.edge_doubt_ratio)
        if doubt != (0, 0):
            other = fit_from_lattice(image, _shifted(hlat, doubt), gap, cfg, lap, check_pairs, respace,
                                     second_look=False)
            if other.grid.score > score:
                return other
    pits_ev = ev[:32].reshape(4, 8)
    evidence = pits_ev / max(float(np.median(pits_ev)), 1e-6)
    grid = PitGrid(centres, (p, p), rim, score, radius, radius[1] / radius[0], inliers,
                   evidence=evidence)
    # (a weak lattice's margins are held alike only once it scores as a board: its corners
    # may start a fit again as an outline, and that search is kept as it was tuned)
    edges = surface_edges(lview, grid, gap, gc, alike=score >= gc.surface_symmetry_min_score,
                          wider=(lambda wc: _lattice_view(image, hlat, wc, gap)[0]) if score > 0 else None)
    # the pits' own centres and outer radius, for the counter's crops and the page's rings
    grid.centres, grid.crop_radius = rim_centres(gx, gy, centres, radius, gc)
    tick("grid")
    if edges is None:
        # no edge to follow: the lattice's outer cells' corners
        b = gc.lattice_border * p
        edges = np.array([[b - 0.5 * p, b - 0.5 * p], [b + 7.5 * p, b - 0.5 * p],
                          [b + 7.5 * p, b + (3.5 + gap) * p], [b - 0.5 * p, b + (3.5 + gap) * p]])
    new_corners = to_image(edges, m).astype(np.float64)
    ew = 0.5 * float(np.linalg.norm(edges[1] - edges[0]) + np.linalg.norm(edges[2] - edges[3]))
    eh = 0.5 * float(np.linalg.norm(edges[3] - edges[0]) + np.linalg.norm(edges[2] - edges[1]))
    # sub-pixel: each side refitted on the image's own gradient, within a view px or two
    x0, y0 = np.maximum(np.floor(new_corners.min(axis=0)).astype(int) - 8, 0)
    x1, y1 = np.ceil(new_corners.max(axis=0)).astype(int) + 8
    roi = image[y0:y1, x0:x1]
    if min(roi.shape[:2]) >= 3:  # (a wild fit may put the corners off the image)
        grey = roi if roi.ndim == 2 else cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY)
        band = max(1.5, 1.5 * float(np.linalg.norm(new_corners[1] - new_corners[0])) / (ew + 1e-6))
        new_corners = refine_sides(edge_magnitude(grey), new_corners - (x0, y0), band) + (x0, y0)
    new_aspect = float(np.clip(ew / max(eh, 1e-6) * grid.anisotropy, rc.min_aspect, rc.max_aspect))
    return TopFace(new_corners, m, grid, new_aspect)
