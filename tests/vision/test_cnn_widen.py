"""The CNN counter's heap widening (vision.cnn.widen, train_cnn.fit_widening) and fine-tuning start."""

from __future__ import annotations

import numpy as np

from vision.cnn import widen
from vision.count import interval
from vision.train_cnn import fit_widening


def delta(k: int) -> np.ndarray:
    p = np.zeros(41)
    p[k] = 1.0
    return p


def test_small_counts_are_left_alone_and_heaps_spread_more_upwards() -> None:
    p = np.stack([delta(3), delta(20)])
    q = widen(p, 0.2, 10.0, 0.4)  # sd 2 below 20, 4 above
    assert np.allclose(q[0], p[0])
    assert np.allclose(q.sum(axis=1), 1.0)
    assert q[1, 20] < 0.5 and q[1, 20] == q[1].max()
    above, below = q[1, 21:].sum(), q[1, :20].sum()
    assert above > below > 0.05
    lo, hi = interval(q[1], 0.9)
    assert lo < 20 < hi and hi - 20 > 20 - lo


def test_a_thin_upper_tail_reaches_far_without_moving_the_most_likely_count() -> None:
    # a pit read as about 10 seeds (sd 1.5): 2 above widen_from = 8
    n = np.arange(41)
    p = np.exp(-0.5 * ((n - 10) / 1.5) ** 2)
    p /= p.sum()
    short = widen(p, 0.5, 8.0, 1.0)[0]  # sd 1 below, 2 above
    tailed = widen(p, 0.5, 8.0, 1.0, tail=0.4, tail_up=6.0)[0]  # 40 % of it: sd 12 above
    long = widen(p, 0.5, 8.0, 6.0)[0]  # all of it: sd 12 above
    assert tailed.argmax() == short.argmax()
    assert long.argmax() > short.argmax()  # one long blur moves the mode up
    assert interval(short, 0.9)[1] < 16 <= 20 <= interval(tailed, 0.9)[1]
    assert np.isclose(tailed.sum(), 1.0)
    assert np.allclose(widen(delta(5), 0.5, 8.0, 1.0, 0.4, 6.0), delta(5))  # below 8: untouched


def test_no_widening_is_the_identity() -> None:
    p = np.random.default_rng(0).dirichlet(np.ones(41), size=5)
    assert np.allclose(widen(p, 0.0, 8.0, 0.0), p)


def test_fit_covers_underestimated_heaps_without_moving_small_counts() -> None:
    rng = np.random.default_rng(1)
    y = np.concatenate([rng.integers(0, 9, 200), rng.integers(16, 30, 40)])
    # a network sure of small counts, and of heaps 2 to 4 seeds too low
    p = np.stack([delta(int(t)) if t < 16 else delta(int(t) - int(rng.integers(2, 5))) for t in y])
    p = 0.97 * p + 0.03 / 41
    setting, _ = fit_widening(p, y, target=0.95)
    w, start, up = setting[:3]
    assert w > 0 and up >= w
    q = widen(p, *setting)
    spans = [interval(r, 0.9) for r in q[y >= 16]]
    covered = np.mean([lo <= t <= hi for (lo, hi), t in zip(spans, y[y >= 16], strict=True)])
    assert covered >= 0.95
    assert np.array_equal(q[y < 9].argmax(axis=1), y[y < 9])


def test_exported_model_loads_back_into_the_training_network() -> None:
    """train_cnn fit --init starts from the shipped weights: same logits as vision.cnn,
    also when the training network is deeper (--stages) and its added layers start as
    identities."""
    import pytest

    torch = pytest.importorskip("torch")
    from vision.cnn import MODEL_PATH, CountNet
    from vision.train_cnn import net_stages, stages_of, start_net

    x = np.random.default_rng(2).normal(0, 1, (4, 64, 64, 3)).astype(np.float32)
    data = dict(np.load(MODEL_PATH))
    width = int(data["conv0_w"].shape[0])  # the shipped model's width
    have = stages_of(data)
    want = CountNet(MODEL_PATH).logits(x)
    for stages in (None, tuple(n + 1 for n in have)):
        net = start_net(width, MODEL_PATH, stages)
        assert net_stages(net) == (have if stages is None else stages)
        net.eval()
        with torch.no_grad():
            got = net(torch.from_numpy(x).permute(0, 3, 1, 2).contiguous()).numpy()
        assert np.allclose(got, want, atol=1e-3)
