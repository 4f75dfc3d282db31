"""What reading each pit against the board's other pits (``vision.context``) is worth,
grouped by render set.

Usage::

    python -m vision.train_context cut /tmp/ctx/sets.npz DIR [DIR ...]    # once per group of sets
    python benchmarks/context_cv.py /tmp/ctx/sets.npz [...] [--name TAG]

The cut files hold, per board found in place without a hand, the board pipeline's
counter distributions, the crops as the empty-pit template sees them and the true
counts (``vision.train_context cut``). For each render set in turn, a context model
is trained on all the other sets (the shipped settings) and reads the set left out;
the pits read exactly by the counter alone and in context are compared, overall and
by count bucket, with the mean error and log loss. Use sets the counter network was
never trained on. Prints the figures and writes
``benchmarks/results/context_cv_<TAG>.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.train_context import cross_validate, load  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", type=Path, nargs="+", help="files of `python -m vision.train_context cut`")
    ap.add_argument("--name", default="latest", help="result file tag")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results")
    args = ap.parse_args(argv)
    for p in args.data:
        if not p.exists():
            ap.error(f"no such cut file: {p}")
    res = cross_validate(load(args.data))
    gains = [v["context"] - v["counter"] for v in res["per_set"].values()]  # type: ignore[attr-defined]
    res["per_set_gain"] = {"mean": round(sum(gains) / len(gains), 4), "min": round(min(gains), 4),
                           "max": round(max(gains), 4), "sets_better": sum(g > 0 for g in gains),
                           "sets_worse": sum(g < 0 for g in gains), "sets": len(gains)}
    res["data"] = [str(p) for p in args.data]
    for key in ("counter", "context", "log_loss", "pits_righted", "pits_spoilt", "per_set_gain"):
        print(f"{key}: {json.dumps(res[key])}")
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"context_cv_{args.name}.json"
    path.write_text(json.dumps(res, indent=1) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
