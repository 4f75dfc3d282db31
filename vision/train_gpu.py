"""Train the pit counter's network on an accelerator, for a fixed time.

``python -m vision.train_cnn fit`` augments each crop with OpenCV on the CPU, which
holds a run to a few hundred thousand crops an hour. This trainer does the same
augmentation with PyTorch on the training device (a GPU when there is one, the
CPU otherwise), on whole batches at once, so a GPU can show the network tens of
millions of augmented crops in minutes::

    python -m vision.train_gpu --data PROC.npz PHOTO.npz --val VAL.npz --out MODEL.npz \\
        --seconds 600 [--init vision/models/counter_cnn.npz] [--density-weight 1.0]

The augmentation is that of :func:`vision.train_cnn.augment_with_points`, drawn
the same way (turn, scale +-17 %, shift, mirror, exposure, tint, contrast, blur,
noise, grey) and computed per crop on the batch: the turn, scale and shift as one
affine resampling (:func:`batch_affine`, matching ``cv2.warpAffine`` with
``BORDER_REFLECT``), the blur as a separable Gaussian with each crop's own width.
The learning rate follows a one-cycle schedule over the given wall-clock time
(not over a step count, which is unknown until the device is measured). The
held-out loss is read every ``--val-every`` seconds; each improvement is
exported at once (:func:`vision.train_cnn.export`), so a run stopped early
leaves its best model. The weights are written exactly as ``fit`` writes them;
``train_cnn temper``, ``widen`` and ``onnx`` finish a model as before.
"""

from __future__ import annotations

import argparse
import copy
import math
import sys
import time
from pathlib import Path

import numpy as np

from vision.cnn import INPUT, N_COUNTS
from vision.seed_density import GRID, SIGMA_CELLS
from vision.train_cnn import (
    export,
    fit_temperature,
    load_sets,
    load_val,
    net_stages,
    parse_stages,
    sample_weights,
    soft_targets,
    start_net,
)
from vision.train_sets import STORE

BLUR_RADIUS = 5  # taps either side: cv2 uses 11 taps for the widest blur drawn (sd 1.2)


def draw_params(n: int, gen, device) -> dict:  # noqa: ANN001 - torch objects
    """The random draws of :func:`vision.train_cnn.augment_with_points` for ``n`` crops."""
    import torch

    def u(lo: float, hi: float, *shape: int):  # noqa: ANN202
        return lo + (hi - lo) * torch.rand(n, *shape, generator=gen, device=device)

    return {
        "scale": INPUT / STORE * torch.exp(u(-0.17, 0.17)),
        "angle": u(0.0, 360.0),
        "shift": (torch.randn(n, 2, generator=gen, device=device) * 0.045 * INPUT
                  ).clamp(-0.1 * INPUT, 0.1 * INPUT),
        "flip": torch.rand(n, generator=gen, device=device) < 0.5,
        "gain": u(0.6, 1.4, 1) * u(0.85, 1.15, 3),
        "contrast": u(0.75, 1.25),
        "blur": torch.where(torch.rand(n, generator=gen, device=device) < 0.3, u(0.4, 1.2), 0.0),
        "noise": torch.where(torch.rand(n, generator=gen, device=device) < 0.3, u(2.0, 8.0), 0.0),
        "noise_field": torch.randn(n, 3, INPUT, INPUT, generator=gen, device=device),
        "grey": torch.rand(n, generator=gen, device=device) < 0.1,
    }


def rotation_matrices(p: dict):  # noqa: ANN001, ANN201 - torch tensors
    """Each crop's 2x3 affine from stored-crop pixels to input pixels, as
    ``cv2.getRotationMatrix2D`` builds it (then moved to the input's centre plus the shift)."""
    import torch

    a = torch.deg2rad(p["angle"])
    alpha, beta = p["scale"] * torch.cos(a), p["scale"] * torch.sin(a)
    c = STORE / 2
    m = torch.stack([
        torch.stack([alpha, beta, (1 - alpha) * c - beta * c], dim=1),
        torch.stack([-beta, alpha, beta * c + (1 - alpha) * c], dim=1),
    ], dim=1)
    m[:, :, 2] += INPUT / 2 - STORE / 2 + p["shift"]
    return m


def batch_affine(x, m, flip):  # noqa: ANN001, ANN201 - torch tensors
    """``cv2.warpAffine(crop, m, (INPUT, INPUT), INTER_LINEAR, BORDER_REFLECT)`` for a
    batch ``x`` (N, C, STORE, STORE) float with affines ``m`` (N, 2, 3), then the
    crops with ``flip`` mirrored left-right."""
    import torch
    import torch.nn.functional as F

    n = x.shape[0]
    lin, t = m[:, :, :2], m[:, :, 2]
    det = lin[:, 0, 0] * lin[:, 1, 1] - lin[:, 0, 1] * lin[:, 1, 0]
    inv = torch.stack([torch.stack([lin[:, 1, 1], -lin[:, 0, 1]], dim=1),
                       torch.stack([-lin[:, 1, 0], lin[:, 0, 0]], dim=1)], dim=1) / det[:, None, None]
    r = torch.arange(INPUT, device=x.device, dtype=x.dtype)
    yy, xx = torch.meshgrid(r, r, indexing="ij")
    xo = xx.expand(n, INPUT, INPUT)
    xo = torch.where(flip[:, None, None], INPUT - 1 - xo, xo)  # mirrored output column
    dst = torch.stack([xo, yy.expand(n, INPUT, INPUT)], dim=-1) - t[:, None, None, :]
    src = torch.einsum("nij,nhwj->nhwi", inv, dst)  # input pixel coordinates
    grid = (2 * src + 1) / STORE - 1  # align_corners=False: pixel centres at (2i + 1) / W - 1
    return F.grid_sample(x, grid, mode="bilinear", padding_mode="reflection", align_corners=False)


def batch_blur(x, sigma):  # noqa: ANN001, ANN201 - torch tensors
    """A Gaussian blur of each crop with its own ``sigma`` (0: unchanged), separable,
    borders reflected as ``cv2.GaussianBlur`` reflects them (BORDER_REFLECT_101)."""
    import torch
    import torch.nn.functional as F

    n, ch, h, w = x.shape
    k = torch.arange(-BLUR_RADIUS, BLUR_RADIUS + 1, device=x.device, dtype=x.dtype)
    s = sigma.clamp(min=1e-3)[:, None]
    ker = torch.exp(-0.5 * (k[None, :] / s) ** 2)
    ker = torch.where((sigma > 0)[:, None], ker, (k == 0).to(x.dtype)[None, :])
    ker = ker / ker.sum(dim=1, keepdim=True)
    ker = ker.repeat_interleave(ch, dim=0)  # (n * ch, taps)
    y = F.pad(x.reshape(1, n * ch, h, w), (BLUR_RADIUS,) * 4, mode="reflect")
    y = F.conv2d(y, ker[:, None, None, :], groups=n * ch)
    y = F.conv2d(y, ker[:, None, :, None], groups=n * ch)
    return y.reshape(n, ch, h, w)


def augment_batch(crops, gen, points=None):  # noqa: ANN001, ANN201 - torch tensors
    """Augmented, standardised network inputs (N, 3, INPUT, INPUT) float32 from stored
    crops (N, STORE, STORE, 3) uint8 on the training device, and where ``points``
    (N, P, 2) of the stored crops are given (NaN-padded), where they land."""
    import torch

    n = crops.shape[0]
    p = draw_params(n, gen, crops.device)
    m = rotation_matrices(p)
    x = batch_affine(crops.permute(0, 3, 1, 2).float(), m, p["flip"])
    x = x * p["gain"][:, :, None, None]
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mean) * p["contrast"][:, None, None, None] + mean
    x = batch_blur(x, p["blur"])
    x = x + p["noise_field"] * p["noise"][:, None, None, None]
    x = torch.where(p["grey"][:, None, None, None], x.mean(dim=1, keepdim=True).expand_as(x), x)
    x = x.clamp(0, 255).floor() * (1.0 / 255.0)  # as the CPU trainer's uint8 crop
    x = (x - x.mean(dim=(1, 2, 3), keepdim=True)) / (x.std(dim=(1, 2, 3), unbiased=False, keepdim=True)
                                                     + 0.02)
    moved = None
    if points is not None:
        moved = torch.einsum("nij,npj->npi", m[:, :, :2], points) + m[:, None, :, 2]
        moved[..., 0] = torch.where(p["flip"][:, None], INPUT - 1 - moved[..., 0], moved[..., 0])
    return x.contiguous(memory_format=torch.channels_last), moved


def density_maps(points, grid: int = GRID, sigma_cells: float = SIGMA_CELLS):  # noqa: ANN001, ANN201
    """:func:`vision.seed_density.density_map` of each crop's points (N, P, 2), NaN rows
    skipped, on a batch: (N, grid, grid)."""
    import torch

    ok = ~torch.isnan(points).any(dim=-1)  # (N, P)
    cells = ((torch.nan_to_num(points) + 0.5) * (grid / INPUT) - 0.5).clamp(-0.5, grid - 0.5)
    c = torch.arange(grid, device=points.device, dtype=points.dtype)
    gx = torch.exp(-0.5 * ((c[None, None, :] - cells[..., 0:1]) / sigma_cells) ** 2)  # (N, P, grid)
    gy = torch.exp(-0.5 * ((c[None, None, :] - cells[..., 1:2]) / sigma_cells) ** 2)
    gx = gx / gx.sum(dim=-1, keepdim=True)  # the blob is separable: each factor sums to 1
    gy = gy / gy.sum(dim=-1, keepdim=True)
    w = ok.to(points.dtype)[..., None]
    return torch.einsum("npr,npc->nrc", gy * w, gx)


def one_cycle(frac: float, max_lr: float, warm: float = 0.15) -> float:
    """The learning rate at a fraction ``frac`` of the run: cosine up from max_lr / 25
    over ``warm``, then cosine down to max_lr / 25e4 (PyTorch's OneCycleLR shape)."""
    lo, end = max_lr / 25, max_lr / 25e4
    if frac < warm:
        return lo + (max_lr - lo) * (1 - math.cos(math.pi * frac / warm)) / 2
    f = min(1.0, (frac - warm) / (1 - warm))
    return end + (max_lr - end) * (1 + math.cos(math.pi * f)) / 2


def fit_timed(data: list[Path], val: list[Path], out: Path, seconds: float, width: int = 16,
              seed: int = 0, photo_weight: float = 6.0, balance: float = 0.1, batch: int = 512,
              init: Path | None = None, max_lr: float = 3e-3, density_weight: float = 0.0,
              val_every: float = 20.0, device: str = "cuda",
              stages: tuple[int, ...] | None = None, keep: float = 0.0) -> dict:
    """Train for ``seconds`` of wall-clock time on ``device`` and export the model with
    the best held-out loss to ``out``. Returns the run's figures. ``stages``: the
    convolutions at each scale (:func:`vision.train_cnn.start_net`). ``keep`` (0..1,
    with ``init``): each batch's loss is ``1 - keep`` times the cross-entropy against
    the targets plus ``keep`` times that against the ``init`` model's own readings of
    the same crops (learning without forgetting: a fine-tune on a few new boards
    held near what the network learnt from the many it cannot see again)."""
    if not 0.0 <= keep < 1.0 or (keep > 0 and init is None):
        raise ValueError(f"keep must be from 0 to below 1, and needs init; got {keep}")
    import torch
    import torch.nn.functional as F

    dev = torch.device(device)
    torch.manual_seed(seed)
    gen = torch.Generator(device=dev)
    gen.manual_seed(seed)
    crops_np, y_np, style, points_np, npoints = load_sets(data)
    weight = torch.from_numpy(sample_weights(y_np, style, photo_weight, balance)).to(dev)
    crops = torch.from_numpy(crops_np).to(dev)
    y = torch.from_numpy(y_np).to(dev)
    targets = torch.from_numpy(soft_targets(np.arange(N_COUNTS))).float().to(dev)  # row n: count n's target
    known = torch.from_numpy((npoints >= 0).astype(np.float32)).to(dev)
    points = torch.from_numpy(points_np.astype(np.float32)).to(dev)
    vx_np, vy_np = load_val(val)
    vx, vy = torch.from_numpy(vx_np).to(dev), torch.from_numpy(vy_np).to(dev)
    print(f"train {len(y_np)} crops ({int((style < 0).sum())} photoreal, "
          f"{int((npoints >= 0).sum())} with seed points), val {len(vy_np)}, on {dev}",
          file=sys.stderr, flush=True)
    net = start_net(width, init, stages).to(dev)
    teacher = copy.deepcopy(net).eval() if keep > 0 else None  # the init model, as it reads
    stages = net_stages(net)
    body, top = net[:-5], net[-5:]  # the last feature map (GRID x GRID), then pool and dense
    head = torch.nn.Conv2d(4 * width, 1, 1).to(dev) if density_weight > 0 else None
    params = list(net.parameters()) + ([] if head is None else list(head.parameters()))
    opt = torch.optim.AdamW(params, lr=max_lr / 25, weight_decay=1e-4)
    amp = dev.type == "cuda"
    best, best_at, steps, seen = float("inf"), 0.0, 0, 0
    history: list[dict] = []
    t0 = last_val = time.time()

    def validate(elapsed: float) -> None:
        nonlocal best, best_at
        net.eval()
        with torch.no_grad():
            vl = torch.cat([net(vx[i:i + 1024]) for i in range(0, len(vy), 1024)]).float()
        vloss = float(F.cross_entropy(vl, vy))
        pred = vl.argmax(1)
        small = vy <= 8
        acc08 = float((pred[small] == vy[small]).float().mean())
        acc = float((pred == vy).float().mean())
        history.append({"seconds": round(elapsed, 1), "steps": steps, "val_loss": vloss,
                        "exact0_8": acc08, "exact": acc})
        line = (f"{elapsed:6.0f}s step {steps} crops {seen} val {vloss:.4f} exact0-8 {acc08:.3f} "
                f"all {acc:.3f}")
        if vloss < best:
            best, best_at = vloss, elapsed
            cpu = copy.deepcopy(net).float().cpu()
            temp = fit_temperature(vl.cpu().numpy(), vy_np)
            export(cpu, temp, out, {"trainer": "vision.train_gpu", "data": [str(p) for p in data],
                                    "val": [str(p) for p in val], "seconds": seconds,
                                    "seconds_done": round(elapsed), "steps_done": steps,
                                    "crops_seen": seen, "width": width, "seed": seed,
                                    "photo_weight": photo_weight, "balance": balance,
                                    "batch": batch, "best_val": best,
                                    "init": str(init) if init else None, "max_lr": max_lr,
                                    "density_weight": density_weight,
                                    "stages": list(stages), "keep": keep})
            line += f" -> wrote {out} (temperature {temp:.3f})"
        print(line, file=sys.stderr, flush=True)
        net.train()
        fix_norms()

    def fix_norms() -> None:
        if init is not None:  # fine-tuning: the batch norms stay the folded model's
            for mod in net.modules():
                if isinstance(mod, torch.nn.BatchNorm2d):
                    mod.eval()

    net.train()
    fix_norms()
    while True:
        elapsed = time.time() - t0
        if elapsed >= seconds:
            break
        lr = one_cycle(elapsed / seconds, max_lr)
        for g in opt.param_groups:
            g["lr"] = lr
        idx = torch.multinomial(weight, batch, replacement=True, generator=gen)
        xb, moved = augment_batch(crops[idx], gen, points[idx] if head is not None else None)
        tb = targets[y[idx]]
        with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=amp):
            feats = body(xb)
            logits = top(feats)
        if teacher is not None:
            with torch.no_grad(), torch.autocast(dev.type, dtype=torch.bfloat16, enabled=amp):
                taught = F.softmax(teacher(xb).float(), dim=1)
            tb = (1.0 - keep) * tb + keep * taught
        loss = -(tb * F.log_softmax(logits.float(), dim=1)).sum(dim=1).mean()
        if head is not None:
            assert moved is not None
            with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=amp):
                dmap = F.softplus(head(feats)).float()[:, 0]
            err = ((dmap - density_maps(moved)) ** 2).sum(dim=(1, 2))
            loss = loss + density_weight * (err * known[idx] / (1.0 + y[idx].float())).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        steps += 1
        seen += batch
        if time.time() - last_val >= val_every:
            last_val = time.time()
            validate(last_val - t0)
    validate(time.time() - t0)
    return {"steps": steps, "crops_seen": seen, "best_val": best, "best_at_s": round(best_at, 1),
            "history": history}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, nargs="+", required=True, help="crop files (train_cnn gen/photo)")
    ap.add_argument("--val", type=Path, nargs="+", required=True, help="held-out crop files")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seconds", type=float, required=True, help="wall-clock training time")
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--photo-weight", type=float, default=6.0)
    ap.add_argument("--balance", type=float, default=0.1)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--init", type=Path, default=None,
                    help="start from this exported model (fine-tuning; batch norms frozen)")
    ap.add_argument("--max-lr", type=float, default=3e-3)
    ap.add_argument("--density-weight", type=float, default=0.0)
    ap.add_argument("--val-every", type=float, default=20.0, help="seconds between held-out checks")
    ap.add_argument("--stages", type=parse_stages, default=None,
                    help="convolutions at each scale, as 1,2,2,2 (default: --init's, else 1,1,1,2); "
                         "a deeper network than --init starts from it with identity layers added")
    ap.add_argument("--device", default=None, help="torch device (default: cuda when present, else cpu)")
    ap.add_argument("--keep", type=float, default=0.0,
                    help="with --init: the share of each batch's target taken from --init's own "
                         "readings (learning without forgetting; default 0)")
    args = ap.parse_args(argv)
    import json

    import torch

    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    res = fit_timed(args.data, args.val, args.out, args.seconds, args.width, args.seed,
                    args.photo_weight, args.balance, args.batch, args.init, args.max_lr,
                    args.density_weight, args.val_every, device, args.stages, args.keep)
    args.out.with_suffix(".json").write_text(json.dumps(res, indent=1))
    print(f"{res['steps']} steps, {res['crops_seen']} crops, best held-out loss {res['best_val']:.4f} "
          f"at {res['best_at_s']} s", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
