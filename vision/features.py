"""Pit crops in CIE Lab at a fixed size, and the masks of the pit within them.

Used by :class:`vision.count.SeedLook`, the seed look learned at calibration:
every crop is resized to ``SIZE`` x ``SIZE`` pixels (the pit centred and filling
most of it, docs/vision.md) and converted to Lab; the empty-pit template is
kept at ``TEMPLATE`` x ``TEMPLATE``. Arrays are ``[row, col]``.
"""

from __future__ import annotations

import cv2
import numpy as np

SIZE = 96
R_INNER, R_PIT, R_RIM = 0.25, 0.40, 0.49  # radii as fractions of SIZE


def _masks() -> dict[str, np.ndarray]:
    yy, xx = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32)
    c = (SIZE - 1) / 2
    r = np.sqrt((xx - c) ** 2 + (yy - c) ** 2) / SIZE
    return {
        "inner": r < R_INNER,
        "pit": r < R_PIT,
        "rim": (r >= R_PIT) & (r < R_RIM),
        "corner": r >= R_RIM + 0.02,
        "radius": r,
    }


_M = _masks()
_U8 = {k: v.astype(np.uint8) for k, v in _M.items() if k != "radius"}


def prepare(crop_bgr: np.ndarray) -> np.ndarray:
    """Resize a BGR uint8 crop to SIZE x SIZE and return float32 Lab (L 0..1, a/b ~ -0.5..0.5)."""
    h, w = crop_bgr.shape[:2]
    interp = cv2.INTER_AREA if min(h, w) > SIZE else cv2.INTER_LINEAR
    img = cv2.resize(crop_bgr, (SIZE, SIZE), interpolation=interp)
    lab = np.asarray(cv2.cvtColor(img.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab), np.float32)
    lab[..., 0] /= 100.0
    lab[..., 1:] /= 100.0
    return lab


TEMPLATE = 24  # side of the empty-pit template (Lab) kept in a seed look
PIT_MASK_T = cv2.resize(_U8["pit"], (TEMPLATE, TEMPLATE), interpolation=cv2.INTER_NEAREST) > 0


def small_lab(lab: np.ndarray) -> np.ndarray:
    """The crop's Lab image at TEMPLATE x TEMPLATE (compared with the empty-pit template)."""
    return cv2.resize(lab, (TEMPLATE, TEMPLATE), interpolation=cv2.INTER_AREA)
