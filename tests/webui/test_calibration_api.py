"""The calibration API with Flask's test client: a profile captured from an uploaded frame,
and its errors."""

from __future__ import annotations

import cv2
import numpy as np
import pytest


def test_calibration_errors(client) -> None:
    r = client.post("/api/calibration/capture")
    assert r.status_code == 409 and "no camera frame" in r.get_json()["error"]["message"]
    r = client.post("/api/calibration", json={"name": "x", "south_side": "bottom",
                                              "corners": [[0, 0], [10, 0], [10, 5], [0, 5]]})
    assert r.status_code == 409 and "capture" in r.get_json()["error"]["message"]
    r = client.post("/api/calibration", json={"name": "../etc", "south_side": "bottom", "corners": []})
    assert r.status_code == 400 and "name" in r.get_json()["error"]["message"]
    r = client.post("/api/calibration", json={"name": "ok", "south_side": "bottom", "corners": [[0, 0]]})
    assert r.status_code == 400 and "four" in r.get_json()["error"]["message"]
    r = client.post("/api/calibration/use", json={"name": "missing"})
    assert r.status_code == 404
    assert client.get("/api/calibration").get_json()["profiles"] == []


def test_a_saved_profile_nested_too_deeply_is_a_json_error(app, client) -> None:
    # (before: a RecursionError from the JSON parser, a server error)
    from calibration import profile_path
    from webui.calibration_views import folder

    path = profile_path(folder(app), "deep")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[" * 100_000)
    r = client.post("/api/calibration/use", json={"name": "deep"})
    assert r.status_code == 400
    assert "deep.json: profile is not valid JSON: arrays or objects nested too deeply" in r.get_json()["error"]["message"]


def test_a_saved_profile_that_is_no_utf8_text_is_named(app, client) -> None:
    # (before: "'utf-8' codec can't decode byte 0xff ...", naming no file)
    from calibration import profile_path
    from webui.calibration_views import folder

    path = profile_path(folder(app), "binary")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\xff\xfe{}")
    r = client.post("/api/calibration/use", json={"name": "binary"})
    assert r.status_code == 400
    assert r.get_json()["error"]["message"] == f"{path}: not a profile: not UTF-8 text (a profile is JSON)"


def test_calibration_capture_of_an_uploaded_frame(client) -> None:
    frame = np.full((240, 320, 3), 128, np.uint8)
    r = client.post("/api/calibration/capture?south_side=left", data=cv2.imencode(".png", frame)[1].tobytes(),
                    content_type="image/png")
    assert r.status_code == 200
    data = r.get_json()
    assert data["found"] is False  # a blank frame has no board: corners to drag into place
    assert "board" in data["reason"]  # and why
    assert (data["width"], data["height"], data["south_side"]) == (320, 240, "left")
    assert len(data["corners"]) == 4
    assert client.get("/api/calibration/capture.jpg").mimetype == "image/jpeg"


def test_calibration_capture_of_a_frame_claiming_too_many_pixels_is_rejected(client) -> None:
    from conftest import png_claiming  # (cv2.error from OpenCV's decoder: a server error before)

    r = client.post("/api/calibration/capture", data=png_claiming(100_000, 100_000), content_type="image/png")
    assert r.status_code == 400 and "not a readable" in r.get_json()["error"]["message"]


@pytest.mark.parametrize(("shape", "problem"), [((4000, 1), "too small"), ((40, 60000), "too thin")])
def test_calibration_capture_of_a_frame_too_small_or_thin_for_a_board_is_rejected(client, shape, problem) -> None:
    # the board search failed with an OpenCV error on them: a server error before
    frame = np.zeros((*shape, 3), np.uint8)
    r = client.post("/api/calibration/capture", data=cv2.imencode(".png", frame)[1].tobytes(),
                    content_type="image/png")
    assert r.status_code == 400
    assert f"cannot calibrate on this image: image {problem} to hold a board" in r.get_json()["error"]["message"]


def test_calibration_capture_passes_on_why_no_board_was_found(client, monkeypatch) -> None:
    # the reason the locate stage gives (vision.locate.off_image_message: a board running
    # off the frame; tested in tests/vision/test_board.py) reaches the calibration page
    import vision.locate
    from vision.errors import BoardNotFound

    def cut(image, cfg=None):  # noqa: ANN001, ANN202
        raise BoardNotFound("the board seems to run off the image at the left edge with 20 of its "
                            "32 pits found: move the camera so that the whole board is in the picture")

    monkeypatch.setattr(vision.locate, "locate_board", cut)
    frame = np.full((240, 320, 3), 128, np.uint8)
    r = client.post("/api/calibration/capture", data=cv2.imencode(".png", frame)[1].tobytes(),
                    content_type="image/png")
    data = r.get_json()
    assert r.status_code == 200 and data["found"] is False
    assert "run off the image at the left edge" in data["reason"]
    assert "move the camera" in data["reason"]


def test_a_profile_from_the_live_games_position_now(app, client) -> None:
    # "position": "live": the kept frame shows the live game's position (a camera moved
    # during a game: here game_01's view after move 8, the game logged that far), and its
    # counts teach the look; one that cannot is refused by name, as is another value
    import json
    from pathlib import Path

    game = Path(__file__).resolve().parents[2] / "sample_images" / "games" / "game_01"
    frame = game / "frame_010.jpg"
    label = json.loads(frame.with_suffix(".json").read_text())
    moves = json.loads((game / "game.json").read_text())["moves"][:8]
    live = app.extensions["bao_live"]
    live.confirm(moves)
    r = client.post(f"/api/calibration/capture?south_side={label['south_side']}", data=frame.read_bytes(),
                    content_type="image/jpeg")
    shot = r.get_json()
    assert r.status_code == 200 and shot["found"] is True
    body = {"name": "moved", "south_side": label["south_side"], "corners": shot["corners"]}
    r = client.post("/api/calibration", json=body | {"position": "middle"})
    assert r.status_code == 400 and "position must be 'start' or 'live'" in r.get_json()["error"]["message"]
    r = client.post("/api/calibration", json=body | {"position": "live"})
    assert r.status_code == 201
    pits = r.get_json()["profile"]["pit_centers_px"]
    assert max(np.hypot(*np.subtract(pits[n], label["pit_centers_px"][n])) for n in pits) < 8.0
    assert live.profile is not None and client.get("/api/calibration").get_json()["active"] == "moved"
    full = {side: {"front": [2] * 8, "back": [2] * 8, "reserve": 0, "nyumba_owned": False}
            for side in ("south", "north")} | {"to_move": "south"}
    live.new_game(start=full)
    r = client.post("/api/calibration", json=body | {"position": "live"})
    assert r.status_code == 400
    assert "needs an empty pit and a pit of 1 to 8 seeds" in r.get_json()["error"]["message"]
