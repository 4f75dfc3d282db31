"""Move values and the move notation of BAO_RULES.md §6 (syntax only).

Full form, as the engine writes it: row letter, hole number, direction, then
marks: ``A6<*`` (kutakata), ``a3>**`` (kutakata that creates a kutakatia
block), ``A5<+`` (safari: the player emptied the nyumba when the move offered
the choice), ``A4>`` (a capture). Meaning of ``<``/``>``:

* kutakata and every mtaji move: the way the first sowing leaves the starting
  hole, towards the mover's own left/right along that hole's row;
* capture in kunamua: the kichwa where the captured seeds go in (``<`` left
  kichwa, sowing clockwise; ``>`` right kichwa, anticlockwise).

Short forms accepted by :func:`parse_notation` (resolved against a position by
``Position.parse_move``): the row letter may be omitted (``6<*``), the
direction may be omitted (``A1``), ``#`` (winning move) and the ``*``/``**``
marks are optional, spaces around the text are ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.errors import InvalidNotation
from engine.holes import HOLE_INDEX

_MOVE_RE = re.compile(r"^([ABab])?([1-8])([<>])?([+*#]*)$")


@dataclass(frozen=True, order=True)
class Move:
    """One legal-move choice: starting hole, direction sign and the safari flag.

    ``Move("A5", "<", safari=True)`` is written ``A5<+``. Moves sort by hole
    name, then direction (``<`` first), then safari.
    """

    hole: str
    direction: str
    safari: bool = False

    def __post_init__(self) -> None:
        if self.hole not in HOLE_INDEX:
            raise InvalidNotation(f"invalid hole {self.hole!r}: expected A1..B8 or a1..b8")
        if self.direction not in ("<", ">"):
            raise InvalidNotation(f"invalid direction {self.direction!r}: expected '<' or '>'")
        if not isinstance(self.safari, bool):
            raise InvalidNotation(f"safari must be True or False, not {self.safari!r}")

    def __str__(self) -> str:
        return f"{self.hole}{self.direction}{'+' if self.safari else ''}"

    @property
    def side(self) -> str:
        """ "south" for holes A/B, "north" for a/b."""
        return "south" if self.hole[0] in "AB" else "north"

    @classmethod
    def parse(cls, text: str) -> Move:
        """Parse a move written with its row letter and direction (no position needed).

        Marks ``*``, ``**`` and ``#`` are accepted and dropped; ``+`` sets safari.
        Forms without a row letter or direction raise :class:`InvalidNotation`:
        they need ``Position.parse_move``.
        """
        parsed = parse_notation(text)
        if parsed.row is None or parsed.direction is None:
            missing = "row letter" if parsed.row is None else "direction"
            raise InvalidNotation(
                f"move {text!r} has no {missing}; short forms need a position (Position.parse_move)"
            )
        return cls(f"{parsed.row}{parsed.number}", parsed.direction, parsed.safari)


@dataclass(frozen=True)
class ParsedMove:
    """The fields of a move text; ``None`` where the short form omits them."""

    text: str
    row: str | None  # "A", "B", "a", "b"
    number: int  # 1..8
    direction: str | None  # "<", ">"
    safari: bool  # "+"
    kutakata: int  # number of "*" marks: 0, 1 (kutakata) or 2 (kutakatia)
    wins: bool  # "#"


def parse_notation(text: str) -> ParsedMove:
    """Split a move text into its fields; :class:`InvalidNotation` if it is not notation."""
    if not isinstance(text, str):
        raise InvalidNotation(f"a move must be text, not {type(text).__name__}")
    stripped = text.strip()
    match = _MOVE_RE.match(stripped)
    if match is None:
        raise InvalidNotation(
            f"invalid move {text!r}: expected e.g. 'A6<*', 'a3>', 'A5<+' "
            "(row A/B/a/b, hole 1-8, direction < or >, marks + * ** #)"
        )
    row, number, direction, marks = match.groups()
    stars = marks.count("*")
    if marks.count("+") > 1 or marks.count("#") > 1 or stars > 2:
        raise InvalidNotation(f"invalid move {text!r}: repeated marks {marks!r}")
    if stars and "+" in marks:
        raise InvalidNotation(
            f"invalid move {text!r}: '+' (safari) only occurs in capture moves, "
            "'*' marks a kutakata"
        )
    if stars == 2 and marks.replace("#", "").replace("+", "") != "**":
        raise InvalidNotation(f"invalid move {text!r}: '**' must be written together")
    return ParsedMove(
        text=stripped,
        row=row,
        number=int(number),
        direction=direction,
        safari="+" in marks,
        kutakata=stars,
        wins="#" in marks,
    )
