"""Free pit-lattice search on a canonical view, for boards of any proportions.

Boards differ: pitch, pit radius (30..45 % of the pitch), margins, a gap
between the two halves, and so the board's aspect. Nothing here assumes one
layout; it assumes only that pits are round, sit on 8 equally spaced columns
and 4 rows (rows 2|3 possibly further apart), and have a rim (a ring of
gradient).

1. A ring filter (radius from the view's width) turns the gradient magnitude
   into a pit-centre response.
2. Column centres: the 8-point comb (start, pitch) that maximises the
   response's column profile; rows likewise with a middle gap.
3. Pit radius and the pits' height/width ratio in this view (which gives the
   board's true aspect, since pits are round) by matching ring templates at
   the 32 lattice points.

All coordinates are canonical-view ``(x, y)`` px.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.config import DEFAULT, GridConfig

#: weight of the strongest response just outside a comb (see _comb)
OUTSIDE_WEIGHT = 0.5
#: penalty (x profile std) per squared pitch of a comb's middle off the board's middle
CENTRE_WEIGHT = 1.0


@dataclass
class Lattice:
    xs: np.ndarray  # (8,) column centres
    ys: np.ndarray  # (4,) row centres, top to bottom
    radius: float  # pit radius along x
    anisotropy: float  # pit height / width in this view (1 = view has the true aspect)
    score: float  # mean ring response at the lattice points / mean response

    @property
    def pitch_x(self) -> float:
        return float(np.mean(np.diff(self.xs)))

    def centres(self) -> np.ndarray:
        gx, gy = np.meshgrid(self.xs, self.ys)
        return np.stack([gx, gy], axis=-1)


def ring_kernel(rx: float, ry: float, width: float) -> np.ndarray:
    """Normalised elliptic ring (sum 1) of radii (rx, ry) and Gaussian width."""
    hx, hy = int(np.ceil(rx + 2 * width)), int(np.ceil(ry + 2 * width))
    yy, xx = np.mgrid[-hy : hy + 1, -hx : hx + 1].astype(np.float32)
    d = np.hypot(xx / max(rx, 1e-3), yy / max(ry, 1e-3)) * np.sqrt(rx * ry)
    ring = np.exp(-0.5 * ((d - np.sqrt(rx * ry)) / width) ** 2).astype(np.float32)
    return ring / ring.sum()


def _comb(profile: np.ndarray, n: int, pitches: np.ndarray, gaps: np.ndarray | None = None,
          starts: np.ndarray | None = None, centre: float | None = None) -> tuple[float, float, float, float]:
    """Best n-point comb on a 1-D profile: (start, pitch, gap, mean value at the points).

    With ``gaps``, points n/2.. are shifted by the gap (the middle of the board).
    Vectorised over gaps, pitches and starts (default: every whole px).
    Positions are linearly interpolated. With ``centre``, combs whose middle is
    off that point lose (boards are symmetric; a comb one pit off is penalised).
    """
    size = len(profile)
    prof = np.concatenate([profile.astype(np.float64), [-1e9, -1e9]])
    # the n points, then the two just outside the comb (a true lattice has no
    # (n+1)-th column): their response counts against the comb
    idx = np.concatenate([np.arange(n, dtype=np.float64), [-1.0, float(n)]])
    spread = float(np.std(profile))
    # every (gap, pitch) pair is one row: one vectorised pass over all of them
    gl = gaps if gaps is not None else np.zeros(1)
    pc = np.tile(pitches, len(gl))
    gc = np.repeat(gl, len(pitches))
    if starts is not None:
        st = np.broadcast_to(starts[None, :], (len(pc), len(starts)))
    elif centre is not None:  # only combs within 1.5 pitches of the middle
        reach = np.arange(-1.5 * pitches.max(), 1.5 * pitches.max() + 1, 1.0)
        st = (centre - pc * (n - 1) / 2 - gc / 2)[:, None] + reach[None, :]
    else:
        st = np.broadcast_to(np.arange(1.0, size - 1)[None, :], (len(pc), size - 2))
    shift = gc[:, None] * (idx >= n // 2)[None, :]
    pts = st[:, :, None] + (pc[:, None] * idx[None, :] + shift)[:, None, :]
    i0 = np.floor(pts).astype(np.int64)
    t = pts - i0
    bad = (i0 < 0) | (i0 >= size - 1)
    i0 = np.where(bad, size, i0)
    v = prof[i0] * (1 - t) + prof[np.minimum(i0 + 1, size + 1)] * t
    inside = np.where(bad[..., :n], -1e9, v[..., :n])
    outside = np.where(bad[..., n:], 0.0, v[..., n:])
    vals = inside.mean(axis=2) - OUTSIDE_WEIGHT * outside.max(axis=2)
    if centre is not None:
        mid = st + (pc * (n - 1) / 2 + gc / 2)[:, None]
        off = (mid - centre) / pc[:, None]
        vals = vals - CENTRE_WEIGHT * spread * off**2
    k = np.unravel_index(int(np.argmax(vals)), vals.shape)
    return float(st[k]), float(pc[k[0]]), float(gc[k[0]]), float(vals[k])


def _refine_comb(profile: np.ndarray, n: int, start: float, pitch: float, gap: float,
                 dp: float, dg: float, with_gap: bool, centre: float | None = None,
                 ) -> tuple[float, float, float, float]:
    """Sub-pixel polish of a comb found on a coarse grid."""
    pitches = pitch + np.linspace(-dp, dp, 9)
    gaps = None
    if with_gap:
        gaps = gap + np.linspace(-dg, dg, 5)
        gaps = gaps[gaps >= 0]
    starts = start + np.arange(-2.0, 2.01, 0.25)
    return _comb(profile, n, pitches, gaps, starts, centre)


def _ellipse_scores(blurred: np.ndarray, pts: np.ndarray, radii: np.ndarray, slack: int) -> np.ndarray:
    """For each (rx, ry) row of ``radii``: mean over points of the best mean edge
    strength on that ellipse around the point shifted by up to +/- slack px.
    One remap for all ellipses."""
    ang = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    ex = radii[:, 0, None] * np.cos(ang)[None, :]  # (E, A)
    ey = radii[:, 1, None] * np.sin(ang)[None, :]
    d = np.arange(-slack, slack + 1, dtype=np.float64)
    sx, sy = (v.ravel() for v in np.meshgrid(d, d))
    n, e, k, a = len(pts), len(radii), len(sx), len(ang)
    mx = pts[:, 0, None, None, None] + sx[None, None, :, None] + ex[None, :, None, :]
    my = pts[:, 1, None, None, None] + sy[None, None, :, None] + ey[None, :, None, :]
    vals = cv2.remap(blurred, mx.reshape(n, -1).astype(np.float32), my.reshape(n, -1).astype(np.float32),
                     cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    vals = vals.reshape(n, e, k, a).mean(axis=3).max(axis=2)  # (n, e)
    return vals.mean(axis=0)


def fit_lattice(mag: np.ndarray, cfg: GridConfig = DEFAULT.grid, board_width: float | None = None,
                quick: bool = False) -> Lattice:
    """Find the 4 x 8 pit lattice on a gradient-magnitude canonical view.

    ``board_width``: the located board's width in the view (default: the view's);
    ``quick``: skip the radius / anisotropy estimate (for scoring candidates).
    """
    h, w = mag.shape
    bw = float(board_width or w)
    # the search runs on a half-size copy when the view is large
    f = 0.5 if w > 300 else 1.0
    small = cv2.resize(mag, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1 else mag
    sh, sw = small.shape
    p_lo, p_hi = f * bw / cfg.cols_span_max, f * bw / cfg.cols_span_min
    p0 = 0.5 * (p_lo + p_hi)
    # pit-centre response: ring filter minus its local mean (so only ring-shaped
    # edge energy counts), for a few radii as the pits' size is unknown; the radius
    # whose column comb stands out most wins
    box = int(p0) | 1
    band_rows = slice(int(0.06 * sh), int(0.94 * sh))
    best = None
    radii = cfg.quick_radius_fracs if quick else cfg.search_radius_fracs
    pitches = np.linspace(p_lo, p_hi, 16 if quick else 28)
    for k in radii:
        ring = ring_kernel(k * p0, k * p0, max(1.0, cfg.ring_width_frac * p0 * 1.5))
        r = cv2.filter2D(small, -1, ring, borderType=cv2.BORDER_CONSTANT)
        hp = np.maximum(r - cv2.blur(r, (box, box)), 0)
        x0, px, _, v = _comb(hp[band_rows].mean(axis=0), cfg.cols, pitches, centre=sw / 2)
        v /= float(hp.mean()) + 1e-6
        if best is None or v > best[0]:
            best = (v, hp, x0, px)
    assert best is not None
    v, resp, x0, px = best
    # row profile sampled on the found columns (max within a few px of each)
    cols = np.clip(np.round(x0 + px * np.arange(cfg.cols)).astype(int), 0, sw - 1)
    half = max(1, int(0.05 * px))
    prof_y = np.mean([resp[:, max(c - half, 0) : c + half + 1].max(axis=1) for c in cols], axis=0)
    gstep = max(1.0, 0.1 * px)
    gaps = np.arange(0.0, cfg.gap_max * px + 0.5, gstep)
    y0, py, gap, _ = _comb(prof_y, cfg.rows, np.linspace(cfg.row_pitch_min * px, cfg.row_pitch_max * px, 24),
                           gaps, centre=sh / 2)
    y0, py, gap, _ = _refine_comb(prof_y, cfg.rows, y0, py, gap, 0.02 * px, gstep, True, centre=sh / 2)
    ys = y0 + py * np.arange(cfg.rows) + np.where(np.arange(cfg.rows) >= cfg.rows // 2, gap, 0.0)
    # and the columns again, sampled on the found rows
    rows = np.clip(np.round(ys).astype(int), 0, sh - 1)
    hy = max(1, int(0.05 * py))
    prof_x = np.mean([resp[max(r - hy, 0) : r + hy + 1].max(axis=0) for r in rows], axis=0)
    x0, px, _, _ = _refine_comb(prof_x, cfg.cols, x0, px, 0.0, 0.04 * px, 0.0, False, centre=sw / 2)
    # the board score: how strong the weaker pits of the lattice are (a textured
    # table can line up a comb along one axis, not 32 ring-shaped points)
    gx = np.clip(np.round(x0 + px * np.arange(cfg.cols)).astype(int), 0, sw - 1)
    gy = np.clip(np.round(ys).astype(int), 0, sh - 1)
    peak = cv2.dilate(resp, np.ones((3, 3), np.uint8))
    at = peak[np.ix_(gy, gx)].ravel()
    score = float(np.quantile(at, cfg.score_quantile) / (resp.mean() + 1e-6))
    xs = (x0 + px * np.arange(cfg.cols)) / f
    ys = ys / f
    px, py = px / f, py / f
    if quick:  # ranking candidate quads needs only the score
        return Lattice(xs, ys, cfg.pit_radius_frac * px, 1.0, score)
    pts = np.stack(np.meshgrid(xs, ys), -1).reshape(-1, 2)
    slack = max(1, int(0.03 * px))
    width = max(1.0, cfg.ring_width_frac * px)
    blurred = cv2.GaussianBlur(mag, (0, 0), width)
    # pits are round: their height/width in this view says how wrong the view's
    # aspect is. The row/column pitch ratio gives a first guess (boards have
    # nearly square cells); ellipse fits around that guess decide.
    prior = float(np.clip(py / px / cfg.cell_ratio, 1 / 1.6, 1.6))
    combos = np.array([(k * px, prior * m) for k in cfg.radius_fracs for m in cfg.anisotropy_steps])
    ellipses = np.stack([combos[:, 0], combos[:, 0] * combos[:, 1]], axis=1)
    scores = _ellipse_scores(blurred, pts, ellipses, slack)
    top = int(np.argmax(scores))
    best_a = float(combos[top, 1])
    # the rim is the outermost ring of edges (shading and seeds make inner ones):
    # the largest radius, at the best ratio, that scores nearly as well
    same_a = np.isclose(combos[:, 1], best_a)
    good = same_a & (scores >= cfg.rim_score_frac * scores[top])
    best_r = float(combos[good, 0].max())
    return Lattice(xs, ys, best_r, best_a, score)
