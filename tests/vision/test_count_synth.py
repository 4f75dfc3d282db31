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
