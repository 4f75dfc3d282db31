"""The demo path: a game sequence folder replayed as a virtual camera through the referee thread."""

from __future__ import annotations

import json
import time

import cv2
import numpy as np
import pytest
from conftest import png_claiming

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
    deadline = time.monotonic() + 120
    while live.source_info.get("running") and time.monotonic() < deadline:
        time.sleep(0.05)
    state = app.test_client().get("/api/live").get_json()
    assert state["source"]["ended"] is True
    assert [m["move"] for m in state["moves"]] == moves
    # while the demo camera runs, posted frames are refused; switching to the browser allows them
    client = app.test_client()
    assert client.post("/api/live/source", json={"kind": "browser"}).status_code == 200



def test_a_broken_still_does_not_stop_the_page_reading_a_folder(make_app, game_folder) -> None:
    # the page's own source thread reads a folder of stills (``--source DIR``): a file that
    # is no image among them is passed over, the stills after it still refereed
    folder, moves = game_folder
    (folder / "frame_004b.png").write_bytes(b"\x89PNG broken")
    app = make_app(SOURCE=str(folder))
    live = app.extensions["bao_live"]
    deadline = time.monotonic() + 120
    while live.source_info.get("running") and time.monotonic() < deadline:
        time.sleep(0.05)
    skipped = (f"frame_004b.png: skipped: cannot read image: {folder / 'frame_004b.png'}: "
               "not an image OpenCV can decode (JPEG, PNG, ...)")
    state = app.test_client().get("/api/live").get_json()
    assert state["source"]["ended"] is True and state["source"]["skipped"] == [skipped]
    assert [m["move"] for m in state["moves"]] == moves

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



def test_stills_that_are_no_image_are_passed_over_and_named(tmp_path) -> None:
    folder = tmp_path / "stills"
    folder.mkdir()
    cv2.imwrite(str(folder / "a.png"), np.zeros((20, 30, 3), np.uint8))
    (folder / "b.jpg").write_bytes(b"")
    (folder / "c.png").write_bytes(b"\x89PNG broken")
    # (OpenCV raises cv2.error for a header past its 2**30 pixels: it ended the source,
    # and with it the page's reading of the folder)
    (folder / "c2.png").write_bytes(png_claiming(100_000, 100_000))
    cv2.imwrite(str(folder / "d.png"), np.full((20, 30, 3), 9, np.uint8))
    src = StillsSource(folder)
    names = []
    while (frame := src.read()) is not None:
        names.append(frame.name)
    assert names == ["a.png", "d.png"]
    assert [line.split(":")[0] for line in src.skipped] == ["b.jpg", "c.png", "c2.png"]
    assert all("cannot read image" in line for line in src.skipped)

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
