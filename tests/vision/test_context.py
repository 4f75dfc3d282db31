"""Each pit read against the board's other pits (vision.context, vision.train_context)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from drawn import default_corners, draw_scene
from drawn_pit import drawn_pit

from vision.config import DEFAULT
from vision.context import (
    N_FEATURES,
    ContextModel,
    FeatureSettings,
    apply_context,
    context_features,
    load_model,
)
from vision.count import crop_smalls
from vision.holes import HOLES, START_COUNTS
from vision.train_context import train


def _sure(counts: list[int], p: float = 0.97) -> np.ndarray:
    """Distributions read surely (``p``) at the given counts."""
    out = np.full((len(counts), 41), (1 - p) / 40)
    out[np.arange(len(counts)), counts] = p
    return out


def _board_pits(big: int = 6) -> tuple[list[np.ndarray], list[int]]:
    counts = [0] * 20 + [1] * 8 + [2] * 3 + [big]
    crops = [drawn_pit(n, rng_seed=i) for i, n in enumerate(counts)]
    return crops, counts


def test_a_pits_changed_area_is_measured_in_this_boards_seeds() -> None:
    crops, counts = _board_pits(6)
    feats, ok = context_features(crop_smalls(crops), _sure(counts))
    assert ok and feats.shape == (32, N_FEATURES)
    ratio = feats[:, 0]
    assert np.all(ratio[:20] < 0.5)  # empty pits change nothing
    assert 0.6 < np.median(ratio[20:28]) < 1.5  # one seed is one seed's area
    assert 1.5 < np.median(ratio[28:31]) < 2.6
    assert ratio[31] > 4.0  # six seeds laid apart: about six seeds' area
    # the same seeds drawn twice as large: the ratio stays, since one seed is measured on this board
    big = [drawn_pit(n, seed_px=20, rng_seed=i) for i, n in enumerate(counts)]
    feats2, _ = context_features(crop_smalls(big), _sure(counts))
    assert abs(feats2[31, 0] - ratio[31]) < 1.5


def test_too_few_sure_pits_leave_nothing_to_compare_with() -> None:
    crops, counts = _board_pits()
    probs = _sure(counts)
    probs[2:20] = _sure([0] * 18, p=0.5)  # only two pits surely empty
    feats, ok = context_features(crop_smalls(crops), probs)
    assert not ok and not feats.any()
    few_seeded = _sure([0] * 20 + [1] + [4] * 11)  # one pit surely 1-3 seeds: no seed size
    assert not context_features(crop_smalls(crops), few_seeded)[1]
    with pytest.raises(ValueError, match="32 crops but 31"):
        context_features(crop_smalls(crops), probs[:31])


def _model(k: int = 9, favour: int = 3) -> ContextModel:
    w2 = np.zeros((4, k))
    b2 = np.zeros(k)
    b2[favour] = 5.0
    return ContextModel(np.zeros((k + N_FEATURES, 4)), np.zeros(4), w2, b2)


def test_adjust_shares_out_the_low_counts_and_leaves_heaps_alone() -> None:
    m = _model()
    probs = np.vstack([_sure([2], 0.6), _sure([12], 0.9)])
    probs[0, 20] += 0.05  # some mass on a heap too
    probs /= probs.sum(axis=1, keepdims=True)
    out = m.adjust(probs, np.ones((2, N_FEATURES)))
    assert np.allclose(out.sum(axis=1), 1.0)
    assert out[0].argmax() == 3  # the model favours 3 seeds...
    assert np.isclose(out[0, :9].sum(), probs[0, :9].sum())  # ... within the counter's mass for 0..8
    assert np.allclose(out[0, 9:], probs[0, 9:])
    assert np.allclose(out[1], probs[1])  # read as 12: the counter's alone


def test_the_model_file_round_trips_and_a_broken_one_is_named(tmp_path) -> None:
    m = _model()
    path = tmp_path / "ctx.npz"
    m.save(path)
    again = ContextModel.load(path)
    assert again.k == 9 and again.settings == FeatureSettings()
    assert np.allclose(again.b2, m.b2)
    (tmp_path / "bad.npz").write_bytes(b"not a model")
    with pytest.raises(ValueError, match="bad.npz"):
        ContextModel.load(tmp_path / "bad.npz")
    with pytest.raises(ValueError, match="inconsistent shapes"):
        ContextModel(np.zeros((5, 4)), np.zeros(4), np.zeros((4, 9)), np.zeros(9))


def test_the_shipped_model_reads_an_undecided_pit_by_its_area() -> None:
    # The counter cannot tell 1 from 2 seeds, or 4 from 5: the board's own seed size decides.
    m = load_model()
    assert m is not None and m.k == 9
    for a, b, small, large in ((1, 2, 1.0, 4.0), (4, 5, 1.0, 6.0)):
        p = np.full(41, 1e-4)
        p[a] = p[b] = 0.45
        p /= p.sum()

        def read(ratio: float, p: np.ndarray = p) -> int:
            f = np.array([[ratio, np.log(ratio + 0.3), 1.0]])
            return int(m.adjust(p[None], f)[0].argmax())

        assert read(small) == a and read(large) == b, (a, b)


def test_training_learns_what_the_area_says() -> None:
    # The counter says "2 or 3" for every pit; the area says which. Trained, the model reads them.
    rng = np.random.default_rng(0)
    n = 2000
    truth = rng.integers(2, 4, n)
    probs = np.full((n, 41), 1e-3)
    probs[:, 2] = probs[:, 3] = 0.48
    probs /= probs.sum(axis=1, keepdims=True)
    ratio = truth + rng.normal(0, 0.25, n)
    feats = np.stack([ratio, np.log(np.clip(ratio, 0, None) + 0.3), np.ones(n)], axis=1)
    model = train(np.log(probs), feats, truth, epochs=300)
    read = model.adjust(probs, feats).argmax(axis=1)
    assert (probs.argmax(axis=1) == truth).mean() < 0.6
    assert (read == truth).mean() > 0.9


def test_recognize_reads_in_context_only_without_a_seed_look_or_a_given_counter(monkeypatch) -> None:
    import vision.context
    from vision.pipeline import recognize

    calls = []
    real = vision.context.apply_context

    def spy(crops, probs, *a, **kw):  # noqa: ANN001, ANN002, ANN003, ANN202
        calls.append(len(crops))
        return real(crops, probs, *a, **kw)

    monkeypatch.setattr(vision.context, "apply_context", spy)
    img = draw_scene(START_COUNTS, default_corners((640, 360), 5.0, 0.1, 0.8), seed=3).image
    rec = recognize(img, "bottom")
    assert calls == [32]
    assert all(abs(sum(p) - 1) < 1e-3 for side in rec.probabilities.values()
               for row in side.values() for p in row)
    off = dataclasses.replace(DEFAULT, count=dataclasses.replace(DEFAULT.count, context=False))
    recognize(img, "bottom", cfg=off)
    assert calls == [32]


def test_apply_context_without_a_model_or_with_mismatched_crops_keeps_the_reading() -> None:
    crops, counts = _board_pits()
    probs = _sure(counts)
    out, used = apply_context(crops[:31], probs)
    assert not used and np.array_equal(out, probs)


def test_the_context_command_prints_each_pit_before_and_after(tmp_path, capsys) -> None:
    import cv2

    from vision.context import main

    img = draw_scene(START_COUNTS, default_corners((640, 360), 0.0, 0.0, 0.8), seed=4).image
    path = tmp_path / "board.png"
    cv2.imwrite(str(path), img)
    assert main([str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["pits"]) == set(HOLES)
    assert {"counter", "in_context", "seeds_by_area"} <= set(out["pits"]["A5"])
    (tmp_path / "blank.png").write_bytes(cv2.imencode(".png", np.zeros((300, 400, 3), np.uint8))[1].tobytes())
    assert main([str(tmp_path / "blank.png")]) == 2
    assert "error" in capsys.readouterr().err
