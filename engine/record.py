"""Game records: the model, the appendix text format, JSON, and replaying.

The text format is the rules' appendix (BAO_RULES.md §6)::

    Event: Zanzibar open
    South: Ali
    North: Juma
    Start: A:0,0,0,0,6,2,2,0 B:... move:S      (optional; default: the start position)

    1: A6<* a6<*; a comment after the semicolon
    2: A7>* a5<*;
    3: A4<;

Header lines ``Key: value`` come first; then one line per move pair, ``N:``
then South's move then North's move, ``;`` and an optional comment. A pair
with a missing move (a game starting with North to move) writes ``...`` in
its place. Blank lines and lines starting with ``;`` are ignored.

JSON form: ``{"headers": {...}, "start": position JSON or null, "moves":
["A6<*", ...], "comments": {"1": "..."}}``; the game files of
docs/ARCHITECTURE.md (``{"start": ..., "moves": [...], "frames": ...}``) read
as records too.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import BaoError, InvalidPosition, json_loads
from engine.position import Position
from engine.rules import Rules
from engine.trace import Outcome

_HEADER_RE = re.compile(r"^([A-Za-z][A-Za-z0-9_ -]*):\s*(.*)$")
_PAIR_RE = re.compile(r"^(\d+)\s*[:.]\s*([^;]*?)\s*(?:;(.*))?$")
PLACEHOLDER = "..."


@dataclass(frozen=True)
class RecordMove:
    """One move as written, with the source line (0 when the record was not read from text)."""

    text: str
    line: int = 0


@dataclass
class GameRecord:
    """A game: headers, the start position (None: the usual start), moves, comments.

    ``comments`` maps a move-pair number (1, 2, ...) to the text after its ``;``.
    """

    headers: dict[str, str] = field(default_factory=dict)
    start: dict[str, Any] | None = None
    moves: list[RecordMove] = field(default_factory=list)
    comments: dict[int, str] = field(default_factory=dict)

    @classmethod
    def from_game(
        cls, start: Position, moves: list[str], headers: dict[str, str] | None = None
    ) -> GameRecord:
        """A record of ``moves`` (notation texts) played from ``start``."""
        is_start = start.key() == Position.start().key()
        return cls(
            headers=dict(headers or {}),
            start=None if is_start else start.to_json(),
            moves=[RecordMove(m) for m in moves],
        )

    def start_position(self, rules: Rules | None = None) -> Position:
        if self.start is None:
            return Position.start(rules)
        return Position.from_json(self.start, rules)


@dataclass(frozen=True)
class RecordError:
    """A problem in a record: the 1-based line (0 if unknown), the text, what is wrong."""

    line: int
    text: str
    message: str

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line else ""
        return f"{where}{self.message}"


@dataclass
class Replay:
    """The result of replaying a record: positions before/after each good move."""

    positions: list[Position]
    moves: list[str]  # full notation of each move replayed
    error: RecordError | None

    @property
    def final(self) -> Position:
        return self.positions[-1]

    @property
    def outcome(self) -> Outcome | None:
        return self.final.outcome()


# ---------------------------------------------------------------------------
# Text format


def read_text(text: str) -> tuple[GameRecord, list[RecordError]]:
    """Read the appendix format leniently: every line that cannot be read is an error."""
    record = GameRecord()
    errors: list[RecordError] = []
    in_moves = False
    expected = 1
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(";"):
            continue
        pair = _PAIR_RE.match(line)
        if pair:
            in_moves = True
            index, body, comment = int(pair.group(1)), pair.group(2), pair.group(3)
            if index != expected:
                errors.append(
                    RecordError(number, raw, f"move pair numbered {index}, expected {expected}")
                )
            expected = index + 1
            words = body.split()
            if not words or len(words) > 2:
                errors.append(RecordError(number, raw, f"expected 'N: SOUTH NORTH;', got {line!r}"))
                continue
            for word in words:
                if word != PLACEHOLDER:
                    record.moves.append(RecordMove(word, number))
            if comment and comment.strip():
                record.comments[index] = comment.strip()
            continue
        header = _HEADER_RE.match(line)
        if header and not in_moves:
            key, value = header.group(1).strip(), header.group(2).strip()
            if key.lower() == "start":
                try:
                    record.start = Position.from_text(value).to_json()
                except InvalidPosition as exc:
                    errors.append(RecordError(number, raw, str(exc)))
            else:
                record.headers[key] = value
            continue
        errors.append(RecordError(number, raw, f"cannot read line {line!r}"))
    return record, errors


def _one_line(text: str) -> str:
    """``text`` with each line break (whatever :meth:`str.splitlines`, and so
    :func:`read_text`, breaks lines at) written as a space."""
    return " ".join(text.splitlines())


def write_text(record: GameRecord) -> str:
    """Write the appendix format (full notation as given in ``record.moves``).

    A header or comment holding a line break (a player's name typed with one, a JSON
    record's header) has it written as a space: the line stays one line, and the
    record reads back (where the break would start a line of its own)."""
    lines = [f"{_one_line(key)}: {_one_line(value)}" for key, value in record.headers.items()]
    start = record.start_position()
    if record.start is not None:
        lines.append(f"Start: {start.to_text()}")
    if lines:
        lines.append("")
    texts = [m.text for m in record.moves]
    if start.to_move == "north":
        texts.insert(0, PLACEHOLDER)
    for i in range(0, len(texts), 2):
        index = i // 2 + 1
        comment = _one_line(record.comments.get(index) or "")
        lines.append(f"{index}: {' '.join(texts[i : i + 2])};{' ' + comment if comment else ''}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# JSON


def to_json(record: GameRecord) -> dict[str, Any]:
    return {
        "headers": dict(record.headers),
        "start": record.start,
        "moves": [m.text for m in record.moves],
        "comments": {str(k): v for k, v in sorted(record.comments.items())},
    }


def from_json(obj: dict[str, Any] | str) -> GameRecord:
    """Read the JSON form; InvalidPosition / BaoError on a bad shape."""
    if isinstance(obj, str):
        try:
            obj = json_loads(obj)
        except json.JSONDecodeError as exc:
            raise BaoError(f"invalid game record: not JSON ({exc})") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("moves"), list):
        raise BaoError("invalid game record: expected a JSON object with a 'moves' list")
    moves = obj["moves"]
    if not all(isinstance(m, str) for m in moves):
        raise BaoError("invalid game record: 'moves' must be a list of move texts")
    headers = obj.get("headers") or {}
    comments = obj.get("comments") or {}
    if not isinstance(headers, dict) or not isinstance(comments, dict):
        raise BaoError("invalid game record: 'headers' and 'comments' must be objects")
    start = obj.get("start")
    if start is not None:
        start = Position.from_json(start).to_json()  # validates
    try:
        comment_map = {int(k): str(v) for k, v in comments.items()}
    except ValueError:
        raise BaoError("invalid game record: comment keys must be move-pair numbers") from None
    return GameRecord(
        headers={str(k): str(v) for k, v in headers.items()},
        start=start,
        moves=[RecordMove(m) for m in moves],
        comments=comment_map,
    )


# ---------------------------------------------------------------------------
# Files and replay


def read_record(path: str | Path) -> tuple[GameRecord, list[RecordError]]:
    """Read a record file, JSON or appendix text (chosen by the first character)."""
    text = Path(path).read_text(encoding="utf-8")
    if text.lstrip().startswith("{"):
        return from_json(text), []
    return read_text(text)


def replay(record: GameRecord, rules: Rules | None = None) -> Replay:
    """Play the record's moves; stop at the first move that is unreadable or illegal."""
    position = record.start_position(rules)
    positions = [position]
    played: list[str] = []
    for move in record.moves:
        try:
            resolved = position.parse_move(move.text)
            played.append(position.notation(resolved))
            position, _ = position.play(resolved)
        except BaoError as exc:
            return Replay(positions, played, RecordError(move.line, move.text, str(exc)))
        positions.append(position)
    return Replay(positions, played, None)
