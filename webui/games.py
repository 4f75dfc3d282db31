"""Past games: list, replay, reopen, export (appendix record / JSON), import."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request

from engine import BaoError, Position
from engine import record as records
from webui.errors import ApiError
from webui.live import LiveReferee
from webui.store import GameLiveElsewhere, GameRecord, GameStore

bp = Blueprint("games", __name__)

MAX_RECORD_BYTES = 256 * 1024


def store() -> GameStore:
    return current_app.extensions["bao_store"]


def get_game(game_id: int) -> GameRecord:
    try:
        return store().get(game_id)
    except KeyError:
        raise ApiError(f"no game with id {game_id}", 404) from None


def to_record(game: GameRecord) -> records.GameRecord:
    """The engine's record model of a logged game (headers, start, moves). Each move pair
    whose moves carry a remark (:meth:`LoggedMove.remark`) gets it as the pair's comment."""
    headers = {"South": game.south, "North": game.north, "Date": game.created[:10]} | game.headers
    if game.finished and game.winner:
        headers["Result"] = f"{game.winner} wins" + (f" ({game.reason})" if game.reason else "")
    start = Position.from_json(game.start)
    record = records.GameRecord.from_game(start, [m.notation for m in game.moves], headers)
    offset = 1 if start.to_move == "north" else 0  # the record's first pair then opens with "..."
    for i, move in enumerate(game.moves):
        remark = move.remark()
        if remark:
            pair = (i + offset) // 2 + 1
            text = f"{move.notation}: {remark}".replace("\n", " ")
            record.comments[pair] = f"{record.comments[pair]} | {text}" if pair in record.comments else text
    return record


def listed() -> list[dict[str, Any]]:
    """The games' summaries, each with ``live``: "here" for the game live in this server,
    the server holding it for one live in another server sharing the game log, else None."""
    referee: LiveReferee = current_app.extensions["bao_live"]
    elsewhere = store().live_in_others(referee.holder)
    return [g | {"live": "here" if g["id"] == referee.game_id else elsewhere.get(g["id"])} for g in store().list()]


@bp.get("/games")
def page() -> str:
    return render_template("games/list.html", games=listed())


@bp.get("/games/<int:game_id>")
def replay_page(game_id: int) -> str:
    try:
        game = store().get(game_id)
    except KeyError:
        abort(404)
    return render_template("games/replay.html", game=game)


@bp.get("/api/games")
def list_games() -> Response:
    return jsonify({"games": listed()})


@bp.get("/api/games/<int:game_id>")
def game_json(game_id: int) -> Response:
    return jsonify(get_game(game_id).to_json())


@bp.get("/api/games/<int:game_id>/export")
def export(game_id: int) -> Response:
    """``?format=record`` (appendix text, the default) or ``?format=json``."""
    game = get_game(game_id)
    fmt = request.args.get("format", "record")
    record = to_record(game)
    if fmt == "record":
        body, mimetype, ext = records.write_text(record), "text/plain; charset=utf-8", "txt"
    elif fmt == "json":
        data = records.to_json(record)
        data["log"] = game.to_json()["moves"]
        body, mimetype, ext = json.dumps(data, indent=2), "application/json", "json"
    else:
        raise ApiError(f"unknown export format {fmt!r}: use record or json")
    response = Response(body, mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="bao-game-{game_id}.{ext}"'
    return response


@bp.post("/api/games/import")
def import_game() -> tuple[Response, int]:
    """A record (appendix text or JSON) as the body or as form file ``record``; logs it as a new game."""
    upload = request.files.get("record")
    raw = upload.read() if upload is not None else request.get_data(cache=False)
    if not raw:
        raise ApiError("no record in the request: post the record text/JSON as the body or form file 'record'")
    if len(raw) > MAX_RECORD_BYTES:
        raise ApiError(f"record too large: {len(raw)} bytes, the limit is {MAX_RECORD_BYTES}", 413)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError("the record is not UTF-8 text") from None
    problems: list[records.RecordError] = []
    try:
        if text.lstrip().startswith("{"):
            record = records.from_json(text)
        else:
            record, problems = records.read_text(text)
    except (BaoError, ValueError) as exc:
        raise ApiError(f"cannot read the record: {exc}") from None
    if problems:
        raise ApiError("cannot read the record: " + "; ".join(str(p) for p in problems[:5]))
    replayed = records.replay(record)
    if replayed.error is not None:
        raise ApiError(f"the record has an illegal or unreadable move: {replayed.error}")
    headers = dict(record.headers)
    south = headers.pop("South", "South")
    north = headers.pop("North", "North")
    db = store()
    start = replayed.positions[0]
    game_id = db.create_game(start.to_json(), south, north, headers)
    rows: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    position = start.copy()
    from engine.referee import describe_move

    for text_move in replayed.moves:
        move = position.parse_move(text_move)
        after, trace = position.play(move)
        verdict = describe_move(position, move, after, trace)
        rows.append((verdict.notation, verdict.to_json(), verdict.position))
        position = after
    if rows:
        db.append_moves(game_id, rows, "import", 0)
    return jsonify(db.get(game_id).summary()), 201


@bp.post("/api/games/<int:game_id>/open")
def reopen(game_id: int) -> Response:
    """Make a logged game the live one (the referee continues it)."""
    get_game(game_id)
    referee: LiveReferee = current_app.extensions["bao_live"]
    try:
        referee.open_game(game_id)
    except GameLiveElsewhere as exc:
        raise ApiError(str(exc), 409) from exc
    return jsonify(referee.summary())


@bp.delete("/api/games/<int:game_id>")
def delete(game_id: int) -> Response:
    get_game(game_id)
    referee: LiveReferee = current_app.extensions["bao_live"]
    if referee.game_id == game_id:
        raise ApiError("this game is live: start or open another game before deleting it", 409)
    try:
        store().delete_game(game_id, holder=referee.holder)
    except GameLiveElsewhere as exc:
        raise ApiError(str(exc), 409) from exc
    return jsonify({"deleted": game_id})


@bp.get("/api/games/<int:game_id>/replay")
def replay(game_id: int) -> Response:
    """Every move with the position before it and the engine's trace, for the animated replay."""
    game = get_game(game_id)
    position = Position.from_json(game.start)
    steps = []
    for logged in game.moves:
        move = position.parse_move(logged.notation)
        after, trace = position.play(move)
        steps.append({
            "ply": logged.ply,
            "move": logged.notation,
            "before": position.to_json(),
            "after": after.to_json(),
            "trace": trace.to_json(),
            "verdict": logged.verdict,
            "source": logged.source,
        } | ({"remark": remark} if (remark := logged.remark()) else {}))
        position = after
    return jsonify({"game": game.summary(), "start": game.start, "moves": steps})
