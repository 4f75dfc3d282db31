"""``bao hint`` (the best move in a position) and ``bao match`` (games between players).

Examples::

    bao hint start --time 1 --top 3
    bao hint position.json --json
    bao match --south ai:1 --north greedy --games 20
    bao match --south ai:0.1 --north random --games 100 --openings 4 --json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    """Add ``hint`` and ``match`` to the ``bao`` command line."""
    hint = subparsers.add_parser(
        "hint",
        help="suggest the best move in a position",
        description="Search a position and print the best move, its evaluation (from the "
        "side to move's point of view; proven wins and losses as such), the principal "
        "variation and the next-best alternatives.",
    )
    hint.add_argument("position", help="position JSON file, '-' for standard input, or 'start'")
    hint.add_argument("--time", type=float, default=1.0, help="seconds to think (default 1.0)")
    hint.add_argument("--nodes", type=int, default=None, help="stop after about this many nodes")
    hint.add_argument(
        "--top", type=int, default=3, help="how many alternatives to list (default 3)"
    )
    hint.add_argument("--seed", type=int, default=0, help="tie-breaking seed (default 0)")
    hint.add_argument("--json", action="store_true", help="print the result as JSON")
    hint.set_defaults(func=run_hint)

    match = subparsers.add_parser(
        "match",
        help="play games between two players and report the score",
        description="Play games between two players, alternating sides, from the start and "
        "from random openings. PLAYER: random, greedy, ai (1 s per move), ai:SECONDS, "
        "ai:nNODES, optionally with @WEIGHTS.json.",
    )
    match.add_argument(
        "--south",
        "--white",
        dest="south",
        required=True,
        metavar="PLAYER",
        help="plays South (who moves first, so also --white) in game 1",
    )
    match.add_argument(
        "--north",
        "--black",
        dest="north",
        required=True,
        metavar="PLAYER",
        help="plays North (also --black) in game 1",
    )
    match.add_argument("--games", type=int, default=10, help="number of games (default 10)")
    match.add_argument(
        "--openings",
        type=int,
        default=4,
        metavar="PLIES",
        help="game pairs after the first start from 1..PLIES random moves (default 4; 0: all "
        "from the start)",
    )
    match.add_argument("--max-plies", type=int, default=400, help="unfinished after this many")
    match.add_argument("--seed", type=int, default=0, help="seed for openings and players")
    match.add_argument("--quiet", action="store_true", help="no line per game")
    match.add_argument("--json", action="store_true", help="print the totals as JSON")
    match.set_defaults(func=run_match_command)


def load_position(arg: str) -> Any:
    """A Position from 'start', '-' (JSON on stdin) or a JSON file path."""
    from engine import Position
    from engine.errors import json_loads

    if arg == "start":
        return Position.start()
    if arg == "-":
        text = sys.stdin.read()
        source = "standard input"
    else:
        path = Path(arg)
        if not path.is_file():
            raise ValueError(f"position {arg!r}: no such file (give a JSON file, '-' or 'start')")
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:  # (a ValueError, but its message names no file)
            raise ValueError(f"position from {arg} is not JSON: not UTF-8 text") from None
        source = arg
    try:
        data = json_loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"position from {source} is not valid JSON: {exc}") from exc
    return Position.from_json(data)


def _fmt(value: float) -> str:
    return f"{value:+.2f}"


def hint_json(position: Any, result: Any) -> dict[str, Any]:
    """The exact ``bao hint --json`` object for a SearchResult."""
    pv_text = []
    pos = position
    for move in result.pv:
        pv_text.append(pos.notation(move))
        pos, _ = pos.play(move)
    return {
        "move": position.notation(result.move),
        "evaluation": round(float(result.evaluation), 3),
        "pv": pv_text,
        "alternatives": [
            {"move": position.notation(m), "evaluation": round(float(v), 3)}
            for m, v in result.alternatives
        ],
        "nodes": int(result.nodes),
        "time_s": round(float(result.time_s), 3),
    }


def run_hint(args: argparse.Namespace) -> int:
    from engine.search import MAX_NODE_LIMIT, best_move, proven_text

    if not 0 < args.time < math.inf:  # (nan and inf, too: inf would search for ever)
        raise ValueError(f"--time must be positive and finite, got {args.time}")
    if args.top < 0:
        raise ValueError(f"--top must be >= 0, got {args.top}")
    if args.nodes is not None and args.nodes <= 0:
        raise ValueError(f"--nodes must be positive, got {args.nodes}")
    if args.nodes is not None and args.nodes > MAX_NODE_LIMIT:
        raise ValueError(f"--nodes must be at most {MAX_NODE_LIMIT}, got {args.nodes}")
    position = load_position(args.position)
    if position.is_game_over():
        outcome = position.outcome()
        raise ValueError(f"the game is over ({outcome}): there is no move to suggest")
    result = best_move(
        position, time_limit=args.time, node_limit=args.nodes, top=args.top, seed=args.seed
    )
    data = hint_json(position, result)
    if args.json:
        print(json.dumps(data))
        return 0
    side = position.to_move.capitalize()
    print(f"{side} to move: {data['move']}  evaluation {_fmt(result.evaluation)}")
    if result.proven:
        print(f"proven: {result.proven}")
    print("line: " + " ".join(data["pv"]))
    for alt, (_, value) in zip(data["alternatives"], result.alternatives, strict=True):
        note = proven_text(value, position.to_move)
        print(f"  also {alt['move']:<8} {_fmt(value)}" + (f"  ({note})" if note else ""))
    nps = result.nodes / result.time_s if result.time_s > 0 else 0.0
    print(
        f"searched {result.nodes} positions in {result.time_s:.2f} s "
        f"({nps:,.0f}/s, depth {result.depth})"
    )
    return 0


def run_match_command(args: argparse.Namespace) -> int:
    from engine import Position
    from engine.match import run_match
    from engine.players import make_player

    if args.games <= 0:
        raise ValueError(f"--games must be positive, got {args.games}")
    if args.openings < 0:
        raise ValueError(f"--openings must be >= 0, got {args.openings}")
    a = make_player(args.south, seed=args.seed)
    b = make_player(args.north, seed=args.seed + 1)

    def progress(i: int, game: Any) -> None:
        if args.quiet or args.json:
            return
        who = game.winner.capitalize() if game.winner else "nobody"
        print(
            f"game {i + 1}: {game.south} (S) vs {game.north} (N): {who} wins "
            f"after {game.plies} moves ({game.reason})",
            flush=True,
        )

    result = run_match(
        a,
        b,
        args.games,
        Position.start(),
        opening_plies=args.openings,
        seed=args.seed,
        max_plies=args.max_plies,
        progress=progress,
    )
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(result.summary())
    return 0
