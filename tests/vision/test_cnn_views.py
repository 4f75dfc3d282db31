"""The counter network's numpy inference: convolution, turned views, per-view temperatures."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from drawn_pit import drawn_pit
from samples import SINGLES

from vision.cnn import BROAD_MODEL_PATH, MODEL_PATH, CountNet, _conv3, views_of
from vision.count import count_pit, count_pits


def naive_conv3(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Textbook 3x3 convolution (cross-correlation), zero padding 1, NHWC, w (out, in, 3, 3)."""
    n, h, wd, c = x.shape
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0))).astype(np.float64)
    out = np.zeros((n, h, wd, w.shape[0]))
    for dy in range(3):
        for dx in range(3):
            # out[.., y, x, o] += sum_c xp[.., y + dy, x + dx, c] * w[o, c, dy, dx]
            out += np.einsum("nhwc,oc->nhwo", xp[:, dy:dy + h, dx:dx + wd, :], w[:, :, dy, dx])
    return out + b


def test_conv3_matches_the_textbook_convolution() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 7, 5, 3)).astype(np.float32)
    w = rng.normal(size=(4, 3, 3, 3)).astype(np.float32)
    b = rng.normal(size=4).astype(np.float32)
    assert np.allclose(_conv3(x, w, b), naive_conv3(x, w, b), atol=1e-4)


def test_conv3_is_not_symmetric_in_its_kernel() -> None:
    # A kernel with a single tap at (dy, dx) = (0, 2) reads the pixel up and to the right.
    x = np.zeros((1, 5, 5, 1), np.float32)
    x[0, 1, 3, 0] = 1.0
    w = np.zeros((1, 1, 3, 3), np.float32)
    w[0, 0, 0, 2] = 1.0
    out = _conv3(x, w, np.zeros(1, np.float32))[0, :, :, 0]
    assert out[2, 2] == 1.0 and out.sum() == 1.0


def test_views_are_the_eight_turns_and_mirrors() -> None:
    x = np.arange(2 * 3 * 3 * 1, dtype=np.float32).reshape(2, 3, 3, 1)
    views = [views_of(x, k) for k in range(8)]
    assert np.array_equal(views[0], x)
    # a quarter turn four times is the identity; view 2 is half a turn
    assert np.array_equal(views_of(views_of(views_of(views_of(x, 1), 1), 1), 1), x)
    assert np.array_equal(views[2], x[:, ::-1, ::-1])
    assert np.array_equal(views[4], x[:, :, ::-1])  # mirrored left-right
    flat = {v.tobytes() for v in views}
    assert len(flat) == 8  # all different for a pattern without symmetry
    for v in views:  # each is a rearrangement of the same pixels
        assert np.array_equal(np.sort(v.ravel()), np.sort(x.ravel()))


def test_one_view_is_the_plain_network() -> None:
    net = CountNet()
    x = np.random.default_rng(1).normal(size=(3, 64, 64, 3)).astype(np.float32)
    assert np.allclose(net.mean_logits(x, 1), net.logits(x))


def test_four_views_do_not_depend_on_how_the_crop_is_turned() -> None:
    """The averaged answer is the same for a crop and the crop turned by a quarter turn
    (a pit has no preferred direction); a single view is not (checked, so the test
    can fail)."""
    net = CountNet()
    x = np.random.default_rng(2).normal(size=(2, 64, 64, 3)).astype(np.float32)
    turned = views_of(x, 1)
    assert np.allclose(net.mean_logits(x, 4), net.mean_logits(turned, 4), atol=1e-4)
    assert not np.allclose(net.logits(x), net.logits(turned), atol=1e-3)


def test_count_pit_with_views_is_turn_invariant() -> None:
    crop = drawn_pit(3, rng_seed=5)
    a = count_pit(crop, views=4)
    b = count_pit(np.ascontiguousarray(np.rot90(crop)), views=4)
    assert np.allclose(a.probabilities, b.probabilities, atol=1e-6)
    assert abs(a.count - 3) <= 1


def test_batches_of_more_than_32_match_one_by_one() -> None:
    crops = [drawn_pit(n % 5, rng_seed=n) for n in range(35)]
    batch = count_pits(crops, views=2)
    for crop, r in zip(crops[30:], batch[30:], strict=True):
        assert np.allclose(count_pit(crop, views=2).probabilities, r.probabilities)


@pytest.mark.parametrize("views", [0, 9])
def test_views_out_of_range_raise(views: int) -> None:
    with pytest.raises(ValueError, match="views must be 1..8"):
        CountNet().mean_logits(np.zeros((1, 64, 64, 3), np.float32), views)


def test_temperature_per_view_count(tmp_path: Path) -> None:
    from vision.train_cnn import set_temperatures

    model = tmp_path / "m.npz"
    shutil.copy(MODEL_PATH, model)
    arrays = dict(np.load(model))
    arrays.pop("temperatures", None)
    np.savez_compressed(model, **arrays)
    net = CountNet(model)
    assert net.temperatures is None and net.temperature_for(4) == net.temperature

    # held-out pits: drawn pits of known counts
    counts = np.array([0, 1, 2, 3, 4, 5] * 4, np.int16)
    crops = np.stack([drawn_pit(int(n), rng_seed=100 + i) for i, n in enumerate(counts)])
    data = tmp_path / "val.npz"
    np.savez(data, crops=crops, y=counts, style=np.zeros(len(counts), np.int64))
    line = set_temperatures(model, [data])
    assert line.startswith("temperatures for 1..8 views:")
    net = CountNet(model)
    assert net.temperatures is not None and len(net.temperatures) == 8
    assert all(0.25 <= t <= 4.0 for t in net.temperatures)
    assert net.temperature_for(4) == net.temperatures[3]
    assert net.temperature_for(1) == net.temperatures[0]


def test_pipeline_counts_the_nyumba_from_more_views() -> None:
    from vision.holes import HOLES, NYUMBA
    from vision.pipeline import _default_counter

    crops = [drawn_pit(i % 6, rng_seed=40 + i) for i in range(len(HOLES))]
    got = _default_counter(crops, None, 1, 8)
    for name in ("A1", "b8", *NYUMBA):
        i = HOLES.index(name)
        views = 8 if name in NYUMBA else 1
        assert np.allclose(got[i].probabilities, count_pit(crops[i], views=views).probabilities)
    # the nyumba's 8-view reading differs from its 1-view one (so the test can fail)
    i = HOLES.index("A5")
    assert not np.allclose(got[i].probabilities, count_pit(crops[i], views=1).probabilities)


def _sample_single(folder: Path) -> tuple[dict, dict[str, int], set[str]]:
    """sample_images/singles/synth_1_0003 copied into ``folder``: its label, counts
    and hidden pits."""
    import json

    from vision.count_data import label_counts

    src = SINGLES
    for ext in ("jpg", "json"):
        shutil.copy(src / f"synth_1_0003.{ext}", folder / f"synth_1_0003.{ext}")
    label = json.loads((folder / "synth_1_0003.json").read_text())
    return label, label_counts(label["position"]), set(label.get("occluded_pits") or [])


def test_photo_cuts_only_the_named_pits(tmp_path: Path) -> None:
    """train_cnn photo --holes A5,a5: the nyumba's crops with the label's counts."""
    from vision.train_sets import photo

    _, counts, hidden = _sample_single(tmp_path)
    want = [counts[n] for n in ("A5", "a5") if n not in hidden]
    data = photo([tmp_path], holes={"A5", "a5"})
    assert sorted(data["y"].tolist()) == sorted(want)
    assert data["crops"].shape[1:] == (96, 96, 3)
    assert len(photo([tmp_path])["y"]) > len(want)  # all pits without --holes
    with pytest.raises(SystemExit, match="named"):
        photo([tmp_path], holes={"Z9"})


def test_pipeline_pits_are_cut_where_the_pipeline_finds_them(tmp_path: Path) -> None:
    """train_cnn pipeline: the board pipeline's own crops, with the label's counts;
    pits whose fitted centre is far from the labelled one are left out."""
    from vision.holes import HOLES
    from vision.io import read_image
    from vision.pipeline import recognize
    from vision.train_sets import pipeline_pits

    label, counts, hidden = _sample_single(tmp_path)
    data = pipeline_pits([tmp_path])
    want = [counts[n] for n in HOLES if n not in hidden]
    assert data["y"].tolist() == want  # every visible pit, HOLES order
    assert data["crops"].shape == (len(want), 96, 96, 3)
    # the crops are the pipeline's: its counter sees the same pixels
    seen: list = []
    recognize(read_image(tmp_path / "synth_1_0003.jpg"), south=label["south_side"],
              counter=lambda cs, look: seen.extend(cs) or count_pits(cs))
    keep = [i for i, n in enumerate(HOLES) if n not in hidden]
    assert np.array_equal(data["crops"][0], seen[keep[0]])
    with pytest.raises(SystemExit, match="no board found"):
        pipeline_pits([tmp_path], max_offset_px=-1.0)


def test_the_onnx_network_loads_where_opencv_has_one_engine_only(monkeypatch: pytest.MonkeyPatch) -> None:
    # vision.cnn._read_onnx asks OpenCV 5 for its classic engine (faster here); OpenCV 4
    # has no engines and no ``engine`` argument, and the plain call must serve there
    import cv2

    from vision.cnn import _read_onnx

    onnx = MODEL_PATH.with_suffix(".onnx")
    if hasattr(cv2.dnn, "ENGINE_CLASSIC"):
        monkeypatch.delattr(cv2.dnn, "ENGINE_CLASSIC")
    plain = CountNet(MODEL_PATH)
    assert plain.backend == "opencv"
    x = np.random.default_rng(4).normal(size=(6, 64, 64, 3)).astype(np.float32)
    assert np.abs(plain.logits(x) - CountNet(MODEL_PATH, backend="numpy").logits(x)).max() < 1e-3
    assert not _read_onnx(onnx).empty()


@pytest.mark.parametrize("path", [MODEL_PATH, BROAD_MODEL_PATH], ids=["board", "broad"])
def test_shipped_onnx_network_runs_and_gives_the_numpy_logits(path: Path) -> None:
    # The package ships each network's .onnx beside its weights; OpenCV runs it. A model
    # retrained without rewriting it (python -m vision.train_cnn onnx) fails here.
    fast = CountNet(path)
    slow = CountNet(path, backend="numpy")
    assert (fast.backend, slow.backend) == ("opencv", "numpy")
    rng = np.random.default_rng(3)
    for n in (1, 33):
        x = rng.normal(size=(n, 64, 64, 3)).astype(np.float32)
        a, b = fast.logits(x), slow.logits(x)
        assert a.shape == b.shape == (n, 41)
        assert np.abs(a - b).max() < 1e-3
    crop = drawn_pit(4, rng_seed=2)
    assert np.allclose(fast.probabilities([crop], views=2), slow.probabilities([crop], views=2),
                       atol=1e-4)


def test_copies_of_the_onnx_network_side_by_side_give_its_logits_in_order(monkeypatch) -> None:
    # vision.cnn.DNN_COPIES: with two OpenCV threads, the batches are shared between two
    # copies of the network, each on its own thread. Every input's logits are those of
    # one copy alone, in the inputs' order (13 inputs: batches of 4, 4, 4 and 1), also
    # with two callers at once (the web app's readings may overlap)
    import threading

    import cv2

    import vision.cnn as cnn

    rng = np.random.default_rng(5)
    x = rng.normal(size=(13, 64, 64, 3)).astype(np.float32)
    y = rng.normal(size=(9, 64, 64, 3)).astype(np.float32)
    alone = CountNet(MODEL_PATH)
    monkeypatch.setattr(cnn, "DNN_COPIES", 1)
    want_x, want_y = alone.logits(x), alone.logits(y)
    monkeypatch.setattr(cnn, "DNN_COPIES", 2)
    threads = cv2.getNumThreads()
    cv2.setNumThreads(2)
    try:
        net = CountNet(MODEL_PATH)
        assert np.array_equal(net.logits(x), want_x)
        assert len(net._copies) == 1  # the second copy was used
        assert np.array_equal(net.logits(x[:1]), want_x[:1])  # one batch: one copy
        got: dict[str, np.ndarray] = {}

        def read(name: str, inputs: np.ndarray) -> None:
            for _ in range(5):
                got[name] = net.logits(inputs)

        both = [threading.Thread(target=read, args=a) for a in (("x", x), ("y", y))]
        for t in both:
            t.start()
        for t in both:
            t.join()
        assert np.array_equal(got["x"], want_x) and np.array_equal(got["y"], want_y)
        cv2.setNumThreads(1)  # one OpenCV thread: one copy, the same logits
        assert np.array_equal(net.logits(x), want_x)
    finally:
        cv2.setNumThreads(threads)


def test_stale_onnx_network_is_not_used(tmp_path: Path) -> None:
    # Weights changed but the ONNX file beside them not: the numpy network is used,
    # with a warning naming the file; asking for OpenCV is an error.
    data = dict(np.load(MODEL_PATH))
    data["conv0_b"] = data["conv0_b"] + 0.5
    np.savez(tmp_path / "m.npz", **data)
    shutil.copy(MODEL_PATH.with_suffix(".onnx"), tmp_path / "m.onnx")
    with pytest.warns(RuntimeWarning, match="m.onnx gives other logits"):
        net = CountNet(tmp_path / "m.npz")
    assert net.backend == "numpy"
    with pytest.raises(RuntimeError, match="other logits"):
        CountNet(tmp_path / "m.npz", backend="opencv")


def test_missing_onnx_network_falls_back_to_numpy_quietly(tmp_path: Path) -> None:
    shutil.copy(MODEL_PATH, tmp_path / "m.npz")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        net = CountNet(tmp_path / "m.npz")
    assert net.backend == "numpy"
    with pytest.raises(RuntimeError, match="missing"):
        CountNet(tmp_path / "m.npz", backend="opencv")
    with pytest.raises(ValueError, match="backend"):
        CountNet(tmp_path / "m.npz", backend="torch")


def test_a_widened_model_computes_the_same_logits(tmp_path: Path) -> None:
    # Net2Net: 1.5x the channels, each new one a copy of an old one, the next layer's
    # weights split among the copies; without noise the network is the same function.
    from vision.train_cnn import wider

    data = dict(np.load(MODEL_PATH))
    w = int(data["conv0_w"].shape[0])  # the shipped model's width
    w2 = w * 3 // 2
    wide = wider(data, w2, seed=1)
    assert wide["conv0_w"].shape == (w2, 3, 3, 3)
    ops = [str(o) for o in data["ops"]]
    second = ops[ops.index("pool") + 1]  # the first convolution at half size doubles the width
    assert wide[second + "_w"].shape == (2 * w2, w2, 3, 3)
    fc = [o for o in ops if o.startswith("fc")]  # the two dense layers
    assert wide[fc[0] + "_w"].shape == (4 * w2, 4 * w2) and wide[fc[1] + "_w"].shape == (4 * w2, 41)
    np.savez(tmp_path / "wide.npz", **wide)
    x = np.random.default_rng(4).normal(size=(5, 64, 64, 3)).astype(np.float32)
    a = CountNet(MODEL_PATH, backend="numpy").logits(x)
    b = CountNet(tmp_path / "wide.npz").logits(x)
    assert np.abs(a - b).max() < 1e-3
    # with noise the copies differ, and the function a little
    noisy = wider(data, w2, seed=1, noise=0.02)
    assert not np.array_equal(noisy["conv0_w"][w:], wide["conv0_w"][w:])
    with pytest.raises(ValueError, match="narrow"):
        wider(wide, w)


def test_a_deepened_model_computes_the_same_logits(tmp_path: Path) -> None:
    # Net2DeeperNet: identity 3x3 convolutions added at the end of a scale pass their
    # input (which came out of a ReLU, so is >= 0) through unchanged
    from vision.train_cnn import deeper, stages_of

    data = dict(np.load(MODEL_PATH))
    have = stages_of(data)
    assert len(have) == 4 and min(have) >= 1
    more = (have[0], have[1] + 1, have[2] + 1, have[3])
    deep = deeper(data, more)
    assert stages_of(deep) == more
    ops = [str(o) for o in deep["ops"]]
    assert ops.count("pool") == 3 and ops.count("gap") == 1
    convs = [o for o in ops if o.startswith("conv")]
    assert len(convs) == sum(more)
    assert convs == [f"conv{i}" for i in range(len(convs))]  # renumbered in order
    np.savez(tmp_path / "deep.npz", **deep)
    x = np.random.default_rng(5).normal(size=(5, 64, 64, 3)).astype(np.float32)
    a = CountNet(MODEL_PATH, backend="numpy").logits(x)
    b = CountNet(tmp_path / "deep.npz", backend="numpy").logits(x)
    assert np.abs(a - b).max() < 1e-4
    assert deeper(data, have)["ops"].tolist() == data["ops"].tolist()
    with pytest.raises(ValueError, match="cannot make"):
        deeper(deep, have)  # no layers are taken away


def test_the_stages_option_is_four_counts() -> None:
    import argparse

    from vision.train_cnn import _net, net_stages, parse_stages

    assert parse_stages("1,2,2,2") == (1, 2, 2, 2)
    for bad in ("1,2", "1,2,2,x", "0,1,1,2", ""):
        with pytest.raises(argparse.ArgumentTypeError, match="--stages"):
            parse_stages(bad)
    pytest.importorskip("torch")
    assert net_stages(_net(4, (2, 1, 3, 1))) == (2, 1, 3, 1)


def test_views_already_run_are_reused_not_run_again() -> None:
    # mean_logits(known=(mean over the first n views, n)) runs only the other views and
    # gives the plain mean over all of them (the second look of count_pits); all the
    # views wanted go through the network in one batch
    net = CountNet(backend="numpy")
    x = net.inputs([drawn_pit(n, rng_seed=n) for n in (0, 2, 5)])
    runs: list[int] = []
    plain = net.logits
    net.logits = lambda batch: (runs.append(len(batch)), plain(batch))[1]  # type: ignore[method-assign]
    full = net.mean_logits(x, 4)
    assert runs == [4 * 3]
    runs.clear()
    first = net.mean_logits(x, 1)
    again = net.mean_logits(x, 4, known=(first, 1))
    assert runs == [3, 3 * 3]  # view 0 once, then views 2, 1, 3
    assert np.allclose(again, full, atol=1e-5)
    assert not np.allclose(again, first, atol=1e-3)  # the other views did count
    # views per input: each input's mean over its own views
    runs.clear()
    mixed = net.mean_logits(x, [1, 4, 2])
    assert runs == [1 + 4 + 2]
    assert np.allclose(mixed[0], first[0], atol=1e-5)
    assert np.allclose(mixed[1], full[1], atol=1e-5)
    assert np.allclose(mixed[2], net.mean_logits(x[2:], 2)[0], atol=1e-5)
    later = net.mean_logits(x, [4, 4, 2], known=(mixed, [1, 4, 2]))
    assert np.allclose(later, np.stack([full[0], full[1], mixed[2]]), atol=1e-5)
    with pytest.raises(ValueError, match="known views"):
        net.mean_logits(x, 2, known=(first, 3))
