"""Tune the evaluation weights by self-play: a logistic fit of game results.

The search plays itself at a small node limit from random openings (a few
random moves, then an occasional random move for variety); every position of
every finished game is labelled 1 if the side to move went on to win, else 0.
A logistic regression of that label on the evaluation features
(``engine.evaluate.FEATURES``, from the side to move's point of view) gives
weights in "log-odds" units; they are rescaled so that the material weight is
1 (the evaluation stays in "seeds") and written to engine/eval_weights.json.
The fit's log-loss against the previous weights (best scale) is reported in
benchmarks/results/tune_eval.json.

Run (one core, a few minutes)::

    nice -n 10 python3 benchmarks/tune_eval.py --games 300 --nodes 3000
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from engine import core, search_core
from engine.evaluate import FEATURES, N_FEATURES, WEIGHTS_PATH, load_weights, weight_vector

RESULTS = Path(__file__).parent / "results" / "tune_eval.json"


def self_play(
    games: int, nodes: int, weights: np.ndarray, seed: int, max_plies: int = 300
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, int]]:
    """Feature rows, labels (1: the side to move won) and game numbers from self-play."""
    rng = np.random.default_rng(seed)
    rules = core.make_rules()
    rows: list[np.ndarray] = []
    labels: list[float] = []
    game_ids: list[int] = []
    stats = {"games": 0, "finished": 0, "positions": 0}
    codes = np.zeros(core.MAX_MOVES, dtype=np.int32)
    fbuf = np.zeros(N_FEATURES)
    for g in range(games):
        st = core.start_state()
        opening = int(rng.integers(0, 9))
        game_rows: list[tuple[np.ndarray, int]] = []
        winner = core.NO_WINNER
        for ply in range(max_plies):
            winner = int(core.game_result(st, rules))
            if winner != core.NO_WINNER:
                break
            mover = int(st[core.TO_MOVE])
            if ply >= opening:
                search_core._features(st, fbuf)
                game_rows.append((fbuf.copy(), mover))
            n = core.gen_moves(st, rules, codes)
            if ply < opening or rng.random() < 0.05:
                code = int(codes[int(rng.integers(0, n))])
            else:
                r = search_core.search_state(st, rules, weights, None, nodes, 0, seed + g)
                code = r["move"]
            core.apply_move(st, code, rules)
        stats["games"] += 1
        if winner in (core.SOUTH, core.NORTH):
            stats["finished"] += 1
            for f, mover in game_rows:
                rows.append(f)
                labels.append(1.0 if mover == winner else 0.0)
                game_ids.append(g)
    stats["positions"] = len(rows)
    x = np.array(rows).reshape(-1, N_FEATURES)
    return x, np.array(labels), np.array(game_ids), stats


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, iters: int = 50) -> np.ndarray:
    """Logistic regression without intercept (the features are antisymmetric) by Newton steps."""
    beta = np.zeros(x.shape[1])
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(x @ beta)))
        grad = x.T @ (p - y) + l2 * beta
        hess = (x * (p * (1 - p))[:, None]).T @ x + l2 * np.eye(x.shape[1])
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    return beta


def log_loss(x: np.ndarray, y: np.ndarray, beta: np.ndarray) -> float:
    z = np.clip(x @ beta, -30, 30)
    p = 1.0 / (1.0 + np.exp(-z))
    return float(-np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12)))


def best_scale_loss(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """Log-loss of weights `w` at the best overall scale (w is in seeds, not log-odds)."""
    return min(log_loss(x, y, w * k) for k in np.geomspace(0.005, 2.0, 60))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--nodes", type=int, default=3000, help="search node limit per move")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dry-run", action="store_true", help="do not write the weights")
    args = parser.parse_args()

    old = load_weights()
    w_old = weight_vector(old)
    t0 = time.perf_counter()
    x, y, gid, stats = self_play(args.games, args.nodes, w_old, args.seed)
    play_s = time.perf_counter() - t0
    # Hold out every fifth game to check the fit on games it has not seen.
    test = gid % 5 == 4
    beta = fit_logistic(x[~test], y[~test])
    if beta[0] <= 0:
        raise SystemExit("the fit gave material a non-positive weight; play more games")
    new = {name: round(float(b / beta[0]), 4) for name, b in zip(FEATURES, beta, strict=True)}
    report = {
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": f"python3 benchmarks/tune_eval.py --games {args.games} --nodes {args.nodes} "
        f"--seed {args.seed}",
        **stats,
        "self_play_s": round(play_s, 1),
        "logit_per_seed": round(float(beta[0]), 4),
        "holdout_log_loss_old_weights": round(best_scale_loss(x[test], y[test], w_old), 4),
        "holdout_log_loss_new_weights": round(log_loss(x[test], y[test], beta), 4),
        "holdout_log_loss_constant": round(log_loss(x[test], y[test], np.zeros(N_FEATURES)), 4),
        "old_weights": old,
        "new_weights": new,
    }
    print(json.dumps(report, indent=2))
    if not args.dry_run:
        WEIGHTS_PATH.write_text(
            json.dumps(
                {
                    "comment": "Evaluation weights (seeds per unit of each feature), written by "
                    "benchmarks/tune_eval.py: logistic fit of self-play results.",
                    "tuned": report["date"],
                    "positions": stats["positions"],
                    "weights": new,
                },
                indent=2,
            )
            + "\n"
        )
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
