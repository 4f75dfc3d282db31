"""Stage 1: find the four corners of the playing surface, without markers.

Method (no single look is assumed; the details and the measurements behind each
threshold are in docs/vision.md):

1. **Pits** (:mod:`vision.pit_scan`): pit rims found over the whole image, grown
   into 8 x 4 lattices and fitted; a clear fit (``pit_scan_early``) is taken at
   once (most photos). When the fit is not clear, the small rims again on a larger
   copy (:func:`_small_pits`), for a board small in the frame; then the first
   scan's weak fits are fitted again as an outline would be (``pit_scan_refit``).
2. **Outlines** (:func:`outline_candidates`). On a downscaled copy, several
   segmentations are made: colour distance from the table (estimated on the
   image border), Otsu on grey in both polarities, closed Canny edges, k-means
   colour clusters and the density of pit-like rings. Their large outer contours
   become quads (hull polygon, best 4 hull points, min-area rectangle); sides are
   refitted on the gradient; quads are ordered by outline contrast x pit-ring
   density inside.
3. **Ranking** (:func:`rank_candidates`): the quick free lattice search in each
   quad's rectified view (x the outline's strength).
4. **Fits** (:func:`vision.board.fit_top_face`): the best-ranked of the 3
   strongest outlines is fitted first and taken when clearly good. Otherwise
   the best-ranked finalist gets a fit, then the first fit is restarted; when
   that fit and a pit scan's agree on one board (``agree_within``), the better
   of them is taken. Else the finalists are fitted in turn (a weaker pit-scan
   fit competes with them); before giving up, the pits as dark discs and the
   next outlines (which are also fitted when the best fit so far is weak, and
   must beat it); as a last chance, a weaker lattice whose playing surface
   ends at its own outline's corners. A fit is accepted by its
   :attr:`vision.grid.PitGrid.score` (rim evidence on the pit lattice).
5. **Small boards** (:func:`_small_board`): when nothing fits, the pit scan again
   on larger copies of the image (rims, then dark discs), for a board small in
   the frame.

The result's corners are the playing surface's, from the fitted pit lattice
(:mod:`vision.board`). Points are OpenCV ``(x, y)`` image px. The result is a
clockwise quad with side 0 -> 1 along the board's long axis (rows of 8 pits);
:func:`vision.rectify.orient_corners` then applies the South side.

Debug: ``python -m vision.locate IMG --debug OUT.png``.
"""

from __future__ import annotations

import argparse
import itertools
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import cv2
import numpy as np

from vision.config import DEFAULT, LocateConfig, VisionConfig
from vision.errors import BoardNotFound
from vision.grid import gradient_magnitude, grid_score
from vision.lattice import fit_lattice, ring_kernel
from vision.rectify import canonical_size, homography, long_axis_first, order_clockwise, squash


@dataclass
class BoardQuad:
    corners: np.ndarray  # (4, 2) image (x, y), clockwise, side 0->1 along the long axis
    score: float  # grid-fit score of the chosen quad
    aspect: float  # width / height of the playing surface used for rectification
    method: str  # which segmentation produced it ("given" for user corners)
    fit: Any = None  # vision.board.TopFace of these corners when the locate stage fitted it


def _masks(small: np.ndarray, cfg: VisionConfig) -> list[tuple[str, np.ndarray]]:
    lc = cfg.locate
    blur = cv2.GaussianBlur(small, (lc.blur_px, lc.blur_px), 0)
    grey = cv2.cvtColor(blur, cv2.COLOR_BGR2GRAY)
    lab = cv2.cvtColor(blur, cv2.COLOR_BGR2LAB).astype(np.float32)
    h, w = grey.shape
    b = max(2, int(0.04 * min(h, w)))
    border = np.concatenate([lab[:b].reshape(-1, 3), lab[-b:].reshape(-1, 3),
                             lab[:, :b].reshape(-1, 3), lab[:, -b:].reshape(-1, 3)])
    table = np.median(border, axis=0)
    dist = np.linalg.norm(lab - table, axis=2)
    dist8 = cv2.normalize(dist, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)  # type: ignore[call-overload]
    out: list[tuple[str, np.ndarray]] = []
    _, m = cv2.threshold(dist8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    out.append(("colour", m))
    _, m = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    out.append(("bright", m))
    out.append(("dark", 255 - m))
    edges = cv2.Canny(grey, lc.canny_low, lc.canny_high)
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (lc.close_px, lc.close_px))
    closed = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, k)
    filled = np.zeros_like(closed)
    cnts, _ = cv2.findContours(closed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(filled, cnts, -1, 255, -1)
    out.append(("edges", filled))
    return out


def _cluster_masks(small: np.ndarray, cfg: VisionConfig) -> list[tuple[str, np.ndarray]]:
    """One mask per colour cluster (k-means in Lab, chroma weighted over lightness so
    that light gradients on the table matter less than the wood's colour)."""
    lc = cfg.locate
    h, w = small.shape[:2]
    tiny = cv2.resize(small, (lc.cluster_width_px, max(8, int(round(lc.cluster_width_px * h / w)))),
                      interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(cv2.GaussianBlur(tiny, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    feat = (lab.reshape(-1, 3) * np.array(lc.cluster_lab_weights, np.float32)).astype(np.float32)
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 1.0)
    out = []
    for k in lc.kmeans_k:
        cv2.setRNGSeed(12345)  # deterministic clustering
        _, lbl, _ = cv2.kmeans(feat, k, None, crit, 2, cv2.KMEANS_PP_CENTERS)  # type: ignore[call-overload]  # None is valid at run time
        lbl = lbl.reshape(tiny.shape[:2])
        for c in range(k):
            m = (lbl == c).astype(np.uint8) * 255
            out.append((f"kmeans{k}.{c}", cv2.resize(m, (w, h), interpolation=cv2.INTER_NEAREST)))
    return out


def _pit_density(mag: np.ndarray, cfg: VisionConfig) -> np.ndarray:
    """Ring-shaped edge energy (ring filter minus its local mean, best of a few pit
    sizes), normalised by its image mean: high where pits are."""
    best = None
    for r in cfg.locate.pit_radii_px:
        ring = ring_kernel(r, r, max(1.0, 0.2 * r))
        resp = cv2.filter2D(mag, -1, ring, borderType=cv2.BORDER_CONSTANT)
        box = int(3 * r) | 1
        hp = np.maximum(resp - cv2.blur(resp, (box, box)), 0)
        hp /= float(hp.mean()) + 1e-6
        best = hp if best is None else np.maximum(best, hp)
    assert best is not None
    return best


def _density_masks(density: np.ndarray, cfg: VisionConfig) -> list[tuple[str, np.ndarray]]:
    """Where pit-like rings crowd together: the board's pit area even when its outline
    merges with the table, a hand or a stick (closed so the pits join into one blob)."""
    out = []
    for level in cfg.locate.density_levels:
        m = (density > level).astype(np.uint8) * 255
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (cfg.locate.density_close_px,) * 2)
        out.append((f"density{level:g}", cv2.morphologyEx(m, cv2.MORPH_CLOSE, k)))
    return out


def _mean_inside(img: np.ndarray, q: np.ndarray) -> float:
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(q).astype(np.int32), 1)
    return float(img[mask > 0].mean()) if mask.any() else 0.0


def _best_four(hull: np.ndarray) -> np.ndarray | None:
    """The 4 hull vertices enclosing the largest area (hull simplified first)."""
    peri = cv2.arcLength(hull, True)
    pts = cv2.approxPolyDP(hull, 0.01 * peri, True).reshape(-1, 2)
    if len(pts) < 4:
        return None
    if len(pts) > 14:
        pts = cv2.approxPolyDP(hull, 0.02 * peri, True).reshape(-1, 2)
        if len(pts) > 14:
            return None
    best, best_area = None, 0.0
    for idx in itertools.combinations(range(len(pts)), 4):
        q = pts[list(idx)].astype(np.float32)
        area = cv2.contourArea(q)
        if area > best_area:
            best, best_area = q, area
    return best


def _candidates(mask: np.ndarray, cfg: VisionConfig) -> list[np.ndarray]:
    lc = cfg.locate
    h, w = mask.shape
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (lc.open_px, lc.open_px))
    opened = cv2.morphologyEx(mask, cv2.MORPH_OPEN, k)
    cnts, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    quads: list[np.ndarray] = []
    for cnt in sorted(cnts, key=cv2.contourArea, reverse=True)[:3]:
        area = cv2.contourArea(cnt)
        if not lc.min_area_frac * h * w <= area <= lc.max_area_frac * h * w:
            continue
        hull = cv2.convexHull(cnt)
        peri = cv2.arcLength(hull, True)
        for eps in lc.approx_eps_frac:
            approx = cv2.approxPolyDP(hull, eps * peri, True)
            if len(approx) == 4:
                quads.append(approx.reshape(4, 2).astype(np.float32))
                break
        four = _best_four(hull)
        if four is not None:
            quads.append(four)
        quads.append(cv2.boxPoints(cv2.minAreaRect(cnt)).astype(np.float32))
    return quads


def _valid(q: np.ndarray, cfg: VisionConfig) -> bool:
    if not cv2.isContourConvex(q.reshape(-1, 1, 2).astype(np.float32)):
        return False
    sides = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
    return bool(sides.min() >= cfg.locate.min_side_px)


def _score_quad(small: np.ndarray, quad: np.ndarray, cfg: VisionConfig) -> tuple[float, np.ndarray]:
    """Best grid score over the two long-axis hypotheses, and the quad rolled accordingly."""
    size = canonical_size(cfg.rectify.default_aspect, cfg.rectify, cfg.rectify.score_width_px)
    best, best_q = -2.0, quad
    for roll in (0, 1):
        q = np.roll(quad, -roll, axis=0)
        view = cv2.warpPerspective(small, homography(q, size), size, flags=cv2.INTER_AREA)
        s = grid_score(view, cfg.grid)
        if s > best:
            best, best_q = s, q
    return best, best_q


def edge_magnitude(grey: np.ndarray) -> np.ndarray:
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    return cv2.magnitude(gx, gy)


def _board_shaped(q: np.ndarray, cfg: VisionConfig) -> bool:
    """Side-length ratio of a plausible board seen from 45 degrees to straight down."""
    s = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
    ratio = max(s[0] + s[2], s[1] + s[3]) / max(min(s[0] + s[2], s[1] + s[3]), 1e-6)
    return cfg.locate.min_side_ratio <= ratio <= cfg.locate.max_side_ratio


def _outline_contrast(mag: np.ndarray, q: np.ndarray) -> float:
    """Mean gradient magnitude along the quad's outline (boards have a clear outline)."""
    pts = np.concatenate([np.linspace(q[i], q[(i + 1) % 4], 40) for i in range(4)]).astype(np.float32)
    vals = cv2.remap(mag, pts[:, 0].reshape(1, -1), pts[:, 1].reshape(1, -1), cv2.INTER_LINEAR)
    return float(vals.mean())


def _lattice_score(small: np.ndarray, quad: np.ndarray, cfg: VisionConfig) -> tuple[float, np.ndarray]:
    """Free-lattice score of a quad and the quad rolled so side 0->1 runs along the
    8 columns; both long-axis hypotheses are tried only when the quad's sides are
    of similar length in the image."""
    rc = cfg.rectify
    w, h = canonical_size(rc.default_aspect, rc, rc.lattice_width_px)
    pad = int(rc.pad_frac * w)
    quad = long_axis_first(quad)
    s = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    rolls = (0, 1) if (s[0] + s[2]) < cfg.locate.both_axes_below * (s[1] + s[3]) else (0,)
    best, best_q = -1.0, quad
    for roll in rolls:
        q = np.roll(quad, -roll, axis=0)
        view = cv2.warpPerspective(small, homography(q, (w, h), pad), (w + 2 * pad, h + 2 * pad),
                                   flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        lat = fit_lattice(gradient_magnitude(view), cfg.grid, board_width=w, quick=True)
        if lat.score > best:
            best, best_q = lat.score, q
    return best, best_q


def refine_sides(mag: np.ndarray, quad: np.ndarray, band: float) -> np.ndarray:
    """Refit each side on a gradient-magnitude image and intersect the lines; the quad as
    it is when the band to search is wider than the image (a wild fit, its corners far
    off the image: OpenCV cannot sample a band 32767 px or wider, and there is nothing
    to refine against)."""
    if not (np.isfinite(band) and np.all(np.isfinite(quad))) or band > max(mag.shape[:2]):
        return quad
    lines = []
    offsets = np.arange(-band, band + 0.5, 1.0, dtype=np.float32)
    for i in range(4):
        p, q = quad[i], quad[(i + 1) % 4]
        d = (q - p) / (np.linalg.norm(q - p) + 1e-9)
        n = np.array([-d[1], d[0]], np.float32)
        ts = np.linspace(0.1, 0.9, 40, dtype=np.float32)
        base = p[None] + ts[:, None] * (q - p)[None]
        samples = base[:, None, :] + offsets[None, :, None] * n[None, None, :]
        mx = np.ascontiguousarray(samples[..., 0], np.float32)
        my = np.ascontiguousarray(samples[..., 1], np.float32)
        vals = cv2.remap(mag, mx, my, cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        best = np.argmax(vals, axis=1)
        strong = vals[np.arange(len(ts)), best] > 0.5 * np.median(vals.max(axis=1)) + 1e-3
        pts = base + offsets[best][:, None] * n[None]
        pts = pts[strong]
        if len(pts) < 8:
            lines.append((p, d))
            continue
        vx, vy, x0, y0 = cv2.fitLine(pts.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0]), np.array([vx, vy])))
    out = np.zeros((4, 2), np.float64)
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        a = np.array([d1, -d2]).T
        if abs(np.linalg.det(a)) < 1e-6:
            return quad
        t = np.linalg.solve(a, p2 - p1)
        out[i] = p1 + t[0] * d1
    if np.max(np.linalg.norm(out - quad, axis=1)) > 3 * band:
        return quad
    return out


def candidate_quads(image: np.ndarray, cfg: VisionConfig = DEFAULT) -> tuple[list[tuple[float, np.ndarray, str]], float]:
    """Board-shaped quads of a BGR image, best first: ([(quick lattice score, quad at
    the work scale (side 0->1 along the 8 columns), method)], work scale)."""
    scored, small, scale = outline_candidates(image, cfg)
    return rank_candidates(small, scored, cfg), scale


def outline_candidates(image: np.ndarray, cfg: VisionConfig = DEFAULT,
                       ) -> tuple[list[tuple[float, np.ndarray, str]], np.ndarray, float]:
    """Board-shaped quads pre-ranked by outline contrast x the density of pit-like
    rings inside: ([(outline contrast, quad at the work scale, method)], the
    work-scale image, the scale)."""
    lc = cfg.locate
    h, w = image.shape[:2]
    scale = min(1.0, lc.work_long_side_px / max(h, w))
    small = cv2.resize(image, (int(round(w * scale)), int(round(h * scale))), interpolation=cv2.INTER_AREA)
    small_mag = edge_magnitude(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY))
    diag = float(np.hypot(*small.shape[:2]))
    seen: list[np.ndarray] = []
    raw: list[np.ndarray] = []
    scored: list[tuple[float, np.ndarray, str]] = []
    density = _pit_density(small_mag, cfg)
    for name, mask in _masks(small, cfg) + _cluster_masks(small, cfg) + _density_masks(density, cfg):
        for quad in _candidates(mask, cfg):
            q = order_clockwise(quad)
            if not _valid(q, cfg) or not _board_shaped(q, cfg):
                continue
            if any(np.abs(q - s).max() < lc.same_quad_frac * diag for s in raw):
                continue  # the same shape from another segmentation
            raw.append(q)
            q = refine_sides(small_mag, q, band=lc.refine_edge_band_px)
            if any(np.abs(q - s).max() < lc.same_quad_frac * diag for s in seen):
                continue
            seen.append(q)
            scored.append((_outline_contrast(small_mag, q), q, name))
    scored.sort(key=lambda t: -t[0] * _mean_inside(density, t[1]))
    return scored, small, scale


def rank_candidates(small: np.ndarray, scored: list[tuple[float, np.ndarray, str]], cfg: VisionConfig = DEFAULT,
                    stop: threading.Event | None = None, first: int = 0,
                    count: int | None = None) -> list[tuple[float, np.ndarray, str]]:
    """The best few of :func:`outline_candidates` ranked by the free lattice search
    (which knows no margins or pit size) x the outline: [(quick lattice score, quad
    rolled so side 0->1 runs along the 8 columns, method)], best first. ``stop``: set
    when the ranking is no longer wanted (on a helper thread it then ends early,
    with what it has). ``first``, ``count``: rank that many outlines (default
    ``LocateConfig.finalists``) from this place in ``scored`` on (0: the best few)."""
    return _unkeyed(_ranked(small, scored, cfg, stop, first, count))


def _ranked(small: np.ndarray, scored: list[tuple[float, np.ndarray, str]], cfg: VisionConfig,
            stop: threading.Event | None = None, first: int = 0,
            count: int | None = None) -> list[tuple[float, float, np.ndarray, str]]:
    """:func:`rank_candidates` with each entry's ranking key first (to merge rankings)."""
    lc = cfg.locate
    if not scored:
        return []
    ranked = []
    top_outline = scored[0][0]
    for outline, q, name in scored[first : first + (lc.finalists if count is None else count)]:
        if stop is not None and stop.is_set():
            break
        ls, lq = _lattice_score(small, q, cfg)
        # a sharp, continuous outline is further evidence (weighted down: tiles and
        # mortar lines have sharper outlines than any board)
        ranked.append((ls * (outline / max(top_outline, 1e-6)) ** lc.outline_power, ls, lq, name))
    ranked.sort(key=lambda t: -t[0])
    return ranked


def _unkeyed(ranked: list[tuple[float, float, np.ndarray, str]]) -> list[tuple[float, np.ndarray, str]]:
    return [(ls, lq, name) for _, ls, lq, name in sorted(ranked, key=lambda t: -t[0])]


T = TypeVar("T")
_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="bao-locate")
        return _POOL


class _Later(Generic[T]):
    """``fn(*args)``, started now on a helper thread when ``background`` (its result
    may be needed: the second core works while this one fits), else computed only
    when :meth:`result` is first called. Either way the same value; OpenCV and
    numpy release the GIL for their work."""

    def __init__(self, background: bool, fn: Callable[..., T], *args: Any) -> None:
        self._fn, self._args = fn, args
        self._future: Future[T] | None = _pool().submit(fn, *args) if background else None
        self._value: tuple[T] | None = None

    def result(self) -> T:
        if self._future is not None:
            return self._future.result()
        if self._value is None:
            self._value = (self._fn(*self._args),)
        return self._value[0]


#: what a user can check when no board is found and none runs off the image
NOT_FOUND_HINT = ("check that the whole board is in the picture, lit, and not covered "
                  "by a hand or an arm")


def locate_board(image: np.ndarray, cfg: VisionConfig = DEFAULT) -> BoardQuad:
    """Find the playing surface in a BGR image (see module docstring).

    Raises:
        BoardNotFound: no candidate quad holds a plausible 4 x 8 pit grid.
    """
    lc = cfg.locate
    if lc.use_aruco:
        marked = aruco_corners(image, cfg)
        if marked is not None:
            return marked
    try:
        return _search(image, cfg)
    except BoardNotFound as exc:
        small = _small_board(image, cfg)
        if small is None:
            small = _brightened_search(image, cfg)
        if small is None:
            cut = off_image_message(image, cfg)
            if cut:
                raise BoardNotFound(f"{cut}; {exc}") from exc
            raise BoardNotFound(f"{exc}; {NOT_FOUND_HINT}") from exc
        return small


def is_dark(image: np.ndarray, lc: LocateConfig) -> bool:
    """Whether at least ``lc.dark_retry_share`` of the image's pixels are darker than
    ``lc.dark_retry_level`` (grey, 0..255)."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return float(np.count_nonzero(grey < lc.dark_retry_level)) >= lc.dark_retry_share * grey.size


def brightened(image: np.ndarray, gamma: float) -> np.ndarray:
    """``image`` with every channel raised to ``gamma`` (< 1 lifts the shadows)."""
    lut = np.clip(np.round(255.0 * (np.arange(256) / 255.0) ** gamma), 0, 255).astype(np.uint8)
    return cv2.LUT(image, lut)


def dark_retry_copy(image: np.ndarray, lc: LocateConfig) -> np.ndarray | None:
    """The brightened copy a dark photo is searched again on (``LocateConfig.dark_retry_gamma``),
    or None (the photo is not dark, or the retry is off)."""
    if not 0.0 < lc.dark_retry_gamma < 1.0 or not is_dark(image, lc):
        return None
    return brightened(image, lc.dark_retry_gamma)


def _brightened_search(image: np.ndarray, cfg: VisionConfig) -> BoardQuad | None:
    """The search again on a brightened copy of a dark photo (:func:`dark_retry_copy`),
    or None (not dark, off, or still nothing). The corners are the photo's own."""
    lifted = dark_retry_copy(image, cfg.locate)
    if lifted is None:
        return None
    found: BoardQuad | None
    try:
        found = _search(lifted, cfg)
    except BoardNotFound:
        found = _small_board(lifted, cfg)
    if found is not None:
        found.method += "+brightened"
    return found


def off_image_message(image: np.ndarray, cfg: VisionConfig = DEFAULT) -> str | None:
    """What to tell the user when the pits found run off the image
    (:func:`vision.pit_scan.off_image`), or None."""
    from vision.pit_scan import off_image

    if cfg.locate.cut_min_pits <= 0:
        return None
    found = off_image(image, cfg.locate, cfg.grid.gradient_log_offset)
    if found is None:
        return None
    sides, pits = found
    edges = " and ".join(sides)
    return (f"the board seems to run off the image at the {edges} edge{'s' if len(sides) > 1 else ''} "
            f"with {pits} of its 32 pits found: move the camera so that the whole board is in the picture")


def _small_board(image: np.ndarray, cfg: VisionConfig) -> BoardQuad | None:
    """The pit scan again on larger copies of the image (``LocateConfig.small_board_scan_px``,
    long sides, in turn): a board far from the camera or filling little of the frame has
    pits too small for the scan's usual copy (a pit 5 px across or less there). Only once
    the whole search has found nothing; the first fit found is taken. The rims first, on
    each copy; then (``pit_scan_blobs``) the dark discs, whose lattice steps are taken
    from each seed's own neighbours: a small board on a tiled floor is outnumbered by
    the tiles' candidates, and the steps of all candidates together are the tiles'."""
    import dataclasses

    if not cfg.locate.pit_scan:
        return None
    long_side = max(image.shape[:2])
    sides: list[int] = []
    done = min(long_side, cfg.locate.pit_scan_long_side_px)
    for side in cfg.locate.small_board_scan_px:
        if min(side, long_side) > done:  # larger than a copy already scanned
            done = min(side, long_side)
            sides.append(side)
    for blobs in (False, True) if cfg.locate.pit_scan_blobs else (False,):
        for side in sides:
            zoomed = dataclasses.replace(cfg, locate=dataclasses.replace(cfg.locate, pit_scan_long_side_px=side))
            found = _pit_scanned(image, zoomed, blobs=blobs)
            if found is not None:
                return dataclasses.replace(found, method=found.method + "_zoomed")
    return None


def _small_pits(image: np.ndarray, cfg: VisionConfig) -> BoardQuad | None:
    """The rim scan on a larger copy (``LocateConfig.small_pit_scan_px``), at the small
    radii ``small_pit_scan_radii_px`` only and with no refits (34-145 ms): pits too
    small for the first scan's copy. None when off, when the image is no larger than
    the first scan's copy, or when no lattice fits."""
    import dataclasses

    lc = cfg.locate
    side = min(lc.small_pit_scan_px, max(image.shape[:2]))
    if not lc.small_pit_scan_px or not lc.small_pit_scan_radii_px or side <= lc.pit_scan_long_side_px:
        return None
    zoomed = dataclasses.replace(cfg, locate=dataclasses.replace(
        lc, pit_scan_long_side_px=side, pit_scan_radii_px=lc.small_pit_scan_radii_px, pit_scan_refit=0))
    found = _pit_scanned(image, zoomed)
    return None if found is None else dataclasses.replace(found, method=found.method + "_small_pits")


def _search(image: np.ndarray, cfg: VisionConfig) -> BoardQuad:
    """:func:`locate_board` at the usual scales (no markers); BoardNotFound if nothing fits."""
    from vision.board import fit_top_face

    lc = cfg.locate
    scan: list[BoardQuad | None] = []  # the pit scan's result, once it has run
    tiny: BoardQuad | None = None  # the small rims' (for _agreeing, with the scan's)
    if lc.pit_scan and lc.pit_scan_early > 0:
        # the pits alone first (~80 ms): a clear lattice from them ends the search. On
        # half of 160 renders the strongest outline's first fit failed and the scan found
        # the board after it; scanning first, 129 of 160 end here, the same boards are
        # found and the median time falls by ~20-30 ms (docs/vision.md, seventh session)
        memo: dict[str, Any] = {}
        rims = _pit_scanned(image, cfg, memo=memo, refit=not lc.small_pits_before_refits)
        if rims is not None and rims.score >= lc.pit_scan_early:
            return rims
        tiny = _small_pits(image, cfg)
        if tiny is not None and tiny.score >= lc.pit_scan_early:
            return tiny
        if lc.small_pits_before_refits:
            # the first scan's weak fits refitted only now (150-350 ms each), its
            # lattices and first fits kept from above
            rims = _pit_scanned(image, cfg, memo=memo)
            if rims is not None and rims.score >= lc.pit_scan_early:
                return rims
        scan.append(rims)
        if scan[0] is None and lc.pit_scan_blobs and lc.blobs_early > 0:
            # no rim lattice at all: the dark-disc scan, the last resort, is made now
            # (0.2-2 s) and a clear fit from it ends the search. Over 297 renders the
            # rims gave no lattice on 32; with the outlines fitted first (4-9 s), the
            # search ended on this same scan's fit on 14 of them, and each of the 15
            # clear fits from it was the board the whole search found (docs/vision.md,
            # seventeenth session)
            scan.append(_pit_scanned(image, cfg, blobs=True))
            if scan[1] is not None and scan[1].score >= lc.blobs_early:
                return scan[1]
    scored, small, scale = outline_candidates(image, cfg)
    first = None
    ranked0: list[tuple[float, np.ndarray, str]] | None = None
    if lc.verify_finalists and scored:
        # most often one of the strongest few outlines is the board: the best of them
        # by the quick lattice search (``first_ranked``, ~5 ms each) is fitted first
        # (over 220 renders, 123 such first fits were clearly good, against 109 for
        # the strongest outline alone). When that fit is clearly good, the ranking of
        # the other finalists is not needed (with ``background``, it is made on the
        # other core meanwhile, in case)
        unwanted = threading.Event()
        head = _ranked(small, scored, cfg, count=lc.first_ranked) if lc.first_ranked > 0 else []
        q0, name0 = (head[0][2], head[0][3]) if head else (long_axis_first(scored[0][1]), scored[0][2])
        ranking = _Later(lc.background, _ranked, small, scored, cfg, unwanted, len(head),
                         max(lc.finalists - len(head), 0))
        fit = fit_top_face(image, q0 / scale, cfg.rectify.default_aspect, cfg, restart=False,
                           nominal=False, comb_min=lc.first_comb_min)
        if fit.grid.score >= max(lc.first_fit_enough, _off_bar(fit.corners, image, lc)):
            unwanted.set()  # (the ranking's helper thread stops at its next outline)
            return BoardQuad(fit.corners, fit.grid.score, fit.aspect, name0, fit)
        if fit.grid.score >= lc.verify_enough:
            unwanted.set()
        else:
            # not good. The other finalists are ranked too (~15 ms), and the best-ranked
            # outline, when another, gets a single fit too (the strongest outline is the
            # board on 45 of 80 renders, the best-ranked one on 53), unless its quick
            # lattice is weak (``second_fit_min``)
            ranked0 = _unkeyed(head + ranking.result())
            if ranked0 and not np.allclose(ranked0[0][1], q0) and ranked0[0][0] >= lc.second_fit_min:
                f2 = fit_top_face(image, ranked0[0][1] / scale, cfg.rectify.default_aspect, cfg,
                                  restart=False, nominal=False, comb_min=lc.first_comb_min)
                if f2.grid.score >= max(lc.verify_enough, _off_bar(f2.corners, image, lc)):
                    return BoardQuad(f2.corners, f2.grid.score, f2.aspect, ranked0[0][2], f2)
        fit = fit_top_face(image, q0 / scale, cfg.rectify.default_aspect, cfg, first=fit)
        if fit.grid.score >= max(lc.verify_enough, _off_bar(fit.corners, image, lc)):
            return BoardQuad(fit.corners, fit.grid.score, fit.aspect, name0, fit)
        agreed = _agreeing(BoardQuad(fit.corners, fit.grid.score, fit.aspect, name0, fit), [tiny, *scan],
                           image, lc)
        if agreed is not None:
            return agreed
        first = (q0, fit)
    ranked = ranked0 if ranked0 is not None else rank_candidates(small, scored, cfg)
    if not ranked:
        scanned = _last_resort(image, cfg, scan) if lc.pit_scan else None
        if scanned is None:
            raise BoardNotFound("no board-sized four-sided shape in the image, nor a 4x8 pit lattice")
        return scanned
    if lc.verify_finalists:
        def more() -> list[tuple[float, np.ndarray, str]]:
            return rank_candidates(small, scored, cfg, first=lc.finalists,
                                   count=lc.more_ranked)[: lc.more_finalists]

        return _verified(image, ranked, scale, cfg, first, scan, more)
    best_s, best_q, method = ranked[0]
    if best_s < lc.min_quick_lattice:
        raise BoardNotFound(
            f"no 4x8 pit lattice found (best fit {best_s:.2f} < {lc.min_quick_lattice:.2f})")
    full = best_q / scale
    mag = edge_magnitude(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    refined = refine_sides(mag, full, band=max(2.0, 1.5 / scale))
    return BoardQuad(refined, best_s, cfg.rectify.default_aspect, method)


def _agreeing(found: BoardQuad, scans: list[BoardQuad | None], image: np.ndarray,
              lc: LocateConfig) -> BoardQuad | None:
    """The highest-scoring of ``found`` (an outline's fit) and the pit scans' fits among
    ``scans`` that agree with it, when at least one does: each scoring
    ``LocateConfig.agree_min`` (and what a surface running off the image needs), every
    corner of a scan's fit within ``agree_within`` x its longest side of ``found``'s.
    Else None."""
    if lc.agree_within is None or found.score < max(lc.agree_min, _off_bar(found.corners, image, lc)):
        return None
    agreeing = [other for other in scans
                if other is not None and other.score >= max(lc.agree_min, _off_bar(other.corners, image, lc))
                and outline_agreement(found.corners, other.corners) <= lc.agree_within]
    if not agreeing:
        return None
    return max([found, *agreeing], key=lambda q: q.score)


def outline_agreement(corners: np.ndarray, outline: np.ndarray) -> float:
    """How far the fitted playing surface's ``corners`` lie from the ``outline`` quad's
    corners (both image px, any order and direction): the largest corner distance,
    for the best pairing, over the outline's longest side."""
    c, o = np.asarray(corners, float), np.asarray(outline, float)
    side = float(np.max(np.linalg.norm(o - np.roll(o, 1, axis=0), axis=1)))
    worst = min(float(np.max(np.linalg.norm(np.roll(cc, k, axis=0) - o, axis=1)))
                for cc in (c, c[::-1]) for k in range(4))
    return worst / max(side, 1e-9)


def _verified(image: np.ndarray, ranked: list[tuple[float, np.ndarray, str]], scale: float,
              cfg: VisionConfig, known: tuple[np.ndarray, Any] | None = None,
              scan: list[BoardQuad | None] | None = None,
              more: Callable[[], list[tuple[float, np.ndarray, str]]] | None = None) -> BoardQuad:
    """The candidate whose top-face pit lattice fits best (vision.board.fit_board).
    ``known``: a (work-scale quad, its fit with ``cfg``) already made; ``scan``:
    ``[the pit scan's result]`` when it has run; ``more``: the next outlines, ranked,
    fitted before giving up, when neither the finalists nor the pit scan fit (a
    table of bricks or tiles has sharper outlines and more ring-like corners than
    the board, and can push it out of the finalists)."""
    import dataclasses

    from vision.board import fit_top_face

    lc = cfg.locate
    # a quick fit (coarse lattice view, fewer passes) ranks the finalists; the best
    # is fitted again in full
    quick = cfg
    if (lc.verify_pitch_px, lc.verify_passes) != (cfg.grid.lattice_pitch_px, cfg.grid.lattice_passes):
        quick = dataclasses.replace(cfg, grid=dataclasses.replace(
            cfg.grid, lattice_pitch_px=lc.verify_pitch_px, lattice_passes=lc.verify_passes))
    best: tuple[float, np.ndarray, str, Any] | None = None
    others: list[tuple[float, np.ndarray, str, Any]] = []  # for the last chance
    for i, (_, q, name) in enumerate(ranked[: lc.verify_finalists]):
        if known is not None and quick is cfg and np.array_equal(known[0], q):
            fit = known[1]
        else:
            fit = fit_top_face(image, q / scale, cfg.rectify.default_aspect, quick)
        # the best-ranked quad needs a plausible lattice; another one must fit clearly
        # better than a table can (a wrong board is worse than none)
        need = cfg.grid.min_lattice_score if i == 0 else lc.verify_other_min
        off = _off_bar(fit.corners, image, lc)  # (a lattice running off the image: a clear one)
        if fit.grid.score >= max(need, off) and (best is None or fit.grid.score > best[0]):
            best = (fit.grid.score, q, name, fit)
        elif i > 0 and fit.grid.score >= max(lc.last_chance_min, off) and lc.last_chance_min > 0:
            others.append((fit.grid.score, q, name, fit))
        if best is not None and best[0] >= lc.verify_enough:
            break
    if lc.pit_scan and (best is None or best[0] < lc.verify_enough):
        # no outline holds a clear lattice: the pits alone may show one (better)
        scanned = _last_resort(image, cfg, scan)
        if scanned is not None and (best is None or scanned.score > best[0]):
            return scanned
    if more is not None and lc.more_finalists and (best is None or best[0] < lc.more_below):
        # nor the pits (or only weakly): the next outlines, each needing a clear fit,
        # better than the best so far
        bar = lc.verify_other_min if best is None else max(lc.verify_other_min, best[0] + 1e-6)
        for _, q, name in more():
            fit = fit_top_face(image, q / scale, cfg.rectify.default_aspect, quick)
            if fit.grid.score >= max(bar, _off_bar(fit.corners, image, lc)):
                best, bar = (fit.grid.score, q, name, fit), fit.grid.score
            if bar >= lc.verify_enough:
                break
    if best is None:
        # last chance: a weaker lattice that ends where its own outline does
        for cand in sorted(others, key=lambda c: -c[0]):
            if outline_agreement(cand[3].corners, cand[1] / scale) <= lc.last_chance_agree:
                best = cand
                break
    if best is None:
        raise BoardNotFound("no 4x8 pit lattice found on any board-shaped outline nor from the pits alone")
    score, q, name, fit = best
    if quick is not cfg:
        fit = fit_top_face(image, q / scale, cfg.rectify.default_aspect, cfg)
        score = fit.grid.score
    if score < cfg.grid.min_lattice_score:
        raise BoardNotFound(
            f"no 4x8 pit lattice found (best fit {score:.2f} < {cfg.grid.min_lattice_score:.2f})")
    if score < _off_bar(fit.corners, image, lc):
        raise BoardNotFound(f"no 4x8 pit lattice found (the best, {score:.2f}, runs off the image, "
                            "where a board needs a clear fit)")
    return BoardQuad(fit.corners, score, fit.aspect, name, fit)


def _off_bar(corners: np.ndarray, image: np.ndarray, lc: LocateConfig) -> float:
    """The fit a top face with these ``corners`` (image px) needs, whether found from an
    outline or from a pit scan's lattice: none more (0) when the playing surface lies in
    the image; when it runs off the image, ``pit_scan_cut_min`` (infinite when 0). A lattice laid
    on a chequered floor spans the whole image and more, scoring 0.5 (synth_397_0024);
    a board seen from close by, its edges out of the frame and its pits in, scores 1.06
    or more (seed 97)."""
    h, w = image.shape[:2]
    c = np.asarray(corners, np.float64)
    if np.all((c >= 0) & (c <= (w - 1, h - 1))):
        return 0.0
    return lc.pit_scan_cut_min or np.inf


def _pit_scanned(image: np.ndarray, cfg: VisionConfig, blobs: bool = False,
                 memo: dict[str, Any] | None = None, refit: bool = True) -> BoardQuad | None:
    """The best top-face fit started from the pits alone (:mod:`vision.pit_scan`;
    ``blobs``: dark-disc candidates instead of rims), when it scores at least
    ``LocateConfig.pit_scan_min_score``. ``refit`` False: no lattice's fit is fitted
    again (``pit_scan_refit``); ``memo``: a dict kept between calls on the same image
    and settings, holding the lattices and their first fits, so that a scan made first
    without refits costs little more once they are made."""
    from vision.board import fit_from_lattice, fit_top_face
    from vision.pit_scan import pit_lattices

    best = None
    memo = {} if memo is None else memo
    if "lattices" not in memo:
        memo["lattices"] = pit_lattices(image, cfg.locate, cfg.grid.gradient_log_offset, blobs=blobs)
    fits: dict[int, Any] = memo.setdefault("fits", {})
    for k, (_, hlat) in enumerate(memo["lattices"]):
        if k not in fits:
            fits[k] = fit_from_lattice(image, hlat, 0.0, cfg)
        fit = fits[k]
        clear = best is not None and 0 < cfg.locate.pit_scan_early <= best.grid.score
        if (refit and fit.grid.score < cfg.locate.pit_scan_refit_below and k < cfg.locate.pit_scan_refit
                and not clear):
            # near the pits but not settled on them: fitted again as an outline would be
            # (150-350 ms; not once an earlier lattice's fit is clear enough to end the search)
            again = fit_top_face(image, fit.corners, fit.aspect, cfg)
            if again.grid.score > fit.grid.score and (fit.grid.score < cfg.locate.pit_scan_min_score
                                                      or again.grid.score >= cfg.locate.pit_scan_refit_keep):
                fit = again
        if squash(fit.corners, fit.aspect) < cfg.locate.pit_scan_min_squash:
            continue  # no board seen from 45 degrees or higher: a lattice along the pits' diagonals
        # the whole playing surface in the image (a pattern running off the image
        # shows no end, so whether it is a board cannot be told), or, for a board
        # filling the frame, all its pits (a fit with a pit off the image scores 0)
        # and a clear lattice
        need = max(cfg.locate.pit_scan_min_score, _off_bar(fit.corners, image, cfg.locate))
        if fit.grid.score >= need and (best is None or fit.grid.score > best.grid.score):
            best = fit
            if 0 < cfg.locate.pit_scan_enough <= best.grid.score:
                break  # clear: the later lattices (weaker candidates) are not fitted
    if best is None:
        return None
    return BoardQuad(best.corners, best.grid.score, best.aspect, "pit_scan_blobs" if blobs else "pit_scan", best)


def _last_resort(image: np.ndarray, cfg: VisionConfig, scan: list[BoardQuad | None] | None) -> BoardQuad | None:
    """The rim scan's result (``scan``: ``[it]`` when it has run already, ``[it, the
    dark-disc scan's]`` when that has too), or when
    the rims made no lattice and ``pit_scan_blobs``, the dark-disc scan's (~300 ms:
    only once nothing else fits clearly)."""
    scanned = scan[0] if scan else _pit_scanned(image, cfg)
    if scanned is None and cfg.locate.pit_scan_blobs:
        if scan and len(scan) > 1:
            return scan[1]  # made already (``blobs_early``)
        return _pit_scanned(image, cfg, blobs=True)
    return scanned


def aruco_corners(image: np.ndarray, cfg: VisionConfig = DEFAULT) -> BoardQuad | None:
    """Board corners from four ArUco markers (dictionary ``LocateConfig.aruco_dict``,
    ids 0, 1, 2, 3 stuck at the playing surface's canonical TL, TR, BR, BL corners;
    each marker's centre is taken as the corner). None unless all four are seen."""
    aruco = getattr(cv2, "aruco", None)
    if aruco is None:
        return None
    dictionary = aruco.getPredefinedDictionary(getattr(aruco, cfg.locate.aruco_dict))
    detector = aruco.ArucoDetector(dictionary, aruco.DetectorParameters())
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    marks, ids, _ = detector.detectMarkers(grey)
    if ids is None:
        return None
    found = {int(i): m.reshape(4, 2).mean(axis=0) for m, i in zip(marks, ids.ravel(), strict=True)}
    if not all(k in found for k in range(4)):
        return None
    return BoardQuad(np.array([found[k] for k in range(4)], np.float64), float("nan"),
                     cfg.rectify.default_aspect, "aruco")


def given_corners(corners: np.ndarray | list, cfg: VisionConfig = DEFAULT) -> BoardQuad:
    """Wrap user-given canonical TL, TR, BR, BL corners (no search, no reordering)."""
    q = np.asarray(corners, np.float64)
    if q.shape != (4, 2) or not np.all(np.isfinite(q)):
        raise BoardNotFound(f"expected four [x, y] corners, got {np.asarray(corners).tolist()}")
    if not cv2.isContourConvex(q.astype(np.float32).reshape(-1, 1, 2)):
        raise BoardNotFound("the four given corners do not form a convex quadrilateral")
    return BoardQuad(q, float("nan"), cfg.rectify.default_aspect, "given")


def draw_quad(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    out = image.copy()
    pts = np.round(quad).astype(np.int32)
    cv2.polylines(out, [pts], True, (0, 255, 0), 2)
    for i, (x, y) in enumerate(pts):
        cv2.putText(out, str(i), (int(x) + 4, int(y) - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 255), 2)
    return out


def main(argv: list[str] | None = None) -> int:
    from vision.io import read_image

    ap = argparse.ArgumentParser(description="Locate the Bao board in an image.")
    ap.add_argument("image")
    ap.add_argument("--debug", metavar="OUT.png", help="write the image with the found quad")
    args = ap.parse_args(argv)
    img = read_image(args.image)
    quad = locate_board(img)
    print(f"corners {np.round(quad.corners, 1).tolist()} score {quad.score:.3f} via {quad.method}")
    if args.debug:
        cv2.imwrite(args.debug, draw_quad(img, quad.corners))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
