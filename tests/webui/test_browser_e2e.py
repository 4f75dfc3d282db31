"""End to end in a real headless Chromium: a rendered game as the fake camera, every move logged.

The play page (``/?camera=browser``) takes the camera with getUserMedia;
Chromium's fake capture device plays a .y4m video made from a rendered game
sequence (each frame held like a camera watching the players). The page posts
the frames to the server, which settles, reads, referees and logs. The test
checks that the game log holds exactly the game's moves, and saves a
screenshot of the play page (to docs/screenshot_play.png when that is missing
or BAO_SCREENSHOT=1).

Needs the Debian packages ``chromium`` and ``chromium-driver`` and Playwright's
Python package (``scripts/test.sh`` installs them); skipped with the reason
when they are missing.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from conftest import LookupRecognizer

from vision.motion import MotionConfig
from webui.app import create_app
from webui.sources import GameSequenceSource

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
]
FPS = 4
WIDTH = 960


def demo_game() -> Path:
    """The game ``bao serve --demo`` shows: the first under sample_images/games."""
    games = sorted(ROOT.glob("sample_images/games/*/game.json"))
    if not games:
        pytest.skip("no rendered game sequence in sample_images/games")
    return games[0].parent


def write_y4m(game: Path, out: Path, settled_hold: float = 2.6, moving_hold: float = 0.5,
              first_hold: float = 10.0) -> float:
    """The sequence as a YUV4MPEG2 video (4:2:0) at FPS; returns its duration in seconds.

    The first frame (the start position) is held ``first_hold`` seconds: time to calibrate.
    """
    entries = json.loads((game / "game.json").read_text())["frames"]
    frames = 0
    with out.open("wb") as f:
        header_written = False
        for n, entry in enumerate(entries + [entries[-1]] * 2):  # hold the final position longer
            image = cv2.imread(str(game / entry["file"]))
            h = round(image.shape[0] * WIDTH / image.shape[1]) // 2 * 2
            image = cv2.resize(image, (WIDTH, h), interpolation=cv2.INTER_AREA)
            if not header_written:
                f.write(f"YUV4MPEG2 W{WIDTH} H{h} F{FPS}:1 Ip A1:1 C420jpeg\n".encode())
                header_written = True
            i420 = np.ascontiguousarray(cv2.cvtColor(image, cv2.COLOR_BGR2YUV_I420)).tobytes()
            hold = settled_hold if entry.get("settled", True) else moving_hold
            if n == 0:
                hold = first_hold
            for _ in range(max(1, round(hold * FPS))):
                f.write(b"FRAME\n")
                f.write(i420)
                frames += 1
    return frames / FPS


@contextmanager
def served(app: Any) -> Iterator[str]:
    """The app served on a free local port by a thread while in the block: its base URL."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=5)


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def post_json(url: str, body: dict | None) -> dict:
    data = b"" if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())


def test_fake_camera_game_is_logged_move_by_move(tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists() or shutil.which("chromium") is None:
        pytest.skip("Debian chromium is not installed (apt-get install chromium chromium-driver)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright's Python package is not installed")
    game = demo_game()
    sequence = GameSequenceSource(game, realtime=False)
    shown = max(int(e["after_move"]) for e in sequence.entries)  # frames may stop before the game ends
    truth = list(sequence.game["moves"])[:shown]
    video = tmp_path / "game.y4m"
    duration = write_y4m(game, video)

    app = create_app(
        {"DATABASE": f"sqlite:///{tmp_path / 'e2e.sqlite'}", "MOTION": MotionConfig(settle_seconds=0.8)},
        instance_path=str(tmp_path / "instance"),
    )
    live = app.extensions["bao_live"]
    live.south_side = sequence.south_side
    live.new_game(start=sequence.game.get("start"), south="South (e2e)", north="North (e2e)")
    with served(app) as base, sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, args=FLAGS + [f"--use-file-for-fake-video-capture={video}"]
        )
        page = browser.new_page(viewport={"width": 1500, "height": 950})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{base}/?camera=browser")
        # calibrate on the start position, as players would on the calibration page
        while get_json(f"{base}/api/live")["frame_seq"] < 3:
            time.sleep(0.2)
        found = post_json(f"{base}/api/calibration/capture?south_side={sequence.south_side}", None)
        saved = post_json(f"{base}/api/calibration", {"name": "e2e", "south_side": sequence.south_side,
                                                      "corners": found["corners"]})
        assert saved["name"] == "e2e"
        deadline = time.monotonic() + duration * 1.5 + 120
        state = get_json(f"{base}/api/live")
        while time.monotonic() < deadline:
            state = get_json(f"{base}/api/live")
            if state["ply"] >= len(truth):
                break
            time.sleep(1.0)
        time.sleep(1.5)  # let the page draw the last verdict
        shot = tmp_path / "screenshot_play.png"
        page.screenshot(path=str(shot))
        committed = ROOT / "docs" / "screenshot_play.png"
        if os.environ.get("BAO_SCREENSHOT") or not committed.exists():
            shutil.copyfile(shot, committed)  # the README's picture
        shown = page.locator("#move-list").inner_text()
        browser.close()
    logged = [m["move"] for m in get_game_moves(app, state["game_id"])]
    assert not errors, errors
    assert logged == truth, f"logged {logged}\nexpected {truth}\nlast verdict {state['verdict']}"
    assert truth[0] in shown and truth[-1] in shown


def get_game_moves(app, game_id: int) -> list[dict]:
    return app.test_client().get(f"/api/games/{game_id}").get_json()["moves"]


def test_browser_camera_path_with_a_stand_in_reader(tmp_path: Path) -> None:
    """The page's camera path (getUserMedia, posting, settling, logging) without the vision."""
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium is not installed (apt-get install chromium chromium-driver)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright's Python package is not installed")
    from engine import Position

    reader = LookupRecognizer()
    pos = Position.start()
    truth: list[str] = []
    shots = [(reader.frame(pos), 2.5)]
    for _ in range(5):
        move = pos.legal_moves[-1]
        truth.append(pos.notation(move))
        shots.append((reader.frame(pos, hand=True), 0.5))
        pos.push(move)
        shots.append((reader.frame(pos), 2.5))
    video = tmp_path / "blocks.y4m"
    with video.open("wb") as f:
        f.write(f"YUV4MPEG2 W320 H180 F{FPS}:1 Ip A1:1 C420jpeg\n".encode())
        for image, hold in shots + shots[-1:]:
            big = cv2.resize(image, (320, 180), interpolation=cv2.INTER_NEAREST)
            data = cv2.cvtColor(big, cv2.COLOR_BGR2YUV_I420).tobytes()
            for _ in range(round(hold * FPS)):
                f.write(b"FRAME\n" + data)

    app = create_app({"DATABASE": f"sqlite:///{tmp_path / 'stand_in.sqlite'}", "RECOGNIZER": reader,
                      "MOTION": MotionConfig(settle_seconds=0.8)}, instance_path=str(tmp_path / "instance"))
    with served(app) as base, sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM,
                                    args=FLAGS + [f"--use-file-for-fake-video-capture={video}"])
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{base}/?camera=browser")
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and get_json(f"{base}/api/live")["ply"] < len(truth):
            time.sleep(0.5)
        page.wait_for_function(f"document.querySelectorAll('#move-list li').length >= {(len(truth) + 1) // 2}")
        shown = page.locator("#move-list").inner_text()
        browser.close()
    state = app.test_client().get("/api/live").get_json()
    assert not errors, errors
    assert [m["move"] for m in state["moves"]] == truth
    assert all(m in shown for m in truth)


def test_the_page_says_so_when_its_game_was_deleted_by_another_program(tmp_path: Path) -> None:
    """Another server sharing the game log deleted the live game: the page says that no
    game is live, names the game, and offers no export of it; no script error."""
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium is not installed (apt-get install chromium chromium-driver)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright's Python package is not installed")
    app = create_app({"DATABASE": f"sqlite:///{tmp_path / 'shared.sqlite'}", "RECOGNIZER": LookupRecognizer()},
                     instance_path=str(tmp_path / "instance"))
    game = app.extensions["bao_live"].game_id
    with served(app) as base, sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{base}/")
        page.wait_for_function(f"document.getElementById('game-label').textContent === 'game {game}'")
        assert page.locator("#export-record").is_visible()
        app.extensions["bao_store"].delete_game(game)  # (as another program would: no holder, no check)
        page.wait_for_function("document.getElementById('game-label').textContent === 'no game live'")
        problem = page.locator("#problem").inner_text()
        record_shown = page.locator("#export-record").is_visible()
        browser.close()
    assert not errors, errors
    assert f"game {game} is no longer in the game log" in problem
    assert not record_shown
