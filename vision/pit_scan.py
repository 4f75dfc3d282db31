"""Outline-free start for the board fit: pits found over the whole image.

When no board-shaped outline holds the board (a hand or a shadow merged with
it, a table of the same colour, a steep view including the side face), the
pits still show: each is a closed curve of radial gradient
(:func:`vision.rims.rim_evidence`). Here

1. the rim evidence (median over 8 arcs) is computed at every other pixel of
   a downscaled copy, for a few pit radii; its strongest local maxima are the
   pit candidates of each radius;
2. the two lattice directions are the dominant directions of the vectors
   between neighbouring candidates; from the strongest candidates, the lattice
   is grown neighbour by neighbour (each step from the last one, so a
   perspective view is followed) and every candidate gets integer lattice
   coordinates;
3. the 8 x 4 window of lattice coordinates holding the most candidates, fitted
   by a homography (RANSAC), is a first lattice for
   :func:`vision.board.fit_from_lattice`, which refits it on the image and
   scores it like any other; a window with more than ``pit_scan_max_ring``
   candidates in the ring of cells around it is a pattern going on (tiles,
   bricks, a dotted cloth) and is not fitted, unless it is three rows of a board
   whose halves lie a row apart, the fourth just beyond it (:func:`_apart_block`).

When no window holds enough candidates on one homography, the scan is made
again with candidates placed between the grid points (a parabola through each
peak) and each radius's best grown lattice grown again by a model of the whole
lattice (:func:`_extend`): growing step by step stops where a hand hides two
columns, and a candidate off its pit's centre beside the hand bends its steps.

When the rims give no lattice (``blobs=True``, :func:`_blob_maps`), the
candidates are dark discs instead: bowls lit from one side show a rim only on
one side, but most of each is darker than the wood around it. A pavement's
pattern may then outnumber the pits, so each seed (60 of them) is grown with
the step of its own nearest candidates rather than the image's dominant one.

The maps of the radii are made half on a helper thread when OpenCV may use two
(``LocateConfig.pit_scan_threads``, :func:`_shared`): the same maps, sooner.

Points are OpenCV ``(x, y)``; lattice coordinates are ``(col, row)``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import TypeVar

import cv2
import numpy as np

from vision.config import DEFAULT, LocateConfig
from vision.rims import gradients, log_intensity, rim_evidence_grid
from vision.threads import LazyPool


def _small(image: np.ndarray, cfg: LocateConfig) -> tuple[np.ndarray, float]:
    """The copy the scan works on (long side ``pit_scan_long_side_px``) and its scale."""
    h, w = image.shape[:2]
    s = min(1.0, cfg.pit_scan_long_side_px / max(h, w))
    return cv2.resize(image, (int(round(w * s)), int(round(h * s))), interpolation=cv2.INTER_AREA), s


T = TypeVar("T")
R = TypeVar("R")
_POOL = LazyPool(1, "bao-pit-scan")  # the one thread that shares the maps' radii


def _shared(fn: Callable[[T], R], items: Sequence[T], costs: Sequence[float], cfg: LocateConfig) -> list[R]:
    """``[fn(item) for item in items]``, with ``LocateConfig.pit_scan_threads`` 2 (and OpenCV
    on more than one thread: ``cv2.getNumThreads``) made on two threads: the items split
    in two of about equal cost (``costs``, biggest first to the lighter half), one half
    on a helper thread while the caller makes the other. Each map is made by the same
    calls either way (OpenCV and numpy release the GIL for most of them): the results
    are the same to the bit."""
    if min(cfg.pit_scan_threads, cv2.getNumThreads()) <= 1 or len(items) < 2:
        return [fn(item) for item in items]
    halves: tuple[list[int], list[int]] = ([], [])
    load = [0.0, 0.0]
    for i in sorted(range(len(items)), key=lambda k: -costs[k]):
        side = int(load[1] < load[0])
        halves[side].append(i)
        load[side] += costs[i]
    later = _POOL.get().submit(lambda: [fn(items[i]) for i in halves[1]])
    out: list[R | None] = [None] * len(items)
    for i in halves[0]:
        out[i] = fn(items[i])
    for i, made in zip(halves[1], later.result(), strict=True):
        out[i] = made
    return out  # type: ignore[return-value]


def _steps(cfg: LocateConfig) -> list[tuple[int, int]]:
    """(pit radius, grid step about r / 3 px) of each radius scanned."""
    return [(r, max(cfg.pit_scan_stride, int(round(r / 3)))) for r in cfg.pit_scan_radii_px]


def _rim_maps(image: np.ndarray, cfg: LocateConfig, log_offset: float,
              ) -> tuple[list[tuple[float, int, np.ndarray]], float]:
    """Per pit radius r (px of the copy downscaled to ``pit_scan_long_side_px``):
    (r, step, rim evidence on a grid of that step (about r / 3 px)); and the scale."""
    small, s = _small(image, cfg)
    gx, gy = gradients(small, log_offset)
    norm = max(float(cv2.magnitude(gx, gy).mean()), 1.0)
    circles = [(float(r), st) for r, st in _steps(cfg)]
    # (each circle's cost: its grid's size; the radius 4 and 6 grids hold two thirds)
    maps = _shared(lambda c: rim_evidence_grid(gx, gy, [c], sectors=8)[0], circles,
                   [1.0 / (st * st) for _, st in circles], cfg)
    return [(r, st, ev / norm) for (r, st), ev in zip(circles, maps, strict=True)], s


def _blob_maps(image: np.ndarray, cfg: LocateConfig, log_offset: float,
               ) -> tuple[list[tuple[float, int, np.ndarray]], float]:
    """Like :func:`_rim_maps`, but dark discs of each radius r: the share of the
    disc's pixels darker than their neighbourhood, minus that share in the ring
    from 1.3 r to 1.8 r around it, over ``pit_scan_blob_share``. A bowl lit from
    one side shows no rim most of the way round (its shading runs one way across
    it), but most of it is darker than the wood around it; the junctions of a
    pavement's mortar lines darken only a few of a disc's pixels, and their ring
    as many."""
    small, s = _small(image, cfg)
    logi = log_intensity(small, log_offset)
    steps = _steps(cfg)

    def one(step: tuple[int, int]) -> np.ndarray:
        r, st = step
        k = int(6 * r) | 1
        mean = cv2.blur(logi, (k, k))
        sd = np.sqrt(np.maximum(cv2.blur(logi * logi, (k, k)) - mean * mean, 1.0))
        dark = (logi < mean - 0.5 * sd).astype(np.float32)
        yy, xx = np.mgrid[-2 * r : 2 * r + 1, -2 * r : 2 * r + 1]
        d = np.hypot(xx, yy)
        disc = (d <= r).astype(np.float32)
        ring = ((d >= 1.3 * r) & (d <= 1.8 * r)).astype(np.float32)
        ev = (cv2.filter2D(dark, -1, disc / disc.sum(), borderType=cv2.BORDER_REFLECT)
              - cv2.filter2D(dark, -1, ring / ring.sum(), borderType=cv2.BORDER_REFLECT))
        return ev[::st, ::st] / cfg.pit_scan_blob_share

    # (each radius's cost: its kernels' size)
    maps = _shared(one, steps, [float(r * r) for r, _ in steps], cfg)
    return [(float(r), st, ev) for (r, st), ev in zip(steps, maps, strict=True)], s


def _ring(coord: dict[tuple[int, int], int], a0: int, b0: int, along_u: bool, rows: int = 4) -> int:
    """Candidates on the lattice in the ring of cells just outside the 8 x ``rows`` window
    (a board's margin: empty; tiles or bricks: the pattern goes on)."""
    na, nb = (8, rows) if along_u else (rows, 8)
    return sum(1 for a, b in coord
               if a0 - 1 <= a <= a0 + na and b0 - 1 <= b <= b0 + nb
               and not (a0 <= a < a0 + na and b0 <= b < b0 + nb))


def _apart_block(coord: dict[tuple[int, int], int], a0: int, b0: int, along_u: bool,
                  cfg: LocateConfig) -> tuple[int, int] | None:
    """The start (a0, b0) of an 8 x 5 block holding a board whose halves lie a row pitch
    apart, or None: the 8 x 4 window at (a0, b0) with the row just before or after it, the
    block's middle row void (at most ``pit_scan_void_row_max`` candidates), its other four
    rows each holding ``pit_scan_half_row_min`` or more, and at most ``pit_scan_max_ring``
    candidates around the block. Such a board's lattice grows across the void row, and
    any 8 x 4 window of it leaves one row of pits just outside (a pattern going on, by the
    ring alone). Of the two blocks, the one holding more."""
    best: tuple[int, int, int] | None = None
    for shift in (-1, 0):
        a1, b1 = (a0, b0 + shift) if along_u else (a0 + shift, b0)
        per_row = [0] * 5
        for a, b in coord:
            col, row = (a - a1, b - b1) if along_u else (b - b1, a - a1)
            if 0 <= col < 8 and 0 <= row < 5:
                per_row[row] += 1
        if (per_row[2] <= cfg.pit_scan_void_row_max
                and min(per_row[:2] + per_row[3:]) >= cfg.pit_scan_half_row_min
                and _ring(coord, a1, b1, along_u, rows=5) <= cfg.pit_scan_max_ring
                and (best is None or sum(per_row) > best[0])):
            best = (sum(per_row), a1, b1)
    return None if best is None else (best[1], best[2])


def _peaks(ev: np.ndarray, r: float, stride: int, cfg: LocateConfig, subgrid: bool = False) -> np.ndarray:
    """Pit candidates of one radius: strong local maxima (neighbouring pits are at
    least 2.2 radii apart), (N, 2) work px."""
    k = 2 * int(round(1.8 * r / stride)) + 1
    peak = (ev == cv2.dilate(ev, np.ones((k, k), np.uint8))) & (ev > cfg.pit_scan_min_evidence)
    ys, xs = np.nonzero(peak)
    if len(xs) < cfg.pit_scan_min_pits:
        return np.zeros((0, 2))
    v = ev[ys, xs]
    top = float(np.median(np.sort(v)[-24:]))
    keep = v >= cfg.pit_scan_rel_evidence * top
    order = np.argsort(-v[keep])[: cfg.pit_scan_max_peaks]
    xs, ys = xs[keep][order], ys[keep][order]
    if not subgrid:
        return np.stack([xs, ys], 1).astype(np.float64) * stride
    # sub-grid position: a parabola through each peak and its neighbours along x and y
    # (the grid step is a third of the radius: 4 px of the copy, ~11 px of a 1280-px photo)
    pad = np.pad(ev, 1, mode="edge")
    c = pad[ys + 1, xs + 1]
    offs = []
    for lo, hi in ((pad[ys + 1, xs], pad[ys + 1, xs + 2]), (pad[ys, xs + 1], pad[ys + 2, xs + 1])):
        curv = 2.0 * c - lo - hi
        offs.append(np.where(curv > 1e-9, np.clip(0.5 * (hi - lo) / np.maximum(curv, 1e-9), -0.5, 0.5), 0.0))
    return np.stack([xs + offs[0], ys + offs[1]], 1).astype(np.float64) * stride


def _directions(pts: np.ndarray, min_step: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The two lattice step vectors: dominant directions of the vectors from each
    candidate to its 4 nearest neighbours (at least ``min_step`` away: pits do not
    overlap), each with the median length along it."""
    d = pts[None] - pts[:, None]
    dist = np.linalg.norm(d, axis=2)
    dist[dist < min_step] = np.inf
    nn = np.argsort(dist, axis=1)[:, :4]
    vec = d[np.arange(len(pts))[:, None], nn].reshape(-1, 2)
    length = np.linalg.norm(vec, axis=1)
    nearest = dist.min(axis=1)
    nearest = nearest[np.isfinite(nearest)]
    ok = np.isfinite(length)
    if ok.sum() < 8 or not len(nearest):  # (none: every candidate closer than min_step to all)
        return None
    short = ok & (length <= 1.6 * np.median(nearest))
    vec, length = vec[short], length[short]
    if len(vec) < 8:
        return None
    ang = np.mod(np.degrees(np.arctan2(vec[:, 1], vec[:, 0])), 180.0)
    hist = np.bincount(np.round(ang).astype(int) % 180, minlength=180).astype(np.float64)
    smooth = np.convolve(np.concatenate([hist[-6:], hist, hist[:6]]), np.ones(9), "same")[6:-6]
    a1 = int(np.argmax(smooth))
    dd = np.abs((np.arange(180) - a1 + 90) % 180 - 90)
    a2 = int(np.argmax(np.where(dd >= 35, smooth, -1.0)))
    steps = []
    for a in (a1, a2):
        near = np.abs((ang - a + 90) % 180 - 90) <= 12
        if near.sum() < 4:
            return None
        t = np.radians(a)
        steps.append(np.array([np.cos(t), np.sin(t)]) * float(np.median(length[near])))
    return steps[0], steps[1]


def _grow(pts: np.ndarray, seed: int, u: np.ndarray, v: np.ndarray, tol: float) -> dict[tuple[int, int], int]:
    """Integer lattice coordinates (along u, along v) -> candidate index, grown from
    ``seed``: each neighbour is looked for one step from an assigned candidate, the
    step taken from that candidate's own assigned neighbours where it has them."""
    coord = {(0, 0): seed}
    used = {seed}
    queue = deque([(0, 0)])
    px, py = np.ascontiguousarray(pts[:, 0]), np.ascontiguousarray(pts[:, 1])
    # the tolerances of the two steps (the same values as np.linalg.norm gives)
    reach = {True: tol * float(np.sqrt(u[0] * u[0] + u[1] * u[1])),
             False: tol * float(np.sqrt(v[0] * v[0] + v[1] * v[1]))}
    while queue:
        a, b = queue.popleft()
        p = pts[coord[(a, b)]]
        for da, db in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            base = u if da else v
            back = (a - da, b - db)  # continue the step from the point behind, if assigned
            step = p - pts[coord[back]] if back in coord else (da + db) * base
            for n in (1, 2):  # one step, or two over a pit not found
                key = (a + n * da, b + n * db)
                if key in coord:
                    break
                q = p + n * step
                dx, dy = px - q[0], py - q[1]
                dist = np.sqrt(dx * dx + dy * dy)  # np.linalg.norm(pts - q, axis=1), without its overhead
                j = int(np.argmin(dist))
                if dist[j] <= reach[bool(da)] and j not in used:
                    coord[key] = j
                    used.add(j)
                    queue.append(key)
                    break
    return coord


def _grow_seeds(pts: np.ndarray, seeds: int, tol: float, dirs: tuple[np.ndarray, np.ndarray] | None,
                local_radius: float | None = None,
                ) -> list[tuple[dict[tuple[int, int], int], np.ndarray, np.ndarray]]:
    """Lattices grown (:func:`_grow`) from the first ``seeds`` candidates, strongest
    first, [(coordinates -> candidate, u, v)]; a candidate taken into an earlier lattice
    seeds none of its own. The steps are ``dirs``, or with ``local_radius`` each seed's
    own: those of its 12 nearest candidates (dark-disc seeds: a table's pattern may
    outnumber the pits, and its step is not theirs), the seed skipped where they give none."""
    tried: set[int] = set()
    grown: list[tuple[dict[tuple[int, int], int], np.ndarray, np.ndarray]] = []
    for seed in range(min(seeds, len(pts))):
        if seed in tried:
            continue
        steps = dirs
        if local_radius is not None:
            near = np.argsort(np.linalg.norm(pts - pts[seed], axis=1))[:12]
            steps = _directions(pts[near], 2.0 * local_radius)
        if steps is None:
            continue
        u, v = steps
        coord = _grow(pts, seed, u, v, tol)
        tried.update(coord.values())
        grown.append((coord, u, v))
    return grown


def _extend(pts: np.ndarray, coord: dict[tuple[int, int], int], tol: float,
            rounds: int = 10) -> dict[tuple[int, int], int]:
    """The lattice of ``coord`` grown again, line by line, by a model fitted on
    what it holds so far. From the seed's own 3 x 3 block of ``coord`` (the seed
    at (0, 0)), each round fits an affine map (a homography once the points span
    3 x 3 lattice points) from lattice coordinates to candidates, predicts its
    points and one more line on each side, and gives each predicted point the
    candidate nearest to it within ``tol`` x the local step. Step-by-step growth
    (:func:`_grow`) stops at two missing pits in a row, and a candidate off its
    pit's centre (a rim half under a hand) bends its steps, so whole columns get
    the wrong coordinates; the model bridges such gaps and follows the
    perspective. ``coord`` as it is when the seed has too few neighbours."""
    core = {k: j for k, j in coord.items() if abs(k[0]) <= 1 and abs(k[1]) <= 1}
    cur = core
    box_lo, box_hi = np.array([-1, -1]), np.array([1, 1])
    for _ in range(rounds):
        keys = np.array(list(cur), np.float64)
        if len(keys) < 4 or len(np.unique(keys[:, 0])) < 2 or len(np.unique(keys[:, 1])) < 2:
            return coord
        dst = pts[list(cur.values())]
        near = np.abs(keys[:, None] - keys[None]).sum(axis=2) == 1
        step = float(np.median(np.linalg.norm(dst[:, None] - dst[None], axis=2)[near])) if near.any() else 0.0
        if not step > 0:
            return coord
        span = keys.max(axis=0) - keys.min(axis=0)
        # least squares: every point was taken within tol x the step of its prediction
        if len(keys) >= 8 and span.min() >= 2:
            h, _ = cv2.findHomography(keys, dst, 0)
        else:
            sol = np.linalg.lstsq(np.c_[keys, np.ones(len(keys))], dst, rcond=None)[0]
            h = np.vstack([sol.T, [0.0, 0.0, 1.0]])
        if h is None:
            return coord
        # one more line on each side, up to three lines past the last candidate (a hand
        # may hide two columns; the pits beyond them are the third line)
        box_lo = np.maximum(box_lo - 1, keys.min(axis=0).astype(int) - 3)
        box_hi = np.minimum(box_hi + 1, keys.max(axis=0).astype(int) + 3)
        aa, bb = np.meshgrid(np.arange(box_lo[0], box_hi[0] + 1), np.arange(box_lo[1], box_hi[1] + 1),
                             indexing="ij")
        grid = np.stack([aa.ravel(), bb.ravel()], 1).astype(np.float64)

        def at(g: np.ndarray, hh: np.ndarray = h) -> np.ndarray:
            return cv2.perspectiveTransform(g.reshape(-1, 1, 2), hh).reshape(-1, 2)

        pr = at(grid)
        local = np.minimum(np.linalg.norm(at(grid + [1.0, 0.0]) - pr, axis=1),
                           np.linalg.norm(at(grid + [0.0, 1.0]) - pr, axis=1))
        dist = np.linalg.norm(pts[None] - pr[:, None], axis=2)  # (lattice points, candidates)
        j = dist.argmin(axis=1)
        d = dist[np.arange(len(pr)), j]
        ok = (d <= tol * local) & (local > 0.5 * step) & (local < 2.0 * step)
        # each candidate to the lattice point it is nearest to (of those it is near)
        order = np.flatnonzero(ok)[np.argsort(d[ok], kind="stable")]
        _, first = np.unique(j[order], return_index=True)
        sel = order[first]
        new = dict(zip(map(tuple, grid[sel].astype(int).tolist()), j[sel].tolist(), strict=True))
        if (0, 0) not in new:
            break
        if new == cur and np.all(box_lo <= keys.min(axis=0) - 3) and np.all(box_hi >= keys.max(axis=0) + 3):
            break
        cur = new
    return cur


def _best_window(coord: dict[tuple[int, int], int]) -> tuple[int, int, int, bool]:
    """The 8 x 4 window of lattice coordinates holding the most candidates:
    (count, a0, b0, eight_along_u); of equal ones, the first with eight along u,
    then the smallest a0, then the smallest b0 (counted on a summed-area table of
    the occupied coordinates)."""
    keys = np.array(list(coord))
    lo = keys.min(axis=0)
    span = keys.max(axis=0) - lo + 1
    best = (0, 0, 0, True)
    for along_u in (True, False):
        na, nb = (8, 4) if along_u else (4, 8)
        # occupancy padded so that every window overlapping a candidate starts inside it
        occ = np.zeros((span[0] + 2 * na - 2, span[1] + 2 * nb - 2), np.int32)
        occ[keys[:, 0] - lo[0] + na - 1, keys[:, 1] - lo[1] + nb - 1] = 1
        sat = np.pad(occ.cumsum(axis=0).cumsum(axis=1), ((1, 0), (1, 0)))
        counts = sat[na:, nb:] - sat[:-na, nb:] - sat[na:, :-nb] + sat[:-na, :-nb]
        k = int(np.argmax(counts))  # the first of the largest, a0 then b0 ascending
        n = int(counts.flat[k])
        if n > best[0]:
            ia, ib = divmod(k, counts.shape[1])
            best = (n, int(ia + lo[0] - na + 1), int(ib + lo[1] - nb + 1), along_u)
    return best


def _a_row_apart(src: np.ndarray, dst: np.ndarray, cfg: LocateConfig,
                 gap_steps: tuple[float, ...] = DEFAULT.grid.gap_steps) -> bool:
    """Whether the candidates of an 8 x 5 block (:func:`_apart_block`; ``src`` their
    (col, row), rows 0, 1, 3 and 4, ``dst`` their image px, the homography's inliers) are
    a board's halves a whole row apart: ``pit_scan_half_row_min`` or more on each row,
    and the middle gap that fits them best (:func:`vision.board._gap_fit`, as the board
    fit finds it, of the middle gaps ``gap_steps``: the fit's ``GridConfig.gap_steps``)
    ``pit_scan_apart_gap_min`` row pitches or more. Halves two thirds of a row apart
    also fit one homography of the block, within its tolerance, in a perspective that
    is not there."""
    from vision.board import _gap_fit

    on_halves = src[:, 1] != 2  # (the void row may hold a candidate: a seed between the halves)
    src, dst = src[on_halves], dst[on_halves]
    rows = src[:, 1].astype(int)
    if min(int((rows == r).sum()) for r in (0, 1, 3, 4)) < cfg.pit_scan_half_row_min:
        return False
    cell = np.array([0, 1, -1, 2, 3])[rows] * 8 + src[:, 0].astype(int)
    order = np.argsort(cell)
    keep = np.zeros(32, bool)
    keep[cell] = True
    fit = _gap_fit(dst[order], keep, gap_steps)
    return fit is not None and fit[1] >= cfg.pit_scan_apart_gap_min


def _window_lattice(pts: np.ndarray, coord: dict[tuple[int, int], int], u: np.ndarray,
                    v: np.ndarray, scale: float, cfg: LocateConfig, apart: bool = True,
                    gap_steps: tuple[float, ...] = DEFAULT.grid.gap_steps) -> tuple[int, np.ndarray] | None:
    """(candidates on it, homography lattice (col, row) -> image px) of the best 8 x 4
    window of ``coord``, or None: too few candidates, a pattern going on past the
    window, or too few on one homography (RANSAC). ``apart``: a window passes as three
    rows of a board whose halves lie a row apart (:func:`_apart_block`; not for the
    dark-disc candidates, whose lattices are weaker; ``gap_steps``: the middle gaps
    :func:`_a_row_apart` tries)."""
    n, a0, b0, along_u = _best_window(coord)
    if n < cfg.pit_scan_min_pits:
        return None
    rows = 4
    if cfg.pit_scan_max_ring and _ring(coord, a0, b0, along_u) > cfg.pit_scan_max_ring:
        # the pattern goes on past the window (tiles, bricks: not a board), unless the
        # window is three rows of a board whose halves lie a row apart, the fourth beside it
        block = _apart_block(coord, a0, b0, along_u, cfg) if apart and cfg.pit_scan_halves_apart else None
        if block is None:
            return None
        # the lattice's homography from all four rows (the void row is its row 2, or its
        # row 1 once the rows are turned round below: the board fit takes it into the
        # middle gap either way, vision.board._halves_apart)
        (a0, b0), rows = block, 5
    src, dst = [], []
    for (a, b), j in coord.items():
        col, row = (a - a0, b - b0) if along_u else (b - b0, a - a0)
        if 0 <= col < 8 and 0 <= row < rows:
            src.append((col, row))
            dst.append(pts[j] / scale)
    src_a, dst_a = np.array(src, np.float64), np.array(dst, np.float64)
    pitch = float(np.linalg.norm(u if along_u else v)) / scale
    hlat, inl = cv2.findHomography(src_a, dst_a, cv2.RANSAC, 0.2 * pitch)
    if hlat is None or inl is None or int(inl.sum()) < cfg.pit_scan_min_pits:
        return None
    if rows == 5 and not _a_row_apart(src_a[inl.ravel() > 0], dst_a[inl.ravel() > 0], cfg, gap_steps):
        return None
    o, ex, ey = cv2.perspectiveTransform(np.array([[[0.0, 0]], [[1, 0]], [[0, 1]]]), hlat).reshape(3, 2)
    if (ex - o)[0] * (ey - o)[1] - (ex - o)[1] * (ey - o)[0] < 0:  # mirrored: rows the other way round
        hlat = hlat @ np.array([[1.0, 0, 0], [0, -1.0, 3.0], [0, 0, 1]])
    return int(inl.sum()), hlat


def _grown_lattices(maps: list[tuple[float, int, np.ndarray]], peaks: list[np.ndarray], scale: float,
                    cfg: LocateConfig, blobs: bool, extend: bool,
                    gap_steps: tuple[float, ...] = DEFAULT.grid.gap_steps) -> list[tuple[int, np.ndarray]]:
    """The lattices grown from the candidates of each radius (and of two neighbouring
    radii together), [(candidates on one homography, lattice -> image px)];
    ``extend``: the best grown lattice of each set completed by :func:`_extend`."""
    found: list[tuple[int, np.ndarray]] = []
    sets = []
    for k in range(len(maps)):
        sets.append((k, peaks[k]))
        # this radius and the next one together: the near pits of a tilted board look bigger
        if k + 1 < len(maps) and len(peaks[k]) and len(peaks[k + 1]):
            extra = peaks[k + 1]
            d = np.linalg.norm(extra[:, None] - peaks[k][None], axis=2).min(axis=1)
            sets.append((k, np.concatenate([peaks[k], extra[d > 1.6 * maps[k + 1][0]]])))
    for k, pts in sets:
        if len(pts) < cfg.pit_scan_min_pits:
            continue
        # (dark-disc seeds each take the step of their own neighbours, below)
        dirs = None if blobs else _directions(pts, 2.0 * maps[k][0])
        if dirs is None and not blobs:
            continue
        grown = _grow_seeds(pts, cfg.pit_scan_seeds * (10 if blobs else 1), cfg.pit_scan_tolerance,
                            dirs, maps[k][0] if blobs else None)
        if extend and grown:
            coord, u, v = max(grown, key=lambda g: _best_window(g[0])[0])
            again = _extend(pts, coord, cfg.pit_scan_tolerance)
            if _best_window(again)[0] > _best_window(coord)[0]:
                grown.append((again, u, v))
        for coord, u, v in grown:
            lattice = _window_lattice(pts, coord, u, v, scale, cfg, apart=not blobs, gap_steps=gap_steps)
            if lattice is not None:
                found.append(lattice)
    return found


def pit_lattices(image: np.ndarray, cfg: LocateConfig = DEFAULT.locate,
                 log_offset: float = DEFAULT.grid.gradient_log_offset,
                 blobs: bool = False, gap_steps: tuple[float, ...] = DEFAULT.grid.gap_steps,
                 ) -> list[tuple[int, np.ndarray]]:
    """First lattices from pit candidates, best first: [(candidates on the lattice,
    homography lattice (col, row) -> image px)], columns 0..7 along the long side,
    rows 0..3, oriented like the image (not mirrored). ``blobs``: the candidates are
    dark blobs (:func:`_blob_maps`) instead of rims. ``gap_steps``: the board fit's middle
    gaps (``GridConfig.gap_steps``), for a board whose halves lie a row apart."""
    maps, scale = (_blob_maps if blobs else _rim_maps)(image, cfg, log_offset)
    found = _grown_lattices(maps, [_peaks(ev, r, st, cfg) for r, st, ev in maps], scale, cfg, blobs, False,
                            gap_steps)
    if not found and not blobs and cfg.pit_scan_extend:
        # no lattice: the candidates placed between grid points, and each radius's best
        # grown lattice grown again by a model of the whole lattice (a hand over a
        # column or two, a perspective the steps did not follow)
        peaks = [_peaks(ev, r, st, cfg, subgrid=True) for r, st, ev in maps]
        found = _grown_lattices(maps, peaks, scale, cfg, blobs, True, gap_steps)
    found.sort(key=lambda t: -t[0])
    out: list[tuple[int, np.ndarray]] = []
    corners = np.array([[0.0, 0], [7, 0], [7, 3], [0, 3]]).reshape(-1, 1, 2)
    for n, hlat in found:  # drop lattices on the same pits as a better one
        c = cv2.perspectiveTransform(corners, hlat).reshape(4, 2)
        same = False
        for _, h2 in out:
            c2 = cv2.perspectiveTransform(corners, h2).reshape(4, 2)
            span = float(np.linalg.norm(c2[2] - c2[0]))
            if min(np.abs(c - np.roll(c2, r, axis=0)).max() for r in (0, 2)) < 0.1 * span:
                same = True
                break
        if not same:
            out.append((n, hlat))
    return out[: cfg.pit_scan_lattices]


def off_image(image: np.ndarray, cfg: LocateConfig = DEFAULT.locate,
              log_offset: float = DEFAULT.grid.gradient_log_offset,
              gap_steps: tuple[float, ...] = DEFAULT.grid.gap_steps) -> tuple[list[str], int] | None:
    """Whether the board seems to run off the image: ``(sides, pits found)`` or None.

    Asked only once no board was found, to say why. The pit candidates are grown into
    lattices as for :func:`pit_lattices`, and each lattice's 8 x 4 window holding the
    most candidates is taken. It qualifies when it holds a block of at least
    ``cut_min_pits`` pits, nearly full where it lies well inside the image, and one of
    its pits, or the next line of pits beyond the block where it is short of the
    board's 8 x 4, lies at or past the image border (within half a step of it: a pit
    cut in half shows no rim). The sides are the borders so reached ("left", "right", "top", "bottom"), at most two. A pattern on
    the table that goes on in the image (tiles, a dotted cloth) has candidates around
    the window, or reaches three or four borders, and does not qualify; neither does a
    block whose lines could go on inside the image. A lattice whose window passes as three
    rows of a board whose halves lie a row apart, the fourth beside it (as
    :func:`pit_lattices` takes it, ``pit_scan_halves_apart``), is a whole board in view:
    then None, whatever the other lattices show.
    """
    h, w = image.shape[:2]
    maps, scale = _rim_maps(image, cfg, log_offset)
    best: tuple[int, list[str]] | None = None
    # the grid's peaks first, then (as pit_lattices does when they give no lattice) the
    # sub-grid ones, each radius's largest grown lattice grown again by a model of the
    # whole (_extend) and taken instead of its lattices
    for subgrid in (False, True):
        for r, st, ev in maps:
            pts = _peaks(ev, r, st, cfg, subgrid=subgrid)
            if len(pts) < cfg.cut_min_pits:
                continue
            dirs = _directions(pts, 2.0 * r)
            if dirs is None:
                continue
            grown = _grow_seeds(pts, cfg.pit_scan_seeds, cfg.pit_scan_tolerance, dirs)
            if subgrid:
                coord, u, v = max(grown, key=lambda g: len(g[0]))
                grown = [(_extend(pts, coord, cfg.pit_scan_tolerance), u, v)]
            for coord, u, v in grown:
                if len(coord) < cfg.cut_min_pits:
                    continue
                # the 8 x 4 window holding the most (a row of reserve seeds beside the
                # board, a seed between pits, may have joined the lattice)
                n, a0, b0, along_u = _best_window(coord)
                if cfg.pit_scan_max_ring and _ring(coord, a0, b0, along_u) > cfg.pit_scan_max_ring:
                    if cfg.pit_scan_halves_apart and _window_lattice(pts, coord, u, v, scale, cfg,
                                                                     gap_steps=gap_steps) is not None:
                        return None  # a board whose halves lie a row apart, wholly in view
                    continue  # the pattern goes on past the window: tiles, bricks
                na, nb = (8, 4) if along_u else (4, 8)
                block = {k: j for k, j in coord.items() if a0 <= k[0] < a0 + na and b0 <= k[1] < b0 + nb}
                sides = _cut_sides(block, pts / scale, (w, h), cfg.cut_min_pits)
                if sides and (best is None or n > best[0]):
                    best = (n, sides)
        if best is not None:
            break
    return None if best is None else (best[1], best[0])


def _cut_sides(coord: dict[tuple[int, int], int], pts: np.ndarray, size: tuple[int, int],
               min_pits: int) -> list[str]:
    """The image borders that cut the block of pits ``coord`` (image px ``pts``) off
    (:func:`off_image`), or []: a pit of the block at the border, or, for a block short
    of the board's 8 x 4, the next line of pits beyond one end at or past it."""
    if len(coord) < min_pits:
        return []
    keys = np.array(list(coord))
    lo, hi = keys.min(axis=0), keys.max(axis=0)
    na, nb = (hi - lo + 1).tolist()
    if max(na, nb) > 8 or min(na, nb) > 4:
        return []  # (a window holds 8 x 4 at most)
    src = (keys - lo).astype(np.float64)
    dst = pts[list(coord.values())]
    d = np.linalg.norm(dst[:, None] - dst[None], axis=2)
    step = float(np.median(np.where(d > 0, d, np.inf).min(axis=1)))
    hom, inl = cv2.findHomography(src, dst, cv2.RANSAC, 0.2 * step)
    if hom is None or inl is None or int(inl.sum()) < min_pits:
        return []
    w, h = size

    def at(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        g = np.stack([a, b], 1).astype(np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(g, hom).reshape(-1, 2)

    def borders(p: np.ndarray, q: np.ndarray, share: float) -> list[str]:
        """The borders that at least ``share`` of the points ``p`` lie within half a
        step (the distance to ``q``, their neighbours one line in) of, or beyond."""
        reach = 0.5 * np.linalg.norm(p - q, axis=1)
        near = {"left": p[:, 0] < reach, "right": p[:, 0] > w - 1 - reach,
                "top": p[:, 1] < reach, "bottom": p[:, 1] > h - 1 - reach}
        return [side for side, flags in near.items() if flags.any() and flags.mean() >= share]

    aa, bb = np.meshgrid(np.arange(na), np.arange(nb), indexing="ij")
    a, b = aa.ravel(), bb.ravel()
    inward = np.where(a < na / 2, 1, -1)  # (na >= 2: 12 pits or more, 8 at most per line)
    cells, towards = at(a, b), at(a + inward, b)
    reach = 0.5 * np.linalg.norm(cells - towards, axis=1)
    seen = ((cells[:, 0] >= reach) & (cells[:, 0] <= w - 1 - reach)
            & (cells[:, 1] >= reach) & (cells[:, 1] <= h - 1 - reach))
    if len(coord) < 0.8 * seen.sum():
        return []  # not a block: its cells well inside the image are not all pits
    sides = borders(cells, towards, 1e-9)  # a pit of the block cut by a border
    # a block short of the board's size along an axis: the line beyond each end
    need = (8, 4) if na > 4 else (4, 8) if nb > 4 else None
    for k, n in enumerate((na, nb)):
        if need is not None and n >= need[k]:
            continue
        other = np.arange((nb, na)[k])
        for end, back in ((-1, 0), (n, n - 1)):
            e, f = np.full_like(other, end), np.full_like(other, back)
            p, q = (at(e, other), at(f, other)) if k == 0 else (at(other, e), at(other, f))
            sides += [side for side in borders(p, q, 0.5) if side not in sides]
    # cut on three or four sides: a pattern filling the image (a tiled floor), not a board
    return sides if len(sides) <= 2 else []
