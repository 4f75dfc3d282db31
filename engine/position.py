"""The Bao la Kiswahili position: state, legal moves, push/pop, notation, files.

>>> pos = Position.start()
>>> [pos.notation(m) for m in pos.legal_moves]
['A6<*', 'A6>*', 'A7<*', 'A7>*']
>>> trace = pos.push(pos.parse_move("A6<"))
>>> pos.to_move
'north'

Text form (one line; details in :mod:`engine.positionio`)::

    A:0,0,0,0,6,2,2,0 B:0,0,0,0,0,0,0,0 a:0,0,0,0,6,2,2,0 b:0,0,0,0,0,0,0,0 reserve:22,22 nyumba:SN move:S

Rows ``A``/``B`` (South front/back) and ``a``/``b`` (North), holes 1..8 from
the owner's left; ``reserve:South,North``; ``nyumba:`` the sides still owning
their nyumba (``S``, ``N``, ``SN`` or ``-``); ``move:S|N``; optional
``blocked:a4`` (kutakatia block of the side to move).
"""

from __future__ import annotations

from typing import Any

from engine.errors import AmbiguousMove, IllegalMove, InvalidNotation
from engine.holes import FRONT_LETTER, HOLE_INDEX, NYUMBA, SIDES, back_ring, hole_name, side_index
from engine.moves import Result, State, front_row_empty, legal_results, start_plans
from engine.notation import Move, parse_notation
from engine.positionio import (
    TOTAL_SEEDS,
    start_state,
    state_from_json,
    state_from_text,
    state_to_json,
    state_to_text,
)
from engine.rules import DEFAULT_RULES, Rules
from engine.trace import Outcome, Trace


class Position:
    """A position with its rules, an undo stack and cached legal moves.

    Build one with :meth:`start`, :meth:`from_json` or :meth:`from_text`.
    """

    def __init__(self, state: State | None = None, rules: Rules | None = None) -> None:
        self._state = state.copy() if state is not None else start_state()
        self.rules = rules if rules is not None else DEFAULT_RULES
        self._stack: list[tuple[State, Move, dict[Move, Result] | None]] = []
        self._results: dict[Move, Result] | None = None

    # -- construction and files ----------------------------------------------

    @classmethod
    def start(cls, rules: Rules | None = None) -> Position:
        """The start position (2.1), South to move."""
        return cls(start_state(), rules)

    @classmethod
    def from_json(cls, obj: dict[str, Any] | str | bytes, rules: Rules | None = None) -> Position:
        """Read the JSON form (dict or text); InvalidPosition on bad shape or values."""
        return cls(state_from_json(obj), rules)

    def to_json(self) -> dict[str, Any]:
        """The JSON form of docs/ARCHITECTURE.md."""
        return state_to_json(self._state)

    @classmethod
    def from_text(cls, text: str, rules: Rules | None = None) -> Position:
        """Read the one-line text form (module docstring); InvalidPosition if bad."""
        return cls(state_from_text(text), rules)

    def to_text(self) -> str:
        """The one-line text form; ``Position.from_text(p.to_text()) == p``."""
        return state_to_text(self._state)

    def copy(self) -> Position:
        """An independent copy of the current position (without the undo stack)."""
        twin = Position(self._state, self.rules)
        twin._results = self._results
        return twin

    @property
    def state(self) -> State:
        """A copy of the bare state (for fast cores and tests)."""
        return self._state.copy()

    def key(self) -> tuple[object, ...]:
        """A hashable value equal for equal positions."""
        return self._state.key()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self.key() == other.key() and self.rules == other.rules

    __hash__ = None  # type: ignore[assignment]  # mutable, like a chess board

    def __repr__(self) -> str:
        return f"Position.from_text({self.to_text()!r})"

    def __str__(self) -> str:
        return self.to_text()

    def diagram(self) -> str:
        """Four rows as printed in the sources: b8..b1 / a8..a1 / A1..A8 / B1..B8."""
        rows = [
            [self[f"b{i}"] for i in range(8, 0, -1)],
            [self[f"a{i}"] for i in range(8, 0, -1)],
            [self[f"A{i}"] for i in range(1, 9)],
            [self[f"B{i}"] for i in range(1, 9)],
        ]
        own = ["*" if o else " " for o in self._state.owned]
        lines = [
            f"north reserve {self.reserve('north')}{'  nyumba owned' if own[1] == '*' else ''}",
            *(" ".join(f"{n:2d}" for n in row) for row in rows),
            f"south reserve {self.reserve('south')}{'  nyumba owned' if own[0] == '*' else ''}",
            f"{self.to_move} to move" + (f", {self.blocked} blocked" if self.blocked else ""),
        ]
        return "\n".join(lines)

    # -- reading the position ------------------------------------------------

    @property
    def to_move(self) -> str:
        return SIDES[self._state.to_move]

    @property
    def phase(self) -> str:
        """ "kunamua" while the side to move has reserve seeds, else "mtaji" (1.7, 3.1)."""
        return "kunamua" if self._state.reserve[self._state.to_move] > 0 else "mtaji"

    @property
    def blocked(self) -> str | None:
        """The kutakatia-blocked hole of the side to move (§5), e.g. "a4", or None."""
        if self._state.blocked is None:
            return None
        return hole_name(self._state.to_move, self._state.blocked)

    def __getitem__(self, hole: str) -> int:
        try:
            side, r = HOLE_INDEX[hole]
        except (KeyError, TypeError):
            raise KeyError(f"no hole {hole!r}: expected A1..B8 or a1..b8") from None
        return self._state.board[16 * side + r]

    def counts(self, side: str) -> dict[str, list[int]]:
        """{"front": [hole 1..8], "back": [hole 1..8]} of ``side``."""
        base = 16 * side_index(side)
        board = self._state.board
        return {
            "front": board[base : base + 8],
            "back": [board[base + back_ring(i)] for i in range(1, 9)],
        }

    def reserve(self, side: str) -> int:
        return self._state.reserve[side_index(side)]

    def nyumba_owned(self, side: str) -> bool:
        return self._state.owned[side_index(side)]

    # -- moves ---------------------------------------------------------------

    def _legal(self) -> dict[Move, Result]:
        if self._results is None:
            self._results = legal_results(self._state, self.rules)
        return self._results

    @property
    def legal_moves(self) -> list[Move]:
        """Every legal move once, sorted (empty when the game is over)."""
        return list(self._legal())

    def is_legal(self, move: Move) -> bool:
        return move in self._legal()

    def _resolve(self, move: Move | str) -> Move:
        if isinstance(move, str):
            return self.parse_move(move)
        if move not in self._legal():
            raise IllegalMove(self._illegal_message(str(move), "not a legal move"))
        return move

    def push(self, move: Move | str) -> Trace:
        """Play ``move`` (a Move or notation text) on this position; return its trace."""
        move = self._resolve(move)
        result = self._legal()[move]
        self._stack.append((self._state, move, self._results))
        self._state = result.state
        self._results = None
        return result.trace

    def pop(self) -> Move:
        """Undo the last pushed move and return it."""
        if not self._stack:
            raise IndexError("pop from an empty move stack")
        self._state, move, self._results = self._stack.pop()
        return move

    @property
    def move_stack(self) -> list[Move]:
        return [move for _, move, _ in self._stack]

    def play(self, move: Move | str) -> tuple[Position, Trace]:
        """The position after ``move`` and its trace; this position is unchanged."""
        move = self._resolve(move)
        result = self._legal()[move]
        return Position(result.state, self.rules), result.trace

    def trace(self, move: Move | str) -> Trace:
        """The trace ``move`` would have, without playing it."""
        move = self._resolve(move)
        return self._legal()[move].trace

    # -- game end --------------------------------------------------------------

    def outcome(self) -> Outcome | None:
        """Outcome(winner, reason) if the game is over, else None (1.2)."""
        me = self._state.to_move
        for side in (me, 1 - me):
            if front_row_empty(self._state, side):  # 1.2.1
                return Outcome(SIDES[1 - side], f"{SIDES[side]}'s front row is empty")
        if not self._legal():  # 1.2.2, 1.5.6
            if start_plans(self._state, self.rules):
                reason = f"every move of {SIDES[me]} is infinite"
            else:
                reason = f"{SIDES[me]} has no legal move"
            return Outcome(SIDES[1 - me], reason)
        return None

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    # -- notation --------------------------------------------------------------

    def notation(self, move: Move) -> str:
        """Full notation of a legal move: ``A6<*``, ``a3>**``, ``A5<+``, ``A4>``."""
        move = self._resolve(move)
        trace = self._legal()[move].trace
        if trace.capture:
            return str(move)
        return f"{move}{'**' if trace.blocked else '*'}"

    def parse_move(self, text: str) -> Move:
        """Resolve a full or short move text against this position.

        InvalidNotation if the text is not notation, IllegalMove if it matches no
        legal move, AmbiguousMove if it matches several.
        """
        try:
            parsed = parse_notation(text)
        except InvalidNotation as exc:
            raise InvalidNotation(f"{exc} (position {self.to_text()})") from None
        me = self._state.to_move
        if parsed.row is not None and (parsed.row in "AB") != (me == 0):
            raise IllegalMove(
                self._illegal_message(
                    text, f"{parsed.row}{parsed.number} is not a hole of {SIDES[me]}"
                )
            )
        candidates = []
        for move in self._legal():
            if parsed.row is not None:
                if move.hole != f"{parsed.row}{parsed.number}":
                    continue
            elif move.hole[1] != str(parsed.number) or (
                self.phase == "kunamua" and move.hole[0] != FRONT_LETTER[me]
            ):
                continue
            if parsed.direction is not None and move.direction != parsed.direction:
                continue
            if move.safari != parsed.safari:
                continue
            candidates.append(move)
        if parsed.kutakata and candidates:
            kutakata = [m for m in candidates if not self._legal()[m].trace.capture]
            if not kutakata:
                raise IllegalMove(
                    self._illegal_message(text, "marked '*' (kutakata) but it captures")
                )
            candidates = kutakata
        if not candidates:
            raise IllegalMove(self._illegal_message(text, "not a legal move"))
        if len(candidates) > 1:
            raise AmbiguousMove(
                f"ambiguous move {text!r}: it could be "
                f"{', '.join(self.notation(m) for m in candidates)} in position {self.to_text()}"
            )
        return candidates[0]

    def _illegal_message(self, text: str, reason: str) -> str:
        legal = ", ".join(self.notation(m) for m in self._legal()) or "none, the game is over"
        return f"illegal move {text!r} ({reason}; legal: {legal}) in position {self.to_text()}"

    # -- plausibility ------------------------------------------------------------

    def status(self) -> list[str]:
        """Plausibility flags for a position read from a photo (empty list: plausible)."""
        st = self._state
        flags = []
        total = sum(st.board) + sum(st.reserve)
        if total != TOTAL_SEEDS:
            flags.append(f"seed total is {total}, not {TOTAL_SEEDS}")
        for side, name in enumerate(SIDES):
            if st.owned[side] and st.board[16 * side + NYUMBA] == 0:
                flags.append(f"{name} nyumba owned but empty")
            if st.reserve[side] > 22:
                flags.append(f"{name} reserve {st.reserve[side]} is more than 22")
            if front_row_empty(st, side):
                flags.append(f"{name} front row is empty (game over)")
        # 2.1.1: South moves first and each kunamua move takes one reserve seed.
        diff = st.reserve[0] - st.reserve[1]
        if (st.reserve[0] or st.reserve[1]) and diff != (0 if st.to_move == 0 else -1):
            flags.append(
                f"reserves south {st.reserve[0]} / north {st.reserve[1]} do not match "
                f"{SIDES[st.to_move]} to move"
            )
        if st.blocked is not None and st.board[16 * st.to_move + st.blocked] == 0:
            flags.append(f"blocked hole {self.blocked} is empty")
        return flags
