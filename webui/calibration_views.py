"""The calibration page: capture the start position, confirm the board's corners, save a profile.

The profile is built by :func:`calibration.calibrate_from_start` and stored by
:mod:`calibration.store` in ``<instance>/profiles/<name>.json``; the one saved
or chosen last is used by the live referee.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from flask import Blueprint, Flask, Response, current_app, jsonify, render_template, request

from webui.board_image import encode_jpeg
from webui.errors import ApiError, json_object
from webui.live import LiveReferee

bp = Blueprint("calibration", __name__)

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")


def load_profile(path: str | Path) -> Any:
    """A saved board profile (vision.BoardProfile); ProfileError (a ValueError) if bad."""
    from vision.profile import BoardProfile

    return BoardProfile.load(path)


def use_profile(live: LiveReferee, path: str | Path) -> None:
    """Make the live referee read the board with this profile (and its South side)."""
    profile = load_profile(path)
    with live.lock:
        live.profile = profile
        live.south_side = profile.south_side
        live.detector.set_board(profile.corners_px)


def folder(app: Flask) -> Path:
    """The folder holding ``profiles/`` and the captured calibration frame."""
    path = Path(app.instance_path)
    path.mkdir(parents=True, exist_ok=True)
    return path


def live() -> LiveReferee:
    return current_app.extensions["bao_live"]


@bp.get("/calibration")
def page() -> str:
    return render_template("calibration/calibrate.html")


@bp.get("/api/calibration")
def list_profiles() -> Response:
    from calibration import list_profiles

    names = list_profiles(folder(current_app))
    return jsonify({"profiles": names, "active": current_app.config.get("ACTIVE_PROFILE")})


def _capture_path() -> Path:
    return folder(current_app) / "calibration_capture.png"


@bp.post("/api/calibration/capture")
def capture() -> Response:
    """Keep a frame of the start position (posted image, else the live frame) and find the board."""
    from webui.play import decode_upload

    south = request.args.get("south_side", live().south_side)
    if south not in ("bottom", "top", "left", "right"):
        raise ApiError(f"south_side must be bottom, top, left or right, got {south!r}")
    if request.content_length:
        image = decode_upload()
    else:
        referee = live()
        with referee.lock:
            frame = referee.frame
            if frame is None:
                raise ApiError("no camera frame yet: start a camera on the play page or post an image", 409)
            image = frame.copy()
    from vision.errors import BoardNotFound, ImageUnreadable
    from vision.io import check_image
    from vision.locate import locate_board
    from vision.rectify import orient_corners

    try:
        # (the board search fails with an OpenCV error on an image too small or too thin)
        image = check_image(image)
    except ImageUnreadable as exc:
        raise ApiError(f"cannot calibrate on this image: {exc}") from None
    cv2.imwrite(str(_capture_path()), image)

    h, w = image.shape[:2]
    reason = None
    try:
        quad = locate_board(image)
        corners = orient_corners(quad.corners, south).tolist()
        found = True
    except BoardNotFound as exc:
        # why (a board running off the frame says so): shown beside the corners to drag
        corners = [[w * 0.2, h * 0.25], [w * 0.8, h * 0.25], [w * 0.8, h * 0.75], [w * 0.2, h * 0.75]]
        found, reason = False, str(exc)
    return jsonify({"width": w, "height": h, "corners": corners, "south_side": south, "found": found,
                    "reason": reason})


@bp.get("/api/calibration/capture.jpg")
def capture_jpeg() -> Response:
    path = _capture_path()
    image = cv2.imread(str(path)) if path.exists() else None
    if image is None:
        raise ApiError("no captured frame yet", 404)
    return Response(encode_jpeg(image), mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


def _corners(value: Any) -> list[list[float]]:
    try:
        pts = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        pts = np.zeros(0)
    if pts.shape != (4, 2) or not np.all(np.isfinite(pts)):
        raise ApiError("corners must be four [x, y] points: top-left, top-right, bottom-right, bottom-left")
    if not cv2.isContourConvex(pts.astype(np.float32).reshape(-1, 1, 2)):
        raise ApiError("the four corners do not form a convex quadrilateral")
    return pts.tolist()


@bp.post("/api/calibration")
def save() -> tuple[Response, int]:
    """``{"name", "south_side", "corners", "position"}``: build the profile from the captured
    frame and use it. ``position``: what the frame shows, ``"start"`` (the default) or
    ``"live"``, the live game's position now (a camera moved during a game)."""
    data = json_object()
    name = str(data.get("name") or "default")
    if not NAME_RE.match(name):
        raise ApiError(f"profile name {name!r}: use 1-40 letters, digits, '-' or '_' (starting with a letter or digit)")
    south = data.get("south_side")
    if south not in ("bottom", "top", "left", "right"):
        raise ApiError(f"south_side must be bottom, top, left or right, got {south!r}")
    corners = _corners(data.get("corners"))
    shown = data.get("position", "start")
    if shown not in ("start", "live"):
        raise ApiError(f"position must be 'start' or 'live' (the live game's position now), got {shown!r}")
    image = cv2.imread(str(_capture_path()))
    if image is None:
        raise ApiError("capture a frame of the start position first", 409)
    from calibration import position_counts, save_profile
    from vision.holes import START_COUNTS

    counts = START_COUNTS
    if shown == "live":
        referee = live()
        with referee.lock:
            counts = position_counts(referee.position.to_json())
    profile = build_profile(image, south, corners, counts)
    path = save_profile(profile, folder(current_app), name)
    use_profile(live(), path)
    current_app.config["ACTIVE_PROFILE"] = name
    return jsonify({"name": name, "path": str(path), "profile": profile.to_json()}), 201


@bp.post("/api/calibration/use")
def use() -> Response:
    data = json_object()
    from calibration import profile_path

    name = str(data.get("name", ""))
    if not NAME_RE.match(name) or not profile_path(folder(current_app), name).exists():
        raise ApiError(f"no saved profile named {name!r}", 404)
    try:
        use_profile(live(), profile_path(folder(current_app), name))
    except ValueError as exc:
        raise ApiError(str(exc)) from exc
    current_app.config["ACTIVE_PROFILE"] = name
    return jsonify({"active": name})


def build_profile(image: np.ndarray, south: str, corners: list[list[float]], counts: dict[str, int]) -> Any:
    """The board profile of an image of the position whose ``counts`` are given, with the
    confirmed corners."""
    from calibration import calibrate_from_position

    try:
        return calibrate_from_position(image, south, counts, corners=corners)
    except ValueError as exc:
        raise ApiError(f"calibration failed: {exc}") from exc
