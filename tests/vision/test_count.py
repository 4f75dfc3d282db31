"""Pit counter: single pits with known counts, distribution shape, robustness, seed look, CLI."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from drawn_pit import drawn_pit, finger_over

from vision.config import DEFAULT
from vision.count import (
    PitCount,
    SeedLook,
    count_pit,
    count_pits,
    fit_seed_look,
    interval,
    unlike_empty,
)


def heap_pit(count: int, rng_seed: int = 0) -> np.ndarray:
    from vision.synth_pits import random_style, render_pit

    rng = np.random.default_rng(rng_seed)
    style = random_style(rng)
    return render_pit(style, count, rng)


def start_crops(**kw):
    """Drawn crops of a start position's pits: 6, 2, 2 and empty ones."""
    counts = [6, 2, 2] + [0] * 5
    return [drawn_pit(n, rng_seed=i, **kw) for i, n in enumerate(counts)], counts


@pytest.mark.parametrize("count", [0, 1, 2, 3, 4, 5, 6])
def test_drawn_pits_with_a_look(count: int) -> None:
    # The true count lies in the 90 % interval and the mode is off by at most one.
    # (Exact counts on these plain drawn pits are a known gap: the network tends to say n-1.)
    look = fit_seed_look(*start_crops())
    for k in range(2):
        result = count_pit(drawn_pit(count, rng_seed=20 + k), look)
        lo, hi = interval(result.probabilities)
        assert lo <= count <= hi, (count, k, lo, hi)
        assert abs(result.count - count) <= 1, (count, k, result.probabilities[: count + 3])


@pytest.mark.parametrize("count", [0, 1, 2, 3, 5])
def test_drawn_pits_without_a_look(count: int) -> None:
    # No calibration: the count must lie in the 90 % interval, the mode off by at most one.
    for k in range(2):
        result = count_pit(drawn_pit(count, rng_seed=30 + k))
        lo, hi = interval(result.probabilities)
        assert lo <= count <= hi, (count, k, lo, hi)
        assert abs(result.count - count) <= 1


@pytest.mark.parametrize("seed_px", [9, 14, 20])
def test_count_does_not_depend_on_one_seed_size(seed_px: int) -> None:
    look = fit_seed_look(*start_crops(seed_px=seed_px))
    result = count_pit(drawn_pit(4, seed_px=seed_px, rng_seed=3), look)
    lo, hi = interval(result.probabilities)
    assert lo <= 4 <= hi and abs(result.count - 4) <= 1


def test_empty_pit_is_zero_with_high_confidence() -> None:
    look = fit_seed_look(*start_crops())
    result = count_pit(drawn_pit(0, rng_seed=40), look)
    assert result.count == 0
    assert result.confidence > 0.8


def test_distribution_shape_and_sum() -> None:
    result = count_pit(heap_pit(12, rng_seed=5))
    assert isinstance(result, PitCount)
    assert result.probabilities.shape == (41,)
    assert np.all(result.probabilities >= 0)
    assert result.probabilities.sum() == pytest.approx(1.0, abs=1e-9)
    assert result.count == int(np.argmax(result.probabilities))
    assert result.confidence == pytest.approx(float(result.probabilities.max()))


def test_big_heap_gives_wide_distribution() -> None:
    small = count_pit(drawn_pit(2))
    lo_s, hi_s = interval(small.probabilities)
    widths = []
    for k in range(3):
        lo, hi = interval(count_pit(heap_pit(32, rng_seed=10 + k)).probabilities)
        widths.append(hi - lo)
    assert hi_s - lo_s <= 1
    assert min(widths) >= 3
    assert count_pit(heap_pit(32, rng_seed=10)).confidence < 0.6


@pytest.mark.parametrize("value", [0, 255])
def test_black_and_white_crops_do_not_crash(value: int) -> None:
    result = count_pit(np.full((80, 80, 3), value, np.uint8))
    assert 0 <= result.count <= 40
    assert result.probabilities.sum() == pytest.approx(1.0)


def test_dark_and_overexposed_pits_still_give_a_distribution() -> None:
    img = drawn_pit(3)
    dark = (img.astype(np.float32) * 0.15).astype(np.uint8)
    bright = np.clip(img.astype(np.float32) * 3.0, 0, 255).astype(np.uint8)
    for crop in (dark, bright):
        result = count_pit(crop)
        assert result.probabilities.shape == (41,)
        assert 0.0 <= result.confidence <= 1.0


def test_other_sizes_grey_and_non_square_crops() -> None:
    look = fit_seed_look(*start_crops())  # learned on 96 px crops; every crop is resized
    img = drawn_pit(3, size=192, seed_px=28)
    small = cv2.resize(img, (48, 48), interpolation=cv2.INTER_AREA)
    wide = cv2.copyMakeBorder(img, 0, 0, 40, 40, cv2.BORDER_REPLICATE)  # 272 x 192
    for crop in (img, small, wide):
        lo, hi = interval(count_pit(crop, look).probabilities)
        assert lo <= 3 <= hi
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    assert count_pit(grey).probabilities.shape == (41,)


def test_bad_crops_raise_value_error() -> None:
    with pytest.raises(ValueError):
        count_pit(np.zeros((4, 4, 3), np.uint8))
    with pytest.raises(ValueError):
        count_pit(np.zeros((50, 50, 3), np.float32))  # type: ignore[arg-type]


def test_count_pits_matches_count_pit() -> None:
    crops = [drawn_pit(n) for n in (0, 2, 5)]
    batch = count_pits(crops)
    for crop, r in zip(crops, batch, strict=True):
        assert np.allclose(count_pit(crop).probabilities, r.probabilities)


def test_fit_seed_look_learns_size_and_colour() -> None:
    crops, counts = start_crops()
    look = fit_seed_look(crops, counts)
    # Drawn seeds are 14 px across; their shadow and the camera blur widen them a little.
    assert 10.0 <= look.seed_diam_px <= 19.0
    # About one seed's area (at the 24 px template scale, shadow included) changes per seed.
    assert 6.0 <= look.area_per_seed <= 25.0
    assert look.seed_lab[0] > look.floor_lab[0] + 0.2  # pale seeds on a dark floor
    assert look.empty is not None and look.empty.shape == (24, 24, 3)
    again = SeedLook.from_json(json.loads(json.dumps(look.to_json())))
    assert again.seed_diam_px == pytest.approx(look.seed_diam_px, abs=1e-3)
    assert np.allclose(again.empty, look.empty, atol=1e-3)
    crop = drawn_pit(3, rng_seed=9)
    assert np.allclose(count_pit(crop, again).probabilities, count_pit(crop, look).probabilities,
                       atol=1e-4)


def test_fit_seed_look_needs_an_empty_and_a_seeded_pit() -> None:
    with pytest.raises(ValueError, match="empty pit"):
        fit_seed_look([drawn_pit(2), drawn_pit(6)], [2, 6])
    with pytest.raises(ValueError, match="crops"):
        fit_seed_look([drawn_pit(2)], [2, 0])
    with pytest.raises(ValueError):
        SeedLook.from_json({"seed_lab": [1, 2]})


def test_unsure_pits_are_read_again_at_more_views(monkeypatch: pytest.MonkeyPatch) -> None:
    # CountConfig.recheck_*: only a crop whose first reading is under the bar is read
    # again, and that reading replaces the first
    import vision.count as count_mod

    def dist(mode: int, p: float) -> np.ndarray:
        d = np.full(41, (1 - p) / 40)
        d[mode] = p
        return d

    calls: list[tuple[int, int, int]] = []  # (crops, views, views already run)

    class Net:  # logits are log-probabilities; calibrate is the softmax
        def inputs(self, crops: list[np.ndarray]) -> np.ndarray:
            return np.arange(len(crops))

        def mean_logits(self, x: np.ndarray, views=1, known=None) -> np.ndarray:  # noqa: ANN001
            # views (and views known): one for all or one per crop
            calls.append((len(x), int(np.max(views)), 0 if known is None else int(np.max(known[1]))))
            if np.all(np.asarray(views) == 1):  # crop 0 sure of 2 seeds, crop 1 torn between 1 and 2
                first = dist(2, 0.97)
                torn = np.full(41, 0.0025)
                torn[1], torn[2] = 0.45, 0.4525
                return np.log(np.stack([first, torn])[x])
            return np.log(np.stack([dist(3, 0.8)] * len(x)))

        def calibrate(self, logits: np.ndarray, views) -> np.ndarray:  # noqa: ANN001
            p = np.exp(logits)
            return p / p.sum(axis=1, keepdims=True)

    monkeypatch.setattr(count_mod, "load_net", lambda: Net())
    crops = [np.full((32, 32, 3), 120, np.uint8), np.full((32, 32, 3), 90, np.uint8)]
    once = count_pits(crops, views=1)
    assert [r.count for r in once] == [2, 2]
    again = count_pits(crops, views=1, recheck=(0.9, 4, 8))
    assert [r.count for r in again] == [2, 3]
    assert again[1].confidence == pytest.approx(0.8)
    # the unsure crop alone, at 4 views, the first view not run again
    assert calls[-1] == (1, 4, 1)
    # a heap (most likely count above max_count) keeps its first reading
    heap = count_pits(crops, views=1, recheck=(0.9, 4, 1))
    assert [r.count for r in heap] == [2, 2]


def test_flat_counts_say_nothing_about_the_count() -> None:
    # vision.count.flat_counts: the stand-in counter of geometry-only runs
    # (vision_eval --geometry-only, train_cnn pipeline)
    from vision.count import flat_counts

    crops = [np.full((32, 32, 3), 120, np.uint8)] * 3
    got = flat_counts(crops)
    assert len(got) == 3
    for r in got:
        assert len(r.probabilities) == 41
        assert np.allclose(r.probabilities, 1 / 41)
        assert r.confidence == pytest.approx(1 / 41)


def test_broad_reading_is_the_geometric_mean_of_the_two_networks() -> None:
    # ``broad`` (bao count-pit): the distribution's log-odds between any two counts are
    # the mean of the board network's and the broad network's (the normalised geometric
    # mean). A pit of 2 seeds is below the heap widening, so no widening enters here.
    from vision.cnn import BROAD_MODEL_PATH, MODEL_PATH, CountNet

    crop = drawn_pit(2, rng_seed=11)
    views = 4
    got = count_pit(crop, views=views, broad=True).probabilities
    each = [net.calibrate(net.mean_logits(net.inputs([crop]), views), views, widened=False)[0]
            for net in (CountNet(MODEL_PATH), CountNet(BROAD_MODEL_PATH))]
    assert not np.allclose(each[0], each[1], atol=1e-3)  # two different networks
    for j, k in ((0, 2), (1, 2), (3, 2), (2, 5)):
        want = np.mean([np.log(p[j] / p[k]) for p in each])
        assert np.log(got[j] / got[k]) == pytest.approx(want, abs=1e-6)
    assert got.sum() == pytest.approx(1.0)


def test_the_board_pipeline_reads_with_the_board_network_and_count_pit_adds_the_broad_one(
        monkeypatch) -> None:
    # bao recognize (broad False) runs the board network alone, held to 150 ms a photo;
    # bao count-pit (broad True) the board network and the broad one
    import vision.count as vc
    from vision.cnn import BROAD_MODEL_PATH, MODEL_PATH

    asked: list = []
    real = vc.load_net

    def spy(path=MODEL_PATH, *a, **k):  # noqa: ANN001, ANN202 - load_net's own signature
        asked.append(path)
        return real(path, *a, **k)

    monkeypatch.setattr(vc, "load_net", spy)
    count_pits([drawn_pit(2, rng_seed=5)], views=1)
    assert asked == [MODEL_PATH]
    asked.clear()
    count_pits([drawn_pit(2, rng_seed=5)], views=1, broad=True)
    assert asked == [MODEL_PATH, BROAD_MODEL_PATH]
    assert MODEL_PATH != BROAD_MODEL_PATH


def test_broad_reading_with_one_network_twice_is_that_network(monkeypatch) -> None:
    # Combining a network with itself changes nothing, the heap widening included (it
    # is applied once, after combining): here on a heap, where the widening acts.
    import vision.count as vc

    main = vc.load_net()
    monkeypatch.setattr(vc, "load_net", lambda *a, **k: main)
    for crop in (heap_pit(30, rng_seed=2), drawn_pit(3, rng_seed=4)):
        alone = count_pits([crop], views=2)[0].probabilities
        twice = count_pits([crop], views=2, broad=True)[0].probabilities
        assert np.allclose(alone, twice, atol=1e-9)


@pytest.mark.parametrize("count", [0, 1, 2, 3, 5])
def test_drawn_pits_with_both_networks(count: int) -> None:
    # As bao count-pit reads them (8 views, both networks): the count in the 90 %
    # interval, the mode off by at most one.
    for k in range(2):
        result = count_pit(drawn_pit(count, rng_seed=30 + k), views=8, broad=True)
        lo, hi = interval(result.probabilities)
        assert lo <= count <= hi, (count, k, lo, hi)
        assert abs(result.count - count) <= 1


def test_broad_heaps_are_wide() -> None:
    # Heaps of 32: the true count in the 90 % interval in most, as with one network.
    inside = 0
    for k in range(5):
        lo, hi = interval(count_pit(heap_pit(32, rng_seed=10 + k), views=8, broad=True).probabilities)
        inside += lo <= 32 <= hi
    assert inside >= 4


def _covered_pit(rng_seed: int) -> np.ndarray:
    """An empty drawn pit with a finger-like blob over most of it (a hand, not seeds)."""
    return cv2.GaussianBlur(finger_over(drawn_pit(0, rng_seed=rng_seed, camera=False)), (0, 0), 0.8)


def test_unlike_empty_finds_a_covered_pit_not_a_soft_empty_one() -> None:
    empties = [drawn_pit(0, rng_seed=s) for s in range(6)]
    soft = cv2.GaussianBlur(drawn_pit(0, rng_seed=9), (0, 0), 2.0)  # an empty pit, rim blurred
    crops = empties + [soft, _covered_pit(3)]
    sure = np.array([True] * 6 + [False, False])
    candidates = np.array([False] * 6 + [True, True])
    out = unlike_empty(crops, candidates, sure, z_min=2.5)
    assert out.tolist() == [False] * 7 + [True]


def _rim_lit(crop: np.ndarray, angle: float) -> np.ndarray:
    """The crop with a bright arc on its rim at ``angle`` degrees (a light's highlight)."""
    out = crop.copy()
    w = out.shape[1]
    r = int(0.36 * w)
    cv2.ellipse(out, (w // 2, w // 2), (r, r), 0, angle - 40, angle + 40, (235, 235, 235), max(2, w // 24))
    return out


def test_unlike_empty_needs_a_cover_to_shift_the_pits_mean_colour() -> None:
    # The board's empty pits catch the light on one side of their rims; an empty pit lit
    # from the other side differs from them in pattern but not on average. It is no
    # cover (synth_437_0021), while a finger over a pit shifts its colour too.
    empties = [_rim_lit(drawn_pit(0, rng_seed=s), -45) for s in range(6)]
    sure = np.array([True] * 6 + [False, False])
    candidates = np.array([False] * 6 + [True, True])
    for k in range(3):
        crops = empties + [_rim_lit(drawn_pit(0, rng_seed=9 + k), 135), _covered_pit(3 + k)]
        # the pattern alone makes the other-lit pit look unlike the empties...
        assert unlike_empty(crops, candidates, sure, z_min=2.5).tolist()[-2:] == [True, True]
        # ... but only the finger shifts the mean colour
        out = unlike_empty(crops, candidates, sure, z_min=2.5, min_shift=DEFAULT.decode.unlike_min_shift)
        assert out.tolist() == [False] * 7 + [True], k


def test_unlike_empty_needs_enough_sure_pits_and_matching_lengths() -> None:
    crops = [drawn_pit(0, rng_seed=1), drawn_pit(0, rng_seed=2), _covered_pit(3)]
    cand = np.array([False, False, True])
    # two sure pits are too few to say what this board's empty pits look like
    assert not unlike_empty(crops, cand, np.array([True, True, False]), 2.5, min_sure=3).any()
    assert unlike_empty(crops, cand, np.array([True, True, False]), 2.5, min_sure=2).tolist() == \
        [False, False, True]
    with pytest.raises(ValueError, match="unlike_empty"):
        unlike_empty(crops, cand[:2], np.array([True, True, False]), 2.5)


def test_unlike_empty_compares_a_pit_with_its_neighbours_when_asked() -> None:
    # A board lit from one end (sample game_03 without a calibration): the surely empty
    # pits lie where the rims show best, and the empty pits at the far end, lit softly and
    # less, looked unlike them: a hand over the end. Beside such a pit its neighbours are
    # lit alike (``near``), while a finger over a pit there still differs from them.
    shade = np.array([0.55 + 0.45 * c / 7 for c in range(8)])  # darker towards column 0
    crops = []
    for i in range(32):
        pit = drawn_pit(0, rng_seed=i).astype(np.float32) * shade[i % 8]
        crops.append(np.clip(pit, 0, 255).astype(np.uint8))
    crops[8] = np.clip(_covered_pit(3).astype(np.float32) * shade[0], 0, 255).astype(np.uint8)  # a8
    columns = np.arange(32) % 8
    sure = columns >= 4  # rims clear only on the lit half
    candidates = np.zeros(32, bool)
    candidates[[0, 8]] = True  # b8 empty in the shade, a8 under a finger
    pool = np.ones(32, bool)  # every pit read surely empty
    args = (crops, candidates, sure, 2.5, 3, DEFAULT.decode.unlike_min_shift)
    assert unlike_empty(*args)[[0, 8]].tolist() == [True, True]  # against the lit pits: both
    out = unlike_empty(*args, near=4, pool=pool)
    assert out[[0, 8]].tolist() == [False, True] and out.sum() == 1
    # too few pits in the pool: the board's template, as before
    few = np.zeros(32, bool)
    few[[1, 2]] = True
    assert unlike_empty(*args, near=4, pool=few)[[0, 8]].tolist() == [True, True]
