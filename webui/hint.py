"""The Hint button: the engine's best move for the live position.

The search (:func:`engine.search.best_move`, numba-compiled) runs in one
worker process of its own, so a long or failing search never stalls or
takes down the referee loop and the game: if the worker dies, the request
answers a JSON error and the next hint starts a fresh worker.
"""

from __future__ import annotations

import multiprocessing
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from flask import Blueprint, Response, current_app, jsonify

from webui.errors import ApiError, json_object
from webui.live import LiveReferee

bp = Blueprint("hint", __name__)

MAX_HINT_SECONDS = 10.0

_pool: ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()


def search(position_json: dict[str, Any], time_limit: float) -> dict[str, Any]:
    """Run in the worker: best move of the position, everything as notation."""
    from engine import Position
    from engine.search import best_move

    position = Position.from_json(position_json)
    result = best_move(position, time_limit=time_limit)
    pv: list[str] = []
    line = position.copy()
    for move in result.pv:
        if move not in line.legal_moves:
            break
        pv.append(line.notation(move))
        line.push(move)
    return {
        "move": position.notation(result.move),
        "evaluation": round(float(result.evaluation), 2),
        "proven": result.proven,
        "pv": pv,
        "depth": int(result.depth),
        "nodes": int(result.nodes),
        "time_s": round(float(result.time_s), 3),
    }


def _executor() -> ProcessPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        return _pool


def _reset_executor() -> None:
    global _pool
    with _pool_lock:
        if _pool is not None:
            _pool.shutdown(wait=False, cancel_futures=True)
        _pool = None


@bp.post("/api/hint")
def hint() -> Response:
    """Search the live position: ``{"time_limit": 1.0}`` (seconds, optional).

    Answers ``{"move", "hole", "direction", "evaluation", "proven", "pv", "depth",
    "nodes", "time_s", "trace"}``; 409 when the game is over, 503 when the search failed.
    """
    data = json_object(required=False)
    limit = data.get("time_limit", current_app.config["HINT_SECONDS"])
    if isinstance(limit, bool) or not isinstance(limit, int | float) or not 0 < limit <= MAX_HINT_SECONDS:
        raise ApiError(f"time_limit must be a number of seconds in (0, {MAX_HINT_SECONDS}], got {limit!r}")
    referee: LiveReferee = current_app.extensions["bao_live"]
    with referee.lock:
        position = referee.position.copy()
    if position.is_game_over():
        raise ApiError("the game is over: there is no move to suggest", 409)
    future = _executor().submit(search, position.to_json(), float(limit))
    try:
        # the first search in a fresh worker also compiles the fast core
        found = future.result(timeout=float(limit) + 180.0)
    except BrokenProcessPool:
        _reset_executor()
        raise ApiError("the hint search crashed; the game is unaffected, try again", 503) from None
    except TimeoutError:
        _reset_executor()
        raise ApiError("the hint search did not answer in time; try again", 503) from None
    move = position.parse_move(found["move"])
    _, trace = position.play(move)  # the sowing path, for the arrow on the diagram
    found |= {"hole": move.hole, "direction": move.direction, "trace": trace.to_json()}
    return jsonify(found)
