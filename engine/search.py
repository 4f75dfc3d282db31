"""Move search: the engine's Bao player and the source of move hints.

Public API (the web app's Hint button and ``bao hint`` call exactly this)::

    from engine.search import best_move, SearchResult

    result = best_move(position, time_limit=1.0, node_limit=None, top=1, seed=0)
    result.move          # Move: the best move found (a member of position.legal_moves)
    result.evaluation    # float, from the point of view of the side to move
                         #   (position.to_move): > 0 is good for it; roughly "seeds
                         #   ahead"; +-WIN_SCORE minus the plies to the end when proven
    result.proven        # "South wins in 5" / "North wins in 1" / None (not proven)
    result.pv            # list[Move]: principal variation, starting with result.move
    result.alternatives  # list[tuple[Move, float]]: the next-best moves after
                         #   result.move (up to `top`), best first, each with its
                         #   evaluation from the side to move's point of view
    result.nodes         # int: positions searched
    result.time_s        # float: wall time spent
    result.depth         # int: deepest completed iteration (plies)

``best_move`` raises ``ValueError`` when the game is already over (no legal
move). "Wins in N" counts the winner's moves, like "mate in N" in chess.

Determinism: with ``time_limit=None`` and a ``node_limit`` the result depends
only on the position, the limits, ``seed`` and the evaluation weights. With a
time limit the search stops at the deadline (checked every few hundred nodes),
so the depth reached depends on the machine's speed.

The search is iterative-deepening negamax alpha-beta with a transposition
table, the transposition-table move / killer / history ordering at inner nodes
and the previous iteration's ranking at the root ("multi-PV" for the `top`
alternatives, so their evaluations are exact, not bounds). It is written once
generically over the Position API (`legal_moves`, `push`, `pop`,
`is_game_over`, `outcome`) in :func:`search_position` - the reference, usable
with any object of that shape and any evaluation function - and once as
numba functions over the fast core (`engine/search_core.py`), which
:func:`best_move` uses when numba and ``engine.core`` are available
(``backend="auto"``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MAX_NODE_LIMIT = 2**63 - 1
"""The largest ``node_limit``: the fast search keeps it in a 64-bit integer."""

WIN_SCORE = 10000.0
"""Score of a won position at the root; a win at ply p scores WIN_SCORE - p."""

PROVEN_MARGIN = 1000.0
"""Scores with abs(score) > WIN_SCORE - PROVEN_MARGIN are proven results."""

INF = 1.0e9


@dataclass(frozen=True)
class SearchResult:
    """What the search found; see the module docstring for each field."""

    move: Any
    evaluation: float
    proven: str | None
    pv: list[Any]
    alternatives: list[tuple[Any, float]]
    nodes: int
    time_s: float
    depth: int = 0
    backend: str = "python"


def proven_text(score: float, to_move: str) -> str | None:
    """ "South wins in 3" for a proven score from `to_move`'s view, else None."""
    if abs(score) <= WIN_SCORE - PROVEN_MARGIN:
        return None
    plies = int(round(WIN_SCORE - abs(score)))
    other = "north" if to_move == "south" else "south"
    winner = to_move if score > 0 else other
    # A win for the side to move at ply p comes with its ((p + 1) // 2)-th move;
    # a loss at ply p comes with the opponent's (p // 2)-th move.
    moves = (plies + 1) // 2 if winner == to_move else plies // 2
    return f"{winner.capitalize()} wins in {max(moves, 1)}"


def best_move(
    position: Any,
    time_limit: float | None = 1.0,
    node_limit: int | None = None,
    top: int = 1,
    seed: int = 0,
    *,
    weights: dict[str, float] | None = None,
    max_depth: int = 64,
    backend: str = "auto",
) -> SearchResult:
    """Search `position` and return the best move with its evaluation.

    Parameters
    ----------
    position : engine.Position
        The position to search; it is not modified (the search works on a copy).
    time_limit : float or None
        Wall-clock seconds; None means no time limit (then give a node_limit).
    node_limit : int or None
        Stop after about this many positions (at most :data:`MAX_NODE_LIMIT`); None
        means no node limit.
    top : int
        How many alternatives (besides the best move) to rank with exact values.
    seed : int
        Breaks ties between equally good moves; same seed, same result.
    weights : dict or None
        Evaluation weights; None loads engine/eval_weights.json.
    max_depth : int
        Deepest iteration in plies.
    backend : "auto", "fast" or "python"
        "fast" uses the numba search over engine.core, "python" the generic
        search over the Position API, "auto" the fast one when available.
    """
    if time_limit is None and node_limit is None:
        raise ValueError("best_move needs a time_limit or a node_limit (both are None)")
    if time_limit is not None and not 0 < time_limit < math.inf:  # (inf: a search without end)
        raise ValueError(f"time_limit must be positive and finite, got {time_limit}")
    if node_limit is not None and node_limit <= 0:
        raise ValueError(f"node_limit must be positive, got {node_limit}")
    if node_limit is not None and node_limit > MAX_NODE_LIMIT:
        raise ValueError(f"node_limit must be at most {MAX_NODE_LIMIT}, got {node_limit}")
    if top < 0:
        raise ValueError(f"top must be >= 0, got {top}")
    if backend not in ("auto", "fast", "python"):
        raise ValueError(f"backend must be 'auto', 'fast' or 'python', got {backend!r}")
    if position.is_game_over():
        raise ValueError("the game is over: there is no move to suggest")

    if backend in ("auto", "fast"):
        try:
            from engine import search_core
        except ImportError:
            if backend == "fast":
                raise
        else:
            return search_core.best_move_fast(
                position, time_limit, node_limit, top, seed, weights, max_depth
            )

    from engine.evaluate import evaluate, load_weights

    w = load_weights() if weights is None else weights
    return search_position(
        position,
        lambda p: evaluate(p, w),
        time_limit=time_limit,
        node_limit=node_limit,
        top=top,
        seed=seed,
        max_depth=max_depth,
    )


def copy_position(position: Any) -> Any:
    """An independent copy of a Position (its own undo stack)."""
    copy = getattr(position, "copy", None)
    if copy is not None:
        return copy()
    return type(position).from_json(position.to_json(), rules=getattr(position, "rules", None))


class _Abort(Exception):
    """Raised inside the search when the time or node limit is reached."""


@dataclass
class _Context:
    evaluate: Callable[[Any], float]
    deadline: float | None
    node_limit: int | None
    nodes: int = 0
    table: dict[Any, tuple[int, float, int, Any]] = field(default_factory=dict)
    rng: random.Random = field(default_factory=random.Random)

    def tick(self) -> None:
        self.nodes += 1
        if self.node_limit is not None and self.nodes >= self.node_limit:
            raise _Abort
        if (
            self.deadline is not None
            and (self.nodes & 255) == 0
            and time.perf_counter() >= self.deadline
        ):
            raise _Abort


_EXACT, _LOWER, _UPPER = 0, 1, 2


def to_table(score: float, ply: int) -> float:
    """Proven scores are stored relative to the node, not the root."""
    if score > WIN_SCORE - PROVEN_MARGIN:
        return score + ply
    if score < -(WIN_SCORE - PROVEN_MARGIN):
        return score - ply
    return score


def from_table(score: float, ply: int) -> float:
    """Inverse of :func:`to_table`."""
    if score > WIN_SCORE - PROVEN_MARGIN:
        return score - ply
    if score < -(WIN_SCORE - PROVEN_MARGIN):
        return score + ply
    return score


def _key(position: Any) -> Any:
    to_text = getattr(position, "to_text", None)
    return to_text() if to_text is not None else repr(position)


def _terminal_score(position: Any, ply: int) -> float:
    outcome = position.outcome()
    winner = getattr(outcome, "winner", None)
    if winner is None:
        return 0.0
    return WIN_SCORE - ply if winner == position.to_move else -(WIN_SCORE - ply)


def _negamax(pos: Any, depth: int, alpha: float, beta: float, ply: int, ctx: _Context) -> float:
    ctx.tick()
    if pos.is_game_over():
        return _terminal_score(pos, ply)
    if depth <= 0:
        return ctx.evaluate(pos)
    key = _key(pos)
    entry = ctx.table.get(key)
    tt_move = None
    if entry is not None:
        e_depth, e_score, e_flag, tt_move = entry
        e_score = from_table(e_score, ply)
        if e_depth >= depth:
            if e_flag == _EXACT:
                return e_score
            if e_flag == _LOWER and e_score >= beta:
                return e_score
            if e_flag == _UPPER and e_score <= alpha:
                return e_score
    moves = list(pos.legal_moves)
    if tt_move is not None and tt_move in moves:
        moves.remove(tt_move)
        moves.insert(0, tt_move)
    alpha0 = alpha
    best = -INF
    best_move_here = moves[0]
    for move in moves:
        pos.push(move)
        try:
            score = -_negamax(pos, depth - 1, -beta, -alpha, ply + 1, ctx)
        finally:
            pos.pop()
        if score > best:
            best, best_move_here = score, move
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    break
    flag = _UPPER if best <= alpha0 else (_LOWER if best >= beta else _EXACT)
    ctx.table[key] = (depth, to_table(best, ply), flag, best_move_here)
    return best


def _pv(pos: Any, first: Any, ctx: _Context, limit: int) -> list[Any]:
    pv = [first]
    pushed = 1
    pos.push(first)
    try:
        seen = {_key(pos)}
        while len(pv) < limit and not pos.is_game_over():
            entry = ctx.table.get(_key(pos))
            if entry is None or entry[3] not in pos.legal_moves:
                break
            pv.append(entry[3])
            pos.push(entry[3])
            pushed += 1
            k = _key(pos)
            if k in seen:
                break
            seen.add(k)
    finally:
        for _ in range(pushed):
            pos.pop()
    return pv


def search_position(
    position: Any,
    evaluate: Callable[[Any], float],
    *,
    time_limit: float | None = 1.0,
    node_limit: int | None = None,
    top: int = 1,
    seed: int = 0,
    max_depth: int = 64,
) -> SearchResult:
    """Generic iterative-deepening alpha-beta over the Position API.

    `evaluate(pos)` scores a non-terminal position from the side to move's
    point of view. Works on any object with `legal_moves`, `push`, `pop`,
    `is_game_over`, `outcome` (with `.winner`) and `to_move`; it is slow
    (pure Python) but is the reference for the numba search.
    """
    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    ctx = _Context(evaluate=evaluate, deadline=deadline, node_limit=node_limit)
    ctx.rng.seed(seed)
    pos = copy_position(position)
    to_move = pos.to_move
    root_moves = list(pos.legal_moves)
    ctx.rng.shuffle(root_moves)  # seeded tie-breaking between equal moves
    ranked: list[tuple[Any, float]] = [(m, 0.0) for m in root_moves]
    depth_done = 0
    for depth in range(1, max_depth + 1):
        scores: dict[Any, float] = {}
        try:
            order = [m for m, _ in ranked]
            for move in order:
                # Multi-PV window: the (top+1)-th best score so far is the bar to beat.
                kth = sorted(scores.values(), reverse=True)
                alpha = kth[top] if len(kth) > top else -INF
                pos.push(move)
                try:
                    score = -_negamax(pos, depth - 1, -INF, -alpha, 1, ctx)
                finally:
                    pos.pop()
                scores[move] = score
        except _Abort:
            if not scores:
                break
            # Keep the finished part of the interrupted iteration: moves searched
            # at this depth first, then the rest in the previous order.
            partial = sorted(scores.items(), key=lambda kv: -kv[1])
            rest = [(m, s) for m, s in ranked if m not in scores]
            if partial[0][1] >= ranked[0][1] or partial[0][0] == ranked[0][0]:
                ranked = partial + rest
            break
        ranked = sorted(scores.items(), key=lambda kv: -kv[1])
        depth_done = depth
        if abs(ranked[0][1]) > WIN_SCORE - PROVEN_MARGIN:
            break
        if len(ranked) == 1 and depth >= 2:
            break
    best, value = ranked[0]
    pv = _pv(pos, best, ctx, max(depth_done, 1))
    return SearchResult(
        move=best,
        evaluation=float(value),
        proven=proven_text(value, to_move),
        pv=pv,
        alternatives=[(m, float(s)) for m, s in ranked[1 : 1 + top]],
        nodes=ctx.nodes,
        time_s=time.perf_counter() - start,
        depth=depth_done,
        backend="python",
    )
