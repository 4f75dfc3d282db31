"""Hole names and the sowing ring (BAO_RULES.md §0).

Internally each side's 16 holes are numbered by *ring index* ``r`` along the
sowing ring ``A1 -> A2 -> ... -> A8 -> B8 -> B7 -> ... -> B1 -> A1``:

=========  ======================  ===================
ring ``r``  hole (South / North)    row
=========  ======================  ===================
0..7       A1..A8 / a1..a8          front (hole r+1)
8..15      B8..B1 / b8..b1          back (hole 16-r)
=========  ======================  ===================

Clockwise is ``r + 1`` (mod 16), anticlockwise ``r - 1``. The board is one
flat list of 32 counts, ``board[16 * side + r]`` with side 0 = South,
1 = North. South's front ``r`` faces North's front ``7 - r`` (A_i faces a_(9-i)).
"""

from __future__ import annotations

SIDES: tuple[str, str] = ("south", "north")
SOUTH, NORTH = 0, 1
FRONT_LETTER: tuple[str, str] = ("A", "a")
BACK_LETTER: tuple[str, str] = ("B", "b")
NYUMBA = 4  # ring index of hole 5 of the front row
LEFT_KICHWA, RIGHT_KICHWA = 0, 7
CLOCKWISE, ANTICLOCKWISE = 1, -1


def hole_name(side: int, r: int) -> str:
    """The name of ring index ``r`` of ``side``: ``hole_name(0, 4) == "A5"``."""
    if r < 8:
        return f"{FRONT_LETTER[side]}{r + 1}"
    return f"{BACK_LETTER[side]}{16 - r}"


HOLE_INDEX: dict[str, tuple[int, int]] = {
    hole_name(side, r): (side, r) for side in (SOUTH, NORTH) for r in range(16)
}
"""Hole name -> (side, ring index), for all 32 names."""

ALL_HOLES: tuple[str, ...] = tuple(HOLE_INDEX)


def side_index(side: str) -> int:
    """0 for "south", 1 for "north"; ValueError otherwise."""
    try:
        return SIDES.index(side)
    except ValueError:
        raise ValueError(f"side must be 'south' or 'north', not {side!r}") from None


def back_ring(hole_number: int) -> int:
    """Ring index of back-row hole number 1..8 (B1 -> 15, B8 -> 8)."""
    return 16 - hole_number


def opposite(r: int) -> int:
    """Ring index of the opponent's front hole facing own front ring index ``r``."""
    return 7 - r


def step_of(r: int, sign: str) -> int:
    """Ring step for a sowing that leaves ring index ``r`` towards ``sign``.

    §6: ``<``/``>`` is towards the mover's own left/right along the row of the
    starting hole, so a front-row ``>`` is clockwise and a back-row ``>`` is
    anticlockwise.
    """
    right = sign == ">"
    if r < 8:
        return CLOCKWISE if right else ANTICLOCKWISE
    return ANTICLOCKWISE if right else CLOCKWISE
