"""The Flask application: ``create_app(test_config=None)``.

Configuration (``app.config``; ``test_config`` overrides it):

- ``DATABASE``: game-log URL, default ``sqlite:///<instance>/bao.sqlite``.
- ``SOURCE``: where frames come from at start: None (the browser posts them),
  a camera index, a video file, or ``demo:<game folder>``.
- ``RECOGNIZER``: ``recognize(image, south=..., profile=...)``; default
  :func:`vision.pipeline`.
- ``CALIBRATION``: path of a board profile to use.
- ``MAX_CONTENT_LENGTH``: largest request body (uploads), default 8 MiB.
- ``MAX_FRAME_PIXELS``: largest frame accepted, default 4096 x 4096.
- ``REFEREE``, ``MOTION``: :class:`engine.referee.RefereeConfig`,
  :class:`vision.motion.MotionConfig`.
- ``HINT_SECONDS``: thinking time of the Hint button, default 1.0.
- ``AUTO_CALIBRATE``: without a profile, calibrate on the first settled view
  of the game, from the position the referee has accepted (default True).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from flask import Flask

from webui import calibration_views, errors, games, hint, play
from webui.live import LiveReferee
from webui.store import GameStore


def create_app(test_config: dict[str, Any] | None = None, instance_path: str | None = None) -> Flask:
    """Build the web app; its instance folder holds the game log and calibrations."""
    app = Flask(__name__, instance_relative_config=True, instance_path=instance_path)
    app.config.from_mapping(
        DATABASE=None,
        SOURCE=None,
        RECOGNIZER=None,
        CALIBRATION=None,
        MAX_CONTENT_LENGTH=8 * 1024 * 1024,
        MAX_FRAME_PIXELS=4096 * 4096,
        REFEREE=None,
        MOTION=None,
        HINT_SECONDS=1.0,
        LOW_CONFIDENCE=0.8,
        DEMO_REALTIME=True,
        AUTO_CALIBRATE=True,
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(test_config)
    os.makedirs(app.instance_path, exist_ok=True)
    if not app.config["DATABASE"]:
        app.config["DATABASE"] = "sqlite:///" + str(Path(app.instance_path) / "bao.sqlite")

    recognizer = app.config["RECOGNIZER"]
    if recognizer is None:
        from vision.pipeline import recognize as recognizer
    store = GameStore(app.config["DATABASE"])
    live = LiveReferee(
        store,
        recognizer,
        referee=app.config["REFEREE"],
        motion=app.config["MOTION"],
        low_confidence=app.config["LOW_CONFIDENCE"],
        auto_calibrate=app.config["AUTO_CALIBRATE"] and not app.config["CALIBRATION"],
    )
    app.extensions["bao_store"] = store
    app.extensions["bao_live"] = live
    if app.config["CALIBRATION"]:
        calibration_views.use_profile(live, app.config["CALIBRATION"])
    if play.demo_folder(app.config["SOURCE"]) is None:
        live.resume_or_start()  # the demo starts a game of its own (start_configured_source)

    errors.register(app)
    app.register_blueprint(play.bp)
    app.register_blueprint(games.bp)
    app.register_blueprint(calibration_views.bp)
    app.register_blueprint(hint.bp)

    if app.config["SOURCE"] is not None:
        play.start_configured_source(app)
    return app
