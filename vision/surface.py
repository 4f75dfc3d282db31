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

#: one axis of the lattice view for the edge search: (gradient profile, rims before, rims
#: after, searched past the rims' slope, distance from the wood's colour or None)
_Axis = tuple[np.ndarray, float, float, bool, np.ndarray | None]


def _subpixel(prof: np.ndarray, k: int) -> float:
    """Index ``k`` of ``prof``, moved to the top of the parabola through it and its
    neighbours when it is a peak inside the profile."""
    if 0 < k < len(prof) - 1:
        den = prof[k - 1] - 2 * prof[k] + prof[k + 1]
        if den < 0:
            return k + float(np.clip(0.5 * (prof[k - 1] - prof[k + 1]) / den, -0.5, 0.5))
    return float(k)


def _innermost_peak(prof: np.ndarray, strength: float, inner: np.ndarray | None = None,
                    valley: float = 0.25, rim_reach: int = 0, rim_level: float = np.inf,
                    rim_bumps: int = 1, rim_dip: float = 0.5, double_reach: int = 0,
                    double_dip: float = 0.0) -> float | None:
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
    (``GridConfig.edge_rim_peak_reach``). Up to ``rim_bumps`` such steps, one after the
    other, are passed so, each peaking within ``rim_reach`` of index 0 and with no valley
    between it and the one before, the profile staying over ``rim_dip`` x the higher of
    the two (a bevel, then the rims' shadow or a second bevel beyond it:
    ``GridConfig.edge_rim_peak_bumps``, ``edge_rim_peak_dip``).

    ``double_reach`` > 0: the peak found gives way to a higher one within ``double_reach``
    beyond it when the profile between stays over ``double_dip`` x the first (the same
    edge's outer line: a bevel's line just inside the edge; ``GridConfig.edge_double_reach``)."""
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
        last = None  # the height of the step last passed
        for _ in range(rim_bumps):
            peak = start
            while peak + 1 < len(prof) and prof[peak + 1] >= prof[peak]:
                peak += 1
            if peak > rim_reach or prof[peak] > rim_level:
                break
            if last is not None and prof[start] < rim_dip * max(last, float(prof[peak])):
                break  # a valley before it: a step of its own (a narrow end's edge)
            last = float(prof[peak])
            start = peak
            while start + 1 < len(prof) and prof[start + 1] <= prof[start]:
                start += 1
    strong = np.flatnonzero(prof[start:] >= top)
    if not len(strong):  # nothing strong past the slope: its start stands
        start, strong = 0, np.flatnonzero(prof >= top)
    k = start + int(strong[0])
    while k + 1 < len(prof) and prof[k + 1] >= prof[k]:  # climb to the local peak
        k += 1
    if double_reach > 0:
        # a higher peak just beyond, with no deep valley between: the same edge's outer line
        # (a bevel's inner line, then the edge itself)
        seg = prof[k : min(k + double_reach + 1, len(prof))]
        j = int(np.argmax(seg))
        if j > 0 and seg[j] > prof[k] and float(seg[: j + 1].min()) >= double_dip * float(prof[k]):
            k += j
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
               cfg: GridConfig, alike: bool = True, past_slope: bool = False,
               wood: np.ndarray | None = None, covered: tuple[bool, bool] = (False, False),
               hold: bool = False) -> tuple[float, float] | None:
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

    ``wood``: the profile's distance from the top face's colour (:func:`_wood_profile`);
    an edge so chosen that lies well beyond where the wood ends then moves in to the step
    there (:func:`_wood_edges`), and when one side alone moves, the other, if its margin
    is then wider by more than ``surface_pair_within`` x the pitch, takes a step at the
    moved one's margin where it has one. ``covered``: whether each side's outer pits lie
    under something (:func:`covered_sides`; :func:`_alike_margins`). ``hold`` (with
    ``alike``; the long sides): a margin still much wider than the other's moves in to
    it at last (:func:`_held_margins`).
    """
    pair = _edge_choice(prof, inner_lo, inner_hi, p, cfg, alike, past_slope, wood, covered)
    if pair is None or not (hold and alike and cfg.edge_wider_max is not None):
        return pair
    return _held_margins(*pair, inner_lo, inner_hi, p, cfg)


def _edge_choice(prof: np.ndarray, inner_lo: float, inner_hi: float, p: float, cfg: GridConfig,
                 alike: bool, past_slope: bool, wood: np.ndarray | None,
                 covered: tuple[bool, bool]) -> tuple[float, float] | None:
    """:func:`_edge_pair` but for the last hold on the margins (``hold``)."""
    lo_end, hi_start = _search_starts(inner_lo, inner_hi, p, cfg)
    slope = past_slope and 0 < lo_end < len(prof) and 0 < hi_start < len(prof)
    rim_lo, rim_hi = int(round(inner_lo)), int(round(inner_hi))
    reach = int(round(cfg.edge_rim_peak_reach * p)) if cfg.edge_rim_peak_reach is not None and slope else 0
    own_lo = own_hi = np.inf
    if reach > 0:  # the outer pits' own steps: the profile over half a pitch in from the search's start
        half = int(round(0.5 * p))
        own_lo = cfg.edge_rim_peak_ratio * float(prof[lo_end:lo_end + half].max(initial=0.0))
        own_hi = cfg.edge_rim_peak_ratio * float(prof[max(hi_start - half, 0):hi_start].max(initial=0.0))
    double = int(round(cfg.edge_double_reach * p)) if cfg.edge_double_reach is not None else 0
    before = _innermost_peak(prof[:lo_end][::-1], cfg.edge_strength,
                             prof[lo_end:max(rim_lo, lo_end) + 1] if slope else None, rim_reach=reach,
                             rim_level=own_lo, rim_bumps=cfg.edge_rim_peak_bumps, rim_dip=cfg.edge_rim_peak_dip,
                             double_reach=double, double_dip=cfg.edge_double_dip)
    after = _innermost_peak(prof[hi_start:], cfg.edge_strength,
                            prof[min(rim_hi, hi_start - 1):hi_start][::-1] if slope else None, rim_reach=reach,
                            rim_level=own_hi, rim_bumps=cfg.edge_rim_peak_bumps, rim_dip=cfg.edge_rim_peak_dip,
                            double_reach=double, double_dip=cfg.edge_double_dip)
    if before is None or after is None:
        return None
    lo_edge, hi_edge = lo_end - 1 - before, hi_start + after
    if alike:
        lo_edge, hi_edge = _alike_margins(prof, lo_edge, hi_edge, inner_lo, inner_hi, p, cfg, covered)
    if wood is None or cfg.edge_wood_ratio is None:
        return lo_edge, hi_edge
    lo_wood, hi_wood = _wood_edges(prof, wood, lo_edge, hi_edge, inner_lo, inner_hi, lo_end, hi_start, p, cfg)
    one_moved = (lo_wood != lo_edge) != (hi_wood != hi_edge)
    steps = _side_steps(prof, inner_lo, inner_hi, p, cfg) if alike and one_moved else None
    if steps is not None:
        # one side moved in: the other, if now much wider, takes a step at its margin
        m_lo, m_hi, within = inner_lo - lo_wood, hi_wood - inner_hi, cfg.surface_pair_within * p
        if hi_wood == hi_edge and m_hi - m_lo > within:
            at = _mirrored(steps[1], inner_hi, m_lo, within)
            hi_wood = hi_wood if at is None else at
        elif lo_wood == lo_edge and m_lo - m_hi > within:
            at = _mirrored(steps[0], inner_lo, m_hi, within)
            lo_wood = lo_wood if at is None else at
    return lo_wood, hi_wood


def _held_margins(lo_edge: float, hi_edge: float, inner_lo: float, inner_hi: float, p: float,
                  cfg: GridConfig) -> tuple[float, float]:
    """``lo_edge`` and ``hi_edge`` with the wider margin beyond the rims (at ``inner_lo``,
    ``inner_hi``) moved in to the narrower one's when wider by more than
    ``GridConfig.edge_wider_max`` x the pitch ``p``. What is left so wide once the steps
    at the narrower margin (:func:`_alike_margins`) and the wood's end (:func:`_wood_edges`)
    were looked for lies beyond the top face: a thick board's face below the near side,
    or its shadow on the table, in shade the top face's own colour with no step between
    them, the face's foot or the shadow's edge stepping instead."""
    assert cfg.edge_wider_max is not None
    m_lo, m_hi = inner_lo - lo_edge, hi_edge - inner_hi
    if abs(m_hi - m_lo) <= cfg.edge_wider_max * p:
        return lo_edge, hi_edge
    if m_hi > m_lo:
        return lo_edge, inner_hi + m_lo
    return inner_lo - m_hi, hi_edge


def _side_steps(prof: np.ndarray, inner_lo: float, inner_hi: float, p: float, cfg: GridConfig,
                ) -> tuple[list[tuple[float, float]], list[tuple[float, float]], float, float] | None:
    """The steps on each side (:func:`_peaks` at least ``surface_symmetry_weak`` x that
    side's strongest, at least half the search gap beyond the rims: not the rims' own
    gradient) and each side's strongest; None when a side is empty or flat."""
    near = 0.5 * cfg.surface_gap_frac * p
    lo_side, hi_side = prof[: int(inner_lo - near)], prof[int(np.ceil(inner_hi + near)):]
    if not len(lo_side) or not len(hi_side):
        return None
    lo_max, hi_max = float(lo_side.max()), float(hi_side.max())  # each side's strongest step
    if lo_max <= 0 or hi_max <= 0:
        return None
    lows = _peaks(prof, 0, inner_lo - near, cfg.surface_symmetry_weak * lo_max)
    highs = _peaks(prof, inner_hi + near, len(prof) - 1, cfg.surface_symmetry_weak * hi_max)
    return lows, highs, lo_max, hi_max


def _mirrored(steps: list[tuple[float, float]], rim: float, margin: float, within: float) -> float | None:
    """Of ``steps`` ((position, height), on one side of the rims at ``rim``), the one whose
    margin beyond the rim is nearest ``margin``, within ``within`` px; None if none."""
    near = [x for x, _h in steps if abs(abs(x - rim) - margin) <= within]
    return min(near, key=lambda x: abs(abs(x - rim) - margin)) if near else None


def _alike_margins(prof: np.ndarray, lo_edge: float, hi_edge: float, inner_lo: float, inner_hi: float,
                   p: float, cfg: GridConfig, covered: tuple[bool, bool] = (False, False)) -> tuple[float, float]:
    """:func:`_edge_pair`'s first choices ``lo_edge`` and ``hi_edge`` with the margins
    beyond the rims held alike (see there). ``covered``: whether something lies over the
    pits next to each side (:func:`covered_sides`): when the narrower side alone is, its
    step is most likely the hand's or the arm's own edge, and that side takes the wider
    one's margin instead (a step there, else the margin itself)."""
    m_lo, m_hi = inner_lo - lo_edge, hi_edge - inner_hi
    if cfg.surface_symmetry is None or abs(m_lo - m_hi) <= cfg.surface_symmetry * p:
        return lo_edge, hi_edge
    steps = _side_steps(prof, inner_lo, inner_hi, p, cfg)
    if steps is None:
        return lo_edge, hi_edge
    lows, highs, lo_max, hi_max = steps
    within = cfg.surface_pair_within * p
    if covered[0] != covered[1] and covered[0 if m_lo < m_hi else 1]:
        if m_lo < m_hi:  # the low side, covered, at the high side's margin
            at = _mirrored(lows, inner_lo, m_hi, within)
            return (inner_lo - m_hi if at is None else at), hi_edge
        at = _mirrored(highs, inner_hi, m_lo, within)
        return lo_edge, (inner_hi + m_lo if at is None else at)
    if m_lo > m_hi:  # the wider side's step at the narrower one's margin
        lo_at = _mirrored(lows, inner_lo, m_hi, within)
        if lo_at is not None:
            return lo_at, hi_edge
    else:
        hi_at = _mirrored(highs, inner_hi, m_lo, within)
        if hi_at is not None:
            return lo_edge, hi_at
    pairs: list[tuple[float, float, float]] = []
    for limit in (within, cfg.surface_pair_wider * p):
        pairs = pairs or [(a / lo_max + b / hi_max, x, y) for x, a in lows for y, b in highs
                          if abs((inner_lo - x) - (y - inner_hi)) <= limit]
    if not pairs:
        return lo_edge, hi_edge
    _s, x, y = max(pairs)
    return x, y


def _wood_ends(wood: np.ndarray, lo_end: int, hi_start: int, lo_limit: float, hi_limit: float, p: float,
               cfg: GridConfig) -> tuple[tuple[float, float] | None, tuple[float, float] | None]:
    """Where the wood ends on either side, as (the foot of its colour's change, where the
    change is sure), positions along ``wood`` (a profile of distances from the top face's
    colour in its spreads); None where it does not end in the profile. Sure: from where
    the edge search starts (before ``lo_end``, from ``hi_start``) outwards, the first
    ``GridConfig.edge_wood_run`` x the pitch ``p`` all over ``edge_wood_ratio`` (a run
    reaching the profile's end counts). The foot: back from there, inwards, as far as the
    distance stays over ``edge_wood_foot`` x that ratio, but not into the pits' rims
    (``lo_limit``, ``hi_limit``): a side face in light, or a shadow's penumbra, changes
    the colour over a few px."""
    assert cfg.edge_wood_ratio is not None
    run = max(int(round(cfg.edge_wood_run * p)), 1)
    wood = np.asarray(wood)
    over, above = wood > cfg.edge_wood_ratio, wood > cfg.edge_wood_foot * cfg.edge_wood_ratio
    lo = next((i for i in range(min(lo_end, len(over)) - 1, -1, -1) if over[max(i - run + 1, 0) : i + 1].all()), None)
    hi = next((i for i in range(max(hi_start, 0), len(over)) if over[i : i + run].all()), None)
    lo_end_at = hi_end_at = None
    if lo is not None:
        k = lo
        while k + 1 < lo_limit and above[k + 1]:
            k += 1
        lo_end_at = (k + 0.5, lo + 0.5)
    if hi is not None:
        k = hi
        while k - 1 > hi_limit and above[k - 1]:
            k -= 1
        hi_end_at = (k - 0.5, hi - 0.5)
    return lo_end_at, hi_end_at


def _wood_edges(prof: np.ndarray, wood: np.ndarray, lo_edge: float, hi_edge: float, lo_limit: float,
                hi_limit: float, lo_end: int, hi_start: int, p: float, cfg: GridConfig) -> tuple[float, float]:
    """``lo_edge`` and ``hi_edge`` (positions along the gradient profile ``prof``), each
    moved in to where the wood ends (:func:`_wood_ends`) when it lies more than
    ``GridConfig.edge_wood_move`` x the pitch ``p`` beyond where that is sure: to the local
    peak of ``prof`` nearest the foot of the colour's change, from ``edge_wood_snap`` x the
    pitch beyond the sure end to as far inside the foot, but not into the limits (the
    pits' rims at ``lo_limit`` and ``hi_limit``, which a narrow margin's edge may touch),
    reaching ``edge_wood_min`` x the strongest step on its side, across which the colour's
    distance rises by ``edge_wood_foot`` x ``edge_wood_ratio`` (0.08 pitch either side: a
    margin whose colour is not the wood's between the pits, a band of shade or paint,
    has no such rise at its noise); it stays where there is none."""
    assert cfg.edge_wood_ratio is not None
    lo_wood, hi_wood = _wood_ends(wood, lo_end, hi_start, lo_limit, hi_limit, p, cfg)
    move, snap = cfg.edge_wood_move * p, cfg.edge_wood_snap * p
    lo_top = float(prof[: max(int(lo_limit), 0)].max(initial=0.0))
    hi_top = float(prof[int(np.ceil(hi_limit)):].max(initial=0.0))
    k, rise = max(int(round(0.08 * p)), 2), cfg.edge_wood_foot * cfg.edge_wood_ratio
    n = len(wood)

    def changes(x: float, out: int) -> bool:
        """Whether the colour's distance from the wood's rises by ``rise`` across a step at
        ``x`` (``k`` px either side), going out (``out``: -1 before the rims, +1 after)."""
        i = int(round(x))
        return float(wood[min(max(i + out * k, 0), n - 1)] - wood[min(max(i - out * k, 0), n - 1)]) >= rise

    if lo_wood is not None and lo_wood[1] - lo_edge > move and lo_top > 0:
        foot, sure = lo_wood
        peaks = [x for x, _h in _peaks(prof, sure - snap, min(foot + snap, lo_limit), cfg.edge_wood_min * lo_top)
                 if changes(x, -1)]
        if peaks:
            lo_edge = min(peaks, key=lambda x: abs(x - foot))
    if hi_wood is not None and hi_edge - hi_wood[1] > move and hi_top > 0:
        foot, sure = hi_wood
        peaks = [x for x, _h in _peaks(prof, max(foot - snap, hi_limit), sure + snap, cfg.edge_wood_min * hi_top)
                 if changes(x, 1)]
        if peaks:
            hi_edge = min(peaks, key=lambda x: abs(x - foot))
    return lo_edge, hi_edge


def _lattice_centres(gap: float, cfg: GridConfig) -> tuple[np.ndarray, np.ndarray]:
    """The lattice view's column centres (along x) and row centres (along y)."""
    p = cfg.lattice_pitch_px
    b = cfg.lattice_border * p
    return b + p * np.arange(8), b + p * (np.arange(4) + np.where(np.arange(4) >= 2, gap, 0.0))


def _wood_profile(view: np.ndarray, gap: float, cfg: GridConfig) -> np.ndarray | None:
    """How far each row of the view lies in colour from the top face: the Euclidean
    distance in CIE Lab of the row's median over the columns of pits (every second px)
    from the median colour round the 21 points between the pits, each channel in units of
    those points' spread (1.4826 x their median absolute deviation, at least
    ``GridConfig.edge_wood_floor``); 0 on the rows between the outer pits' centres, which
    are not searched. None for a grey view."""
    if view.ndim != 3:
        return None
    p = cfg.lattice_pitch_px
    xs, ys = _lattice_centres(gap, cfg)
    x0 = min(max(int(xs[0]), 0), view.shape[1] - 1)
    lab = cv2.cvtColor(view, cv2.COLOR_BGR2LAB)[:, x0 : int(xs[-1]) + 1 : 2]
    r = max(int(0.08 * p), 1)
    between = [lab[max(int(y) - r, 0) : int(y) + r + 1, max(int(x - x0) // 2 - r // 2, 0) : int(x - x0) // 2 + r // 2 + 1]
               for x in 0.5 * (xs[:-1] + xs[1:]) for y in 0.5 * (ys[:-1] + ys[1:])]
    between = [s.reshape(-1, 3) for s in between if s.size]
    if not between:
        return None
    if len({len(s) for s in between}) == 1:
        samples = np.median(np.stack(between), axis=1)
    else:  # (a patch cut by the view's border)
        samples = np.array([np.median(s, axis=0) for s in between])
    ref = np.median(samples, axis=0)
    spread = np.maximum(1.4826 * np.median(np.abs(samples - ref), axis=0), cfg.edge_wood_floor)
    # (only the rows beyond the pits are searched: those between them are left at 0)
    out = np.zeros(len(lab))
    for a, z in ((0, max(int(ys[0]), 0)), (min(int(ys[-1]) + 1, len(lab)), len(lab))):
        if z > a:
            out[a:z] = np.sqrt((((np.median(lab[a:z], axis=1) - ref) / spread) ** 2).sum(axis=1))
    return out


def _edge_profiles(view: np.ndarray, gap: float, cfg: GridConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Median gradient profiles of a lattice view across its rows (along y) and across
    its columns (along x), and the lattice's column and row centres along them."""
    grey = cv2.GaussianBlur(cv2.cvtColor(view, cv2.COLOR_BGR2GRAY) if view.ndim == 3 else view, (3, 3), 0)
    gx = np.abs(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3))
    gy = np.abs(cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3))
    p = cfg.lattice_pitch_px
    xs, ys = _lattice_centres(gap, cfg)
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


def covered_sides(grid: PitGrid, cfg: GridConfig) -> tuple[tuple[bool, bool], tuple[bool, bool]]:
    """((top, bottom), (left, right)) of the lattice view: whether ``surface_covered_pits``
    or more of the pits in the outer row or column next to that side show under
    ``surface_covered_evidence`` x the lattice's median rim evidence (``grid.evidence``):
    a hand or an arm over the board there, whose own edge may be taken for the board's.
    All False without the evidence or the setting."""
    ev = grid.evidence
    if cfg.surface_covered_evidence is None or ev is None or np.shape(ev) != (4, 8):
        return (False, False), (False, False)
    low = np.asarray(ev, np.float64) < cfg.surface_covered_evidence
    k = cfg.surface_covered_pits
    return ((bool(low[0].sum() >= k), bool(low[3].sum() >= k)),
            (bool(low[:, 0].sum() >= k), bool(low[:, 7].sum() >= k)))


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

    woody = any(c.edge_wood_ratio is not None for c in cfgs)

    def axes(v: np.ndarray, c: GridConfig) -> list[_Axis]:
        """(profile, rims before, rims after, past the rims' slope, no wood profile yet)
        across the rows (the long sides), then the columns (the ends)."""
        vprof, hprof, xs, ys = _edge_profiles(v, gap, c)
        return [(vprof, ys[0] - ry, ys[-1] + ry, slope == "both", None),
                (hprof, xs[0] - rx, xs[-1] + rx, slope in ("both", "ends"), None)]

    hidden = covered_sides(grid, cfg)

    def pairs(c: GridConfig, across: list[_Axis]) -> list[tuple[float, float] | None]:
        return [_edge_pair(prof, lo, hi, p, c, alike, past_slope=past, wood=wood, covered=sides, hold=hold)
                for (prof, lo, hi, past, wood), sides, hold in zip(across, hidden, (True, False), strict=True)]

    here = axes(view, cfg)
    unseen_rows, unseen_cols = (_sides_unseen(prof, lo, hi, p, cfg) for prof, lo, hi, _past, _wood in here)
    far: list[_Axis] | None = None
    shift = 0.0
    if wider is not None and (unseen_rows or unseen_cols):
        wc = replace(cfg, lattice_border=cfg.edge_view_border)
        shift = (wc.lattice_border - cfg.lattice_border) * p  # the wider view's offset
        far_view = wider(wc)
        far = axes(far_view, wc)
    if woody:  # the wood's colour along the long sides, on the view they are taken from
        v, c, across = (far_view, wc, far) if far is not None and unseen_rows else (view, cfg, here)
        across[0] = (*across[0][:4], _wood_profile(v, gap, c))
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
