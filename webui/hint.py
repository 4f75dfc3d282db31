"""The Hint button: the engine's best move for the live position."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, request

from webui.errors import ApiError
from webui.live import LiveReferee

bp = Blueprint("hint", __name__)

MAX_HINT_SECONDS = 10.0


@bp.post("/api/hint")
def hint() -> Response:
    """Search the live position: ``{"time_limit": 1.0}`` (seconds, optional).

    Answers ``{"move", "hole", "direction", "evaluation", "proven", "pv", "depth", "nodes", "time_s"}``;
    409 when the game is over.
    """
    data = request.get_json(silent=True) or {}
    if not isinstance(data, dict):
        raise ApiError("expected a JSON object")
    limit = data.get("time_limit", current_app.config["HINT_SECONDS"])
    if isinstance(limit, bool) or not isinstance(limit, int | float) or not 0 < limit <= MAX_HINT_SECONDS:
        raise ApiError(f"time_limit must be a number of seconds in (0, {MAX_HINT_SECONDS}], got {limit!r}")
    from engine.search import best_move

    referee: LiveReferee = current_app.extensions["bao_live"]
    with referee.lock:
        position = referee.position.copy()
    if position.is_game_over():
        raise ApiError("the game is over: there is no move to suggest", 409)
    result = best_move(position, time_limit=float(limit))
    # Trace of the hinted move, so the page can draw the sowing path.
    _, trace = position.play(result.move)
    return jsonify(
        {
            "move": position.notation(result.move),
            "hole": result.move.hole,
            "direction": result.move.direction,
            "evaluation": round(float(result.evaluation), 2),
            "proven": result.proven,
            "pv": _pv_notation(position, result.pv),
            "depth": result.depth,
            "nodes": result.nodes,
            "time_s": round(float(result.time_s), 3),
            "trace": trace.to_json(),
        }
    )


def _pv_notation(position, pv: list) -> list[str]:  # type: ignore[no-untyped-def]
    out: list[str] = []
    current = position.copy()
    for move in pv:
        try:
            out.append(current.notation(move))
            current.push(move)
        except ValueError:
            break
    return out
