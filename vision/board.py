"""Stage 2: the pit lattice on the board's top face, and the corners from it.

The located quad is only a start: at a 45 degree camera its outline may
include the board's side face, and a rectification by those corners shears the
grid. The pits, though, lie on the top face on a 4 x 8 lattice (equal column
pitch, equal row pitch, possibly a wider gap between rows 2 and 3), so a
homography from lattice indices to pit centres *is* the top face's
rectification, whatever the outline did:

1. a first lattice comes from the comb search of :func:`vision.grid.fit_grid`
   on the view rectified by the given corners;
2. the image is warped to the **lattice view** (pits exactly on a grid of
   ``lattice_pitch_px``), the pit radius and the pits' height/width ratio are
   measured there (:func:`vision.rims.rim_evidence`: rims are circles of radial gradient),
   each pit's rim is searched around its lattice point, and the lattice
   homography is refitted to those rims (RANSAC) with the middle gap that fits
   best, 3 passes; after the first, a comb one column or row off is moved back;
3. :attr:`PitGrid.score` says how sure: rim evidence at the lattice points minus
   that between them, over the view's mean gradient (or its inner part's, if
   lower: a busy floor around a board), x the share of inliers (about 0 for a
   lattice laid on a table);
4. the playing surface's corners are the innermost strong edges beyond the
   outer pits in that view (:func:`vision.surface.surface_edges`; on a wider view where the
   margins run past it).

Whether the lattice sits on the pits, line by line, is checked in
:mod:`vision.lattice_checks`.

``fit_board`` returns what the pipeline needs: corners (canonical TL, TR, BR,
BL, image px), the image -> view homography, the :class:`PitGrid` on that view
and the board's aspect. Points are OpenCV ``(x, y)``.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.config import DEFAULT, GridConfig, RectifyConfig, VisionConfig
from vision.grid import PitGrid, fit_grid, radial_coherence
from vision.lattice_checks import (
    bare_row,
    continues,
    covered_columns,
    end_covered,
    inner_void_row,
    line_evidence,
    outer_line_void,
    paired_ratios,
    row_covered,
    slip,
    slipped,
    unseen_sides,
    void_columns,
    void_side,
)
from vision.locate import dark_retry_copy, helper_pool
from vision.outlines import edge_magnitude, refine_sides
from vision.rectify import canonical_size, rectify, to_image
from vision.rims import gradients, measure_radius, refine_peaks, rim_centres, rim_evidence
from vision.surface import surface_edges, surface_outlines


def _lattice_rows(gap: float) -> np.ndarray:
    return np.arange(4) + np.where(np.arange(4) >= 2, gap, 0.0)


@functools.lru_cache(maxsize=128)
def _lattice_points(gap: float) -> np.ndarray:
    """(32, 2) lattice coords (col, row + gap past row 1), row-major; read-only, made once
    for each gap (the middle gap's search asks for the same 41 gaps again and again)."""
    pts = np.stack(np.meshgrid(np.arange(8.0), _lattice_rows(gap)), -1).reshape(-1, 2)
    pts.flags.writeable = False
    return pts


def _view_matrix(hlat: np.ndarray, cfg: GridConfig, gap: float) -> tuple[np.ndarray, tuple[int, int]]:
    """Image -> lattice view matrix and the view size (pits on a pitch-spaced grid)."""
    p, b = cfg.lattice_pitch_px, cfg.lattice_border
    a = np.array([[p, 0, b * p], [0, p, b * p], [0, 0, 1]])
    size = (int(round(p * (7 + 2 * b))), int(round(p * (3 + gap + 2 * b))))
    return a @ np.linalg.inv(hlat), size


def _lattice_view(image: np.ndarray, hlat: np.ndarray, cfg: GridConfig, gap: float) -> tuple[np.ndarray, np.ndarray]:
    """The lattice view of ``image`` (:func:`_view_matrix`, the image's border repeated
    past its edge) and its image -> view matrix."""
    m, size = _view_matrix(hlat, cfg, gap)
    return cv2.warpPerspective(image, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), m


def _normalised(pts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Points (..., N, 2) moved to their centroid and scaled to a mean distance of sqrt(2)
    from it (Hartley): (the points, the centroids (..., 2), the scales (...))."""
    c = pts.mean(axis=-2)
    s = np.sqrt(2.0) / np.maximum(np.linalg.norm(pts - c[..., None, :], axis=-1).mean(axis=-1), 1e-12)
    return (pts - c[..., None, :]) * s[..., None, None], c, s


def batched_homographies(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The least-squares homographies (G, 3, 3) taking each of ``src`` (G, N, 2) to ``dst``
    (N, 2), all at once: the normalised direct linear transform (the null vector of the
    stacked equations, from the 9 x 9 normal matrices), without ``cv2.findHomography``'s
    final refinement of the reprojection error. N >= 4."""
    g = len(src)
    ps, cs, ss = _normalised(np.asarray(src, np.float64))
    pd, cd, sd = _normalised(np.asarray(dst, np.float64))
    x, y = ps[..., 0], ps[..., 1]
    u, v = np.broadcast_to(pd[:, 0], x.shape), np.broadcast_to(pd[:, 1], x.shape)
    one, zero = np.ones_like(x), np.zeros_like(x)
    a = np.concatenate([np.stack([-x, -y, -one, zero, zero, zero, u * x, u * y, u], -1),
                        np.stack([zero, zero, zero, -x, -y, -one, v * x, v * y, v], -1)], axis=1)
    _w, vec = np.linalg.eigh(np.swapaxes(a, 1, 2) @ a)
    hn = vec[:, :, 0].reshape(g, 3, 3)  # (the eigenvector of the smallest eigenvalue)
    t_src = np.zeros((g, 3, 3))
    t_src[:, 0, 0] = t_src[:, 1, 1] = ss
    t_src[:, :2, 2] = -ss[:, None] * cs
    t_src[:, 2, 2] = 1.0
    t_dst_inv = np.array([[1.0 / sd, 0.0, cd[0]], [0.0, 1.0 / sd, cd[1]], [0.0, 0.0, 1.0]])
    return t_dst_inv @ hn @ t_src


def _gap_fit(dst: np.ndarray, keep: np.ndarray, steps: tuple[float, ...]) -> tuple[np.ndarray, float] | None:
    """The middle gap (of ``steps``) whose lattice fits the points ``dst`` (image px, of
    the lattice points ``keep``) best, and its homography; None if none fits.

    Every step's homography is fitted at once (:func:`batched_homographies`), then the
    step that fits best so and the two either side of it are fitted by
    ``cv2.findHomography`` (least squares refined on the reprojection error), and the
    best of those by mean reprojection error is taken (the fit error varies smoothly
    with the gap). Until the sixty-fifth session every third step was fitted by OpenCV,
    then the steps beside the best: 19 calls, about 1 ms a search more (2.6 against 1.6 ms
    on a loaded machine); over 1470 searches of 40 photos both chose the same step every time.

    With the kept points on fewer than four rows the gap is left open (two or three
    rows fit every gap alike: a homography's perspective takes up the gap) and float
    noise picks one: then every third step is fitted by OpenCV first, as before, so
    that the noise picks the same one (the hard renders' tests were made on that pick)."""
    dst = np.asarray(dst, np.float64).reshape(-1, 2)
    if len(dst) < 4 or not steps:
        return None
    src = np.stack([_lattice_points(s)[keep] for s in steps])
    cache: dict[int, tuple[float, np.ndarray | None]] = {}

    def err_cv(i: int) -> float:
        if i not in cache:
            sg = src[i].reshape(-1, 1, 2)
            h_g, _ = cv2.findHomography(sg, dst, 0)
            e = np.inf if h_g is None else float(np.mean(np.linalg.norm(
                cv2.perspectiveTransform(sg, h_g).reshape(-1, 2) - dst, axis=1)))
            cache[i] = (e, h_g)
        return cache[i][0]

    n = len(steps)
    if len(np.unique(np.flatnonzero(keep) // 8)) < 4:
        # every gap fits alike (to float noise): the steps searched as before the batched
        # fits, so that noise picks the same one
        coarse = list(range(0, n, 3)) + ([n - 1] if (n - 1) % 3 else [])
        first = min(coarse, key=lambda i: (err_cv(i), i))
    else:
        h = batched_homographies(src, dst)
        ph = np.concatenate([src, np.ones((*src.shape[:2], 1))], axis=-1) @ np.swapaxes(h, 1, 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            err = np.linalg.norm(ph[..., :2] / ph[..., 2:] - dst, axis=-1).mean(axis=-1)
        first = int(np.argmin(np.where(np.isfinite(err), err, np.inf)))
    best = min((i for i in range(first - 2, first + 3) if 0 <= i < n), key=lambda i: (err_cv(i), i))
    e, h_best = cache[best]
    if h_best is None or not np.isfinite(e):
        return None
    return h_best, float(steps[best])


def _best_gap(dst: np.ndarray, keep: np.ndarray, steps: tuple[float, ...], hlat: np.ndarray,
              gap: float) -> tuple[np.ndarray, float]:
    """:func:`_gap_fit` of the rim centres ``dst``; (``hlat``, ``gap``) if none fits."""
    return _gap_fit(dst, keep, steps) or (hlat, gap)


def _fit_gap(ys: np.ndarray) -> float:
    """Middle gap in row pitches from four row positions."""
    step = 0.5 * ((ys[1] - ys[0]) + (ys[3] - ys[2]))
    return float(np.clip((ys[2] - ys[1]) / max(step, 1e-6) - 1.0, 0.0, 0.8))


def _shifted(hlat: np.ndarray, shift: tuple[int, int]) -> np.ndarray:
    """The lattice homography ``hlat`` moved by (columns, rows) whole pitches."""
    return hlat @ np.array([[1.0, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1]])


def refine_lattice(image: np.ndarray, hlat: np.ndarray, gap: float, cfg: GridConfig = DEFAULT.grid,
                   ) -> tuple[np.ndarray, float, np.ndarray, tuple[float, float], int]:
    """Refit the lattice homography (lattice coords -> image px) to the pits' rims.

    Returns (hlat, gap, pit centres (4, 8, 2) in the final lattice view,
    radius (rx, ry) in that view, inliers).
    """
    p = cfg.lattice_pitch_px
    radius = (0.3 * p, 0.3 * p)
    inliers = 0
    centres = None
    for k in range(cfg.lattice_passes):
        view, m = _lattice_view(image, hlat, cfg, gap)
        gx, gy = gradients(view, cfg.gradient_log_offset)
        nominal = _lattice_points(gap) * p + cfg.lattice_border * p
        radius = measure_radius(gx, gy, nominal, cfg)
        if k == 1:  # the lattice is close now: is it one column or row off the pits?
            shift = slip(gx, gy, gap, radius, cfg)
            if shift != (0, 0):
                hlat = _shifted(hlat, shift)
                view, m = _lattice_view(image, hlat, cfg, gap)
                gx, gy = gradients(view, cfg.gradient_log_offset)
        reach = max(2, int(round((cfg.peak_search_frac if k <= 1 else 0.5 * cfg.peak_search_frac) * p)))
        peaks, _ = refine_peaks(gx, gy, nominal, radius, reach)
        src = _lattice_points(gap)
        dst = to_image(peaks, m)
        pitch_img = float(np.median(np.linalg.norm(np.diff(dst.reshape(4, 8, 2), axis=1), axis=-1)))
        h_new, inl = cv2.findHomography(src, dst, cv2.RANSAC, cfg.lattice_inlier_frac * pitch_img,
                                        maxIters=300, confidence=0.99)
        if h_new is None or inl is None or int(inl.sum()) < cfg.min_inliers:
            break
        inliers = int(inl.sum())
        hlat = h_new
        # the middle gap: the one whose lattice fits the inlier rims best
        keep = inl.ravel() > 0
        hlat, gap = _best_gap(dst[keep], keep, cfg.gap_steps, hlat, gap)
    view, m = _lattice_view(image, hlat, cfg, gap)
    gx, gy = gradients(view, cfg.gradient_log_offset)
    nominal = _lattice_points(gap) * p + cfg.lattice_border * p
    radius = measure_radius(gx, gy, nominal, cfg)
    peaks, _ = refine_peaks(gx, gy, nominal, radius, max(2, int(round(0.08 * p))))
    # each pit keeps its own rim centre where it agrees with the lattice
    close = np.linalg.norm(peaks - nominal, axis=1) <= cfg.own_peak_frac * p
    centres = np.where(close[:, None], 0.5 * (peaks + nominal), nominal).reshape(4, 8, 2)
    return hlat, gap, centres, radius, inliers


def snapped_to_lattice(centres: np.ndarray, cfg: GridConfig) -> np.ndarray:
    """Pit centres (4, 8, 2) taken to the perspective lattice fitted through all of them
    (:func:`_gap_fit`: one homography and middle gap, least squares, fitted again without
    the pits more than ``crop_snap_outlier`` pitch off the first fit), each pit keeping
    the part of its own offset from that lattice beyond ``crop_lattice_snap`` pitch.

    A pit's own rim centre (:func:`vision.rims.rim_centres`) wanders by a few per cent
    of the pitch with the seeds in it and the light on its rim; the lattice through all
    32 does not. A pit truly off the grid (a hand-carved board) keeps all but the
    first ``crop_lattice_snap`` pitch of its offset. ``crop_lattice_snap`` None: unchanged.
    """
    tau = cfg.crop_lattice_snap
    if tau is None:
        return centres
    pts = centres.reshape(-1, 2)

    def lattice(keep: np.ndarray) -> np.ndarray | None:
        fit = _gap_fit(pts[keep], keep, cfg.gap_steps)
        if fit is None:
            return None
        h, gap = fit
        return cv2.perspectiveTransform(_lattice_points(gap).reshape(-1, 1, 2), h).reshape(-1, 2)

    fitted = lattice(np.ones(len(pts), bool))
    if fitted is None:
        return centres
    far = np.linalg.norm(pts - fitted, axis=1) > cfg.crop_snap_outlier * cfg.lattice_pitch_px
    if 0 < far.sum() <= 8:  # (more: no lattice to speak of, the first fit stands)
        fitted = lattice(~far)
        if fitted is None:
            return centres
    off = pts - fitted
    size = np.linalg.norm(off, axis=1, keepdims=True)
    kept = np.maximum(size - tau * cfg.lattice_pitch_px, 0.0) / np.maximum(size, 1e-9)
    return (fitted + off * kept).reshape(centres.shape)


def _plausible(hlat: np.ndarray, gap: float, cfg: GridConfig) -> bool:
    """Whether the lattice's pitch in the image varies no more than a camera at
    45 degrees or more can make it (a degenerate fit folds rows onto one line)."""
    pts = cv2.perspectiveTransform(_lattice_points(gap).reshape(-1, 1, 2), hlat).reshape(4, 8, 2)
    dx = np.linalg.norm(np.diff(pts, axis=1), axis=-1).ravel()
    dy = np.linalg.norm(np.diff(pts, axis=0), axis=-1) / np.array([1.0, 1.0 + gap, 1.0])[:, None]
    steps = np.concatenate([dx, dy.ravel()])
    return bool(steps.min() > 0 and steps.max() / steps.min() <= cfg.max_pitch_ratio)


def lattice_from_centres(centres: np.ndarray, hmat: np.ndarray) -> tuple[np.ndarray, float]:
    """Lattice homography (lattice coords -> image px) and middle gap from pit
    centres (4, 8, 2) on a view with image -> view matrix ``hmat``."""
    ys = centres[..., 1].mean(axis=1)
    gap = _fit_gap(ys)
    dst = to_image(centres.reshape(-1, 2), hmat)
    h, _ = cv2.findHomography(_lattice_points(gap), dst, 0)
    return h, gap


@dataclass
class TopFace:
    """A fitted board: what :func:`fit_board` returns, kept by the locate stage."""

    corners: np.ndarray  # canonical TL, TR, BR, BL, image px
    hmat: np.ndarray  # image -> lattice view
    grid: PitGrid  # on the lattice view
    aspect: float  # playing surface width / height
    # (corners, aspect) of the outline with the ends searched past the rims' outer step
    # (GridConfig.edge_rim_peak_reach) and the long sides held to where the wood ends
    # (edge_wood_ratio) where that finds other edges; the search itself goes on
    # from ``corners`` (its refits and checks were tuned on them), and the board it settles
    # on is reported with these (:meth:`outlined`)
    outline: tuple[np.ndarray, float] | None = None
    # the fit stopped after the comb search, its lattice scoring under the ``comb_min``
    # given to :func:`fit_top_face` (the grid is the comb's, scoring 0)
    comb_only: bool = False

    def outlined(self) -> TopFace:
        """This fit with its :attr:`outline` as its corners (itself when it has none)."""
        if self.outline is None:
            return self
        return TopFace(self.outline[0], self.hmat, self.grid, self.outline[1])

    def turned(self, cfg: GridConfig = DEFAULT.grid) -> TopFace:
        """The same fit with the board's ends swapped (South on the other long side)."""
        g = self.grid
        p, b = cfg.lattice_pitch_px, cfg.lattice_border
        gap = float(g.centres[2, 0, 1] - g.centres[1, 0, 1]) / p - 1.0
        wv, hv = p * (7 + 2 * b), p * (3 + gap + 2 * b)
        rot = np.array([[-1.0, 0, wv], [0, -1.0, hv], [0, 0, 1]])
        centres = np.array([wv, hv]) - g.centres[::-1, ::-1]
        grid = PitGrid(centres, g.pitch, g.rim[::-1, ::-1].copy(), g.score, g.radius, g.anisotropy, g.inliers,
                       g.crop_radius, None if g.evidence is None else g.evidence[::-1, ::-1].copy())
        outline = None if self.outline is None else (np.roll(self.outline[0], 2, axis=0), self.outline[1])
        return TopFace(np.roll(self.corners, 2, axis=0), rot @ self.hmat, grid, self.aspect, outline)


def lattice_from_points(points: np.ndarray, cfg: GridConfig = DEFAULT.grid) -> tuple[np.ndarray, float]:
    """Lattice homography (lattice coords -> image px) and middle gap (of
    ``cfg.gap_steps``) that best fit 32 pit centres in image px, row-major over the
    lattice (:data:`vision.holes.HOLES` order); :func:`_gap_fit` over all 32."""
    pts = np.asarray(points, np.float64).reshape(32, 2)
    fit = _gap_fit(pts, np.ones(32, bool), cfg.gap_steps)
    if fit is None:
        raise ValueError("pit centres fit no lattice (all on a line?)")
    return fit


def fit_board(
    image: np.ndarray, corners: np.ndarray, aspect: float, cfg: VisionConfig = DEFAULT,
    lap: Callable[[str], None] | None = None, prior: TopFace | None = None,
    pits: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, PitGrid, float]:
    """Pit lattice and playing-surface corners from rough corners (see module docstring).

    Returns the corners (canonical TL, TR, BR, BL, image px), the image -> view
    homography, the grid on that view, and the board's aspect (width / height).
    ``prior``: a fit of these corners already made (by the locate stage), reused
    as it is or turned by half a turn when ``corners`` name the other South side.
    ``pits``: the 32 pit centres (image px, :data:`vision.holes.HOLES` order) a
    calibration found with these corners. The fit starts from their lattice (one
    lattice refit, ~40 ms, where the camera has not moved) and from the corners (a
    comb search, restarted at other aspects when weak: 100-500 ms; neither from the
    lattices of typical boards in the corners, ``GridConfig.calibrated_margin_starts``,
    nor respaced to other row pitches, ``calibrated_respace``) only when that fit
    scores under ``GridConfig.restart_below``, and the better-scoring of the two is
    kept (seeds in many pits weaken a fixed camera's rims). A fit searched from the corners
    (given, not the locate stage's) is kept within them (:func:`_within_corners`), and
    is searched again on a brightened copy of a dark photo when it finds no board
    (``LocateConfig.dark_retry_gamma``, as the locate stage does).
    """
    corners = np.asarray(corners, np.float64)
    if prior is not None:
        for fit in (prior, prior.turned(cfg.grid)):
            if np.allclose(fit.corners, corners):
                if lap is not None:  # done by the locate stage: nothing more to time
                    lap("rectify")
                    lap("grid")
                return fit.corners, fit.hmat, fit.grid, fit.aspect
    calibrated: TopFace | None = None  # the fit from the calibration's pits, when weak
    if pits is not None and cfg.grid.start_from_calibrated_pits:
        try:
            hlat, gap = lattice_from_points(pits, cfg.grid)
        except ValueError:  # (a profile's centres on one line or point: the corners alone)
            hlat = None
        if hlat is not None:
            calibrated = fit_from_lattice(image, hlat, gap, cfg, lap)
            if calibrated.grid.score >= cfg.grid.restart_below:
                return calibrated.corners, calibrated.hmat, calibrated.grid, calibrated.aspect

    # with a calibration's lattice at hand, the lattices of typical boards in the corners
    # are not started from (GridConfig.calibrated_margin_starts), nor lattices respaced
    # from one with an inner row void (calibrated_respace)
    margins = None if calibrated is None or cfg.grid.calibrated_margin_starts else ()
    search = cfg
    if calibrated is not None and not cfg.grid.calibrated_respace:
        search = replace(cfg, grid=replace(cfg.grid, inner_row_void=None))

    def from_corners(view: np.ndarray) -> TopFace:
        return _within_corners(view, corners, aspect, search, lap,
                               fit_top_face(view, corners, aspect, search, lap), margins)

    fit = from_corners(image)
    if fit.grid.score < cfg.grid.min_lattice_score:
        # as the locate stage does: a near-black board in dim light shows its rims on a
        # brightened copy (the fit's geometry is the photo's own)
        lifted = dark_retry_copy(image, cfg.locate)
        if lifted is not None:
            again = from_corners(lifted)
            if again.grid.score > fit.grid.score:
                fit = again
    if calibrated is not None and calibrated.grid.score > fit.grid.score:
        # the camera has not moved (its pits still score better than any fit from the
        # corners), but seeds in many pits weaken their rims: the calibration's pits stay
        fit = calibrated
    return fit.corners, fit.hmat, fit.grid, fit.aspect


def given_offset(fit: TopFace, corners: np.ndarray, margins: Sequence[float]) -> float:
    """How far the fit's pits lie from where a board whose playing surface has these
    corners has them: the median over the 32 pits of the distance, in pitches, from the
    lattice of a board with no middle gap and each of ``margins`` (pitches from the
    surface's edges to the outer pit centres), the least over the margins. About 0.2 for
    a fit in place (at most 0.35 over 622 renders); a lattice a row off, or running off
    the board, lies 0.6 or more away."""
    pts = to_image(fit.grid.centres.reshape(-1, 2), fit.hmat).reshape(-1, 1, 2).astype(np.float64)
    cells = _lattice_points(0.0)  # (col, row) of each pit, row-major as the fit's centres
    best = np.inf
    for m in margins:
        lat = cv2.perspectiveTransform(pts, np.linalg.inv(nominal_lattice(corners, m))).reshape(-1, 2)
        best = min(best, float(np.median(np.hypot(*(lat - cells).T))))
    return best


def _within_corners(image: np.ndarray, corners: np.ndarray, aspect: float, cfg: VisionConfig,
                    lap: Callable[[str], None] | None, fit: TopFace,
                    margins: Sequence[float] | None = None) -> TopFace:
    """``fit`` of corners that were given (not found by the locate stage), or a better fit
    within them. Other fits are made when ``fit``'s pits lie outside where the corners put
    them (``GridConfig.given_offset_max``) or when it scores under ``restart_below``: from
    the comb that sees nothing outside the corners, and from the lattice of a board with
    each of ``margins`` (None: ``given_margins``). The comb and the lattice refit's checks weigh edges beyond
    the corners (a side face's foot, the table's pattern) that a person giving the
    corners has already ruled out, and a board's margins differ from the typical one.

    The best-scoring of those that lie within the corners is taken when it scores above
    ``fit``; in place of a ``fit`` outside them, only when it finds a board
    (``min_lattice_score``) and scores at least ``given_min_share`` of ``fit``'s score: a
    profile's corners go stale when the camera or the board moves, and the board is then
    found outside them."""
    gc = cfg.grid
    if gc.given_offset_max is None:
        return fit
    far = given_offset(fit, corners, gc.given_margins) > gc.given_offset_max
    if not far and fit.grid.score >= gc.restart_below:
        return fit
    outside = gc.masked_restart_frac if gc.masked_restart_frac is not None else 0.0
    starts = [_fit_once(image, corners, aspect, cfg, lap, outside=outside)]
    starts += [fit_from_lattice(image, nominal_lattice(corners, m), 0.0, cfg, lap)
               for m in (gc.given_margins if margins is None else margins)]
    inside = [f for f in starts if given_offset(f, corners, gc.given_margins) <= gc.given_offset_max]
    best = max(inside, key=lambda f: f.grid.score, default=None)
    if best is None:
        return fit
    if far:
        return best if best.grid.score >= max(gc.min_lattice_score, gc.given_min_share * fit.grid.score) else fit
    return best if best.grid.score > fit.grid.score else fit


def fit_top_face(image: np.ndarray, corners: np.ndarray, aspect: float, cfg: VisionConfig = DEFAULT,
                 lap: Callable[[str], None] | None = None, restart: bool = True,
                 first: TopFace | None = None, nominal: bool = True, comb_min: float = 0.0,
                 comb_ends: bool = False) -> TopFace:
    """:func:`fit_board`'s work, as a :class:`TopFace`.

    The comb search that starts the fit may land one column or row off (dark pits,
    steep views); when the fit is not clearly good (score below
    ``GridConfig.restart_below``) it is started again with the view stretched
    by each of ``restart_aspects`` and the best-scoring fit is kept (``restart``).
    ``first``: the first fit of these corners, already made (with ``restart=False,
    nominal=False``). A first fit scoring below ``GridConfig.nominal_start_below``
    is also tried (``nominal``) from the lattice that a board of typical margins
    would have in these corners (:func:`nominal_lattice`), and the better kept:
    the comb can miss pits that are plainly where a board has them. ``comb_min``:
    the first fit ends at once, scoring 0, when the comb lattice scores under it; with
    ``comb_ends``, so does the whole fit (no nominal start, no restarts).
    """
    fit = first if first is not None else _fit_once(image, corners, aspect, cfg, lap, comb_min)
    if comb_ends and fit.comb_only:
        return fit
    if nominal and fit.grid.score < cfg.grid.nominal_start_below:
        again = fit_from_lattice(image, nominal_lattice(corners, cfg.grid.nominal_margin),
                                 0.0, cfg, lap)
        if again.grid.score > fit.grid.score:
            fit = again
    if restart:
        for k in cfg.grid.restart_aspects:
            if fit.grid.score >= cfg.grid.restart_below:
                break
            again = _fit_once(image, corners, aspect * k, cfg, lap)
            if again.grid.score > fit.grid.score:
                fit = again
        if fit.grid.score < cfg.grid.restart_below and cfg.grid.masked_restart_frac is not None:
            again = _fit_once(image, corners, aspect, cfg, lap, outside=cfg.grid.masked_restart_frac)
            if again.grid.score > fit.grid.score:
                fit = again
    return fit


def nominal_lattice(corners: np.ndarray, margin: float) -> np.ndarray:
    """Lattice homography (lattice coords -> image px) of a board whose playing
    surface has these corners (canonical TL, TR, BR, BL, side 0 -> 1 along the 8
    columns), no middle gap and margins of ``margin`` pitches from the surface's
    edges to the outer pits' centres."""
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    hq = cv2.getPerspectiveTransform(unit, np.asarray(corners, np.float32)).astype(np.float64)
    sx, sy = 1.0 / (2 * margin + 7), 1.0 / (2 * margin + 3)
    return hq @ np.array([[sx, 0, margin * sx], [0, sy, margin * sy], [0, 0, 1]])


def _fit_once(image: np.ndarray, corners: np.ndarray, aspect: float, cfg: VisionConfig,
              lap: Callable[[str], None] | None, comb_min: float = 0.0,
              outside: float | None = None) -> TopFace:
    """The fit from the comb lattice in the view rectified by ``corners``; a comb
    scoring under ``comb_min`` is not refined: a failed fit (score 0, on the
    rectified view), ~20 ms sooner. ``outside``: the comb sees no edges further
    than this share of the board's width outside the corners."""
    tick = lap or (lambda stage: None)
    gc, rc = cfg.grid, cfg.rectify
    corners = np.asarray(corners, np.float64)
    w, h = canonical_size(aspect, rc)
    pad = int(round(rc.pad_frac * w))
    view, hmat = rectify(image, corners, aspect, rc, width=w, pad=pad)
    tick("rectify")
    # the comb lattice, moved onto the pits' ring peaks, is only a start (the lattice
    # view refit moves each pit by up to a quarter pitch); whether it found a board is
    # decided by the final score
    inside = None
    if outside is not None:
        m = int(round(outside * w))
        inside = (pad - m, pad - m, pad + w + m, pad + h + m)
    grid0 = fit_grid(view, gc, board_width=w, inside=inside)
    if grid0.score < comb_min:
        return TopFace(corners, hmat, replace(grid0, score=0.0), aspect, comb_only=True)
    hlat, gap = lattice_from_centres(grid0.centres, hmat)
    return fit_from_lattice(image, hlat, gap, cfg, lap)


_IN_POOL = threading.local()


def _fitted(calls: Sequence[Callable[[], TopFace]], cfg: GridConfig) -> list[TopFace]:
    """Each of ``calls`` made, their fits in the same order: on the locate stage's helper
    threads (:func:`vision.locate.helper_pool`) when ``GridConfig.refit_threads`` and
    OpenCV's own thread count (``cv2.getNumThreads``: one where one core's time is
    measured) are both above one; in turn when either is one, or from inside such a
    thread already (a doubled lattice's fits within one of the respaced rows'). The fits
    are the same either way."""
    if min(cfg.refit_threads, cv2.getNumThreads()) <= 1 or len(calls) < 2 or getattr(_IN_POOL, "on", False):
        return [call() for call in calls]

    def run(call: Callable[[], TopFace]) -> TopFace:
        _IN_POOL.on = True
        try:
            return call()
        finally:
            _IN_POOL.on = False

    return list(helper_pool().map(run, calls))


def _doubled(image: np.ndarray, hlat: np.ndarray, gap: float, cfg: VisionConfig, rows: bool) -> TopFace:
    """The best fit started from a lattice of twice the row pitch (``rows``) or column
    pitch, its lines through the middles of ``hlat``'s line pairs (rows 0-1 and 2-3,
    or columns 0-1, 2-3, 4-5 and 6-7) and on beyond them to either side: which of
    the board's lines the middle of the first pair is, is not known. (The fits are
    made by :func:`_fitted`, and their time goes to the caller's next lap.)"""
    if rows:
        pitch = 2.0 + gap  # from the middle of rows 0-1 to the middle of rows 2-3
        starts = [np.array([[1.0, 0, 0], [0, pitch, 0.5 + pitch * first], [0, 0, 1]]) for first in (-2, -1, 0)]
        gap = 0.0  # the middle gap lies inside the new pitch
    else:
        starts = [np.array([[2.0, 0, 0.5 + 2.0 * first], [0, 1.0, 0], [0, 0, 1]]) for first in (-4, -3, -2, -1, 0)]
    fits = _fitted([functools.partial(fit_from_lattice, image, hlat @ start, gap, cfg, check_pairs=False)
                    for start in starts], cfg.grid)
    return max(fits, key=lambda fit: fit.grid.score)


def _respaced_rows(image: np.ndarray, hlat: np.ndarray, cfg: VisionConfig) -> TopFace:
    """The best fit started from lattices of ``inner_row_void_pitch`` x ``hlat``'s row
    pitch (each factor), their first row at each of ``inner_row_void_starts`` (in
    ``hlat``'s rows), with each of ``inner_row_void_gaps``: where the board's rows lie
    against the wrong lattice is not known, and the lattice refit only settles from a
    start within about a quarter pitch. (As in :func:`_doubled`, on :func:`_fitted`.)"""
    gc = cfg.grid
    fits = _fitted([functools.partial(fit_from_lattice, image, hlat @ np.array([[1.0, 0, 0], [0, k, first], [0, 0, 1]]),
                                      gap, cfg, respace=False)
                    for k in gc.inner_row_void_pitch for first in gc.inner_row_void_starts
                    for gap in gc.inner_row_void_gaps], gc)
    return max(fits, key=lambda fit: fit.grid.score)


def _halves_apart(image: np.ndarray, hlat: np.ndarray, gap: float, void_row: int, cfg: VisionConfig,
                  lap: Callable[[str], None] | None) -> TopFace | None:
    """The best fit started from ``hlat``'s row pitch with its inner row ``void_row``
    (1 or 2) taken into the middle gap, ``gap`` plus each of ``halves_apart_gaps`` (row
    pitches): the lattice's rows on either side of the void stay where they are, and a
    fourth row is looked for beyond the far one. None when no gap is given."""
    start = _shifted(hlat, (0, 0 if void_row == 2 else -1))  # its rows 0 and 1 lie before the void
    fits = [fit_from_lattice(image, start, gap + extra, cfg, lap, respace=False)
            for extra in cfg.grid.halves_apart_gaps]
    return max(fits, key=lambda fit: fit.grid.score) if fits else None


def fit_from_lattice(image: np.ndarray, hlat: np.ndarray, gap: float, cfg: VisionConfig = DEFAULT,
                     lap: Callable[[str], None] | None = None, check_pairs: bool = True,
                     respace: bool = True, second_look: bool = True) -> TopFace:
    """The top-face fit from a first lattice (``hlat``: lattice coords (col, row +
    gap past row 1) -> image px): lattice refits, score, playing-surface corners.
    A lattice with two rows on each pit (:func:`paired_ratios` above
    ``GridConfig.paired_rows_max``) is fitted again from twice the row pitch
    (``check_pairs``), and one with two columns on each pit (above
    ``paired_columns_max``) from twice the column pitch; it scores 0 itself. A
    lattice with an inner row void of pits (:func:`inner_void_row`) is fitted again
    from 4/3 and 3/2 of the row pitch, and the best of those fits kept when it scores
    ``inner_row_void_gain`` times as much and ``inner_row_void_min`` or more
    (``check_pairs`` and ``respace``; those fits are checked for pairs, not respaced);
    failing that, from its own row pitch with the void row as part of the middle gap
    (:func:`_halves_apart`), kept when it scores ``halves_apart_gain`` times as much
    (``halves_apart_bare_gain`` times when the void row looks like bare wood,
    :func:`bare_row`).
    A lattice whose outer line is weak while the line beyond the other side shows
    pits, but not by ``edge_beyond_ratio`` (by ``edge_doubt_ratio``), is fitted again
    shifted one pitch that way, and the better-scoring fit kept (``second_look``):
    a thick board's front face, seen from low, has grain that lifts a line on it
    (synth_317_0019)."""
    tick = lap or (lambda stage: None)
    gc, rc = cfg.grid, cfg.rectify
    for attempt in range(gc.reslips + 1):
        hlat, gap, centres, radius, inliers = refine_lattice(image, hlat, gap, gc)
        lview, m = _lattice_view(image, hlat, gc, gap)
        gx, gy = gradients(lview, gc.gradient_log_offset)
        # (a floor: on a flat, noiseless surface any speck would count as strong)
        mag = cv2.magnitude(gx, gy)
        norm = float(mag.mean())
        if gc.score_norm_margin is not None:
            # a busy floor (bricks, tiles) beside the board lifts the view's mean gradient and
            # so lowers a soft-rimmed board's score: the board's own area, if it is calmer
            k = max(int(round((gc.lattice_border - gc.score_norm_margin) * gc.lattice_pitch_px)), 0)
            inside = mag[k : mag.shape[0] - k, k : mag.shape[1] - k]
            if inside.size:
                norm = min(norm, float(inside.mean()))
        norm = max(norm, gc.min_mean_gradient)
        table = line_evidence(gx, gy, gap, radius, gc) / norm
        shift = slipped(table, gc)
        if shift == (0, 0) or attempt == gc.reslips:
            break
        hlat = _shifted(hlat, shift)
    tick("grid")
    p = gc.lattice_pitch_px
    rim = radial_coherence(lview, centres, radius)
    rim = rim / (float(np.median(rim)) + 1e-6)
    # how sure: the pits' rim evidence (median, over ``norm`` above) x the
    # share of pits agreeing with the lattice; about 0 for a lattice on a table
    # at the lattice points themselves (a search for each pit's best spot would find
    # some evidence in noise too), against the same circles between the pits
    nominal = _lattice_points(gap) * p + gc.lattice_border * p
    mids = nominal.reshape(4, 8, 2)
    between = (0.25 * (mids[:-1, :-1] + mids[1:, :-1] + mids[:-1, 1:] + mids[1:, 1:])).reshape(-1, 2)
    # (median over 8 arcs: a straight edge tangent to a row of circles is no row of pits)
    ev = rim_evidence(gx, gy, np.concatenate([nominal, between]), np.array([radius]),
                      sectors=8)[:, 0] / norm
    # every row but one must show pits (a lattice half on an edge or a line is no board)
    level = min(float(np.median(ev[:32])), float(np.sort(np.median(ev[:32].reshape(4, 8), axis=1))[1]))
    score = (level - max(float(np.median(ev[32:])), 0.0)) * inliers / 32
    if not _plausible(hlat, gap, gc):
        score = 0.0  # a lattice folded onto an edge or a line is no board
    if gc.unsettled_void and shift != (0, 0):
        score = 0.0  # still one pitch off the pits after the last refit (GridConfig.reslips)
    if gap > gc.wide_gap_from + 1e-9 and score < gc.wide_gap_min_score:
        score = 0.0  # a middle gap wider than the usual boards' needs a clear fit (a floor's bricks)
    if continues(table, gc, unseen_sides(m, gap, image.shape, gc)):
        score = 0.0  # tiles or a pattern going on beyond the lattice: no board
    void = void_columns(table, gc)
    if (outer_line_void(table, gc) and not end_covered(table, void, lview, gx, nominal, between, gc)
            and not row_covered(table, lview, nominal, between, gc)):
        score = 0.0  # a lattice line on the margin: one pitch off, or astride a hand
    if len(void) >= 2 and not covered_columns(lview, nominal, between, p, void, gc, ends=gc.covered_ends):
        score = 0.0  # whole columns between the pits: the wrong column pitch
    in_image = to_image(centres.reshape(-1, 2), m)
    if not np.all((in_image >= 0) & (in_image <= (image.shape[1] - 1, image.shape[0] - 1))):
        score = 0.0  # pits outside the image cannot be read (and a pattern running off it has no end)
    if check_pairs and score > 0:
        pair_rows, pair_cols = paired_ratios(gx, gy, nominal, gc)
        for paired, limit, rows in ((pair_rows, gc.paired_rows_max, True),
                                    (pair_cols, gc.paired_columns_max, False)):
            if paired > limit:
                doubled = _doubled(image, hlat, gap, cfg, rows)
                if doubled.grid.score > 0:
                    return doubled
                score = 0.0  # two lattice lines on each pit: half the board, or no board
                break
    void_row = inner_void_row(table, gc) if check_pairs and respace and score > 0 else None
    if void_row is not None:
        respaced = _respaced_rows(image, hlat, cfg)
        # (else the lattice stays: a row of heaps hides its rims too)
        if respaced.grid.score >= max(gc.inner_row_void_gain * score, gc.inner_row_void_min):
            return respaced
        apart = _halves_apart(image, hlat, gap, void_row, cfg, lap)
        if apart is not None and apart.grid.score >= gc.halves_apart_gain * score:
            return apart
        if (apart is not None and apart.grid.score >= gc.halves_apart_bare_gain * score
                and bare_row(lview, nominal, between, void_row, gc)):
            return apart  # (the void row is bare wood, not heaps: the halves lie apart)
    if second_look and gc.edge_doubt_ratio > 0 and score > 0 and shift == (0, 0):
        doubt = slipped(table, gc, ratio=gc.edge_doubt_ratio)
        if doubt == (0, 0) and gc.edge_void_doubt is not None:
            doubt = void_side(table, gc.edge_void_doubt)
        if doubt != (0, 0):
            other = fit_from_lattice(image, _shifted(hlat, doubt), gap, cfg, lap, check_pairs, respace,
                                     second_look=False)
            if other.grid.score > score:
                return other
    pits_ev = ev[:32].reshape(4, 8)
    evidence = pits_ev / max(float(np.median(pits_ev)), 1e-6)
    grid = PitGrid(centres, (p, p), rim, score, radius, radius[1] / radius[0], inliers,
                   evidence=evidence)
    # (a weak lattice's margins are held alike only once it scores as a board: its corners
    # may start a fit again as an outline, and that search is kept as it was tuned)
    alike = score >= gc.surface_symmetry_min_score
    wider = (lambda wc: _lattice_view(image, hlat, wc, gap)[0]) if score > 0 else None
    # the rules that move only the outline reported, off for the search's own edges
    search = replace(gc, edge_rim_peak_reach=None, edge_wood_ratio=None, edge_double_reach=None,
                     edge_wider_max=None)
    # the pits' own centres and outer radius, for the counter's crops and the page's rings
    crop_centres, crop_radius = rim_centres(gx, gy, centres, radius, gc)
    rims = grid
    if gc.edge_outer_rim is not None and min(crop_radius[0] / radius[0], crop_radius[1] / radius[1]) \
            >= gc.edge_outer_rim:
        rims = replace(grid, radius=crop_radius)  # the edges searched beyond the rims' outer edge
    outline_edges = None
    if search != gc and score > 0:  # (one of those rules on)
        edges, outline_edges = surface_outlines(lview, rims, gap, [search, gc], alike=alike, wider=wider)
        if outline_edges is None or edges is None or np.allclose(outline_edges, edges):
            outline_edges = None
    else:
        edges = surface_edges(lview, rims, gap, search, alike=alike, wider=wider)
    grid.centres, grid.crop_radius = crop_centres, crop_radius
    grid.centres = snapped_to_lattice(grid.centres, gc)
    tick("grid")
    if edges is None:
        # no edge to follow: the lattice's outer cells' corners
        b = gc.lattice_border * p
        edges = np.array([[b - 0.5 * p, b - 0.5 * p], [b + 7.5 * p, b - 0.5 * p],
                          [b + 7.5 * p, b + (3.5 + gap) * p], [b - 0.5 * p, b + (3.5 + gap) * p]])
    new_corners, new_aspect = _image_outline(image, edges, m, grid.anisotropy, rc)
    outline = None if outline_edges is None else _image_outline(image, outline_edges, m, grid.anisotropy, rc)
    return TopFace(new_corners, m, grid, new_aspect, outline)


def _image_outline(image: np.ndarray, edges: np.ndarray, m: np.ndarray, anisotropy: float,
                   rc: RectifyConfig) -> tuple[np.ndarray, float]:
    """Image corners (each side refitted on the image's own gradient, within a view px or
    two) and aspect of the playing surface whose corners in the lattice view (image ->
    view matrix ``m``) are ``edges``."""
    new_corners = to_image(edges, m).astype(np.float64)
    ew = 0.5 * float(np.linalg.norm(edges[1] - edges[0]) + np.linalg.norm(edges[2] - edges[3]))
    eh = 0.5 * float(np.linalg.norm(edges[3] - edges[0]) + np.linalg.norm(edges[2] - edges[1]))
    x0, y0 = np.maximum(np.floor(new_corners.min(axis=0)).astype(int) - 8, 0)
    x1, y1 = np.ceil(new_corners.max(axis=0)).astype(int) + 8
    roi = image[y0:y1, x0:x1]
    if min(roi.shape[:2]) >= 3:  # (a wild fit may put the corners off the image)
        grey = roi if roi.ndim == 2 else cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY)
        band = max(1.5, 1.5 * float(np.linalg.norm(new_corners[1] - new_corners[0])) / (ew + 1e-6))
        new_corners = refine_sides(edge_magnitude(grey), new_corners - (x0, y0), band) + (x0, y0)
    return new_corners, float(np.clip(ew / max(eh, 1e-6) * anisotropy, rc.min_aspect, rc.max_aspect))
