"""Whether a fitted pit lattice sits on the board's pits, line by line.

A lattice fitted to rims (:func:`vision.board.fit_from_lattice`) can slip a line
onto the table beside the board, take a row of the side face for pits, miss a
line hidden under an arm, or hold each pit twice at half the pitch. These checks
look at the lattice's rows and columns in the lattice view: the rim evidence of
each line and of the lines one step beyond (:func:`line_evidence`, ``_slipped``,
``_continues``), lines with no pits (:func:`void_columns`, :func:`inner_void_row`),
lines covered by something unlike the board's surface (:func:`covered_columns`,
``_end_covered``, ``_row_covered``) and pairs of lines that look like single pits
twice as long (:func:`paired_ratios`). Lattice points are OpenCV ``(x, y)`` px of
the lattice view, in row-major order (4 rows of 8).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.config import GridConfig
from vision.rectify import to_image
from vision.rims import rim_evidence


def slip(gx: np.ndarray, gy: np.ndarray, gap: float, radius: tuple[float, float],
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


def slipped(table: np.ndarray, cfg: GridConfig, ratio: float | None = None) -> tuple[int, int]:
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


def void_side(table: np.ndarray, level: float) -> tuple[int, int]:
    """(columns, rows) to shift a fitted lattice by, to try, from :func:`line_evidence`: on
    each axis, away from the one outer line with no pits at all (its median rim evidence
    under ``level`` x the lattice's median; the other outer line over it), whatever shows
    beyond the opposite side: a hand over the board's true outer line hides its rims too.
    Only a fit to compare: the shifted lattice is kept if it scores higher."""
    levels = _line_levels(table)
    if levels is None:
        return (0, 0)

    def pick(line: np.ndarray) -> int:
        first, last = bool(line[1] < level), bool(line[-2] < level)
        return 0 if first == last else 1 if first else -1

    col, row = levels
    return pick(col), pick(row)


def continues(table: np.ndarray, cfg: GridConfig, unseen: np.ndarray | None = None) -> bool:
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


def outer_line_void(table: np.ndarray, cfg: GridConfig) -> bool:
    """Whether an outer line of the lattice (from :func:`line_evidence`) shows no
    pits at all (median below ``edge_void`` x the lattice's): left after the shifts,
    such a lattice is one pitch off with the pits beyond it hidden (a hand), or has
    a line on the margin; either way its pits cannot be trusted."""
    levels = _line_levels(table)
    if levels is None:
        return False
    col, row = levels
    return bool(min(col[1], col[-2], row[1], row[-2]) < cfg.edge_void)


def end_covered(table: np.ndarray, void: np.ndarray, view: np.ndarray, gx: np.ndarray,
                 points: np.ndarray, between: np.ndarray, cfg: GridConfig) -> bool:
    """Whether the outer lines void of pits (:func:`outer_line_void`) are one end
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
    and 2.2 for the two arms above). With ``covered_end_edge_run`` the edge is looked
    for from the first column showing pits, across the whole void run: a lattice two
    pitches off has the board's end between its two void columns (synth_787_0016).
    The shifts have run already: a lattice one pitch off with pits beyond its other
    side has been moved. ``gx``: the view's x-gradient."""
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
    if cfg.covered_end_edge_run:  # from the first column showing pits
        inner = int(cols.max()) + 1 if first else int(cols.min()) - 1
    else:  # from the column next to the end one
        inner = 1 if first else 6
    x0, x1 = (xs[0] - 0.3 * p, xs[inner] - 0.4 * p) if first else (xs[inner] + 0.4 * p, xs[7] + 0.3 * p)
    x0, x1 = int(max(x0, 0)), int(min(x1, gx.shape[1]))
    if x1 <= x0 or y1 <= y0:
        return False
    along = np.abs(gx[y0:y1, x0:x1].mean(axis=0)) / (float(np.abs(gx).mean()) + 1e-9)
    k = min(max(cfg.covered_end_edge_px, 1), len(along))
    if k > 1:
        along = np.convolve(along, np.ones(k), "valid")
    return float(along.max()) <= cfg.covered_end_edge_max


def row_covered(table: np.ndarray, view: np.ndarray, points: np.ndarray, between: np.ndarray,
                 cfg: GridConfig) -> bool:
    """Whether the outer line void of pits (:func:`outer_line_void`) is one outer row
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
    in one end column (an arm reaching over the board's end: :func:`end_covered`).

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


def bare_row(view: np.ndarray, points: np.ndarray, between: np.ndarray, row: int, cfg: GridConfig) -> bool:
    """Whether lattice row ``row`` (0..3) looks like the board's bare surface: the median
    over its 8 cells of :func:`cell_unlikeness` at most ``GridConfig.halves_apart_bare_unlike``
    (False when that is None or the surface points leave the view). An inner row void of
    pits that looks so is the wood between the halves of a board whose halves lie apart
    rather than a row of heaps or an arm (which mostly look unlike it)."""
    if cfg.halves_apart_bare_unlike is None:
        return False
    far = cell_unlikeness(view, points, between, cfg.lattice_pitch_px, np.zeros(0, int),
                          [(row, c) for c in range(8)])
    return far is not None and bool(np.median(far) <= cfg.halves_apart_bare_unlike)


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
