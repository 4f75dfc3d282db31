"""The playing surface's edges beyond the outer pits, in the lattice view.

In the lattice view the board's top face is rectified, so its edges are the
view's rows and columns: each is the innermost strong step of a gradient profile
taken beyond the outer pits' rims (the top face's edge comes before the side face
and the table). :func:`surface_edges` gives the playing surface's corners from
them, which :mod:`vision.board` maps back to the image. Profiles are NumPy arrays
along the view's rows or columns; corners are OpenCV ``(x, y)`` px of the view.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import cv2
import numpy as np

from vision.config import DEFAULT, GridConfig
from vision.grid import PitGrid


def _subpixel(prof: np.ndarray, k: int) -> float:
    """Index ``k`` of ``prof``, moved to the top of the parabola through it and its
    neighbours when it is a peak inside the profile."""
    if 0 < k < len(prof) - 1:
        den = prof[k - 1] - 2 * prof[k] + prof[k + 1]
        if den < 0:
            return k + float(np.clip(0.5 * (prof[k - 1] - prof[k + 1]) / den, -0.5, 0.5))
    return float(k)


def _innermost_peak(prof: np.ndarray, strength: float, inner: np.ndarray | None = None,
                    valley: float = 0.25, rim_reach: int = 0, rim_level: float = np.inf) -> float | None:
    """Index (sub-px) of the first local peak of ``prof`` reaching ``strength`` x its max.

    ``inner``: the profile from just before index 0 in to the pits' rims. When it rises
    from ``prof[0]`` and shows no valley on the way to the rims (no value under ``1 -
    valley`` x the lower of the highest on either side of it), the profile starts on the
    outer slope of the pits' own rims (a bevel or a shadow carries their step beyond the
    measured radius), which is no edge: the search starts past that slope, at its foot,
    and only if no strong peak follows does the slope's start stand
    (``GridConfig.edge_past_rim_slope``). (A peak and a valley between the rims and
    index 0 are a narrow margin's edge: the search starts at index 0.)

    ``rim_reach`` > 0 (with ``inner``): a step peaking within ``rim_reach`` of index 0
    that the search meets first, past that slope's foot or rising from the rims' side
    into index 0, and no stronger than ``rim_level``, is the rims' own outer edge (a
    bevel round each pit; the measured radius lies inside it): the search starts past it,
    at its foot, and again only if no strong peak follows does index 0 stand
    (``GridConfig.edge_rim_peak_reach``)."""
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
    if run is not None and rim_reach > 0 and (start > 0 or run[1] < run[0]):
        # past the slope's foot, or on a step rising from the rims: that step, near the
        # rims and no stronger than theirs, is their own outer edge, not the board's
        peak = start
        while peak + 1 < len(prof) and prof[peak + 1] >= prof[peak]:
            peak += 1
        if peak <= rim_reach and prof[peak] <= rim_level:
            start = peak
            while start + 1 < len(prof) and prof[start + 1] <= prof[start]:
                start += 1
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
    reach = int(round(cfg.edge_rim_peak_reach * p)) if cfg.edge_rim_peak_reach is not None and slope else 0
    own_lo = own_hi = np.inf
    if reach > 0:  # the outer pits' own steps: the profile over half a pitch in from the search's start
        half = int(round(0.5 * p))
        own_lo = cfg.edge_rim_peak_ratio * float(prof[lo_end:lo_end + half].max(initial=0.0))
        own_hi = cfg.edge_rim_peak_ratio * float(prof[max(hi_start - half, 0):hi_start].max(initial=0.0))
    before = _innermost_peak(prof[:lo_end][::-1], cfg.edge_strength,
                             prof[lo_end:max(rim_lo, lo_end) + 1] if slope else None, rim_reach=reach,
                             rim_level=own_lo)
    after = _innermost_peak(prof[hi_start:], cfg.edge_strength,
                            prof[min(rim_hi, hi_start - 1):hi_start][::-1] if slope else None, rim_reach=reach,
                            rim_level=own_hi)
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
    hand or the image's border). The view's outermost ``GridConfig.edge_unseen_border`` x
    the pitch on each side does not count: a step there is the start of an edge beyond
    the view, cut by its border; nor, with ``GridConfig.edge_unseen_foot``, a run at
    either end of a side still rising towards that end (:func:`_past_feet`: the foot of
    a step beyond the view's border, or the rims' outer slope). One side flat is enough
    when the other's strongest value lies within ``GridConfig.edge_unseen_near`` x the
    pitch of the view's border (and the flat side's left-out border px under half that
    value): ends alike, the flat one lies just past the view."""
    lo_end, hi_start = _search_starts(inner_lo, inner_hi, p, cfg)
    inside = prof[max(int(inner_lo) - 3, 0) : int(inner_hi) + 4]
    cut = int(round(cfg.edge_unseen_border * p))
    if cfg.edge_unseen_ratio is None or not len(inside) or lo_end <= cut or hi_start >= len(prof) - cut:
        return False
    level = cfg.edge_unseen_ratio * float(inside.max())
    n = len(prof)
    sides = [(cut, lo_end), (hi_start, n - cut)]
    if cfg.edge_unseen_foot:
        # (runs traced from the view's own border, its first and last samples, which carry
        # no gradient, taken as their neighbours: a peak in the border px is no foot)
        inner = prof.astype(np.float64)
        inner[0], inner[-1] = inner[1], inner[-2]
        smooth = np.convolve(np.pad(inner, 2, mode="edge"), np.ones(5) / 5.0, mode="valid")
        (a0, b0), (a1, b1) = _past_feet(smooth, 1, lo_end), _past_feet(smooth, hi_start, n - 1)
        sides = [(max(a0, cut), b0), (a1, min(b1, n - cut))]
    flat = [b <= a or float(prof[a:b].max()) < level for a, b in sides]
    if all(flat) or cfg.edge_unseen_near is None or not any(flat):
        return all(flat)
    # one side flat, the other's step at the view's border: Bao boards' ends are alike, so
    # the flat side's end lies just past the view (the lattice a few px off centre) -- unless
    # the flat side's own border px, left out above, step half as strongly: its end is there
    a, b = sides[1] if flat[0] else sides[0]
    peak = a + int(np.argmax(prof[a:b]))
    border = prof[1 : max(sides[0][0], 1)] if flat[0] else prof[sides[1][1] : n - 1]
    if len(border) and float(border.max()) >= 0.5 * float(prof[peak]):
        return False
    return min(peak, n - 1 - peak) <= cfg.edge_unseen_near * p


def _past_feet(smooth: np.ndarray, a: int, b: int) -> tuple[int, int]:
    """The part [``a``, ``b``) of a side's profile without the runs at either end over
    which the ``smooth``ed profile keeps rising towards that end: the foot of a step
    whose peak lies past it (an edge beyond the view's border, the outer slope of the
    rims). A peak inside stops a run at once; one sample is always left."""
    while a + 1 < b and smooth[a + 1] < smooth[a]:
        a += 1
    while b - 1 > a and smooth[b - 2] < smooth[b - 1]:
        b -= 1
    return a, b


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
    return surface_outlines(view, grid, gap, [cfg], alike, wider)[0]


def surface_outlines(view: np.ndarray, grid: PitGrid, gap: float, cfgs: Sequence[GridConfig],
                     alike: bool = True, wider: Callable[[GridConfig], np.ndarray] | None = None,
                     ) -> list[np.ndarray | None]:
    """:func:`surface_edges` under each of ``cfgs`` (which differ only in how a step is
    chosen on a profile: the same view, pitch and borders), the view's profiles (and the
    wider view, when needed) made once for all of them."""
    cfg = cfgs[0]
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
    unseen_rows, unseen_cols = (_sides_unseen(prof, lo, hi, p, cfg) for prof, lo, hi, _past in here)
    far: list[tuple[np.ndarray, float, float, bool]] | None = None
    shift = 0.0
    if wider is not None and (unseen_rows or unseen_cols):
        wc = replace(cfg, lattice_border=cfg.edge_view_border)
        shift = (wc.lattice_border - cfg.lattice_border) * p  # the wider view's offset
        far = axes(_edge_profiles(wider(wc), gap, wc))
    out: list[np.ndarray | None] = []
    for c in cfgs:
        rows, cols = pairs(c, here)
        if far is not None:
            wide_rows, wide_cols = ((None if got is None else (got[0] - shift, got[1] - shift))
                                    for got in pairs(replace(c, lattice_border=c.edge_view_border), far))
            rows = wide_rows if unseen_rows else rows
            cols = wide_cols if unseen_cols else cols
        if rows is None or cols is None:
            out.append(None)
            continue
        (top, bottom), (left, right) = rows, cols
        out.append(np.array([[left, top], [right, top], [right, bottom], [left, bottom]], np.float64))
    return out
