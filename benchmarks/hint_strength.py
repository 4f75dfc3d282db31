"""How strong is the hint search? Matches with 95% intervals, and search speed.

Sections (each writes its figures into benchmarks/results/hint_strength.json
as soon as it finishes, keeping the other sections' earlier figures):

- ``speed``: nodes per second of the fast search at 1 s on the start position
  and on positions from random play.
- ``MATCH`` names such as ``ai:1-random``: a match between two players of
  ``engine.players.make_player`` (``ai:SECONDS``, ``ai:nNODES``, ``random``,
  ``greedy``, ``...@weights.json``), alternating sides, pairs of games from
  the start and from random openings (1-6 random moves).

Run on one core, in the background (these take minutes to an hour)::

    nice -n 10 python3 benchmarks/hint_strength.py speed ai:0.1-random:100 \
        ai:0.1-greedy:100 ai:1-random:20 ai:1-greedy:20 ai:1-ai:0.1:20

A match spec is ``A-B:GAMES``. Wins count 1, unfinished games (400 moves) 1/2.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine import Position
from engine.match import run_match
from engine.players import SearchPlayer, make_player
from engine.search import best_move

RESULTS = Path(__file__).parent / "results" / "hint_strength.json"


def _save(key: str, value: object) -> None:
    data = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    data[key] = value
    data["machine"] = {
        "cpu": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(data, indent=2) + "\n")


def speed(positions: int = 8, seconds: float = 1.0) -> dict[str, Any]:
    """Nodes per second at `seconds` per search, start and random-play positions."""
    rng = random.Random(3)
    samples = [Position.start()]
    while len(samples) < positions:
        pos = Position.start()
        for _ in range(rng.randint(5, 60)):
            if pos.is_game_over():
                break
            pos.push(rng.choice(pos.legal_moves))
        if not pos.is_game_over():
            samples.append(pos)
    best_move(samples[0], time_limit=0.05)  # compile / load the kernels
    rows = []
    for pos in samples:
        r = best_move(pos, time_limit=seconds)
        rows.append({"nodes": r.nodes, "time_s": round(r.time_s, 3), "depth": r.depth})
    nodes = sum(r["nodes"] for r in rows)
    secs = sum(r["time_s"] for r in rows)
    out: dict[str, Any] = {
        "seconds_per_search": seconds,
        "positions": len(rows),
        "nodes_per_second": round(nodes / secs),
        "mean_depth": round(sum(r["depth"] for r in rows) / len(rows), 1),
        "searches": rows,
    }
    print(f"speed: {out['nodes_per_second']:,} nodes/s, mean depth {out['mean_depth']}", flush=True)
    return out


def match(spec: str, seed: int) -> dict[str, Any]:
    """Play the match `A-B:GAMES` and return its totals."""
    players, _, games = spec.rpartition(":")
    a_spec, _, b_spec = players.partition("-")
    a = make_player(a_spec, seed=seed)
    b = make_player(b_spec, seed=seed + 1)

    def progress(i: int, game: Any) -> None:
        print(
            f"  {spec} game {i + 1}: {game.south} (S) vs {game.north} (N): "
            f"winner {game.winner} after {game.plies} moves",
            flush=True,
        )

    result = run_match(
        a, b, int(games), Position.start(), opening_plies=6, seed=seed, progress=progress
    )
    out = result.to_json()
    for p in (a, b):
        if isinstance(p, SearchPlayer) and p.seconds > 0:
            out[f"{p.name}_nodes_per_second"] = round(p.nodes / p.seconds)
    out["mean_plies"] = round(sum(g.plies for g in result.games) / len(result.games), 1)
    out["command"] = f"python3 benchmarks/hint_strength.py {spec}"
    print(result.summary(), flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description="Strength and speed of the hint search.")
    parser.add_argument("sections", nargs="+", help="'speed' and/or match specs A-B:GAMES")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for section in args.sections:
        t0 = time.perf_counter()
        value = speed() if section == "speed" else match(section, args.seed)
        value["wall_s"] = round(time.perf_counter() - t0, 1)
        value["date"] = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        _save(section if section == "speed" else section.rpartition(":")[0], value)


if __name__ == "__main__":
    main()
