"""Tests of the board-shaped outlines (vision/outlines.py)."""

from __future__ import annotations

import numpy as np


def test_a_wild_fit_far_off_the_image_is_not_refined_and_does_not_crash() -> None:
    # a render cut on the left by a quarter (synth_307_0014) once gave a lattice whose
    # corners lay thousands of pixels off the image: the band to search each side in was
    # wider than OpenCV can sample (cv2.error in remap: "dst.cols < SHRT_MAX"), and the
    # whole recognition raised. Now the quad is kept as it is.
    from vision.outlines import refine_sides

    mag = np.random.default_rng(0).random((120, 200)).astype(np.float32)
    quad = np.array([[-9000.0, -5000.0], [40000.0, -5000.0], [40000.0, 30000.0], [-9000.0, 30000.0]])
    assert np.array_equal(refine_sides(mag, quad, 40000.0), quad)
    assert np.array_equal(refine_sides(mag, quad, float("nan")), quad)
    # a sane band still refines: a bright rectangle's outline is found within it
    img = np.zeros((120, 200), np.float32)
    img[30:91, 40:161] = 1.0
    edges = cv2_magnitude(img)
    near = np.array([[42.0, 32.0], [158.0, 32.0], [158.0, 88.0], [42.0, 88.0]])
    out = refine_sides(edges, near, 5.0)
    assert np.abs(out - [[40, 30], [160, 30], [160, 90], [40, 90]]).max() < 1.5


def cv2_magnitude(img: np.ndarray) -> np.ndarray:
    import cv2

    return cv2.magnitude(cv2.Sobel(img, cv2.CV_32F, 1, 0), cv2.Sobel(img, cv2.CV_32F, 0, 1))
