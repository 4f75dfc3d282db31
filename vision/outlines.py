"""Board-shaped outlines in a photo: the locate stage's candidates when the pits alone
do not show the board.

On a downscaled copy, several segmentations are made (:func:`outline_candidates`):
colour distance from the table (estimated on the image border), Otsu on grey in
both polarities, closed Canny edges, k-means colour clusters in Lab and the
density of pit-like rings. Their large outer contours become quads (hull polygon,
best 4 hull points, min-area rectangle); quads of implausible side ratio are
dropped, sides are refitted on the gradient (:func:`refine_sides`), and the quads
are ordered by outline contrast x pit-ring density inside.
:func:`rank_candidates` then ranks the strongest by the quick free lattice search
in each quad's rectified view (x the outline's strength). :mod:`vision.locate`
fits them in that order. Points are OpenCV ``(x, y)`` px of the downscaled copy
unless said otherwise.
"""

from __future__ import annotations

import itertools
import threading

import cv2
import numpy as np

from vision.config import DEFAULT, VisionConfig
from vision.grid import gradient_magnitude
from vision.lattice import fit_lattice, ring_kernel
from vision.rectify import canonical_size, homography, long_axis_first, order_clockwise


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
    return unkeyed(ranked_keyed(small, scored, cfg, stop, first, count))


def ranked_keyed(small: np.ndarray, scored: list[tuple[float, np.ndarray, str]], cfg: VisionConfig,
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


def unkeyed(ranked: list[tuple[float, float, np.ndarray, str]]) -> list[tuple[float, np.ndarray, str]]:
    return [(ls, lq, name) for _, ls, lq, name in sorted(ranked, key=lambda t: -t[0])]
