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
import math
from pathlib import Path
from typing import Any

import numpy as np

from engine.errors import json_loads

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
    try:
        data = json_loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read the weights file {str(p)!r}: {getattr(exc, 'strerror', None) or exc}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{p}: not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    weights = data.get("weights", data) if isinstance(data, dict) else None
    if not isinstance(weights, dict):
        raise ValueError(f"{p}: expected a JSON object with a 'weights' object")
    unknown = sorted(set(weights) - set(FEATURES))
    if unknown:
        raise ValueError(f"{p}: unknown evaluation features {unknown}; known: {list(FEATURES)}")
    bad = sorted(name for name, value in weights.items()
                 if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value))
    if bad:
        raise ValueError(f"{p}: the weights of {bad} are not finite numbers")
    return {name: float(weights.get(name, 0.0)) for name in FEATURES}


def weight_vector(weights: dict[str, float]) -> np.ndarray:
    """The weights as a float64 array in FEATURES order."""
    return np.array([float(weights.get(name, 0.0)) for name in FEATURES], dtype=np.float64)


# The fast core's state layout (engine/core.py), mirrored here so that this
# module needs no numba; tests/engine/test_evaluate.py checks they agree.
RESERVE = 32
OWNED = 34
TO_MOVE = 36
BLOCKED = 37
STATE_SIZE = 44


def feature_kernel(st: np.ndarray, out: np.ndarray) -> None:
    """Write the FEATURES of state `st` into `out` (float64, length N_FEATURES).

    `st` uses the fast core's layout: `st[16*s + r]` is ring index r of side s
    (South 0, North 1; r < 8 front hole r+1, r >= 8 back hole 16-r; ring index
    r faces the other side's 7-r), then reserves, nyumba ownership, side to
    move and the kutakatia-blocked hole (-1 for none). numba-compatible: the
    fast search compiles this very function.
    """
    mover = st[TO_MOVE]
    for k in range(N_FEATURES):
        out[k] = 0.0
    for side in range(2):
        sign = 1.0 if side == mover else -1.0
        b = 16 * side
        ob = 16 * (1 - side)
        board = 0
        front_sum = 0
        occupied = 0
        movable = 0
        exposed = 0
        for r in range(16):
            c = st[b + r]
            board += c
            if c >= 2:
                movable += 1
            if r < 8:
                front_sum += c
                if c > 0:
                    occupied += 1
                    if st[ob + 7 - r] > 0:
                        exposed += c
        out[0] += sign * (board + st[RESERVE + side])
        out[1] += sign * front_sum
        out[2] += sign * occupied
        out[3] += sign * movable
        if st[OWNED + side] > 0 and st[b + 4] >= 6:
            out[4] += sign
        out[5] += sign * exposed
        # Captures by the first sowing (kunamua 2.2; mtaji 1.4, 3.4.2).
        best = 0
        count = 0
        if st[RESERVE + side] > 0:
            for i in range(8):
                if st[b + i] > 0 and st[ob + 7 - i] > 0:
                    count += 1
                    if st[ob + 7 - i] > best:
                        best = st[ob + 7 - i]
        else:
            for r in range(16):
                c = st[b + r]
                if c < 2 or c > 15:
                    continue
                for d in (-1, 1):
                    land = (r + d * c) % 16
                    if land < 8 and st[b + land] > 0 and st[ob + 7 - land] > 0:
                        count += 1
                        if st[ob + 7 - land] > best:
                            best = st[ob + 7 - land]
        if side == mover:
            out[6] = best
            out[8] = count
        else:
            out[7] = best
            out[9] = count
    out[10] = 1.0 if st[BLOCKED] >= 0 else 0.0


def position_state(position: Any) -> np.ndarray:
    """An engine Position in the fast core's state layout (the fields features use)."""
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    for s, side in enumerate(("south", "north")):
        counts = position.counts(side)
        st[16 * s : 16 * s + 8] = counts["front"]
        st[16 * s + 8 : 16 * s + 16] = counts["back"][::-1]  # ring: B8..B1
        st[RESERVE + s] = position.reserve(side)
        st[OWNED + s] = 1 if position.nyumba_owned(side) else 0
    st[TO_MOVE] = 0 if position.to_move == "south" else 1
    st[BLOCKED] = 0 if position.blocked is not None else -1
    return st


def features(position: Any) -> dict[str, float]:
    """The named features of `position` (from the side to move's view)."""
    out = np.zeros(N_FEATURES, dtype=np.float64)
    feature_kernel(position_state(position), out)
    return dict(zip(FEATURES, (float(x) for x in out), strict=True))


def evaluate(position: Any, weights: dict[str, float] | None = None) -> float:
    """Weighted sum of the features of `position`; > 0 is good for the side to move."""
    w = load_weights() if weights is None else weights
    f = features(position)
    return float(sum(w.get(name, 0.0) * value for name, value in f.items()))


def material(position: Any) -> float:
    """The simplest evaluation: seeds on board and in reserve, mover minus opponent."""
    return features(position)["material"]
