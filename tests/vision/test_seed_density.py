"""Seed points and density maps: the counter's auxiliary training target."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.seed_density import GRID, MAX_POINTS, density_map, pad_points, transform_points
from vision.synth_pits import random_style, render_pit, render_pit_with_points


def test_a_density_map_sums_to_the_seeds_and_peaks_under_each() -> None:
    # 64 px image, 8 cells of 8 px: a seed at pixel (11.5, 43.5) sits at cell (1, 5)
    d = density_map(np.array([[11.5, 43.5], [52.0, 4.0], [np.nan, np.nan]]), 64)
    assert d.shape == (GRID, GRID) and d.dtype == np.float32
    assert d.sum() == pytest.approx(2.0, abs=1e-5)  # the NaN row is no seed
    assert np.unravel_index(np.argmax(d), d.shape) in {(5, 1), (0, 6)}
    assert d[5, 1] > 0.3 and d[0, 6] > 0.3 and d[3, 3] < 0.01
    # a seed spilling over the crop's edge still counts, at the edge
    edge = density_map(np.array([[-20.0, 30.0]]), 64)
    assert edge.sum() == pytest.approx(1.0, abs=1e-5) and edge[:, 0].sum() > 0.6
    assert density_map(np.zeros((0, 2)), 64).sum() == 0


def test_points_are_padded_and_unknown_points_marked() -> None:
    pts, n = pad_points([np.array([[1, 2], [3, 4]]), None, np.zeros((0, 2))])
    assert pts.shape == (3, MAX_POINTS, 2) and list(n) == [2, -1, 0]
    assert np.array_equal(pts[0, :2], [[1, 2], [3, 4]]) and np.isnan(pts[0, 2:]).all()
    assert np.isnan(pts[1]).all()
    with pytest.raises(ValueError, match="42 seed points"):
        pad_points([np.zeros((42, 2))])


def test_points_move_with_the_pixels_of_an_affine_warp_and_a_mirror() -> None:
    img = np.zeros((96, 96), np.uint8)
    img[30, 70] = 255  # a dot at x 70, y 30
    m = cv2.getRotationMatrix2D((48, 48), 33.0, 0.8)
    m[:, 2] += (-5, 7)
    warped = cv2.warpAffine(img.astype(np.float32), m, (64, 64))[:, ::-1]
    y, x = np.unravel_index(np.argmax(warped), warped.shape)
    (px, py), = transform_points(np.array([[70.0, 30.0]]), m, flip_width=64)
    assert abs(px - x) <= 1 and abs(py - y) <= 1


def test_augmented_crops_carry_their_seed_points() -> None:
    from vision.train_cnn import augment, augment_with_points

    crop = np.full((96, 96, 3), 40, np.uint8)
    cv2.circle(crop, (60, 35), 5, (230, 230, 230), -1)
    for seed in range(6):
        out, pts = augment_with_points(crop, np.array([[60.0, 35.0]]), np.random.default_rng(seed))
        x, y = (int(round(v)) for v in pts[0])
        assert out[y, x].mean() > out.mean() + 40  # the point is on the bright seed
        # the same draws give the same picture without points
        assert np.array_equal(augment(crop, np.random.default_rng(seed)), out)


def test_procedural_pits_say_where_they_drew_each_seed() -> None:
    style = replace(random_style(np.random.default_rng(8)), gradient=0.0, noise=0.0,
                    seed_bgr=(0.95, 0.95, 0.95), wood_bgr=(0.15, 0.1, 0.08), multicolour=False)
    crop, pts = render_pit_with_points(style, 3, np.random.default_rng(1))
    assert np.array_equal(crop, render_pit(style, 3, np.random.default_rng(1)))
    assert pts.shape == (3, 2) and (pts >= 0).all() and (pts < crop.shape[0]).all()
    grey = crop.astype(np.float32).mean(axis=2)
    for x, y in pts:  # pale seeds on dark wood: each point is on a seed
        assert grey[int(round(y)), int(round(x))] > np.median(grey) + 40
    empty, none = render_pit_with_points(style, 0, np.random.default_rng(1))
    assert none.shape == (0, 2) and empty.ndim == 3
