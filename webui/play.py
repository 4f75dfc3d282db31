"""The play page and the live-game API (frames in, verdicts and corrections out)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from flask import Blueprint, Flask, Response, current_app, jsonify, render_template, request

from vision.io import decode_image
from webui.board_image import encode_jpeg
from webui.errors import ApiError, json_object
from webui.live import LiveReferee, StaleRequest
from webui.sources import MAX_CAMERA_INDEX, Frame, GameSequenceSource, open_source

bp = Blueprint("play", __name__)

IMAGE_TYPES = ("image/jpeg", "image/png", "image/webp", "image/bmp")


def live() -> LiveReferee:
    return current_app.extensions["bao_live"]


@bp.get("/")
def page() -> str:
    return render_template("play/play.html")


@bp.get("/api/live")
def state() -> Response:
    return jsonify(live().summary())


def _jpeg(image: np.ndarray | None, what: str, width: int | None = None) -> Response:
    if image is None:
        raise ApiError(f"no {what} yet", 404)
    response = Response(encode_jpeg(image, width=width), mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/api/live/frame.jpg")
def frame_jpeg() -> Response:
    return _jpeg(live().frame, "camera frame", width=960)


@bp.get("/api/live/rectified.jpg")
def rectified_jpeg() -> Response:
    return _jpeg(live().rectified, "rectified board")


def decode_upload() -> np.ndarray:
    """The posted image (raw body or multipart field ``frame``), checked."""
    upload = request.files.get("frame")
    if upload is not None:
        data = upload.read()
        mimetype = upload.mimetype or ""
    else:
        data = request.get_data(cache=False)
        mimetype = request.mimetype or ""
    if not data:
        raise ApiError("no image in the request: post the JPEG/PNG bytes as the body or as form field 'frame'")
    if mimetype not in IMAGE_TYPES:
        raise ApiError(f"wrong type {mimetype or 'none'!r}: a frame must be one of {', '.join(IMAGE_TYPES)}", 415)
    try:
        image = decode_image(data)
    except ValueError:  # (a header claiming more pixels than OpenCV decodes, 2**30)
        image = None
    if image is None:
        raise ApiError(f"the {len(data)} bytes posted are not a readable {mimetype} image")
    limit = current_app.config["MAX_FRAME_PIXELS"]
    if image.shape[0] * image.shape[1] > limit:
        raise ApiError(f"frame too large: {image.shape[1]}x{image.shape[0]} pixels, the limit is {limit} pixels", 413)
    return image


@bp.post("/api/frames")
def post_frame() -> Response:
    """A frame from the browser's camera; ``?still=1`` reads it at once as a settled view."""
    referee = live()
    if referee.source is not None:
        raise ApiError(
            f"the board is being watched by the {referee.source_info.get('kind')} source; "
            "switch the source to 'browser' first (POST /api/live/source)",
            409,
        )
    image = decode_upload()
    still = request.args.get("still", "0") in ("1", "true", "yes")
    return jsonify(referee.feed(Frame(image, time.monotonic(), still=still, name="browser")))


def asked_at(body: dict[str, Any]) -> dict[str, int | None]:
    """The optional ``"ply"`` and ``"game"`` of a players' request: the moves logged and the
    live game when they chose (keyword arguments of the referee's answer methods)."""
    out: dict[str, int | None] = {}
    for key, what in (("ply", "the number of moves logged"), ("game", "the live game's id")):
        value = body.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            raise ApiError(f'"{key}" must be {what} when the request was made, got {value!r}')
        out[key] = value
    return out


@contextmanager
def players_answer() -> Iterator[None]:
    """Around the referee's handling of a players' answer (a correction, a move confirmed):
    one chosen on a game that has moved on since (:class:`StaleRequest`) is refused with
    409, any other refusal (a ``ValueError``, which names what is wrong) with 400."""
    try:
        yield
    except StaleRequest as exc:
        raise ApiError(str(exc), 409) from exc
    except ValueError as exc:
        raise ApiError(str(exc)) from exc


@bp.post("/api/live/correct")
def correct() -> Response:
    body = json_object()
    counts = body.get("counts")
    if not isinstance(counts, dict) or not counts:
        raise ApiError('give {"counts": {"A1": 3, ...}} with the pits to correct')
    referee = live()
    with players_answer():
        referee.correct_counts(counts, **asked_at(body))
    return jsonify(referee.summary())


@bp.post("/api/live/confirm")
def confirm() -> Response:
    body = json_object()
    moves = body.get("moves")
    if isinstance(moves, str):
        moves = moves.split()
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise ApiError('give {"moves": ["A6<*"]}: the move(s) to log, in notation')
    referee = live()
    with players_answer():
        referee.confirm(moves, **asked_at(body))
    return jsonify(referee.summary())


@bp.post("/api/live/undo")
def undo() -> Response:
    referee = live()
    body = json_object(required=False)
    try:
        referee.undo(**asked_at(body))
    except ValueError as exc:
        raise ApiError(str(exc), 409) from exc
    return jsonify(referee.summary())


@bp.post("/api/live/new")
def new_game() -> tuple[Response, int]:
    data = json_object(required=False)
    referee = live()
    try:
        referee.new_game(
            start=data.get("start"),
            south=str(data.get("south") or "South"),
            north=str(data.get("north") or "North"),
        )
    except ValueError as exc:
        raise ApiError(str(exc)) from exc
    return jsonify(referee.summary()), 201


@bp.post("/api/live/settings")
def settings() -> Response:
    data = json_object()
    referee = live()
    side = data.get("south_side")
    if side is not None:
        if side not in ("bottom", "top", "left", "right"):
            raise ApiError(f"south_side must be bottom, top, left or right, got {side!r}")
        with referee.lock:
            referee.south_side = side
    return jsonify(referee.summary())


@bp.post("/api/live/source")
def set_source() -> Response:
    """Switch the frame source: ``{"kind": "browser"}``, ``{"kind": "camera", "index": 0}``, ``{"kind": "demo"}``."""
    data = json_object()
    kind = data.get("kind")
    referee = live()
    if kind == "browser":
        referee.stop_source()
    elif kind == "camera":
        index = data.get("index", 0)
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index <= MAX_CAMERA_INDEX:
            raise ApiError(f"camera index must be a whole number from 0 to {MAX_CAMERA_INDEX}, got {index!r}")
        try:
            source = open_source(str(index))
        except OSError as exc:
            raise ApiError(str(exc), 409) from exc
        referee.start_source(source)
    elif kind == "demo":
        if not current_app.config.get("DEMO_GAME"):
            raise ApiError("no demo game: start the server with bao serve --demo", 409)
        start_demo(current_app._get_current_object())  # type: ignore[attr-defined]
    else:
        raise ApiError(f"unknown source kind {kind!r}: use browser, camera or demo")
    return jsonify(referee.summary())


def start_demo(app: Flask) -> None:
    """Replay the demo game sequence as a virtual camera, in a fresh game."""
    referee: LiveReferee = app.extensions["bao_live"]
    referee.stop_source()
    source = GameSequenceSource(app.config["DEMO_GAME"], realtime=app.config["DEMO_REALTIME"])
    with referee.lock:
        referee.south_side = source.south_side
    if app.config.get("DEMO_CALIBRATE", True) and referee.profile is None:
        calibrate_demo(referee, source)
    referee.new_game(start=source.game.get("start"), south="South (demo)", north="North (demo)")
    referee.start_source(source)


def calibrate_demo(referee: LiveReferee, source: GameSequenceSource) -> None:
    """Calibrate from the sequence's first frame (the start position), as players would."""
    from calibration import calibrate_from_start
    from webui.sources import read_image

    first = read_image(source.folder / source.entries[0]["file"])
    try:
        profile = calibrate_from_start(first, source.south_side)
    except ValueError as exc:
        with referee.lock:
            referee.problem = f"demo calibration failed ({exc}); reading without a profile"
        return
    with referee.lock:
        referee.profile = profile
        referee.detector.set_board(profile.corners_px)


def demo_folder(source: object) -> str | None:
    """The game folder of a ``demo:<folder>`` source spec, or None for another source."""
    spec = str(source or "")
    return spec[len("demo:"):] if spec.startswith("demo:") else None


def start_configured_source(app: Flask) -> None:
    """Start the ``SOURCE`` of the configuration (``demo:<folder>``, camera index or video)."""
    spec = str(app.config["SOURCE"])
    folder = demo_folder(spec)
    if folder is not None:
        app.config["DEMO_GAME"] = folder
        start_demo(app)
    else:
        app.extensions["bao_live"].start_source(open_source(spec, realtime=True))
