"""Pit rims in a view of the board: closed curves of radial gradient.

A pit's rim is a circle (an ellipse in an oblique or stretched view) along which
the image gradient points towards or away from its centre; wood grain, tiles and
straight edges have no preferred direction around a point. :func:`rim_evidence`
scores ellipses around given centres on that, and the top-face fit
(:mod:`vision.board`) measures the pits' radius (:func:`measure_radius`) and
finds each pit's rim near its lattice point (:func:`refine_peaks`,
:func:`rim_centres`) with it. The pit scan (:mod:`vision.pit_scan`) uses the same
evidence on a grid of centres (:func:`rim_evidence_grid`). Points are OpenCV
``(x, y)`` px of the view; gradient arrays are NumPy ``(row, col)``.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.config import GridConfig


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


def refine_peaks(gx: np.ndarray, gy: np.ndarray, pts: np.ndarray, r: tuple[float, float],
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


def measure_radius(gx: np.ndarray, gy: np.ndarray, pts: np.ndarray, cfg: GridConfig) -> tuple[float, float]:
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
    peaks, ev = refine_peaks(gx, gy, pts, outer, max(2, int(round(limit))), sectors=8)
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


def gradients(view: np.ndarray, log_offset: float) -> tuple[np.ndarray, np.ndarray]:
    """Sobel gradients of the view's :func:`log_intensity`: a pit rim on near-black
    wood is as strong as one on pale wood, relative to the view's mean gradient."""
    grey = cv2.GaussianBlur(log_intensity(view, log_offset), (3, 3), 0)
    return cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
