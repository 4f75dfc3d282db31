"""Speed of the rules engines: random playouts and legal-move generation.

Measures, on one core, the numba core (engine.core): whole random games from
the start position (plies/s, games/s, mean game length, results), the rate of
legal-move generation on positions met in those games, and the compile time
(cold, with an empty numba cache, and warm, loading the cache). The pure-Python
engine (engine.Position) is measured for comparison.

    nice python3 benchmarks/engine_speed.py [--games 20000] [--no-compile]

Prints the figures and writes benchmarks/results/engine_speed.json.
"""

from __future__ import annotations

import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # single core, before numba loads
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from datetime import UTC, datetime  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "engine_speed.json"
MAX_PLIES = 10_000  # a playout longer than this counts as a draw

_COMPILE_PROBE = """
import time
t0 = time.perf_counter()
import numpy as np
from engine import core
t1 = time.perf_counter()
st = core.start_state()
out = np.empty(core.MAX_MOVES, dtype=np.int32)
core.gen_moves(st, core.DEFAULT_RULES, out)
core.apply_copy(st, out[0], core.DEFAULT_RULES)
core.random_playout(st, core.DEFAULT_RULES, 0, 100)
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""


def compile_times() -> dict[str, float]:
    """Import and first-call times in fresh processes: cold (empty numba cache)
    then warm (the cache the cold run wrote)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    times: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as cache:
        env["NUMBA_CACHE_DIR"] = cache
        for label in ("cold", "warm"):
            run = subprocess.run(
                [sys.executable, "-c", _COMPILE_PROBE],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            imp, first = (float(x) for x in run.stdout.split())
            times[f"{label}_import_s"] = round(imp, 3)
            times[f"{label}_first_calls_s"] = round(first, 3)
    return times


def playouts(core: Any, games: int) -> dict[str, Any]:
    st = core.start_state()
    rules = core.DEFAULT_RULES
    core.random_playout(st, rules, 0, MAX_PLIES)  # compiled / cache loaded
    lengths = np.empty(games, dtype=np.int64)
    wins = {"south": 0, "north": 0, "draw": 0}
    names = {core.SOUTH: "south", core.NORTH: "north", core.DRAW: "draw"}
    chunk_rates = []  # plies/s of each tenth of the games: the best is the least disturbed
    chunk = max(1, games // 10)
    t0 = time.perf_counter()
    for start in range(0, games, chunk):
        c0 = time.perf_counter()
        for seed in range(start, min(games, start + chunk)):
            winner, plies = core.random_playout(st, rules, seed, MAX_PLIES)
            lengths[seed] = plies
            wins[names[int(winner)]] += 1
        chunk_plies = lengths[start : start + chunk].sum()
        chunk_rates.append(chunk_plies / (time.perf_counter() - c0))
    elapsed = time.perf_counter() - t0
    return {
        "games": games,
        "seconds": round(elapsed, 3),
        "plies": int(lengths.sum()),
        "plies_per_s": round(lengths.sum() / elapsed),
        "best_tenth_plies_per_s": round(max(chunk_rates)),
        "games_per_s": round(games / elapsed, 1),
        "mean_plies": round(float(lengths.mean()), 2),
        "median_plies": float(np.median(lengths)),
        "max_plies": int(lengths.max()),
        "results": wins,
    }


def sample_states(core: Any, count: int, seed: int) -> np.ndarray:
    """Positions met in random games from the start (every ply of each game)."""
    rng = np.random.default_rng(seed)
    rules = core.DEFAULT_RULES
    out = np.empty(core.MAX_MOVES, dtype=np.int32)
    states: list[np.ndarray] = []
    while len(states) < count:
        st = core.start_state()
        while len(states) < count:
            n = core.gen_moves(st, rules, out)
            if n == 0:
                break
            states.append(st.copy())
            core.apply_move(st, out[rng.integers(n)], rules)
    return np.array(states)


def movegen(core: Any, states: np.ndarray, repeats: int) -> dict[str, Any]:
    rules = core.DEFAULT_RULES
    out = np.empty(core.MAX_MOVES, dtype=np.int32)
    kernel = core.gen_moves
    total_moves = sum(kernel(st, rules, out) for st in states)
    loop = _gen_loop(kernel)
    loop(states[:1], rules, out, 1)  # compile outside the timing
    t0 = time.perf_counter()
    calls = loop(states, rules, out, repeats)
    elapsed = time.perf_counter() - t0
    return {
        "positions": len(states),
        "calls": calls,
        "seconds": round(elapsed, 3),
        "positions_per_s": round(calls / elapsed),
        "moves_per_s": round(total_moves * repeats / elapsed),
        "mean_legal_moves": round(total_moves / len(states), 2),
    }


def _gen_loop(kernel: Any) -> Any:
    """A compiled loop calling ``kernel`` on every state ``reps`` times."""
    from numba import njit

    @njit
    def loop(states: np.ndarray, rules: np.ndarray, out: np.ndarray, reps: int) -> int:
        calls = 0
        for _ in range(reps):
            for i in range(states.shape[0]):
                kernel(states[i], rules, out)
                calls += 1
        return calls

    return loop


def python_engine(games: int) -> dict[str, Any]:
    from engine import Position

    rng = random.Random(0)
    plies = 0
    t0 = time.perf_counter()
    for _ in range(games):
        pos = Position.start()
        while moves := pos.legal_moves:
            pos.push(rng.choice(moves))
            plies += 1
    elapsed = time.perf_counter() - t0
    return {"games": games, "plies": plies, "plies_per_s": round(plies / elapsed)}


def machine() -> dict[str, Any]:
    import numba

    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "threads_used": 1,
        "python": platform.python_version(),
        "numba": numba.__version__,
        "numpy": np.__version__,
        "platform": platform.platform(),
        "load_average_1min": round(os.getloadavg()[0], 2),  # other jobs share the cores
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20000, help="random playouts to time")
    parser.add_argument("--positions", type=int, default=20000, help="positions for movegen")
    parser.add_argument("--python-games", type=int, default=100, help="games for engine.Position")
    parser.add_argument("--no-compile", action="store_true", help="skip the compile-time runs")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)

    sys.path.insert(0, str(ROOT))
    report: dict[str, Any] = {"machine": machine()}
    if not args.no_compile:
        report["compile"] = compile_times()
        c = report["compile"]
        print(
            f"compile: cold import {c['cold_import_s']} s + first calls {c['cold_first_calls_s']} s;"
            f" warm (cached) import {c['warm_import_s']} s + first calls {c['warm_first_calls_s']} s"
        )
    from engine import core

    report["playouts"] = p = playouts(core, args.games)
    print(
        f"random playouts from the start: {p['plies_per_s']:,} plies/s"
        f" (best tenth {p['best_tenth_plies_per_s']:,}), {p['games_per_s']:,} games/s"
        f" ({p['games']} games, {p['plies']:,} plies in {p['seconds']} s);"
        f" mean length {p['mean_plies']} plies (median {p['median_plies']}, max {p['max_plies']});"
        f" results {p['results']}"
    )
    states = sample_states(core, args.positions, seed=1)
    report["movegen"] = m = movegen(core, states, repeats=5)
    print(
        f"legal-move generation: {m['positions_per_s']:,} positions/s, {m['moves_per_s']:,} moves/s"
        f" ({m['positions']} positions from random games, mean {m['mean_legal_moves']} legal moves)"
    )
    report["python_engine"] = py = python_engine(args.python_games)
    print(f"pure-Python engine (engine.Position) random playouts: {py['plies_per_s']:,} plies/s")
    report["speedup_vs_python"] = round(p["plies_per_s"] / py["plies_per_s"], 1)
    report["target_plies_per_s"] = 200_000
    report["command"] = "nice python3 benchmarks/engine_speed.py " + " ".join(
        sys.argv[1:] if argv is None else argv
    )
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
