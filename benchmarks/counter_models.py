"""Compare counter models (the board network's weights) on crop files, read as the board
pipeline reads them.

Usage::

    python benchmarks/counter_models.py --models vision/models/counter_cnn.npz NEW.npz ... \\
        --crops TRUE.npz PIPE.npz ... [--out benchmarks/results/counter_models.json]

``--crops``: files of ``python -m vision.train_cnn photo`` (pits cut with the true
geometry) or ``pipeline`` (pits as the board pipeline cut them) from renders no model
was trained or chosen on. Each model reads every crop through
:func:`vision.count.count_pits` with the pipeline's own settings (``CountConfig.views``
views, and the unsure pits of up to ``recheck_max_count`` seeds read again at
``recheck_views``), so the figures are those the board pipeline would give with that
model file in ``vision/models``. Per crop file and model: exact share overall and per
count bucket (0, 1-3, 4-8, 9-15, 16+), mean absolute error of the most likely count,
mean log loss, and how many heaps of 16+ lie inside the 90 % interval
(:func:`vision.count.interval`). Prints a table and writes JSON.

``--as count-pit``: each model is instead a candidate for the *second* network of ``bao
count-pit`` (``vision/models/counter_cnn_broad.npz``), read with the shipped board network
as ``bao count-pit`` reads a crop (8 views, both networks; :func:`vision.count.count_pits`
with ``broad=True``). Give the crops of ``train_cnn photo --camera`` (a pit as a photo of
one pit shows it); ``--degrade webcam`` spoils each crop first as
``benchmarks/count_eval.py --degrade`` does.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from unittest import mock

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from count_eval import DEGRADE  # noqa: E402

from vision import count as count_mod  # noqa: E402
from vision.cnn import BROAD_MODEL_PATH, MODEL_PATH, CountNet  # noqa: E402
from vision.config import CountConfig  # noqa: E402
from vision.count import count_pits, interval  # noqa: E402
from vision.count_data import COUNT_BUCKETS  # noqa: E402


def read(model: Path, crops: np.ndarray) -> np.ndarray:
    """Probabilities (N, 41) of ``model`` on ``crops`` as the board pipeline reads them."""
    net = CountNet(model)
    cfg = CountConfig()
    with mock.patch.object(count_mod, "load_net", lambda *a, **k: net):
        out = count_pits(list(crops), None, None,
                         (cfg.recheck_below, cfg.recheck_views, cfg.recheck_max_count))
    return np.stack([np.asarray(r.probabilities, np.float64) for r in out])


def read_as_count_pit(model: Path, crops: np.ndarray) -> np.ndarray:
    """Probabilities (N, 41) of ``bao count-pit`` on ``crops`` with ``model`` as its second
    (broad) network and the shipped board network as its first."""
    nets = {str(MODEL_PATH): CountNet(MODEL_PATH), str(BROAD_MODEL_PATH): CountNet(model)}
    with mock.patch.object(count_mod, "load_net", lambda path=MODEL_PATH, *a, **k: nets[str(path)]):
        out = count_pits(list(crops), None, 8, broad=True)
    return np.stack([np.asarray(r.probabilities, np.float64) for r in out])


def score(p: np.ndarray, y: np.ndarray) -> dict:
    """The figures of one model on one crop file."""
    k = p.argmax(axis=1)
    out: dict = {"pits": int(len(y)), "exact": float(np.mean(k == y)),
                 "mae": float(np.mean(np.abs(k - y))),
                 "log_loss": float(-np.mean(np.log(np.maximum(p[np.arange(len(y)), y], 1e-12))))}
    for name, lo, hi in COUNT_BUCKETS:
        sel = (y >= lo) & (y <= hi)
        out[f"exact_{name}"] = float(np.mean(k[sel] == y[sel])) if sel.any() else None
    big = np.flatnonzero(y >= 16)
    spans = [interval(p[i], 0.9) for i in big]
    out["heaps_16_inside_90"] = [int(sum(lo <= y[i] <= hi for i, (lo, hi) in zip(big, spans, strict=True))),
                                 int(len(big))]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=Path, nargs="+", required=True)
    ap.add_argument("--crops", type=Path, nargs="+", required=True)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "counter_models.json")
    ap.add_argument("--as", dest="mode", choices=("board", "count-pit"), default="board",
                    help="read as the board pipeline (the models are board networks; default) or "
                         "as bao count-pit (the models are candidates for its second network)")
    ap.add_argument("--degrade", choices=sorted(DEGRADE), default="none",
                    help="spoil every crop first, as benchmarks/count_eval.py --degrade does")
    args = ap.parse_args(argv)
    for path in [*args.models, *args.crops]:
        if not path.is_file():
            raise SystemExit(f"counter_models: no such file: {path}")
    results: dict = {"models": [str(m) for m in args.models], "as": args.mode, "degrade": args.degrade,
                     "sets": {}}
    for crops_path in args.crops:
        data = np.load(crops_path)
        crops, y = data["crops"], data["y"].astype(np.int64)
        if args.degrade != "none":
            rng = np.random.default_rng(5)  # (as count_eval spoils its crops)
            crops = np.stack([DEGRADE[args.degrade](c, rng) for c in crops])
        print(f"== {crops_path} ({len(y)} pits)")
        print(f"{'model':40s} {'exact':>6s} {'0':>6s} {'1-3':>6s} {'4-8':>6s} {'9-15':>6s} "
              f"{'MAE':>6s} {'logloss':>7s} 16+in")
        rows = {}
        for model in args.models:
            s = score((read_as_count_pit if args.mode == "count-pit" else read)(model, crops), y)
            rows[str(model)] = s

            def f(v: float | None) -> str:
                return "     -" if v is None else f"{v:6.3f}"

            print(f"{str(model)[-40:]:40s} {s['exact']:6.4f} {f(s['exact_0'])} {f(s['exact_1-3'])} "
                  f"{f(s['exact_4-8'])} {f(s['exact_9-15'])} {s['mae']:6.3f} {s['log_loss']:7.3f} "
                  f"{s['heaps_16_inside_90'][0]}/{s['heaps_16_inside_90'][1]}")
        results["sets"][str(crops_path)] = rows
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
