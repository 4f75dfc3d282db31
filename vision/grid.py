"""Stage 2b: the 4 x 8 pit grid on the canonical top view.

All points here are canonical-view ``(x, y)`` px; arrays of centres have shape
``(4, 8, 2)`` indexed ``[row, col]`` with rows top to bottom as in
:data:`vision.holes.CANONICAL_ROWS`.

The nominal grid (equal cells inside fixed margins) is only the start: every
pit centre is moved to the peak of a rim-template match (pit rims are rings
of strong gradient), a homography from lattice indices to those peaks is fitted
robustly (RANSAC) to absorb small corner errors, and each pit keeps its own
peak where it agrees with that fit.

Debug: ``python -m vision.grid IMG [--south SIDE] --debug OUT.png``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import cv2
import numpy as np

from vision.config import DEFAULT, GridConfig
from vision.errors import stage_main
from vision.holes import HOLE_CELL, NYUMBA
from vision.lattice import fit_lattice, ring_kernel


@dataclass
class PitGrid:
    centres: np.ndarray  # (4, 8, 2) canonical (x, y) px
    pitch: tuple[float, float]  # (x pitch, y pitch) canonical px
    rim: np.ndarray  # (4, 8) rim strength at each centre / median rim strength
    score: float  # lattice response at the pits / mean response (about 1 on no board)
    radius: tuple[float, float]  # pit radius (x, y) in this view, px
    anisotropy: float  # pit height / width in this view (true aspect = view aspect * this)
    inliers: int  # pits that agree with the lattice fit
    # radius (x, y) to cut the counter's crops with: the rim's outer edge (the radius of
    # most evidence often lies on the bowl's shading inside it); None: ``radius``
    crop_radius: tuple[float, float] | None = None
    # (4, 8) rim evidence at each pit (radial minus tangential gradient round the rim,
    # the median of 8 arcs) / the median pit's; about 0 where something covers the
    # pit; None when the fit did not measure it
    evidence: np.ndarray | None = None


def gradient_magnitude(image: np.ndarray) -> np.ndarray:
    """Float32 gradient magnitude of a BGR or grey image (contrast-normalised)."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    grey = cv2.GaussianBlur(grey, (3, 3), 0)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    mag = cv2.magnitude(gx, gy)
    return mag / (float(np.percentile(mag, 90)) + 1e-3)


def layout(size: tuple[int, int], cfg: GridConfig = DEFAULT.grid) -> tuple[np.ndarray, float, float]:
    """Nominal pit centres (4, 8, 2) and the (x, y) pitch for a canonical view of ``size``."""
    w, h = size
    mx, my, gap = cfg.margin_x_frac * w, cfg.margin_y_frac * h, cfg.middle_gap_frac * h
    px = (w - 2 * mx) / cfg.cols
    py = (h - 2 * my - gap) / cfg.rows
    xs = mx + (np.arange(cfg.cols) + 0.5) * px
    ys = my + (np.arange(cfg.rows) + 0.5) * py + np.where(np.arange(cfg.rows) >= cfg.rows // 2, gap, 0)
    gx, gy = np.meshgrid(xs, ys)
    return np.stack([gx, gy], axis=-1), float(px), float(py)


def nominal_centres(size: tuple[int, int], cfg: GridConfig = DEFAULT.grid) -> np.ndarray:
    """Nominal pit centres, (4, 8, 2) canonical px."""
    return layout(size, cfg)[0]


def _cell_masks(size: tuple[int, int], cfg: GridConfig) -> tuple[np.ndarray, np.ndarray]:
    """Masks (cell id or -1) of each pit's rim zone and of the wood between pits."""
    w, h = size
    centres, px, py = layout(size, cfg)
    pitch = min(px, py)
    r_lo = (cfg.pit_radius_frac - cfg.score_tolerance_frac) * pitch
    r_hi = (cfg.pit_radius_frac + cfg.score_tolerance_frac) * pitch
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xs, ys = centres[0, :, 0], centres[:, 0, 1]
    col = np.argmin(np.abs(xx[..., None] - xs), axis=-1)
    row = np.argmin(np.abs(yy[..., None] - ys), axis=-1)
    dx, dy = xx - xs[col], yy - ys[row]
    inside = (np.abs(dx) <= px / 2) & (np.abs(dy) <= py / 2)
    d = np.hypot(dx, dy)
    cell_id = np.where(inside, row * cfg.cols + col, -1)
    disc = inside & (d >= r_lo) & (d <= r_hi)  # the rim zone, with tolerance
    between = inside & (d > r_hi + 1)  # the wood in the cell corners
    return np.where(disc, cell_id, -1), np.where(between, cell_id, -1)


_MASK_CACHE: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


def grid_score(canonical: np.ndarray, cfg: GridConfig = DEFAULT.grid) -> float:
    """How well a 4 x 8 pit grid explains a canonical view, in -1..1.

    Per cell: (edge energy in a band around the expected pit rim - energy on
    the wood in the cell corners) / (sum); the band's width
    (``score_tolerance_frac``) makes the score tolerate corners a few px off.
    The score is a low quantile over the 32 cells, so a quad that covers only
    part of the board, or a table area, scores low.
    """
    h, w = canonical.shape[:2]
    key = (w, h, cfg)
    if key not in _MASK_CACHE:
        _MASK_CACHE[key] = _cell_masks((w, h), cfg)
    disc, between = _MASK_CACHE[key]
    mag = gradient_magnitude(canonical)
    n = cfg.rows * cfg.cols
    e_in = np.bincount(disc[disc >= 0], weights=mag[disc >= 0], minlength=n)
    c_in = np.bincount(disc[disc >= 0], minlength=n)
    e_out = np.bincount(between[between >= 0], weights=mag[between >= 0], minlength=n)
    c_out = np.bincount(between[between >= 0], minlength=n)
    a = e_in / np.maximum(c_in, 1)
    b = e_out / np.maximum(c_out, 1)
    per_cell = (a - b) / (a + b + 1e-6)
    return float(np.quantile(per_cell, 0.35))


def fit_grid(canonical: np.ndarray, cfg: GridConfig = DEFAULT.grid, board_width: float | None = None,
             inside: tuple[int, int, int, int] | None = None) -> PitGrid:
    """Fit the 4 x 8 pit centres on a canonical BGR view (see module docstring).

    ``board_width``: the located board's width in px when the view has a border;
    ``inside``: (x0, y0, x1, y1), the lattice search sees no edges outside it.
    """
    h, w = canonical.shape[:2]
    mag = gradient_magnitude(canonical)
    if inside is not None:
        x0, y0, x1, y1 = (max(v, 0) for v in inside)
        seen = np.zeros_like(mag)
        seen[y0:y1, x0:x1] = mag[y0:y1, x0:x1]
        mag = seen
    lat = fit_lattice(mag, cfg, board_width)
    nominal = lat.centres()
    px = lat.pitch_x
    py = float(np.mean(np.diff(lat.ys[:2])))
    rx, ry = lat.radius, lat.radius * lat.anisotropy
    pitch = min(px, py)
    kernel = ring_kernel(rx, ry, max(1.0, cfg.ring_width_frac * px))
    resp = cv2.filter2D(mag, -1, kernel, borderType=cv2.BORDER_CONSTANT)
    sx, sy = max(1, int(cfg.search_frac * px)), max(1, int(cfg.search_frac * py))
    peaks = np.zeros_like(nominal)
    for r in range(cfg.rows):
        for c in range(cfg.cols):
            x0, y0 = nominal[r, c]
            xa, xb = min(max(int(x0) - sx, 0), w - 1), min(max(int(x0) + sx + 1, 1), w)
            ya, yb = min(max(int(y0) - sy, 0), h - 1), min(max(int(y0) + sy + 1, 1), h)
            win = resp[ya:yb, xa:xb]
            iy, ix = np.unravel_index(int(np.argmax(win)), win.shape)
            peaks[r, c] = (xa + ix, ya + iy)
    src = nominal.reshape(-1, 1, 2).astype(np.float32)
    dst = peaks.reshape(-1, 1, 2).astype(np.float32)
    # an affine lattice fit: after rectification what is left of the perspective is
    # small, and a full homography would extrapolate the noise of a few peaks
    amat, inl = cv2.estimateAffine2D(src, dst, method=cv2.RANSAC,
                                     ransacReprojThreshold=cfg.inlier_frac * pitch)
    inliers = int(inl.sum()) if inl is not None else 0
    if amat is None or inliers < cfg.min_inliers or not cfg.affine_to_peaks:
        fitted = nominal
    else:
        fitted = cv2.transform(src, amat).reshape(nominal.shape)
    # each pit keeps its own peak where it agrees with the lattice fit (local refinement)
    close = np.linalg.norm(peaks - fitted, axis=-1) <= cfg.own_peak_frac * pitch
    centres = np.where(close[..., None], 0.5 * (peaks + fitted), fitted)
    rim = radial_coherence(canonical, centres, (rx, ry))
    rim = rim / (float(np.median(rim)) + 1e-6)
    pitch_xy = (float(np.median(np.diff(centres[..., 0], axis=1))),
                float(np.median(np.diff(centres[:, :, 1], axis=0)[[0, 2]])))
    return PitGrid(centres, pitch_xy, rim, lat.score, (rx, ry), lat.anisotropy, inliers)


def occluded_cells(grid: PitGrid, cfg: GridConfig = DEFAULT.grid) -> tuple[np.ndarray, np.ndarray]:
    """(occluded, faint), each (4, 8) bools. Occluded: pits whose rim something hides
    (a hand, a sleeve; a heap spilling over it too, which the decode tells apart by its
    count): the rim's radial coherence under ``occluded_rim_ratio`` x the median
    pit's, or its evidence under ``occluded_evidence`` x the median pit's with the
    coherence under ``occluded_evidence_rim`` (not for the two nyumba unless
    ``occluded_evidence_nyumba``: a square pit's rim is no circle). Faint: those occluded
    by the second test only (an empty pit whose rim is soft on one side can pass it)."""
    turned = grid.rim < cfg.occluded_rim_ratio
    faint = np.zeros_like(turned)
    if grid.evidence is not None and cfg.occluded_evidence > 0:
        faint = ((grid.evidence < cfg.occluded_evidence) & (grid.rim < cfg.occluded_evidence_rim)
                 & ~turned)
        if not cfg.occluded_evidence_nyumba and faint.shape == (4, 8):
            for name in NYUMBA:  # (the cells of a5 and A5 swap under a half turn: either way)
                faint[HOLE_CELL[name]] = False
    return turned | faint, faint


#: board-edge contrast (:func:`edge_breaks`), in units of the view's column pitch:
#: samples every 0.1 pitch along 0.8 pitch of edge beside each column, a band from
#: 0.02 to 0.14 pitch outside the edge and one as deep inside (at most 0.6 of the
#: margin between the edge and the rims, at least 2 px)
_EDGE_ALONG = np.linspace(-0.4, 0.4, 9)
_EDGE_STEPS = np.linspace(0.25, 1.0, 4)
_EDGE_BAND = 0.12
_EDGE_GAP = 0.02
#: an edge whose median contrast (L1 Lab, L 0..100) is under this shows no edge to break
_EDGE_MIN_CONTRAST = 2.0


def edge_breaks(image: np.ndarray, corners: np.ndarray, hmat: np.ndarray, grid: PitGrid) -> np.ndarray:
    """(2, 8): how much the board's two long edges (the top and bottom of the view) show
    beside each pit column: the colour contrast across the edge (L1 Lab distance between
    a band just inside and one just outside, the median of 9 samples along the column)
    over that edge's median column. About 1 where the edge shows; near 0 where something
    lies across it, as a player's arm reaching in from that side does (its own outline
    runs across the edge, not along it). NaN where a column's samples leave the image, or
    the whole edge shows less contrast than ``_EDGE_MIN_CONTRAST``.

    ``corners``: the playing surface's canonical TL, TR, BR, BL corners (image px);
    ``hmat``: image -> view homography of ``grid``."""
    vc = cv2.perspectiveTransform(np.asarray(corners, np.float32).reshape(-1, 1, 2),
                                  np.asarray(hmat, np.float64)).reshape(-1, 2).astype(np.float64)
    inv = np.linalg.inv(np.asarray(hmat, np.float64))
    h, w = image.shape[:2]
    centres = np.asarray(grid.centres, np.float64)
    pitch, ry = float(grid.pitch[0]), float(grid.radius[1])
    inner = centres[1:3].reshape(-1, 2).mean(axis=0)
    out = np.full((2, 8), np.nan)
    for side, (a, b, row) in enumerate(((vc[0], vc[1], 0), (vc[3], vc[2], 3))):
        length = float(np.linalg.norm(b - a))
        if length < 1e-6:
            continue
        u = (b - a) / length
        n = np.array([-u[1], u[0]])
        if float(np.dot(inner - a, n)) < 0:
            n = -n  # pointing into the board
        margin = abs(float(np.dot(centres[row].mean(axis=0) - a, n))) - ry
        depth = max(min(_EDGE_BAND * pitch, 0.6 * margin), 2.0)
        offs = np.concatenate([_EDGE_STEPS * depth + _EDGE_GAP * pitch,
                               -(_EDGE_STEPS * _EDGE_BAND * pitch + _EDGE_GAP * pitch)])
        t0 = (centres[row] - a) @ u  # (8,) each column's place along the edge
        base = a + (t0[:, None] + _EDGE_ALONG[None, :] * pitch)[..., None] * u  # (8, 9, 2)
        pts = base[:, :, None, :] + offs[None, None, :, None] * n  # (8, 9, 8, 2)
        ip = cv2.perspectiveTransform(pts.reshape(-1, 1, 2).astype(np.float32), inv).reshape(pts.shape)
        inside_image = ((ip[..., 0] >= 0) & (ip[..., 0] <= w - 1)
                        & (ip[..., 1] >= 0) & (ip[..., 1] <= h - 1)).all(axis=2)  # (8, 9)
        vals = cv2.remap(image, ip[..., 0].reshape(1, -1).astype(np.float32),
                         ip[..., 1].reshape(1, -1).astype(np.float32), cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)
        lab = cv2.cvtColor(vals.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab).reshape(*pts.shape[:3], 3)
        k = len(_EDGE_STEPS)
        diff = np.abs(lab[:, :, :k].mean(axis=2) - lab[:, :, k:].mean(axis=2)).sum(axis=-1)  # (8, 9)
        diff[~inside_image] = np.nan
        enough = inside_image.sum(axis=1) > len(_EDGE_ALONG) // 2
        if enough.any():
            out[side, enough] = np.nanmedian(diff[enough], axis=1)
    with np.errstate(invalid="ignore"):
        for side in range(2):
            if np.isnan(out[side]).all():
                continue
            med = float(np.nanmedian(out[side]))
            out[side] = out[side] / med if med >= _EDGE_MIN_CONTRAST else np.nan
    return out


def crossed_pits(breaks: np.ndarray, bar: float, reach: int = 1) -> np.ndarray:
    """(4, 8) bools: the pits beside which an arm may cross the board's edge: the long
    edge nearer the pit (rows 0-1: the top of the view, rows 2-3: the bottom) shows under
    ``bar`` of its usual contrast (:func:`edge_breaks`) at the pit's column or within
    ``reach`` columns of it (an arm comes in at a slant)."""
    broken = np.nan_to_num(np.asarray(breaks, np.float64), nan=np.inf) < bar  # (2, 8)
    near = np.zeros_like(broken)
    for d in range(-reach, reach + 1):
        lo, hi = max(d, 0), 8 + min(d, 0)
        near[:, lo - d:hi - d] |= broken[:, lo:hi]
    return np.vstack([near[0], near[0], near[1], near[1]])


def radial_coherence(view: np.ndarray, centres: np.ndarray, radius: tuple[float, float]) -> np.ndarray:
    """Per pit (rows, cols): share of the gradient energy around the rim that points
    radially. A visible pit rim is a circle of radial gradients (about 1); a hand,
    sleeve or anything lying over the pit crosses it at other angles."""
    grey = cv2.GaussianBlur(cv2.cvtColor(view, cv2.COLOR_BGR2GRAY), (3, 3), 0)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    ang = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    scales = np.array([0.8, 0.9, 1.0, 1.1])
    ca, sa = np.cos(ang), np.sin(ang)
    cx = centres[..., 0].reshape(-1, 1, 1)
    cy = centres[..., 1].reshape(-1, 1, 1)
    mx = (cx + radius[0] * scales[None, :, None] * ca[None, None, :]).reshape(len(cx), -1).astype(np.float32)
    my = (cy + radius[1] * scales[None, :, None] * sa[None, None, :]).reshape(len(cy), -1).astype(np.float32)
    sx = cv2.remap(gx, mx, my, cv2.INTER_LINEAR)
    sy = cv2.remap(gy, mx, my, cv2.INTER_LINEAR)
    cosr = np.tile(np.repeat(ca[None, :], len(scales), 0).ravel(), (len(cx), 1))
    sinr = np.tile(np.repeat(sa[None, :], len(scales), 0).ravel(), (len(cx), 1))
    radial = np.abs(sx * cosr + sy * sinr).sum(axis=1)
    total = np.hypot(sx, sy).sum(axis=1) + 1e-6
    return (radial / total).reshape(centres.shape[:2])


def draw_grid(canonical: np.ndarray, grid: PitGrid, cfg: GridConfig = DEFAULT.grid) -> np.ndarray:
    """Debug picture: centres and pit circles; occluded pits in red."""
    out = canonical.copy()
    rx, ry = (int(round(v)) for v in grid.radius)
    for (x, y), hidden in zip(grid.centres.reshape(-1, 2), occluded_cells(grid, cfg)[0].ravel(), strict=True):
        colour = (0, 0, 255) if hidden else (0, 255, 0)
        cv2.ellipse(out, (int(x), int(y)), (rx, ry), 0, 0, 360, colour, 1)
        cv2.drawMarker(out, (int(x), int(y)), colour, cv2.MARKER_CROSS, 8)
    return out


@stage_main
def main(argv: list[str] | None = None) -> int:
    from vision.io import read_image
    from vision.locate import locate_board
    from vision.rectify import orient_corners, rectify

    ap = argparse.ArgumentParser(description="Fit the pit grid on a board image.")
    ap.add_argument("image")
    ap.add_argument("--south", default="bottom")
    ap.add_argument("--debug", metavar="OUT.png", required=True)
    args = ap.parse_args(argv)
    img = read_image(args.image)
    quad = locate_board(img)
    canonical, _ = rectify(img, orient_corners(quad.corners, args.south), quad.aspect)
    grid = fit_grid(canonical)
    cv2.imwrite(args.debug, draw_grid(canonical, grid))
    print(f"grid score {grid.score:.3f}  pitch {grid.pitch[0]:.1f} x {grid.pitch[1]:.1f}  "
          f"radius {grid.radius[0]:.1f} x {grid.radius[1]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
