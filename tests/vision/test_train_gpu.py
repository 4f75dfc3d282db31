"""The accelerator trainer (vision.train_gpu): its batch augmentation must be the CPU
trainer's (OpenCV) augmentation, and a timed run must leave a model the counter loads."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vision import train_gpu as tg  # noqa: E402
from vision.cnn import INPUT, CountNet  # noqa: E402
from vision.seed_density import density_map, transform_points  # noqa: E402
from vision.train_sets import STORE, generate  # noqa: E402


def _params(n: int, seed: int) -> dict:
    g = torch.Generator()
    g.manual_seed(seed)
    return tg.draw_params(n, g, "cpu")


def test_batch_affine_is_opencv_warp_affine() -> None:
    """Turn, scale, shift and mirror of a batch: the same pixels as cv2.warpAffine
    (INTER_LINEAR, BORDER_REFLECT) with cv2.getRotationMatrix2D's matrix."""
    rng = np.random.default_rng(4)
    crops = rng.integers(0, 256, (6, STORE, STORE, 3)).astype(np.uint8)
    crops = cv2.GaussianBlur(crops.reshape(6 * STORE, STORE, 3), (0, 0), 2).reshape(crops.shape)
    p = _params(6, 1)
    m = tg.rotation_matrices(p)
    out = tg.batch_affine(torch.from_numpy(crops).permute(0, 3, 1, 2).float(), m, p["flip"])
    for i in range(6):
        mc = cv2.getRotationMatrix2D((STORE / 2, STORE / 2), float(p["angle"][i]), float(p["scale"][i]))
        mc[:, 2] += INPUT / 2 - STORE / 2 + p["shift"][i].numpy()
        assert np.allclose(mc, m[i].numpy(), atol=1e-4)
        ref = cv2.warpAffine(crops[i].astype(np.float32), mc, (INPUT, INPUT), flags=cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_REFLECT)
        if p["flip"][i]:
            ref = ref[:, ::-1]
        assert np.abs(ref - out[i].permute(1, 2, 0).numpy()).max() < 0.05


def test_seed_points_land_on_their_seeds() -> None:
    """A bright dot drawn at a seed point ends up where the moved point says, and the
    moved points are those of the CPU trainer (transform_points)."""
    pts = np.array([[30.0, 60.0], [70.0, 25.0]], np.float32)
    crops = np.zeros((8, STORE, STORE, 3), np.uint8)
    for c in crops:
        cv2.circle(c, (30, 60), 2, (255, 255, 255), -1)
    g = torch.Generator()
    g.manual_seed(9)
    padded = torch.full((8, 5, 2), float("nan"))
    padded[:, :2] = torch.from_numpy(pts)
    _x, moved = tg.augment_batch(torch.from_numpy(crops), g, padded)
    g.manual_seed(9)
    p = tg.draw_params(8, g, "cpu")
    m = tg.rotation_matrices(p)
    warped = tg.batch_affine(torch.from_numpy(crops).permute(0, 3, 1, 2).float(), m, p["flip"])
    assert moved is not None
    for i in range(8):
        ref = transform_points(pts, m[i].numpy(), INPUT if bool(p["flip"][i]) else None)
        assert np.allclose(moved[i, :2].numpy(), ref, atol=1e-3)
        assert torch.isnan(moved[i, 2:]).all()
        img = warped[i, 0].numpy()
        ys, xs = np.nonzero(img > 0.5 * img.max())
        assert abs(xs.mean() - ref[0, 0]) < 1.0 and abs(ys.mean() - ref[0, 1]) < 1.0


def test_batch_blur_is_opencv_gaussian_blur() -> None:
    rng = np.random.default_rng(5)
    x = torch.from_numpy(rng.uniform(0, 255, (4, 3, INPUT, INPUT)).astype(np.float32))
    sigma = torch.tensor([0.4, 0.0, 0.9, 1.2])
    out = tg.batch_blur(x, sigma)
    for i in range(4):
        img = x[i].permute(1, 2, 0).numpy()
        ref = img if sigma[i] == 0 else cv2.GaussianBlur(img, (0, 0), float(sigma[i]))
        assert np.abs(ref - out[i].permute(1, 2, 0).numpy()).max() < 0.05


def test_density_maps_are_the_cpu_density_maps() -> None:
    rng = np.random.default_rng(6)
    pts = np.full((3, 8, 2), np.nan, np.float32)
    pts[0, :5] = rng.uniform(0, INPUT, (5, 2))
    pts[1, :8] = rng.uniform(-10, INPUT + 10, (8, 2))  # some off the crop: counted at the edge
    got = tg.density_maps(torch.from_numpy(pts)).numpy()
    for i in range(3):
        assert np.allclose(got[i], density_map(pts[i], INPUT), atol=1e-5)
    assert got[1].sum() == pytest.approx(8.0, abs=1e-4) and got[2].sum() == 0.0


def test_augmented_inputs_are_standardised_and_varied() -> None:
    crops = torch.from_numpy(generate(8, seed=3)["crops"])
    g = torch.Generator()
    g.manual_seed(2)
    x, moved = tg.augment_batch(crops, g)
    assert moved is None and x.shape == (8, 3, INPUT, INPUT)
    assert torch.allclose(x.mean(dim=(1, 2, 3)), torch.zeros(8), atol=1e-4)
    assert (x.std(dim=(1, 2, 3)) < 1.0).all() and (x.std(dim=(1, 2, 3)) > 0.5).all()
    again, _ = tg.augment_batch(crops, g)
    assert not torch.allclose(x, again)


def test_learning_rate_is_one_cycle_over_the_run() -> None:
    lr = [tg.one_cycle(f, 1e-3) for f in np.linspace(0, 1, 101)]
    assert lr[0] == pytest.approx(1e-3 / 25)
    assert max(lr) == pytest.approx(1e-3) and int(np.argmax(lr)) == 15
    assert all(a >= b for a, b in zip(lr[15:], lr[16:], strict=False))
    assert lr[-1] < 1e-7


def test_a_timed_run_leaves_a_model_the_counter_loads(tmp_path: Path) -> None:
    data = tmp_path / "proc.npz"
    np.savez(data, **generate(48, seed=1))  # type: ignore[arg-type]
    out = tmp_path / "m.npz"
    res = tg.fit_timed([data], [data], out, seconds=1.5, batch=16, val_every=0.5, device="cpu",
                       density_weight=0.5)
    assert res["steps"] > 0 and res["history"] and out.exists()
    net = CountNet(out)
    p = net.probabilities(list(np.load(data)["crops"][:4]), 1)
    assert p.shape == (4, 41) and np.allclose(p.sum(axis=1), 1.0)


def test_keep_holds_a_fine_tune_near_what_the_init_model_reads(tmp_path: Path) -> None:
    """Every crop labelled empty, whatever it holds: a fine-tune with keep 0 learns to read
    the pits of 3+ seeds as empty; with keep 0.95 most of each target is what the shipped
    network reads, so those pits are read as it read them."""
    sets = generate(64, seed=2)
    held = sets["y"] >= 3
    wrong = dict(sets, y=np.zeros_like(sets["y"]))
    data = tmp_path / "empty.npz"
    np.savez(data, **wrong)  # type: ignore[arg-type]
    init = Path(__file__).resolve().parents[2] / "vision" / "models" / "counter_cnn.npz"
    crops = torch.from_numpy(sets["crops"][held])
    gen = torch.Generator()

    def empty_share(model: Path) -> float:
        net = tg.start_net(16, model).eval()
        gen.manual_seed(5)
        x, _ = tg.augment_batch(crops, gen)
        with torch.no_grad():
            return float(torch.softmax(net(x), dim=1)[:, 0].mean())

    shares = {}
    for keep in (0.0, 0.95):
        out = tmp_path / f"k{keep}.npz"
        tg.fit_timed([data], [data], out, seconds=4.0, batch=32, val_every=100.0, device="cpu",
                     init=init, max_lr=3e-3, keep=keep, seed=1)
        shares[keep] = empty_share(out)
    before = empty_share(init)
    assert before < 0.2
    assert shares[0.0] > 0.5 > shares[0.95]
    with pytest.raises(ValueError, match="keep must be"):
        tg.fit_timed([data], [data], tmp_path / "x.npz", seconds=1.0, device="cpu", keep=0.5)
