"""Small helpers to write rule-test positions by hole name (tests of engine/)."""

from __future__ import annotations

from engine import Position, Rules
from engine.holes import ALL_HOLES


def board(
    holes: dict[str, int],
    reserve: tuple[int, int] = (0, 0),
    nyumba: str = "",
    move: str = "south",
    blocked: str | None = None,
    rules: Rules | None = None,
) -> Position:
    """A position with the given hole counts (others empty).

    ``nyumba``: the sides still owning their nyumba, "S", "N", "SN" or "".
    Rule-test positions need not hold 64 seeds.
    """
    unknown = set(holes) - set(ALL_HOLES)
    assert not unknown, f"unknown holes {unknown}"

    def row(letter: str) -> list[int]:
        return [holes.get(f"{letter}{i}", 0) for i in range(1, 9)]

    obj = {
        "south": {
            "front": row("A"),
            "back": row("B"),
            "reserve": reserve[0],
            "nyumba_owned": "S" in nyumba,
        },
        "north": {
            "front": row("a"),
            "back": row("b"),
            "reserve": reserve[1],
            "nyumba_owned": "N" in nyumba,
        },
        "to_move": move,
        "blocked": blocked,
    }
    return Position.from_json(obj, rules)


def holes_of(pos: Position) -> dict[str, int]:
    """The occupied holes of ``pos`` by name."""
    return {h: pos[h] for h in ALL_HOLES if pos[h]}


def moves(pos: Position) -> list[str]:
    """The legal moves in full notation."""
    return [pos.notation(m) for m in pos.legal_moves]
