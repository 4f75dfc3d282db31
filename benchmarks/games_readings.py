"""The settled frames of the rendered games read four ways, with and without a calibration.

The live app reads a game with a profile made from its first frame (the start
position): the board's corners and pits, and a seed look. ``bao recognize`` without
``--calibration`` searches for the board and reads each pit against the board's
other pits (``vision.context``), which the pipeline leaves off with a calibration.
This script shows what each part is worth on the games in
``sample_images/games`` (each frame's label holds its position):

* ``alone``: no profile, the counter alone (``CountConfig.context`` off);
* ``context``: no profile, in context (``bao recognize``'s default);
* ``profile``: the profile from the game's first frame (the live app): its corners and
  pits, each pit read by the counter alone;
* ``profile_area``: the same, with the seed look's changed area of each pit weighed in
  (``CountConfig.look_area``, off by default since the thirty-eighth session).

Frames with a hand over the board are left out (the referee waits for them to
settle). Prints, per reading, the pits read wrong, the per-pit exact share and the
whole boards read exactly, and writes ``benchmarks/results/games_readings[_NAME].json``.

Usage::

    python3 benchmarks/games_readings.py [--games sample_images/games] [--name NAME]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration import calibrate_from_start  # noqa: E402
from vision.config import DEFAULT  # noqa: E402
from vision.count_data import label_counts  # noqa: E402
from vision.holes import HOLES  # noqa: E402
from vision.io import read_image  # noqa: E402
from vision.pipeline import recognize  # noqa: E402

READINGS = ("alone", "context", "profile", "profile_area")


def read_games(games: Path) -> dict[str, object]:
    """Each reading's figures over every settled frame (after the first) of every game."""
    alone_cfg = dataclasses.replace(DEFAULT, count=dataclasses.replace(DEFAULT.count, context=False))
    area_cfg = dataclasses.replace(DEFAULT, count=dataclasses.replace(DEFAULT.count, look_area=True))
    right: dict[str, list[np.ndarray]] = {k: [] for k in READINGS}
    frames_read = []
    folders = sorted(p for p in games.iterdir() if p.is_dir())
    if not folders:
        raise SystemExit(f"no game folders in {games}")
    for folder in folders:
        frames = sorted(folder.glob("frame_*.jpg"))
        start = json.loads(frames[0].with_suffix(".json").read_text())
        profile = calibrate_from_start(read_image(str(frames[0])), start["south_side"])
        ways = {"alone": {"cfg": alone_cfg}, "context": {}, "profile": {"profile": profile},
                "profile_area": {"profile": profile, "cfg": area_cfg}}
        for frame in frames[1:]:
            label = json.loads(frame.with_suffix(".json").read_text())
            if label.get("hand_over_board"):
                continue
            image = read_image(str(frame))
            truth = label_counts(label["position"])
            want = np.array([truth[n] for n in HOLES])
            for name, kw in ways.items():
                got = label_counts(recognize(image, label["south_side"], **kw).position)  # type: ignore[arg-type]
                right[name].append(np.array([got[n] for n in HOLES]) == want)
            frames_read.append(f"{folder.name}/{frame.name}")
    where = games.resolve()
    shown = where.relative_to(ROOT) if where.is_relative_to(ROOT) else where
    out: dict[str, object] = {"games": str(shown), "frames": len(frames_read)}
    for name in READINGS:
        r = np.array(right[name])
        out[name] = {"pits_wrong": int((~r).sum()), "per_pit_exact": round(float(r.mean()), 4),
                     "whole_boards": int(r.all(axis=1).sum())}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=Path, default=ROOT / "sample_images" / "games")
    ap.add_argument("--name", default="")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results")
    args = ap.parse_args(argv)
    res = read_games(args.games)
    print(f"{res['frames']} settled frames without a hand")
    for name in READINGS:
        f = res[name]
        print(f"{name:16s} pits wrong {f['pits_wrong']:4d}  per pit {f['per_pit_exact']:.4f}  "  # type: ignore[index]
              f"whole boards {f['whole_boards']}/{res['frames']}")  # type: ignore[index]
    print(f"wrote {_write(res, args.out, args.name)}")
    return 0


def _write(res: dict[str, object], out: Path, name: str) -> Path:
    """``res`` as ``out/games_readings[_NAME].json`` (the folder made when missing)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"games_readings{'_' + name if name else ''}.json"
    path.write_text(json.dumps(res, indent=1) + "\n")
    return path


if __name__ == "__main__":
    raise SystemExit(main())
