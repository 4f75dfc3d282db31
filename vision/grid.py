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
