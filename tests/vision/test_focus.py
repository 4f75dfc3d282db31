"""vision/focus.py: the blur effect of the pit crops, and readings softened to match."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from drawn import default_corners, draw_scene
from samples import SINGLES
from skimage.measure import blur_effect as skimage_blur_effect

from vision.focus import blur_effect, crops_blur, soften
from vision.holes import START_COUNTS, flatten

SAMPLE = SINGLES / "synth_1_0003.jpg"


@pytest.mark.parametrize("sigma", [0.0, 1.5, 4.0])
def test_the_blur_effect_is_scikit_images(sigma: float) -> None:
    # the measure of Crete-Roffet et al. as skimage.measure.blur_effect gives it (the
    # reference implementation), here with OpenCV
    grey = cv2.cvtColor(cv2.imread(str(SAMPLE)), cv2.COLOR_BGR2GRAY)[150:500, 300:900]
    if sigma:
        grey = cv2.GaussianBlur(grey, (0, 0), sigma)
    assert blur_effect(grey) == pytest.approx(skimage_blur_effect(grey, h_size=11), abs=1e-4)


def test_the_blur_effect_grows_with_the_blur_and_refuses_what_is_no_image() -> None:
    grey = cv2.cvtColor(cv2.imread(str(SAMPLE)), cv2.COLOR_BGR2GRAY)
    values = [blur_effect(cv2.GaussianBlur(grey, (0, 0), s) if s else grey) for s in (0, 1, 2, 4)]
    assert values == sorted(values) and values[0] < 0.7 < values[-1]
    assert blur_effect(np.full((20, 20), 128, np.uint8)) == 1.0  # no gradient: nothing seen
    with pytest.raises(ValueError, match="one-channel"):
        blur_effect(np.zeros((20, 20, 3), np.uint8))
    with pytest.raises(ValueError, match="at least one crop"):
        crops_blur([])


def test_softening_keeps_the_most_likely_count_and_spreads_the_rest() -> None:
    p = np.array([[0.01, 0.97, 0.02], [0.6, 0.3, 0.1]])
    assert np.array_equal(soften(p, 0.6, 0.65, 14.0), p)  # sharp enough: unchanged
    q = soften(p, 0.8, 0.65, 14.0)  # temperature 1 + 14 x 0.15 = 3.1
    assert np.allclose(q.sum(axis=1), 1.0)
    assert np.array_equal(q.argmax(axis=1), p.argmax(axis=1))
    assert np.all(q.max(axis=1) < p.max(axis=1))
    expected = p ** (1 / 3.1) / (p ** (1 / 3.1)).sum(axis=1, keepdims=True)
    assert np.allclose(q, expected)


def test_a_blurred_photo_is_read_less_surely_and_says_so() -> None:
    # a camera out of focus: the same board read sharp and blurred by 4 px. The sharp
    # reading carries no blur status; the blurred one says image_blurred, and each pit's
    # distribution is the counter's own softened: the same most likely count, less sure
    from vision import pipeline
    from vision.config import DEFAULT
    from vision.holes import HOLES

    scene = draw_scene(START_COUNTS, default_corners((960, 540), 8.0, 0.1, 0.8), size=(960, 540), seed=2)
    sharp = pipeline.recognize(scene.image, "bottom")
    assert "image_blurred" not in sharp.status
    raw: list[np.ndarray] = []
    cc = DEFAULT.count

    def counter(crops, look):  # noqa: ANN001, ANN202 - the pipeline's own counter, its output kept
        out = pipeline._default_counter(crops, look, cc.views, cc.nyumba_views,
                                        (cc.recheck_below, cc.recheck_views, cc.recheck_max_count))
        raw.append(np.array([r.probabilities for r in out]))
        return out

    blurred = pipeline.recognize(cv2.GaussianBlur(scene.image, (0, 0), 4.0), "bottom", counter=counter)
    assert "image_blurred" in blurred.status
    assert sharp.blur is not None and blurred.blur is not None  # the measure, as reported
    assert sharp.blur < cc.blur_flag <= blurred.blur
    hidden = {n for entry in blurred.status if entry.startswith("occluded_pits:")
              for n in entry.split(":")[1].split(",")}
    probs = flatten(blurred.probabilities)
    seen = [k for k, n in enumerate(HOLES) if n not in hidden]
    read = np.array([probs[HOLES[k]] for k in seen])
    before = raw[0][seen]
    assert np.array_equal(read.argmax(axis=1), before.argmax(axis=1))
    assert np.all(read.max(axis=1) <= before.max(axis=1) + 1e-9)
    assert np.mean(read.max(axis=1)) < np.mean(before.max(axis=1)) - 0.05
