"""The procedural pit generator used to train and test the counter."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.synth_pits import random_style, render_pit


def test_render_is_deterministic_for_a_seed() -> None:
    a = render_pit(random_style(np.random.default_rng(4)), 7, np.random.default_rng(5))
    b = render_pit(random_style(np.random.default_rng(4)), 7, np.random.default_rng(5))
    assert a.dtype == np.uint8 and a.ndim == 3 and a.shape[0] == a.shape[1]
    assert np.array_equal(a, b)


def test_more_seeds_change_more_of_the_pit() -> None:
    # No light gradient or noise, so the same rng draws the same board under the seeds.
    style = replace(random_style(np.random.default_rng(8)), gradient=0.0, noise=0.0)

    def pit(n: int) -> np.ndarray:
        img = render_pit(style, n, np.random.default_rng(1))
        return cv2.resize(img, (96, 96), interpolation=cv2.INTER_AREA).astype(np.float32)

    empty, few, many = pit(0), pit(2), pit(20)
    assert np.abs(few - empty).mean() > 1.0
    assert np.abs(many - empty).mean() > 2 * np.abs(few - empty).mean()


@pytest.mark.parametrize("count", [-1, 41])
def test_count_out_of_range(count: int) -> None:
    with pytest.raises(ValueError, match="0..40"):
        render_pit(random_style(np.random.default_rng(0)), count, np.random.default_rng(0))


def test_a_soft_rim_fades_the_bowl_into_the_wood() -> None:
    # a bowl drawn on plain white: the shade just inside the rim against just outside it
    # jumps at a crisp rim and hardly changes at a dimple's; the floor is dark either way
    from vision.synth_pits import WORK, _draw_pit

    style = replace(random_style(np.random.default_rng(8)), square=False, floor_dark=0.6)
    cx = cy = WORK / 2
    r = 0.4 * WORK

    def shade(soft: float) -> np.ndarray:
        img = np.ones((WORK, WORK, 3), np.float32)
        _draw_pit(img, replace(style, rim_soft=soft), np.random.default_rng(3), (cx, cy, r, 1.0, 0.0))
        return img[int(cy), :, 1]

    for soft, jump in ((0.0, (0.2, 1.0)), (0.8, (0.0, 0.05))):
        row = shade(soft)
        inner, outer = row[int(cx + 0.95 * r)], row[int(cx + 1.05 * r)]
        assert jump[0] <= outer - inner <= jump[1], (soft, inner, outer)
        assert row[int(cx)] < 0.75, soft
    styles = [random_style(np.random.default_rng(k)) for k in range(200)]
    assert 0.2 < np.mean([s.rim_soft > 0 for s in styles]) < 0.4
