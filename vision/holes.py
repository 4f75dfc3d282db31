"""Hole names and their places in the canonical top view.

Canonical view: South at the bottom. Rows top to bottom are ``b8..b1``,
``a8..a1``, ``A1..A8``, ``B1..B8`` (left to right), as docs/ARCHITECTURE.md fixes.
"""

from __future__ import annotations

from collections.abc import Mapping

CANONICAL_ROWS: tuple[tuple[str, ...], ...] = (
    tuple(f"b{i}" for i in range(8, 0, -1)),
    tuple(f"a{i}" for i in range(8, 0, -1)),
    tuple(f"A{i}" for i in range(1, 9)),
    tuple(f"B{i}" for i in range(1, 9)),
)
#: (row, col) of every hole in the canonical view.
HOLE_CELL: dict[str, tuple[int, int]] = {
    name: (r, c) for r, row in enumerate(CANONICAL_ROWS) for c, name in enumerate(row)
}
#: All 32 holes in canonical reading order (row by row, left to right).
HOLES: tuple[str, ...] = tuple(n for row in CANONICAL_ROWS for n in row)
NYUMBA: tuple[str, str] = ("A5", "a5")


def side_rows(side: str) -> dict[str, list[str]]:
    """Hole names of one side in the owner's own numbering: {"front": [..8], "back": [..8]}."""
    if side == "south":
        return {"front": [f"A{i}" for i in range(1, 9)], "back": [f"B{i}" for i in range(1, 9)]}
    if side == "north":
        return {"front": [f"a{i}" for i in range(1, 9)], "back": [f"b{i}" for i in range(1, 9)]}
    raise ValueError(f"side must be 'south' or 'north', got {side!r}")


def nested(values: Mapping[str, object]) -> dict[str, dict[str, list[object]]]:
    """{hole: v} -> {"south": {"front": [...], "back": [...]}, "north": {...}}."""
    return {
        side: {row: [values[n] for n in names] for row, names in side_rows(side).items()}
        for side in ("south", "north")
    }


def flatten(obj: dict) -> dict[str, object]:
    """Inverse of :func:`nested`: position-shaped dict -> {hole: value}."""
    out: dict[str, object] = {}
    for side in ("south", "north"):
        for row, names in side_rows(side).items():
            vals = obj[side][row]
            if len(vals) != 8:
                raise ValueError(f"{side}.{row} must list 8 values, got {len(vals)}")
            out.update(zip(names, vals, strict=True))
    return out


START_COUNTS: dict[str, int] = {n: 0 for n in HOLES} | {
    "A5": 6, "A6": 2, "A7": 2, "a5": 6, "a6": 2, "a7": 2,
}
