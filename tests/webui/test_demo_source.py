"""The demo path: a game sequence folder replayed as a virtual camera through the referee thread."""

from __future__ import annotations

import json
import time

import cv2
import pytest

from engine import Position
from webui.sources import GameSequenceSource, StillsSource, open_source


@pytest.fixture
def game_folder(tmp_path, recognizer):
    """game.json + frames in the sample_images/games format, boards known to the recogniser."""
    folder = tmp_path / "game_demo"
    folder.mkdir()
    pos = Position.start()
    moves: list[str] = []
    frames = []

    def add(board, settled: bool) -> None:
        name = f"frame_{len(frames):03d}.png"
        cv2.imwrite(str(folder / name), recognizer.frame(board, hand=not settled))
        (folder / name.replace(".png", ".json")).write_text(json.dumps({"south_side": "bottom"}))
        frames.append({"file": name, "after_move": len(moves), "settled": settled})

    add(pos, True)
    for _ in range(6):
        move = pos.legal_moves[-1]
        moves.append(pos.notation(move))
        add(pos, False)  # hands over the board, before the move shows
        pos.push(move)
        add(pos, True)
    (folder / "game.json").write_text(json.dumps({"start": Position.start().to_json(), "moves": moves,
                                                  "frames": frames}))
    return folder, moves


def test_demo_replays_the_game_and_logs_every_move(make_app, game_folder) -> None:
    folder, moves = game_folder
    app = make_app(SOURCE=f"demo:{folder}", DEMO_REALTIME=False, DEMO_CALIBRATE=False)
    live = app.extensions["bao_live"]
    deadline = time.monotonic() + 30
    while live.source_info.get("running") and time.monotonic() < deadline:
        time.sleep(0.05)
    state = app.test_client().get("/api/live").get_json()
    assert state["source"]["ended"] is True
    assert [m["move"] for m in state["moves"]] == moves
    # while the demo camera runs, posted frames are refused; switching to the browser allows them
    client = app.test_client()
    assert client.post("/api/live/source", json={"kind": "browser"}).status_code == 200


def test_demo_start_logs_one_game_not_an_empty_one_beside_it(make_app, game_folder) -> None:
    folder, _ = game_folder
    app = make_app(SOURCE=f"demo:{folder}", DEMO_REALTIME=False, DEMO_CALIBRATE=False)
    games = app.test_client().get("/api/games").get_json()
    assert [g["south"] for g in games["games"]] == ["South (demo)"]


def test_sequence_source_holds_frames_and_hides_labels(game_folder) -> None:
    folder, _ = game_folder
    src = GameSequenceSource(folder, fps=5, settled_hold=1.0, moving_hold=0.4, realtime=False)
    frames = []
    while (f := src.read()) is not None:
        frames.append(f)
    assert len(frames) == 7 * 5 + 6 * 2  # 7 settled frames x 5, 6 hand frames x 2
    assert all(not f.still for f in frames)
    assert frames[1].t - frames[0].t == pytest.approx(0.2)
    assert src.south_side == "bottom"


def test_open_source_kinds(game_folder, tmp_path) -> None:
    folder, _ = game_folder
    assert isinstance(open_source(str(folder)), StillsSource)
    with pytest.raises(OSError, match="not a camera index"):
        open_source(str(tmp_path / "nothing"))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(OSError, match="no images"):
        open_source(str(empty))
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"not a video")
    with pytest.raises(OSError, match="cannot open video"):
        open_source(str(bad))
