"""Reading and writing positions: the JSON form and the one-line text form.

JSON (docs/ARCHITECTURE.md, exact)::

    {"south": {"front": [A1..A8], "back": [B1..B8], "reserve": 22, "nyumba_owned": true},
     "north": {"front": [a1..a8], "back": [b1..b8], "reserve": 22, "nyumba_owned": true},
     "to_move": "south", "blocked": null}

Text form (one line, fields separated by spaces, in any order)::

    A:0,0,0,0,6,2,2,0 B:0,0,0,0,0,0,0,0 a:0,0,0,0,6,2,2,0 b:0,0,0,0,0,0,0,0 reserve:22,22 nyumba:SN move:S

``A``/``B``/``a``/``b``: the eight counts of that row, holes 1..8 from the
owner's left (the JSON order). ``reserve:S,N``: South's then North's reserve.
``nyumba:``: ``S`` and/or ``N`` for the sides whose nyumba is still owned,
``-`` for neither. ``move:S`` or ``move:N``: the side to move. Optional
``blocked:a4``: the kutakatia-blocked hole of the side to move. The word
``start`` alone is the start position.
"""

from __future__ import annotations

import json
from typing import Any

from engine.errors import InvalidPosition, json_loads
from engine.holes import BACK_LETTER, FRONT_LETTER, HOLE_INDEX, SIDES, back_ring, hole_name
from engine.moves import State

TOTAL_SEEDS = 64
_SIDE_KEYS = ("front", "back", "reserve", "nyumba_owned")


def start_state() -> State:
    """2.1: nyumba 6, holes 6 and 7 of each front row 2, 22 in each reserve; 2.1.1 South."""
    board = [0] * 32
    for side in (0, 1):
        board[16 * side + 4] = 6
        board[16 * side + 5] = 2
        board[16 * side + 6] = 2
    return State(board, [22, 22], [True, True], 0, None)


def _rows(state: State, side: int) -> tuple[list[int], list[int]]:
    base = 16 * side
    front = state.board[base : base + 8]
    back = [state.board[base + back_ring(i)] for i in range(1, 9)]
    return front, back


def state_to_json(state: State) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for side, name in enumerate(SIDES):
        front, back = _rows(state, side)
        out[name] = {
            "front": front,
            "back": back,
            "reserve": state.reserve[side],
            "nyumba_owned": state.owned[side],
        }
    out["to_move"] = SIDES[state.to_move]
    out["blocked"] = None if state.blocked is None else hole_name(state.to_move, state.blocked)
    return out


def _count(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidPosition(f"invalid position: {where} must be a whole number, not {value!r}")
    if value < 0:
        raise InvalidPosition(f"invalid position: {where} is {value} (counts cannot be negative)")
    return value


def _row(value: Any, where: str) -> list[int]:
    if not isinstance(value, list) or len(value) != 8:
        raise InvalidPosition(
            f"invalid position: {where} must be a list of 8 counts, not {value!r}"
        )
    return [_count(v, f"{where}[{i}]") for i, v in enumerate(value)]


def _blocked(value: Any, to_move: int) -> int | None:
    if value is None:
        return None
    side_r = HOLE_INDEX.get(value) if isinstance(value, str) else None
    if side_r is None or side_r[0] != to_move or side_r[1] >= 8:
        letter = FRONT_LETTER[to_move]
        raise InvalidPosition(
            f"invalid position: blocked must be null or a front hole of the side to move "
            f"({letter}1..{letter}8), not {value!r}"
        )
    return side_r[1]


def _check_total(state: State) -> None:
    total = sum(state.board) + sum(state.reserve)
    if total > TOTAL_SEEDS:
        raise InvalidPosition(
            f"invalid position: {total} seeds on the board and in reserve, more than {TOTAL_SEEDS}"
        )


def state_from_json(obj: dict[str, Any] | str | bytes) -> State:
    """Validate and read the JSON form (a dict or JSON text); InvalidPosition if bad."""
    if isinstance(obj, (str, bytes)):
        try:
            obj = json_loads(obj)
        except json.JSONDecodeError as exc:
            raise InvalidPosition(f"invalid position: not JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise InvalidPosition(f"invalid position: expected a JSON object, not {type(obj).__name__}")
    unknown = sorted(set(obj) - {"south", "north", "to_move", "blocked"})
    missing = [k for k in ("south", "north", "to_move") if k not in obj]
    if unknown or missing:
        raise InvalidPosition(
            f"invalid position: keys must be south, north, to_move, blocked"
            f"{'; unknown: ' + ', '.join(map(str, unknown)) if unknown else ''}"
            f"{'; missing: ' + ', '.join(missing) if missing else ''}"
        )
    board = [0] * 32
    reserve = [0, 0]
    owned = [False, False]
    for side, name in enumerate(SIDES):
        part = obj[name]
        if not isinstance(part, dict) or set(part) != set(_SIDE_KEYS):
            raise InvalidPosition(
                f"invalid position: {name} must be an object with keys "
                f"{', '.join(_SIDE_KEYS)}, not {part!r}"
            )
        front = _row(part["front"], f"{name}.front")
        back = _row(part["back"], f"{name}.back")
        for i in range(8):
            board[16 * side + i] = front[i]
            board[16 * side + back_ring(i + 1)] = back[i]
        reserve[side] = _count(part["reserve"], f"{name}.reserve")
        if not isinstance(part["nyumba_owned"], bool):
            raise InvalidPosition(
                f"invalid position: {name}.nyumba_owned must be true or false, "
                f"not {part['nyumba_owned']!r}"
            )
        owned[side] = part["nyumba_owned"]
    if obj["to_move"] not in SIDES:
        raise InvalidPosition(
            f"invalid position: to_move must be 'south' or 'north', not {obj['to_move']!r}"
        )
    to_move = SIDES.index(obj["to_move"])
    state = State(board, reserve, owned, to_move, _blocked(obj.get("blocked"), to_move))
    _check_total(state)
    return state


def state_to_text(state: State) -> str:
    parts = []
    for side in (0, 1):
        front, back = _rows(state, side)
        parts.append(f"{FRONT_LETTER[side]}:{','.join(map(str, front))}")
        parts.append(f"{BACK_LETTER[side]}:{','.join(map(str, back))}")
    parts.append(f"reserve:{state.reserve[0]},{state.reserve[1]}")
    owned = "".join(letter for letter, own in zip("SN", state.owned, strict=True) if own)
    parts.append(f"nyumba:{owned or '-'}")
    parts.append(f"move:{'SN'[state.to_move]}")
    if state.blocked is not None:
        parts.append(f"blocked:{hole_name(state.to_move, state.blocked)}")
    return " ".join(parts)


def state_from_text(text: str) -> State:
    """Read the one-line text form (see the module docstring); InvalidPosition if bad."""
    if not isinstance(text, str):
        raise InvalidPosition(f"invalid position text: expected text, not {type(text).__name__}")
    if text.strip().lower() == "start":
        return start_state()
    fields: dict[str, str] = {}
    for token in text.split():
        key, sep, value = token.partition(":")
        if not sep or key not in ("A", "B", "a", "b", "reserve", "nyumba", "move", "blocked"):
            raise InvalidPosition(
                f"invalid position text {text!r}: unknown field {token!r} (expected "
                "A: B: a: b: reserve: nyumba: move: and optionally blocked:)"
            )
        if key in fields:
            raise InvalidPosition(f"invalid position text {text!r}: field {key!r} given twice")
        fields[key] = value
    missing = [k for k in ("A", "B", "a", "b", "reserve", "nyumba", "move") if k not in fields]
    if missing:
        raise InvalidPosition(f"invalid position text {text!r}: missing {', '.join(missing)}")

    def numbers(key: str, n: int) -> list[int]:
        items = fields[key].split(",")
        # (ASCII digits: str.isdigit takes '²' too, which int() then refuses)
        bad = [i for i in items if not (i.isascii() and i.isdigit())]
        if len(items) != n or bad:
            which = f" ({bad[0]!r} is not a count)" if bad and bad[0] else ""
            raise InvalidPosition(
                f"invalid position text {text!r}: {key}: needs {n} whole numbers separated "
                f"by commas, not {fields[key]!r}{which}"
            )
        return [int(i) for i in items]

    board = [0] * 32
    for side in (0, 1):
        front = numbers(FRONT_LETTER[side], 8)
        back = numbers(BACK_LETTER[side], 8)
        for i in range(8):
            board[16 * side + i] = front[i]
            board[16 * side + back_ring(i + 1)] = back[i]
    reserve = numbers("reserve", 2)
    nyumba = fields["nyumba"]
    if nyumba != "-" and (not set(nyumba) <= {"S", "N"} or len(set(nyumba)) != len(nyumba)):
        raise InvalidPosition(
            f"invalid position text {text!r}: nyumba: takes S, N, SN or -, not {nyumba!r}"
        )
    owned = ["S" in nyumba, "N" in nyumba]
    move = fields["move"].lower()
    if move not in ("s", "n", "south", "north"):
        raise InvalidPosition(
            f"invalid position text {text!r}: move: takes S or N, not {fields['move']!r}"
        )
    to_move = 0 if move.startswith("s") else 1
    state = State(board, reserve, owned, to_move, _blocked(fields.get("blocked"), to_move))
    _check_total(state)
    return state
