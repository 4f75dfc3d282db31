"""Outline-free start for the board fit: pits found over the whole image.

When no board-shaped outline holds the board (a hand or a shadow merged with
it, a table of the same colour, a steep view including the side face), the
pits still show: each is a closed curve of radial gradient
(:func:`vision.board.rim_evidence`). Here

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
   bricks, a dotted cloth) and is not fitted.

When the rims give no lattice (``blobs=True``, :func:`_blob_maps`), the
candidates are dark discs instead: bowls lit from one side show a rim only on
one side, but most of each is darker than the wood around it. A pavement's
pattern may then outnumber the pits, so each seed (60 of them) is grown with
the step of its own nearest candidates rather than the image's dominant one.

Points are OpenCV ``(x, y)``; lattice coordinates are ``(col, row)``.
"""

from __future__ import annotations

from collections import deque

import cv2
import numpy as np

from vision.config import DEFAULT, LocateConfig


def _small(image: np.ndarray, cfg: LocateConfig) -> tuple[np.ndarray, float]:
    """The copy the scan works on (long side ``pit_scan_long_side_px``) and its scale."""
    h, w = image.shape[:2]
    s = min(1.0, cfg.pit_scan_long_side_px / max(h, w))
    return cv2.resize(image, (int(round(w * s)), int(round(h * s))), interpolation=cv2.INTER_AREA), s


def _steps(cfg: LocateConfig) -> list[tuple[int, int]]:
    """(pit radius, grid step about r / 3 px) of each radius scanned."""
    return [(r, max(cfg.pit_scan_stride, int(round(r / 3)))) for r in cfg.pit_scan_radii_px]


def _rim_maps(image: np.ndarray, cfg: LocateConfig, log_offset: float,
              ) -> tuple[list[tuple[float, int, np.ndarray]], float]:
    """Per pit radius r (px of the copy downscaled to ``pit_scan_long_side_px``):
    (r, step, rim evidence on a grid of that step (about r / 3 px)); and the scale."""
    from vision.board import _gradients, rim_evidence_grid

    small, s = _small(image, cfg)
    gx, gy = _gradients(small, log_offset)
    norm = max(float(cv2.magnitude(gx, gy).mean()), 1.0)
    circles = [(float(r), st) for r, st in _steps(cfg)]
    maps = rim_evidence_grid(gx, gy, circles, sectors=8)
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
    from vision.board import log_intensity

    small, s = _small(image, cfg)
    logi = log_intensity(small, log_offset)
    out = []
    for r, st in _steps(cfg):
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
        out.append((float(r), st, ev[::st, ::st] / cfg.pit_scan_blob_share))
    return out, s


def _ring(coord: dict[tuple[int, int], int], a0: int, b0: int, along_u: bool) -> int:
    """Candidates on the lattice in the ring of cells just outside the 8 x 4 window
    (a board's margin: empty; tiles or bricks: the pattern goes on)."""
    na, nb = (8, 4) if along_u else (4, 8)
    return sum(1 for a, b in coord
               if a0 - 1 <= a <= a0 + na and b0 - 1 <= b <= b0 + nb
               and not (a0 <= a < a0 + na and b0 <= b < b0 + nb))


def _peaks(ev: np.ndarray, r: float, stride: int, cfg: LocateConfig) -> np.ndarray:
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
    return np.stack([xs[keep][order], ys[keep][order]], 1).astype(np.float64) * stride


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
    ok = np.isfinite(length)
    if ok.sum() < 8:
        return None
    short = ok & (length <= 1.6 * np.median(nearest[np.isfinite(nearest)]))
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
                dist = np.linalg.norm(pts - (p + n * step), axis=1)
                j = int(np.argmin(dist))
                if dist[j] <= tol * np.linalg.norm(base) and j not in used:
                    coord[key] = j
                    used.add(j)
                    queue.append(key)
                    break
    return coord


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


def pit_lattices(image: np.ndarray, cfg: LocateConfig = DEFAULT.locate,
                 log_offset: float = DEFAULT.grid.gradient_log_offset,
                 blobs: bool = False) -> list[tuple[int, np.ndarray]]:
    """First lattices from pit candidates, best first: [(candidates on the lattice,
    homography lattice (col, row) -> image px)], columns 0..7 along the long side,
    rows 0..3, oriented like the image (not mirrored). ``blobs``: the candidates are
    dark blobs (:func:`_blob_maps`) instead of rims."""
    maps, scale = (_blob_maps if blobs else _rim_maps)(image, cfg, log_offset)
    peaks = [_peaks(ev, r, stride, cfg) for r, stride, ev in maps]
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
        tried: set[int] = set()
        for seed in range(min(cfg.pit_scan_seeds * (10 if blobs else 1), len(pts))):
            if seed in tried:
                continue
            if blobs:
                # the step from the seed's own neighbours (a table's pattern may
                # outnumber the pits, and its step is not theirs)
                near = np.argsort(np.linalg.norm(pts - pts[seed], axis=1))[:12]
                local = _directions(pts[near], 2.0 * maps[k][0])
                if local is None:
                    continue
                u, v = local
            else:
                assert dirs is not None
                u, v = dirs
            coord = _grow(pts, seed, u, v, cfg.pit_scan_tolerance)
            tried.update(coord.values())
            n, a0, b0, along_u = _best_window(coord)
            if n < cfg.pit_scan_min_pits:
                continue
            if cfg.pit_scan_max_ring and _ring(coord, a0, b0, along_u) > cfg.pit_scan_max_ring:
                continue  # the pattern goes on past the window: tiles, bricks, not a board
            src, dst = [], []
            for (a, b), j in coord.items():
                col, row = (a - a0, b - b0) if along_u else (b - b0, a - a0)
                if 0 <= col < 8 and 0 <= row < 4:
                    src.append((col, row))
                    dst.append(pts[j] / scale)
            src_a, dst_a = np.array(src, np.float64), np.array(dst, np.float64)
            pitch = float(np.linalg.norm(u if along_u else v)) / scale
            hlat, inl = cv2.findHomography(src_a, dst_a, cv2.RANSAC, 0.2 * pitch)
            if hlat is None or inl is None or int(inl.sum()) < cfg.pit_scan_min_pits:
                continue
            o, ex, ey = cv2.perspectiveTransform(np.array([[[0.0, 0]], [[1, 0]], [[0, 1]]]), hlat).reshape(3, 2)
            if (ex - o)[0] * (ey - o)[1] - (ex - o)[1] * (ey - o)[0] < 0:  # mirrored: rows the other way round
                hlat = hlat @ np.array([[1.0, 0, 0], [0, -1.0, 3.0], [0, 0, 1]])
            found.append((int(inl.sum()), hlat))
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
