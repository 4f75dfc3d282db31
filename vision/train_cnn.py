"""Train the pit counter's convolutional network (:mod:`vision.cnn`) on the CPU.

Subcommands::

    python -m vision.train_cnn gen PROC.npz --n 20000 --seed 1        # procedural crops
    python -m vision.train_cnn photo PHOTO.npz DIR [DIR ...] [--every K] [--camera]  # cut photoreal pits
    python -m vision.train_cnn pipeline PIPE.npz DIR [DIR ...]           # pits as the board pipeline cuts them
    python -m vision.train_cnn fit --data PROC.npz PHOTO.npz --val VAL.npz --out MODEL.npz
    python -m vision.train_cnn temper MODEL.npz VAL.npz [...]            # temperatures per view count
    python -m vision.train_cnn widen MODEL.npz HELDOUT.npz [...]         # fit the heap widening

``gen`` draws crops with :mod:`vision.synth_pits` (a new random style every 4
crops, so the network cannot learn one board). ``photo`` cuts every pit of the
labelled renders in the folders exactly as the board pipeline does (96 px,
pit diameter 0.85 of the side, :mod:`vision.count_data`), skipping pits marked
occluded; ``--every K`` keeps one image in K (game frames are near copies of
each other). ``pipeline`` cuts them instead where the board pipeline
(:func:`vision.pipeline.recognize`) finds them, with its own grid, centres and
crop radius (for fitting the heap widening on the crops the pipeline reads). ``fit`` needs PyTorch (``pip install torch``: training only; the
product runs the exported weights with numpy, :mod:`vision.cnn`). It trains
with random scale/shift/rotation/flip and colour augmentation (the pipeline's
grid is a few pixels off and real crops are framed by hand), a soft ordinal
target (a Gaussian around the true count, wider for heaps: hidden seeds make
the exact count unknowable), keeps the epoch with the best held-out loss,
fits a temperature on the held-out set, and writes the folded weights.
``temper`` fits the temperatures for logits averaged over 1..8 turned views
(inference averages ``CountConfig.views`` of them; averages are less extreme).
``widen`` fits :func:`vision.cnn.widen`'s blur of big heaps on pits the model
never saw (the network underestimates heaps and is too sure of them) so that
the 90 % interval holds the truth for 95 % of heaps of 16+, and stores it in
the model file. Crops are stored as 96 x 96 BGR uint8.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import cv2
import numpy as np

from vision.cnn import INPUT, N_COUNTS, WIDENING_KEYS, calibrated, preprocess, resize_input
from vision.config import CountConfig
from vision.seed_density import MAX_POINTS, density_map, transform_points
from vision.train_sets import STORE, generate, photo, pipeline_pits

# ---------------------------------------------------------------- augmentation


def augment(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A randomly framed, rotated, recoloured INPUT x INPUT version of a stored crop."""
    return augment_with_points(crop, np.zeros((0, 2), np.float32), rng)[0]


def augment_with_points(crop: np.ndarray, points: np.ndarray,
                        rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """:func:`augment`, and where ``points`` (n, 2) of the stored crop land in it."""
    scale = INPUT / STORE * math.exp(rng.uniform(-0.17, 0.17))
    ang = rng.uniform(0, 360)
    shift = rng.normal(0, 0.045 * INPUT, 2).clip(-0.1 * INPUT, 0.1 * INPUT)
    m = cv2.getRotationMatrix2D((STORE / 2, STORE / 2), ang, scale)
    m[:, 2] = m[:, 2] + (INPUT / 2 - STORE / 2 + shift)
    out = cv2.warpAffine(crop, m, (INPUT, INPUT), flags=cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REFLECT)
    flip = rng.random() < 0.5
    if flip:
        out = out[:, ::-1]
    x = out.astype(np.float32)
    x *= rng.uniform(0.6, 1.4) * rng.uniform(0.85, 1.15, 3).astype(np.float32)  # exposure, tint
    x = (x - x.mean()) * rng.uniform(0.75, 1.25) + x.mean()  # contrast
    if rng.random() < 0.3:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.4, 1.2))
    if rng.random() < 0.3:
        x += rng.normal(0, rng.uniform(2, 8), x.shape).astype(np.float32)
    if rng.random() < 0.1:
        x = np.repeat(x.mean(axis=2, keepdims=True), 3, axis=2)
    return np.clip(x, 0, 255).astype(np.uint8), transform_points(points, m, INPUT if flip else None)


def centre(crop: np.ndarray) -> np.ndarray:
    """The unaugmented INPUT x INPUT view of a stored crop (what inference sees)."""
    return resize_input(crop)


def soft_targets(y: np.ndarray) -> np.ndarray:
    """Gaussian targets over 0..40 around each count, sd 0.25 + 0.06 n (heaps hide seeds)."""
    n = np.arange(N_COUNTS, dtype=np.float32)
    sd = 0.25 + 0.06 * y.astype(np.float32)
    t = np.exp(-0.5 * ((n[None, :] - y[:, None]) / sd[:, None]) ** 2)
    return t / t.sum(axis=1, keepdims=True)


# ---------------------------------------------------------------- training


#: convolutions at each of the network's four scales (64, 32, 16 and 8 px) when neither
#: ``--stages`` nor ``--init`` says: the broad network's shape, and the board network's
#: until the twenty-fifth session (it has 2, 2, 2, 2 since). A deeper network than its
#: ``--init`` starts as that model with identity convolutions inserted (:func:`deeper`)
STAGES = (1, 1, 1, 2)


def _net(width: int, stages: tuple[int, ...] = STAGES):
    import torch.nn as nn

    w = width
    check_stages(stages)

    def block(cin: int, cout: int) -> list:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]

    layers: list = []
    for s, (cin, cout) in enumerate(((3, w), (w, 2 * w), (2 * w, 4 * w), (4 * w, 4 * w))):
        layers += block(cin, cout)
        for _ in range(stages[s] - 1):
            layers += block(cout, cout)
        if s < 3:
            layers.append(nn.MaxPool2d(2))
    return nn.Sequential(
        *layers,
        nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(4 * w, 4 * w), nn.ReLU(),
        nn.Linear(4 * w, N_COUNTS),
    )


def check_stages(stages: tuple[int, ...]) -> None:
    """ValueError unless ``stages`` is four numbers of convolutions, each 1 or more."""
    if len(stages) != 4 or min(stages) < 1:
        raise ValueError(f"stages: four numbers of convolutions, each 1 or more (got {stages})")


def parse_stages(text: str) -> tuple[int, ...]:
    """``--stages`` as given on the command line: four numbers, as 1,2,2,2."""
    try:
        stages = tuple(int(v) for v in text.split(","))
        check_stages(stages)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--stages: four whole numbers of 1 or more, such as 1,2,2,2, not {text!r}") from None
    return stages


def stages_of(data: dict[str, np.ndarray]) -> tuple[int, ...]:
    """An exported model's convolutions at each scale (its ``ops`` split at the pools)."""
    ops = [str(o) for o in data["ops"]]
    convs = ops[:ops.index("gap")]
    counts = [0]
    for o in convs:
        if o == "pool":
            counts.append(0)
        else:
            counts[-1] += 1
    return tuple(counts)


def deeper(data: dict[str, np.ndarray], stages: tuple[int, ...]) -> dict[str, np.ndarray]:
    """An exported model with identity convolutions added at the end of each scale until
    it has ``stages`` convolutions there, computing the same thing (Net2DeeperNet: each
    added layer passes its input through, and the ReLU after it changes nothing, since
    its input already came out of a ReLU). The layers are renumbered in order."""
    have = stages_of(data)
    if len(stages) != len(have) or any(n < h for n, h in zip(stages, have, strict=True)):
        raise ValueError(f"cannot make a model of stages {have} into {tuple(stages)}")
    ops = [str(o) for o in data["ops"]]
    out: dict[str, np.ndarray] = {k: np.asarray(v) for k, v in data.items()
                                  if not k.startswith(("conv", "fc"))}
    new_ops: list[str] = []
    k = 0
    scale = 0
    last_conv = ""

    def add(kind: str, w: np.ndarray, b: np.ndarray) -> None:
        nonlocal k
        out[f"{kind}{k}_w"], out[f"{kind}{k}_b"] = w, b
        new_ops.append(f"{kind}{k}")
        k += 1

    def pad_scale() -> None:
        c = out[last_conv + "_w"].shape[0]
        for _ in range(stages[scale] - have[scale]):
            ident = np.zeros((c, c, 3, 3), np.float32)
            ident[np.arange(c), np.arange(c), 1, 1] = 1.0
            add("conv", ident, np.zeros(c, np.float32))

    for o in ops:
        if o.startswith("conv"):
            add("conv", np.asarray(data[o + "_w"]), np.asarray(data[o + "_b"]))
            last_conv = new_ops[-1]
        elif o in ("pool", "gap"):
            pad_scale()
            scale += 1
            new_ops.append(o)
        elif o.startswith("fc"):
            add("fc", np.asarray(data[o + "_w"]), np.asarray(data[o + "_b"]))
        else:
            new_ops.append(o)
    out["ops"] = np.array(new_ops)
    return out


def wider(data: dict[str, np.ndarray], width: int, seed: int = 0, noise: float = 0.0,
          ) -> dict[str, np.ndarray]:
    """An exported model's layers made ``width / old width`` times wider without
    changing what it computes (Net2Net): each new channel copies a random old one,
    and the layer after takes each copied channel's weights divided by the number
    of its copies (max pooling, ReLU and the global average keep copies equal).
    ``noise``: a relative spread added to the copies' weights, so that training
    can make them differ."""
    rng = np.random.default_rng(seed)
    ops = [str(o) for o in data["ops"]]
    out = {k: np.asarray(v) for k, v in data.items()}
    layers = [o for o in ops if o.startswith(("conv", "fc"))]
    old = int(data[layers[0] + "_w"].shape[0])
    if width == old:
        return out
    if width < old:
        raise ValueError(f"cannot narrow a width-{old} model to {width}")
    g_prev: np.ndarray | None = None  # how the previous layer's outputs were copied
    for i, name in enumerate(layers):
        w, b = out[name + "_w"].astype(np.float64), out[name + "_b"].astype(np.float64)
        conv = name.startswith("conv")
        if g_prev is not None:  # inputs copied: split their weight among the copies
            share = 1.0 / np.bincount(g_prev)[g_prev]
            w = w[:, g_prev] * share[None, :, None, None] if conv else w[g_prev] * share[:, None]
        last = i == len(layers) - 1
        n_out = w.shape[0] if conv else w.shape[1]
        if last:
            g_prev = None
        else:
            new = n_out * width // old
            g = np.concatenate([np.arange(n_out), rng.integers(0, n_out, new - n_out)])
            w = w[g] if conv else w[:, g]
            b = b[g]
            if noise > 0:
                copies = np.arange(new) >= n_out
                scale = noise * float(np.std(w))
                if conv:
                    w[copies] += rng.normal(0, scale, w[copies].shape)
                else:
                    w[:, copies] += rng.normal(0, scale, w[:, copies].shape)
            g_prev = g
        out[name + "_w"], out[name + "_b"] = w.astype(np.float32), b.astype(np.float32)
    return out


def load_exported(net, path: Path, seed: int = 0) -> None:
    """Start ``net`` from an exported model (:func:`export`): the folded convolutions
    as weights, their biases in identity batch norms (kept frozen by ``fit``). A
    narrower model is widened to ``net``'s width first (:func:`wider`), and a shallower one
    deepened to its stages (:func:`deeper`)."""
    import torch
    import torch.nn as nn

    data: dict[str, np.ndarray] = dict(np.load(path))
    first = next(m for m in net if isinstance(m, nn.Conv2d))
    if data["conv0_w"].shape[0] < first.out_channels:
        data = wider(data, first.out_channels, seed=seed, noise=0.02)
    want = net_stages(net)
    if stages_of(data) != want:
        data = deeper(data, want)
    convs = [m for m in net if isinstance(m, nn.Conv2d)]
    norms = [m for m in net if isinstance(m, nn.BatchNorm2d)]
    dense = [m for m in net if isinstance(m, nn.Linear)]
    names = [str(o) for o in data["ops"]]
    conv_names = [n for n in names if n.startswith("conv")]
    fc_names = [n for n in names if n.startswith("fc")]
    if len(conv_names) != len(convs) or len(fc_names) != len(dense):
        raise ValueError(f"{path}: {len(conv_names)} conv / {len(fc_names)} dense layers, "
                         f"the network has {len(convs)} / {len(dense)}")
    with torch.no_grad():
        for conv, bn, name in zip(convs, norms, conv_names, strict=True):
            w = torch.from_numpy(data[name + "_w"].astype(np.float32))
            if w.shape != conv.weight.shape:
                raise ValueError(f"{path}: {name} is {tuple(w.shape)}, the network's "
                                 f"{tuple(conv.weight.shape)} (another --width?)")
            conv.weight.copy_(w)
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(data[name + "_b"].astype(np.float32)))
            assert bn.running_mean is not None and bn.running_var is not None
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        for fc, name in zip(dense, fc_names, strict=True):
            fc.weight.copy_(torch.from_numpy(data[name + "_w"].T.astype(np.float32)))
            fc.bias.copy_(torch.from_numpy(data[name + "_b"].astype(np.float32)))


def net_stages(net) -> tuple[int, ...]:  # noqa: ANN001 - a torch module
    """A training network's convolutions at each scale."""
    import torch.nn as nn

    counts = [0]
    for m in net:
        if isinstance(m, nn.Conv2d):
            counts[-1] += 1
        elif isinstance(m, nn.MaxPool2d):
            counts.append(0)
    return tuple(counts)


def export(net, temperature: float, out: Path, meta: dict) -> None:
    """Fold batch norms into the convolutions and write numpy weights."""
    import torch.nn as nn

    arrays: dict[str, np.ndarray] = {}
    layers = list(net)
    k = 0
    i = 0
    ops = []
    while i < len(layers):
        layer = layers[i]
        if isinstance(layer, nn.Conv2d):
            bn = layers[i + 1]
            w = layer.weight.detach().numpy().astype(np.float64)
            g = (bn.weight / (bn.running_var + bn.eps).sqrt()).detach().numpy().astype(np.float64)
            b = (bn.bias.detach().numpy() - bn.running_mean.detach().numpy() * g)
            arrays[f"conv{k}_w"] = (w * g[:, None, None, None]).astype(np.float32)
            arrays[f"conv{k}_b"] = b.astype(np.float32)
            ops.append(f"conv{k}")
            k += 1
            i += 3  # conv, bn, relu
            continue
        if isinstance(layer, nn.MaxPool2d):
            ops.append("pool")
        elif isinstance(layer, nn.Linear):
            arrays[f"fc{k}_w"] = layer.weight.detach().numpy().T.astype(np.float32)
            arrays[f"fc{k}_b"] = layer.bias.detach().numpy().astype(np.float32)
            ops.append(f"fc{k}")
            k += 1
        elif isinstance(layer, nn.ReLU):
            ops.append("relu")
        elif isinstance(layer, nn.AdaptiveAvgPool2d):
            ops.append("gap")
        i += 1
    np.savez_compressed(out, ops=np.array(ops), temperature=np.float32(temperature),
                        input=np.int32(INPUT), meta=np.array(repr(meta)), **arrays)  # type: ignore[arg-type]


def load_sets(paths: list[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The crop files ``paths`` (``gen`` / ``photo`` / ``pipeline``) joined: crops, counts
    (int64), style ids, seed points (NaN-padded; all NaN where not known) and point
    counts (int64, -1 where not known)."""
    parts = [dict(np.load(p)) for p in paths]
    crops = np.concatenate([p["crops"] for p in parts])
    y = np.concatenate([p["y"] for p in parts]).astype(np.int64)
    style = np.concatenate([p["style"] for p in parts])
    points = np.concatenate([p["points"] if "points" in p else
                             np.full((len(p["y"]), MAX_POINTS, 2), np.nan, np.float32) for p in parts])
    npoints = np.concatenate([p["npoints"] if "npoints" in p else
                              np.full(len(p["y"]), -1, np.int16) for p in parts]).astype(np.int64)
    return crops, y, style, points, npoints


def load_val(paths: list[Path]) -> tuple[np.ndarray, np.ndarray]:
    """Held-out crop files as network inputs, (N, 3, INPUT, INPUT) float32 as inference
    sees them (unaugmented), and their counts (int64)."""
    parts = [dict(np.load(p)) for p in paths]
    x = np.stack([preprocess(centre(c)) for p in parts for c in p["crops"]])
    y = np.concatenate([p["y"] for p in parts]).astype(np.int64)
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2)), y


def start_net(width: int, init: Path | None,
              stages: tuple[int, ...] | None = None):  # noqa: ANN201 - a torch module
    """The training network, from an exported model when ``init`` is given. ``stages``
    (default: ``init``'s, else :data:`STAGES`): convolutions at each scale."""
    import torch

    if stages is None:
        stages = stages_of(dict(np.load(init))) if init is not None else STAGES
    net = _net(width, stages)
    if init is not None:
        load_exported(net, init)
    return net.to(memory_format=torch.channels_last)


def sample_weights(y: np.ndarray, style: np.ndarray, photo_weight: float,
                   balance: float) -> np.ndarray:
    """Each crop's chance of being drawn into a batch (summing to 1): the photoreal crops
    (``style`` < 0) together weigh ``photo_weight`` times their number against the
    procedural ones, and within each source the count prior is flattened by ``balance``
    (0: none, 1: uniform over counts up to 20+), so that the output acts more like a
    likelihood than a prior."""
    weight = np.ones(len(y))
    for src, mass in ((style < 0, photo_weight), (style >= 0, 1.0)):
        if not src.any():
            continue
        freq = np.bincount(np.minimum(y[src], 20), minlength=21).astype(np.float64)
        w = 1.0 / np.maximum(freq[np.minimum(y[src], 20)], 1.0) ** balance
        weight[src] = w * mass * src.sum() / w.sum()
    return weight / weight.sum()


def fit(data: list[Path], val: list[Path], out: Path, epochs: int, width: int, seed: int,
        photo_weight: float, threads: int, steps: int = 200, balance: float = 0.0, batch: int = 128,
        init: Path | None = None, max_lr: float = 3e-3, density_weight: float = 0.0,
        stages: tuple[int, ...] | None = None) -> None:
    """Train the counter on the crop files ``data`` (validated on ``val``) and export it.
    ``stages``: the convolutions at each scale (:func:`start_net`).

    ``density_weight`` > 0 also trains a 1x1 convolution on the last feature map to
    draw each crop's seed density (:mod:`vision.seed_density`; crops whose seed points
    are known), its squared error over the map, divided by 1 + the count, weighted by
    this much against the count's cross-entropy. The head is not exported."""
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    crops, y, style, points, npoints = load_sets(data)
    weight = sample_weights(y, style, photo_weight, balance)
    vx, vy = load_val(val)
    vx_t = torch.from_numpy(vx)
    print(f"train {len(y)} crops ({np.count_nonzero(style < 0)} photoreal, "
          f"{np.count_nonzero(npoints >= 0)} with seed points), val {len(vy)}",
          file=sys.stderr, flush=True)
    net = start_net(width, init, stages)
    head = torch.nn.Conv2d(4 * width, 1, 1) if density_weight > 0 else None
    body, top = net[:-5], net[-5:]  # the last feature map (GRID x GRID), then pool and dense
    steps_per_epoch = steps
    opt = torch.optim.AdamW(list(net.parameters()) + ([] if head is None else list(head.parameters())),
                            lr=2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=max_lr, total_steps=epochs * steps_per_epoch,
                                                pct_start=0.15)
    best, best_state = float("inf"), None
    t0 = time.time()
    for ep in range(epochs):
        net.train()
        if init is not None:  # fine-tuning: the batch norms stay the folded model's
            for m in net.modules():
                if isinstance(m, torch.nn.BatchNorm2d):
                    m.eval()
        tot = tot_d = 0.0
        for _ in range(steps_per_epoch):
            idx = rng.choice(len(y), batch, p=weight)
            moved = [augment_with_points(crops[j], points[j, :max(int(npoints[j]), 0)], rng)
                     for j in idx]
            xs = [preprocess(a) for a, _q in moved]
            xb = torch.from_numpy(np.stack(xs)).permute(0, 3, 1, 2).contiguous(
                memory_format=torch.channels_last)
            tb = torch.from_numpy(soft_targets(y[idx]))
            feats = body(xb)
            loss = -(tb * F.log_softmax(top(feats), dim=1)).sum(dim=1).mean()
            if head is not None:
                known = torch.from_numpy((npoints[idx] >= 0).astype(np.float32))
                dens = torch.from_numpy(np.stack([density_map(q, INPUT) for _a, q in moved]))
                err = ((F.softplus(head(feats))[:, 0] - dens) ** 2).sum(dim=(1, 2))
                dloss = (err * known / (1.0 + torch.from_numpy(y[idx].astype(np.float32)))).mean()
                loss = loss + density_weight * dloss
                tot_d += float(dloss.detach())
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss.detach())
        net.eval()
        with torch.no_grad():
            vl = torch.cat([net(vx_t[i:i + 512]) for i in range(0, len(vy), 512)])
        vloss = float(F.cross_entropy(vl, torch.from_numpy(vy)))
        pred = vl.argmax(1).numpy()
        small = vy <= 8
        acc08 = float((pred[small] == vy[small]).mean())
        print(f"epoch {ep + 1}/{epochs} train {tot / steps_per_epoch:.3f} "
              f"density {tot_d / steps_per_epoch:.3f} val {vloss:.3f} "
              f"exact0-8 {acc08:.3f} all {float((pred == vy).mean()):.3f} {time.time() - t0:.0f}s",
              file=sys.stderr, flush=True)
        if vloss < best:
            best = vloss
            best_state = {k: v.clone() for k, v in net.state_dict().items()}
            # written at every improvement, so a run stopped early leaves its best model
            temp = fit_temperature(vl.numpy(), vy)
            export(net, temp, out, {"data": [str(p) for p in data], "val": [str(p) for p in val],
                                    "epochs": epochs, "epochs_done": ep + 1, "width": width,
                                    "seed": seed, "photo_weight": photo_weight, "balance": balance,
                                    "best_val": best, "init": str(init) if init else None,
                                    "max_lr": max_lr, "density_weight": density_weight})
            print(f"wrote {out} (epoch {ep + 1}, temperature {temp:.3f})", file=sys.stderr, flush=True)
    assert best_state is not None
    print(set_temperatures(out, val), file=sys.stderr, flush=True)
    print(f"wrote {write_onnx(out)}", file=sys.stderr, flush=True)


def write_onnx(model: Path, out: Path | None = None) -> Path:
    """Write an exported model's network (``model``, .npz) as ONNX, by default beside
    it with the same stem, for OpenCV's dnn module (:class:`vision.cnn.CountNet` uses
    it when it gives the same logits). Needs torch and onnx."""
    import torch

    data = dict(np.load(model))
    net = _net(int(data["conv0_w"].shape[0]), stages_of(data))
    load_exported(net, model)
    net.eval()
    out = model.with_suffix(".onnx") if out is None else out
    with warnings.catch_warnings():  # (the TorchScript exporter is deprecated; it needs
        warnings.simplefilter("ignore", DeprecationWarning)  # no onnxscript)
        torch.onnx.export(net, (torch.zeros(2, 3, INPUT, INPUT),), str(out), dynamo=False,
                          input_names=["x"], output_names=["logits"], opset_version=13,
                          dynamic_axes={"x": {0: "n"}, "logits": {0: "n"}})
    return out


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    """The softmax temperature minimising held-out negative log-likelihood (grid search)."""
    best_t, best_nll = 1.0, float("inf")
    for t in np.exp(np.linspace(np.log(0.25), np.log(4.0), 57)):
        p = calibrated(logits, float(t))
        nll = float(-np.log(p[np.arange(len(y)), y] + 1e-12).mean())
        if nll < best_nll:
            best_t, best_nll = float(t), nll
    return best_t


def fit_widening(p: np.ndarray, y: np.ndarray, target: float = 0.95
                 ) -> tuple[tuple[float, float, float, float, float], str]:
    """Heap widening (widen, widen_from, widen_up, widen_tail, widen_tail_up) for
    probabilities ``p`` of pits with true counts ``y``: the lowest mean log loss among
    the settings whose 90 % intervals hold the truth for at least ``target`` of the
    pits of 16+ (the best coverage if none does), among those that leave the most
    likely count of pits of up to 8 seeds as right as it was (an upward blur moves
    the mode of small heaps). The blur starts at a mean of 8 seeds or more: started
    lower, it moved the most likely count of pits of 4-8 seeds on ordinary boards
    though a set of heaps chose it. Returns the setting and a line of figures."""
    from vision.cnn import widen
    from vision.count import interval

    big = y >= 16
    small = y <= 8
    exact0 = float(np.mean(p[small].argmax(1) == y[small]))
    tails = [(0.0, 0.0)] + [(t, u) for t in (0.2, 0.3, 0.4) for u in (4.0, 6.0, 8.0)]
    best: tuple[float, float, tuple[float, float, float, float, float]] | None = None
    for start in (8.0, 10.0):  # pits read as 8 or fewer are left alone, whatever the data
        for w in (0.25, 0.4, 0.5):
            for up in (1.0, 1.5, 2.0, 3.0):
                for tail, tail_up in tails:
                    setting = (w, start, up, tail, tail_up)
                    q = widen(p, *setting)
                    if np.mean(q[small].argmax(1) == y[small]) < exact0 - 0.002:
                        continue
                    nll = float(-np.log(q[np.arange(len(y)), y] + 1e-12).mean())
                    cover = float(np.mean([lo <= t <= hi for t, (lo, hi) in
                                           zip(y[big], (interval(r, 0.9) for r in q[big]),
                                               strict=True)])) if big.any() else 1.0
                    if best is None or (min(cover, target), -nll) > (min(best[0], target), -best[1]):
                        best = (cover, nll, setting)
    assert best is not None
    cover, nll, (w, start, up, tail, tail_up) = best
    return best[2], (f"widen {w:.3f} from {start:.0f} up {up:.3f}, tail {tail:.2f} up {tail_up:.1f}: "
                     f"16+ covered {cover:.3f} (n={int(big.sum())}), log loss {nll:.3f}")


def set_temperatures(model: Path, data: list[Path]) -> str:
    """Fit the softmax temperature of ``model`` for logits averaged over 1..8 views
    (:meth:`vision.cnn.CountNet.mean_logits`) on the pits in ``data`` (held out from
    training), and store them in the model file as ``temperatures``."""
    from vision.cnn import CountNet

    net = CountNet(model)
    parts = [dict(np.load(d)) for d in data]
    x = np.stack([preprocess(centre(c)) for part in parts for c in part["crops"]])
    y = np.concatenate([part["y"] for part in parts]).astype(np.int64)
    temps = [fit_temperature(net.mean_logits(x, v), y) for v in range(1, 9)]
    arrays = dict(np.load(model))
    arrays.update(temperatures=np.asarray(temps, np.float32))
    np.savez_compressed(model, **arrays)
    return "temperatures for 1..8 views: " + " ".join(f"{t:.3f}" for t in temps)


def set_widening(model: Path, data: list[Path], target: float = 0.95,
                 views: int = CountConfig.views) -> str:
    """Fit the heap widening of ``model`` on the pits in ``data`` (``photo`` files), with
    the logits averaged over ``views`` views as the pipeline runs it, and store it in
    the model file (run :func:`set_temperatures` first: the widening is fitted on
    calibrated distributions)."""
    from vision.cnn import CountNet

    net = CountNet(model)
    net.widening = (0.0,) * len(WIDENING_KEYS)
    parts = [dict(np.load(d)) for d in data]
    crops = [c for part in parts for c in part["crops"]]
    y = np.concatenate([part["y"] for part in parts]).astype(np.int64)
    p = np.concatenate([net.probabilities(crops[i:i + 256], views)
                        for i in range(0, len(crops), 256)])
    setting, line = fit_widening(p, y, target)
    arrays = dict(np.load(model))
    arrays.update({k: np.float32(v) for k, v in zip(WIDENING_KEYS, setting, strict=True)})
    np.savez_compressed(model, **arrays)
    return line


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen", help="procedural crops")
    g.add_argument("out", type=Path)
    g.add_argument("--n", type=int, default=20000)
    g.add_argument("--seed", type=int, default=1)
    p = sub.add_parser("photo", help="pits of labelled renders")
    p.add_argument("out", type=Path)
    p.add_argument("folders", type=Path, nargs="+")
    p.add_argument("--every", type=int, default=1)
    p.add_argument("--holes", default=None,
                   help="only these pits, comma-separated (e.g. A5,a5: the square nyumba)")
    p.add_argument("--camera", action="store_true",
                   help="cut each pit as the camera sees it (a photo of one pit), not from "
                        "the rectified top view")
    pp = sub.add_parser("pipeline", help="pits of labelled renders as the board pipeline cuts them")
    pp.add_argument("out", type=Path)
    pp.add_argument("folders", type=Path, nargs="+")
    f = sub.add_parser("fit", help="train and export (needs torch)")
    f.add_argument("--data", type=Path, nargs="+", required=True)
    f.add_argument("--val", type=Path, nargs="+", required=True)
    f.add_argument("--out", type=Path, required=True)
    f.add_argument("--epochs", type=int, default=12)
    f.add_argument("--width", type=int, default=16)
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--photo-weight", type=float, default=3.0)
    f.add_argument("--threads", type=int, default=1)
    f.add_argument("--balance", type=float, default=0.0,
                   help="flatten the count prior: sample weight ~ frequency ** -BALANCE")
    f.add_argument("--steps", type=int, default=200, help="batches of 128 per epoch")
    f.add_argument("--init", type=Path, default=None,
                   help="start from this exported model (fine-tuning; batch norms frozen)")
    f.add_argument("--max-lr", type=float, default=3e-3,
                   help="peak learning rate (default 3e-3; ~5e-4 to fine-tune)")
    f.add_argument("--stages", type=parse_stages, default=None,
                   help="convolutions at each scale, as 1,2,2,2 (default: --init's, else 1,1,1,2)")
    f.add_argument("--density-weight", type=float, default=0.0,
                   help="also learn where the seeds lie, from crops with seed points "
                        "(vision.seed_density), this much against the count (default 0: off)")
    tp = sub.add_parser("temper", help="fit a model's temperatures for 1..8 averaged views")
    tp.add_argument("model", type=Path)
    tp.add_argument("data", type=Path, nargs="+", help="photo files never used to train the model")
    ox = sub.add_parser("onnx", help="write a model's network as ONNX beside it (needs onnx)")
    ox.add_argument("model", type=Path)
    wd = sub.add_parser("widen", help="fit a model's heap widening on held-out pits")
    wd.add_argument("model", type=Path)
    wd.add_argument("data", type=Path, nargs="+", help="photo files never used to train the model")
    wd.add_argument("--target", type=float, default=0.95,
                    help="share of 16+ pits the 90%% interval should hold (default 0.95)")
    wd.add_argument("--views", type=int, default=CountConfig.views,
                    help="views averaged, as the pipeline does (default %(default)s)")
    args = ap.parse_args(argv)
    if args.cmd == "onnx":
        print(f"wrote {write_onnx(args.model)}")
    elif args.cmd == "widen":
        print(set_widening(args.model, args.data, args.target, args.views))
    elif args.cmd == "temper":
        print(set_temperatures(args.model, args.data))
    elif args.cmd == "gen":
        np.savez(args.out, **generate(args.n, args.seed))  # type: ignore[arg-type]
    elif args.cmd == "pipeline":
        d = pipeline_pits(args.folders)
        np.savez(args.out, **d)  # type: ignore[arg-type]
        print(f"wrote {args.out}: {len(d['y'])} pits", file=sys.stderr)
    elif args.cmd == "photo":
        d = photo(args.folders, args.every,
                  set(args.holes.split(",")) if args.holes else None, args.camera)
        np.savez(args.out, **d)  # type: ignore[arg-type]
        print(f"wrote {args.out}: {len(d['y'])} pits", file=sys.stderr)
    else:
        fit(args.data, args.val, args.out, args.epochs, args.width, args.seed, args.photo_weight,
            args.threads, args.steps, args.balance, init=args.init, max_lr=args.max_lr,
            density_weight=args.density_weight, stages=args.stages)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
