"""Converters between the fast core's arrays (:mod:`engine.core`) and the
Python engine's values (position JSON, :class:`engine.Position`,
:class:`engine.Move`, :class:`engine.rules.Rules`).

These run in plain Python; only the capture test of :func:`move_to_engine`
calls a compiled kernel.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import core_layout as core
from engine.core_move import _has_capture
from engine.holes import HOLE_INDEX, SIDES, hole_name
from engine.notation import Move
from engine.rules import Rules


def rules_array(rules: Rules | None = None) -> np.ndarray:
    """The core's rules array for a :class:`Rules` (defaults when None)."""
    rules = rules if rules is not None else Rules()
    return core.make_rules(**{name: getattr(rules, name) for name in core.RULE_FIELDS})


def state_from_json(obj: dict[str, Any]) -> np.ndarray:
    """Core state from position JSON (the exact form of docs/ARCHITECTURE.md).

    Only the shape needed here is checked; validate with ``Position.from_json``
    first where the input is untrusted.
    """
    st = np.zeros(core.STATE_SIZE, dtype=np.int32)
    for s, side in enumerate(SIDES):
        part = obj[side]
        front, back = part["front"], part["back"]
        if len(front) != 8 or len(back) != 8:
            raise ValueError(f"{side}: front and back need 8 counts each")
        for i in range(8):
            st[16 * s + i] = front[i]  # A1..A8
            st[16 * s + 15 - i] = back[i]  # B1 is ring 15, B8 ring 8
        st[core.RESERVE + s] = part["reserve"]
        st[core.OWNED + s] = 1 if part["nyumba_owned"] else 0
    to_move = SIDES.index(obj["to_move"])
    st[core.TO_MOVE] = to_move
    st[core.BLOCKED] = -1
    blocked = obj.get("blocked")
    if blocked is not None:
        blocked_side, ring = HOLE_INDEX[blocked]
        if blocked_side != to_move:
            raise ValueError(f"blocked hole {blocked!r} is not a hole of the side to move")
        st[core.BLOCKED] = ring
    st[core.WINNER] = core.NO_WINNER
    return st


def json_from_state(st: np.ndarray) -> dict[str, Any]:
    """Position JSON of a core state (the game-end fields are not part of it)."""
    obj: dict[str, Any] = {}
    for s, side in enumerate(SIDES):
        obj[side] = {
            "front": [int(st[16 * s + i]) for i in range(8)],
            "back": [int(st[16 * s + 15 - i]) for i in range(8)],
            "reserve": int(st[core.RESERVE + s]),
            "nyumba_owned": bool(st[core.OWNED + s]),
        }
    to_move = int(st[core.TO_MOVE])
    obj["to_move"] = SIDES[to_move]
    blocked = int(st[core.BLOCKED])
    obj["blocked"] = hole_name(to_move, blocked) if blocked >= 0 else None
    return obj


def state_from_position(pos: Any) -> np.ndarray:
    """Core state of an :class:`engine.Position` (or of position JSON, a dict)."""
    return state_from_json(pos if isinstance(pos, dict) else pos.to_json())


def position_from_state(st: np.ndarray, rules: Rules | None = None) -> Any:
    """The :class:`engine.Position` of a core state."""
    from engine.position import Position

    return Position.from_json(json_from_state(st), rules)


def _is_kunamua_capture(st: np.ndarray, rules_arr: np.ndarray) -> bool:
    me = int(st[core.TO_MOVE])
    return bool(st[core.RESERVE + me] > 0 and _has_capture(st, me, rules_arr))


def move_to_engine(code: int, st: np.ndarray, rules: Rules | None = None) -> Move:
    """The :class:`Move` of core move ``code`` in position ``st``."""
    me = int(st[core.TO_MOVE])
    ring = int(code) >> 2
    clockwise = (int(code) >> 1) & 1 == 1
    if _is_kunamua_capture(st, rules_array(rules)):
        sign = "<" if clockwise else ">"  # the entry kichwa (§6)
    elif ring < 8:
        sign = ">" if clockwise else "<"  # front row: right is clockwise
    else:
        sign = "<" if clockwise else ">"  # back row: left is clockwise
    return Move(hole_name(me, ring), sign, bool(int(code) & 1))


def move_from_engine(move: Move, st: np.ndarray, rules: Rules | None = None) -> int:
    """Core code of ``move`` in position ``st`` (ValueError for a hole of the side
    not to move). Legality is not checked here: look the code up in ``gen_moves``."""
    side, ring = HOLE_INDEX[move.hole]
    if side != int(st[core.TO_MOVE]):
        raise ValueError(f"move {move} starts in a hole of the side not to move")
    if _is_kunamua_capture(st, rules_array(rules)) or ring >= 8:
        clockwise = move.direction == "<"
    else:
        clockwise = move.direction == ">"
    return ring * 4 + (2 if clockwise else 0) + (1 if move.safari else 0)
