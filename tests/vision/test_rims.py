"""Tests of the pit-rim evidence (vision/rims.py) on drawn rings, lines and pits."""

from __future__ import annotations

import numpy as np
import pytest

from vision.config import DEFAULT
from vision.rims import rim_evidence


def test_rim_evidence_is_high_on_a_ring_and_low_on_lines() -> None:
    import cv2

    img = np.full((120, 240), 160, np.uint8)
    cv2.circle(img, (60, 60), 20, 60, -1)  # a pit
    for x in range(140, 240, 12):  # parallel lines (planks, tiles)
        cv2.line(img, (x, 0), (x, 119), 60, 3)
    gx = cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=3)
    ev = rim_evidence(gx, gy, np.array([[60.0, 60.0], [190.0, 60.0]]), np.array([[20.0, 20.0]]))[:, 0]
    assert ev[0] > 10 * max(ev[1], 1.0)


def test_rim_gradients_see_the_same_contrast_on_dark_and_pale_wood() -> None:
    # GridConfig.gradient_log_offset: gradients of (128 + c) log(I + c). A step in
    # brightness by the same ratio, on near-black wood (12 -> 24) and on pale wood
    # (120 -> 240), gives gradients of the same order (ratio (24 + c)/(12 + c) against
    # (240 + c)/(120 + c) in the log); on the plain grey level one is 10x the other.
    from vision.rims import gradients

    def step(lo: int, hi: int) -> np.ndarray:
        img = np.full((21, 21), lo, np.uint8)
        img[:, 11:] = hi
        return img

    def peak(img: np.ndarray, c: float) -> float:
        gx, _ = gradients(img, c)
        return float(np.abs(gx).max())

    c = DEFAULT.grid.gradient_log_offset
    dark, pale = peak(step(12, 24), c), peak(step(120, 240), c)
    assert 0.5 < dark / pale < 1.0
    assert peak(step(12, 24), 0.0) / peak(step(120, 240), 0.0) == pytest.approx(0.1, rel=0.05)


def test_rim_evidence_on_a_grid_equals_the_pointwise_evidence() -> None:
    # the pit scan's fast whole-image version must give the same numbers as rim_evidence
    import cv2

    from vision.rims import rim_evidence_grid

    rng = np.random.default_rng(4)
    img = np.clip(rng.normal(120, 30, (90, 150)), 0, 255).astype(np.uint8)
    cv2.circle(img, (70, 40), 9, 30, -1)
    gx = cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=3)
    circles = [(4.0, 2), (9.0, 3), (13.5, 5)]
    for (r, step), grid in zip(circles, rim_evidence_grid(gx, gy, circles, sectors=8), strict=True):
        ys, xs = np.mgrid[0:90:step, 0:150:step]
        pts = np.stack([xs.ravel(), ys.ravel()], 1).astype(np.float64)
        ref = rim_evidence(gx, gy, pts, np.array([(r, r)]), sectors=8).reshape(ys.shape)
        assert grid.shape == ref.shape
        assert np.abs(grid - ref).max() < 1e-3 * np.abs(ref).max()
    # the drawn pit is the strongest point at its own radius
    ev9 = rim_evidence_grid(gx, gy, [(9.0, 1)])[0]
    assert np.unravel_index(int(np.argmax(ev9)), ev9.shape) == (40, 70)


def test_the_crop_radius_is_floored_at_a_share_of_the_pitch_on_each_axis() -> None:
    # GridConfig.crop_radius_min: rx and ry each at least 0.3 x the lattice pitch; larger
    # radii stay, and 0 turns the floor off
    from dataclasses import replace

    from vision.rims import _floored

    gc = DEFAULT.grid
    p = gc.lattice_pitch_px
    assert _floored((0.22 * p, 0.35 * p), gc) == (0.3 * p, 0.35 * p)
    assert _floored((0.4 * p, 0.41 * p), gc) == (0.4 * p, 0.41 * p)
    assert _floored((0.1 * p, 0.1 * p), replace(gc, crop_radius_min=0.0)) == (0.1 * p, 0.1 * p)
