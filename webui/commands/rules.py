"""``bao moves``, ``bao play`` and ``bao record check``: the rules engine on the command line.

``POSITION`` arguments are a JSON file path, ``-`` for JSON on stdin, the word
``start``, or a position in the one-line text form (docs/engine.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from engine import BaoError, Position
from engine.record import read_record, replay


def load_position(arg: str) -> Position:
    """Read a POSITION argument; InvalidPosition / OSError (one-line messages) if bad."""
    if arg == "start":
        return Position.start()
    if arg == "-":
        return _from_json_text(sys.stdin.read(), "stdin")
    path = Path(arg)
    if path.is_file():
        return _from_json_text(_read_text(path), str(path))
    if ":" in arg and " " in arg.strip():
        return Position.from_text(arg)
    raise FileNotFoundError(
        f"no position file {arg!r} (give a JSON file, '-', 'start' or a text form)"
    )


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise BaoError(f"{path}: not a text file (expected JSON or a game record)") from None


def _from_json_text(text: str, where: str) -> Position:
    try:
        return Position.from_json(text)
    except BaoError as exc:
        raise BaoError(f"{where}: {exc}") from None


def _print_json(obj: Any) -> None:
    print(json.dumps(obj))


def cmd_moves(args: argparse.Namespace) -> int:
    position = load_position(args.position)
    moves = [position.notation(m) for m in position.legal_moves]
    if args.json:
        _print_json(moves)
    else:
        for move in moves:
            print(move)
    if not moves:
        print(f"bao: game over: {position.outcome()}", file=sys.stderr)
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    position = load_position(args.position)
    out: list[str] = []
    for i, text in enumerate(args.moves, start=1):
        try:
            move = position.parse_move(text)
            written = position.notation(move)
            position, trace = position.play(move)
        except BaoError as exc:
            raise BaoError(f"move {i} of {len(args.moves)} {text!r}: {exc}") from None
        if args.trace:
            steps = "; ".join(str(step) for step in trace.steps)
            out.append(f"{written}: {steps} -> {trace.end_reason}")
    for line in out:
        print(line)
    _print_json(position.to_json())
    return 0


def cmd_record_check(args: argparse.Namespace) -> int:
    try:
        record, errors = read_record(args.file)
    except UnicodeDecodeError:
        raise BaoError(f"{args.file}: not a text file (expected a game record)") from None
    except BaoError as exc:
        raise BaoError(f"{args.file}: {exc}") from None
    if errors:
        raise BaoError(f"{args.file}: {errors[0]}")
    result = replay(record)
    if result.error is not None:
        raise BaoError(f"{args.file}: {result.error}")
    final = result.final
    outcome = result.outcome
    if args.json:
        _print_json(
            {
                "moves": result.moves,
                "position": final.to_json(),
                "outcome": outcome.to_json() if outcome else None,
            }
        )
        return 0
    print(f"{len(result.moves)} moves replayed")
    print(final.diagram())
    print(f"position: {final.to_text()}")
    print(f"result: {outcome}" if outcome else f"result: not finished, {final.to_move} to move")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``moves``, ``play`` and ``record`` to the ``bao`` command line."""
    where = "a JSON file, '-' for stdin, 'start', or a one-line text form"
    moves = subparsers.add_parser("moves", help="list the legal moves of a position")
    moves.add_argument("position", metavar="POSITION", help=where)
    moves.add_argument("--json", action="store_true", help="print a JSON list")
    moves.set_defaults(func=cmd_moves)

    play = subparsers.add_parser("play", help="apply moves and print the resulting position")
    play.add_argument("position", metavar="POSITION", help=where)
    play.add_argument("moves", metavar="MOVE", nargs="+", help="moves in notation, e.g. A6<*")
    play.add_argument("--trace", action="store_true", help="also print each step of each move")
    play.set_defaults(func=cmd_play)

    record = subparsers.add_parser("record", help="game records")
    record_sub = record.add_subparsers(dest="record_command", metavar="ACTION")
    record_sub.required = True
    check = record_sub.add_parser("check", help="replay a game record (text or JSON)")
    check.add_argument("file", metavar="FILE")
    check.add_argument("--json", action="store_true", help="print the result as JSON")
    check.set_defaults(func=cmd_record_check)
