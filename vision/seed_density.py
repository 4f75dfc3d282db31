"""Seed points as density maps: a training target that shows the counter where seeds lie.

The counter (:mod:`vision.cnn`) is trained to name a count. Where the training crops
also say where each seed's centre lies (labelled renders record their seeds'
image points, ``render.seed_points_px``; procedural pits know where they drew
them), the trainer can also ask the network's last feature map for a seed
density, a small Gaussian blob at each seed summing to one per seed
(:func:`density_map`), through a 1x1 convolution used only in training
(``python -m vision.train_cnn fit --density-weight W``). The shipped network is
unchanged in form.

Points are crop pixels ``(x, y)`` (OpenCV order, pixel centres on integers).
Stored per crop as a fixed-size array, NaN where there is no seed
(:func:`pad_points`); a crop whose seeds' places are not known has
``npoints == -1`` and no density target.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

MAX_POINTS = 41  # counts run 0..40
GRID = 8  # the counter's last feature map: INPUT / 8 cells on a side (three 2x2 pools)
SIGMA_CELLS = 0.6  # the blob of one seed, in cells


def pad_points(points: Sequence[np.ndarray | None]) -> tuple[np.ndarray, np.ndarray]:
    """``(N, MAX_POINTS, 2)`` float32 points (NaN-padded) and ``(N,)`` int16 point counts,
    -1 where a crop's points are not known (None)."""
    out = np.full((len(points), MAX_POINTS, 2), np.nan, np.float32)
    n = np.full(len(points), -1, np.int16)
    for i, p in enumerate(points):
        if p is None:
            continue
        p = np.asarray(p, np.float32).reshape(-1, 2)
        if len(p) > MAX_POINTS:
            raise ValueError(f"crop {i}: {len(p)} seed points, at most {MAX_POINTS}")
        out[i, :len(p)] = p
        n[i] = len(p)
    return out, n


def transform_points(points: np.ndarray, m: np.ndarray, flip_width: int | None = None) -> np.ndarray:
    """Points (n, 2) through the 2x3 affine ``m`` (as ``cv2.warpAffine`` moves pixels),
    then mirrored left-right in an image ``flip_width`` wide when given."""
    p = np.asarray(points, np.float64).reshape(-1, 2)
    q = p @ np.asarray(m, np.float64)[:, :2].T + np.asarray(m, np.float64)[:, 2]
    if flip_width is not None:
        q[:, 0] = flip_width - 1 - q[:, 0]
    return q.astype(np.float32)


def density_map(points: np.ndarray, size: int, grid: int = GRID,
                sigma_cells: float = SIGMA_CELLS) -> np.ndarray:
    """A ``(grid, grid)`` float32 map of an image ``size`` pixels wide: one Gaussian blob
    per point (NaN rows are skipped), each normalised to sum to 1 over the map, so the
    map sums to the number of seeds. A point outside the image counts at the nearest
    cells (a heap spilling over the crop's edge is still that many seeds)."""
    p = np.asarray(points, np.float64).reshape(-1, 2)
    p = p[~np.isnan(p).any(axis=1)]
    out = np.zeros((grid, grid), np.float64)
    if not len(p):
        return out.astype(np.float32)
    cells = (p + 0.5) * (grid / size) - 0.5  # pixel -> cell coordinates (centres on integers)
    cells = np.clip(cells, -0.5, grid - 0.5)
    c = np.arange(grid, dtype=np.float64)
    gx = np.exp(-0.5 * ((c[None, :] - cells[:, 0:1]) / sigma_cells) ** 2)  # (n, grid)
    gy = np.exp(-0.5 * ((c[None, :] - cells[:, 1:2]) / sigma_cells) ** 2)
    blobs = gy[:, :, None] * gx[:, None, :]  # (n, row, col)
    blobs /= blobs.sum(axis=(1, 2), keepdims=True)
    return blobs.sum(axis=0).astype(np.float32)
