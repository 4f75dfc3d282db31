"""Static evaluation of a Bao position for the search.

An evaluation is a plain function ``evaluate(position, weights) -> float``: a
weighted sum of Bao features, from the point of view of the side to move
(> 0 is good for it), in units of roughly "seeds ahead". The features are
computed by :func:`feature_kernel` over plain integer arrays, written in the
subset of Python that numba compiles, so the fast search (engine/search_core.py)
compiles the very same code instead of keeping a copy in step.

Features (``FEATURES``, mover minus opponent unless said otherwise):

- ``material``: seeds on the side's 16 holes plus its reserve.
- ``front``: seeds in the front row (the row whose emptiness loses, 1.1).
- ``front_occupied``: occupied front holes.
- ``movable``: holes holding >= 2 seeds (each can start a move, 1.3.2).
- ``nyumba``: the nyumba is owned and holds >= 6 seeds (4.2).
- ``exposed``: seeds in front holes that face an occupied opponent hole
  (the pot the opponent could capture).
- ``mover_capture`` / ``opponent_capture`` (not differences): the largest
  capture each side could make by the first sowing of a move (kunamua: any
  front hole facing an occupied hole, 2.2; mtaji: a sowing of 2..15 seeds
  ending in an occupied own front hole facing an occupied hole, 1.4, 3.4.2).
  The mover's is real now; the opponent's is what it threatens next.
- ``mover_threats`` / ``opponent_threats``: how many such capturing sowings.
- ``mover_blocked``: 1 when the mover has a hole blocked by kutakatia (5.1).

The weights live in ``engine/eval_weights.json``, written by
``benchmarks/tune_eval.py`` (self-play games, logistic fit of the result).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

FEATURES: tuple[str, ...] = (
    "material",
    "front",
    "front_occupied",
    "movable",
    "nyumba",
    "exposed",
    "mover_capture",
    "opponent_capture",
    "mover_threats",
    "opponent_threats",
    "mover_blocked",
)
N_FEATURES = len(FEATURES)

WEIGHTS_PATH = Path(__file__).with_name("eval_weights.json")

DEFAULT_WEIGHTS: dict[str, float] = {
    "material": 1.0,
    "front": 0.15,
    "front_occupied": 0.5,
    "movable": 0.3,
    "nyumba": 2.0,
    "exposed": -0.05,
    "mover_capture": 0.5,
    "opponent_capture": -0.5,
    "mover_threats": 0.2,
    "opponent_threats": -0.2,
    "mover_blocked": -1.0,
}


def load_weights(path: str | Path | None = None) -> dict[str, float]:
    """Read the evaluation weights (a JSON object with a "weights" member).

    Features missing from the file get weight 0; unknown names are an error.
    """
    p = WEIGHTS_PATH if path is None else Path(path)
    if path is None and not p.exists():
        return dict(DEFAULT_WEIGHTS)
    data = json.loads(p.read_text())
    weights = data.get("weights", data) if isinstance(data, dict) else None
    if not isinstance(weights, dict):
        raise ValueError(f"{p}: expected a JSON object with a 'weights' object")
    unknown = sorted(set(weights) - set(FEATURES))
    if unknown:
        raise ValueError(f"{p}: unknown evaluation features {unknown}; known: {list(FEATURES)}")
    return {name: float(weights.get(name, 0.0)) for name in FEATURES}


def weight_vector(weights: dict[str, float]) -> np.ndarray:
    """The weights as a float64 array in FEATURES order."""
    return np.array([float(weights.get(name, 0.0)) for name in FEATURES], dtype=np.float64)


def side_captures(front: np.ndarray, back: np.ndarray, reserve: np.ndarray, s: int) -> tuple:
    """(largest capture, number of capturing first sowings) for side `s`.

    `front[s, i]` is hole i+1 of side s's front row, `back[s, i]` its back
    row; side s's hole i faces the other side's hole 7 - i. numba-compatible.
    """
    o = 1 - s
    best = 0
    count = 0
    if reserve[s] > 0:
        # Kunamua (2.2): the reserve seed goes into an occupied front hole
        # facing an occupied one, which is captured.
        for i in range(8):
            if front[s, i] > 0 and front[o, 7 - i] > 0:
                count += 1
                if front[o, 7 - i] > best:
                    best = front[o, 7 - i]
        return best, count
    # Mtaji (1.4, 3.4): ring index r: 0..7 front holes 1..8, 8..15 back B8..B1.
    for r in range(16):
        c = front[s, r] if r < 8 else back[s, 15 - r]
        if c < 2 or c > 15:
            continue
        for d in (-1, 1):
            land = (r + d * c) % 16
            if land < 8 and front[s, land] > 0 and front[o, 7 - land] > 0:
                count += 1
                if front[o, 7 - land] > best:
                    best = front[o, 7 - land]
    return best, count


def feature_kernel(
    front: np.ndarray,
    back: np.ndarray,
    reserve: np.ndarray,
    owned: np.ndarray,
    mover: int,
    mover_blocked: int,
    out: np.ndarray,
) -> None:
    """Write the FEATURES of a position into `out` (float64, length N_FEATURES).

    Arrays are indexed [side, hole-1] with side 0 = South, 1 = North;
    `owned[side]` is 1 while that nyumba is owned; `mover` is the side to move;
    `mover_blocked` is 1 when the mover has a kutakatia-blocked hole.
    numba-compatible (plain loops, no Python objects).
    """
    opp = 1 - mover
    for k in range(N_FEATURES):
        out[k] = 0.0
    for side in range(2):
        sign = 1.0 if side == mover else -1.0
        o = 1 - side
        board = 0
        front_sum = 0
        occupied = 0
        movable = 0
        exposed = 0
        for i in range(8):
            f = front[side, i]
            b = back[side, i]
            board += f + b
            front_sum += f
            if f > 0:
                occupied += 1
                if front[o, 7 - i] > 0:
                    exposed += f
            if f >= 2:
                movable += 1
            if b >= 2:
                movable += 1
        out[0] += sign * (board + reserve[side])
        out[1] += sign * front_sum
        out[2] += sign * occupied
        out[3] += sign * movable
        if owned[side] > 0 and front[side, 4] >= 6:
            out[4] += sign
        out[5] += sign * exposed
    best, count = side_captures(front, back, reserve, mover)
    out[6] = best
    out[8] = count
    best, count = side_captures(front, back, reserve, opp)
    out[7] = best
    out[9] = count
    out[10] = mover_blocked


def position_arrays(position: Any) -> tuple:
    """(front, back, reserve, owned, mover, mover_blocked) of an engine Position."""
    front = np.zeros((2, 8), dtype=np.int64)
    back = np.zeros((2, 8), dtype=np.int64)
    reserve = np.zeros(2, dtype=np.int64)
    owned = np.zeros(2, dtype=np.int64)
    for s, side in enumerate(("south", "north")):
        counts = position.counts(side)
        front[s] = counts["front"]
        back[s] = counts["back"]
        reserve[s] = position.reserve(side)
        owned[s] = 1 if position.nyumba_owned(side) else 0
    mover = 0 if position.to_move == "south" else 1
    blocked = 1 if position.blocked is not None else 0
    return front, back, reserve, owned, mover, blocked


def features(position: Any) -> dict[str, float]:
    """The named features of `position` (from the side to move's view)."""
    out = np.zeros(N_FEATURES, dtype=np.float64)
    feature_kernel(*position_arrays(position), out)
    return dict(zip(FEATURES, (float(x) for x in out), strict=True))


def evaluate(position: Any, weights: dict[str, float] | None = None) -> float:
    """Weighted sum of the features of `position`; > 0 is good for the side to move."""
    w = load_weights() if weights is None else weights
    f = features(position)
    return float(sum(w.get(name, 0.0) * value for name, value in f.items()))


def material(position: Any) -> float:
    """The simplest evaluation: seeds on board and in reserve, mover minus opponent."""
    return features(position)["material"]
