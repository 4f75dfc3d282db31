"""A webcam that stops giving pictures (a USB hiccup, the cable pulled, another program
holding it) is opened again until it gives them back; the game goes on meanwhile."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest

from engine import Position
from webui.cli import main
from webui.sources import CameraSource, SourceLapse


class Clock:
    """Fake time: each camera read takes ``frame`` seconds, each pause its length (times
    exact in binary, so that the sums below are exact)."""

    def __init__(self, frame: float = 0.125) -> None:
        self.now, self.frame = 100.0, frame

    def __call__(self) -> float:
        return self.now

    def pause(self, seconds: float) -> None:
        self.now += seconds


class Camera:
    """A stand-in for ``cv2.VideoCapture``: gives the pictures of ``script`` in turn (None:
    a failed read), then its last picture again and again (a board left as it is). Every
    camera opened shares one script."""

    def __init__(self, script: list[np.ndarray | None], clock: Clock) -> None:
        self.script, self.clock = script, clock
        self.opened: list[int] = []  # index of each camera opened
        self.released = 0
        self.last: np.ndarray | None = None

    def open(self, index: int) -> Camera:
        self.opened.append(index)
        return self

    def isOpened(self) -> bool:  # noqa: N802 - cv2's name
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        self.clock.now += self.clock.frame
        if not self.script:
            time.sleep(0.001)  # (the reader thread of the page test waits to be stopped)
            return self.last is not None, self.last
        image = self.script.pop(0)
        if image is not None:
            self.last = image
        return (image is not None), image

    def release(self) -> None:
        self.released += 1


def picture(value: int) -> np.ndarray:
    return np.full((9, 16, 3), value, np.uint8)


def camera(script: list[np.ndarray | None], **kw: Any) -> tuple[CameraSource, Camera, Clock]:
    clock = Clock()
    cam = Camera(script, clock)
    return CameraSource(0, open_camera=cam.open, clock=clock, pause=clock.pause, **kw), cam, clock


def test_a_camera_lapse_is_said_and_the_camera_opened_again_until_pictures_come_back() -> None:
    # 3 s without a picture (24 failed reads at 0.125 s each, no pause between them taken
    # as time of its own here: retry_every 0)
    source, cam, clock = camera([picture(1)] + [None] * 24 + [picture(2)], retry_every=0.0)
    first = source.read()
    assert first is not None and first.image[0, 0, 0] == 1
    lapses = []
    while True:
        try:
            frame = source.read()
            break
        except SourceLapse as exc:
            lapses.append(str(exc))
    assert frame is not None and frame.image[0, 0, 0] == 2 and frame.t == 26 * 0.125
    # control came back to the reader every half second (hold: every 4 reads), each time
    # naming the camera
    assert len(lapses) == 6 and all(line.startswith("camera 0: no picture for ") for line in lapses)
    # said once (tell_every 10 s), after a second, and once more when the pictures came back
    assert source.skipped == [
        "camera 0: no picture for 1 s (unplugged, or taken by another program?); trying again, the game is kept",
        "camera 0: pictures again after 3 s",
    ]
    # opened again after 2 s without a picture (reopen_every), the old one released first
    assert cam.opened == [0, 0] and cam.released == 1 and source.reopened == 1


def test_a_long_lapse_is_said_again_and_the_camera_opened_again_every_few_seconds() -> None:
    source, cam, _ = camera([None] * 200 + [picture(3)], retry_every=0.0)
    said = []
    while True:
        try:
            frame = source.read()
            break
        except SourceLapse:
            said += source.new_skips()
    said += source.new_skips()
    assert frame is not None and frame.image[0, 0, 0] == 3
    # 25 s without a picture: said at 1, 11 and 21 s, then the pictures' return
    assert [line.split(" (")[0] for line in said] == [
        "camera 0: no picture for 1 s", "camera 0: no picture for 11 s", "camera 0: no picture for 21 s",
        "camera 0: pictures again after 25 s"]
    # first after 2 s (the 17th failed read), then every 2 s (16 reads): reads 17, 33, ..., 193
    assert source.reopened == 12 and len(cam.opened) == 13


def test_a_dropped_frame_or_two_is_no_lapse() -> None:
    # a camera missing a frame now and then (under lapse_after) reads on without a word
    source, _, _ = camera([picture(1), None, None, picture(2), None, picture(3)], retry_every=0.0)
    values = [int(source.read().image[0, 0, 0]) for _ in range(3)]  # type: ignore[union-attr]
    assert values == [1, 2, 3] and source.skipped == [] and source.reopened == 0


def test_a_camera_that_does_not_open_is_refused_at_once() -> None:
    class Closed:
        def isOpened(self) -> bool:  # noqa: N802 - cv2's name
            return False

    with pytest.raises(OSError, match="cannot open camera 3"):
        CameraSource(3, open_camera=lambda index: Closed())


def test_the_page_referees_on_through_a_camera_lapse(make_app, recognizer) -> None:
    # the page's camera gives no picture for 5 s while a move is made; before, the source
    # ended at the first failed read and nothing more was refereed. Now the page says the
    # camera is lost, keeps its source running, and logs the move once pictures come back
    pos = Position.start()
    before = recognizer.frame(pos)
    move = pos.legal_moves[0]
    played = pos.notation(move)
    pos.push(move)
    after = recognizer.frame(pos)
    script: list[np.ndarray | None] = [before] * 15 + [None] * 40 + [after] * 15
    app = make_app()
    live = app.extensions["bao_live"]
    source, _, _ = camera(script, retry_every=0.0)
    live.start_source(source)
    deadline = time.monotonic() + 30
    try:
        while time.monotonic() < deadline and not live.summary()["moves"]:
            time.sleep(0.02)
        state = app.test_client().get("/api/live").get_json()
    finally:
        live.stop_source()
    assert [m["move"] for m in state["moves"]] == [played]
    assert state["source"]["running"] is True and state["source"]["ended"] is False
    assert [line.split(" (")[0] for line in state["source"]["skipped"]] == [
        "camera 0: no picture for 1 s", "camera 0: pictures again after 5 s"]


def test_bao_referee_on_a_camera_goes_on_through_a_lapse(recognizer, monkeypatch, capsys) -> None:
    # ``bao referee 0``: the lapse is said on stderr and the game goes on; Ctrl-C ends it
    import vision.pipeline
    import webui.sources

    monkeypatch.setattr(vision.pipeline, "recognize", recognizer)
    pos = Position.start()
    before = recognizer.frame(pos)
    move = pos.legal_moves[0]
    played = pos.notation(move)
    pos.push(move)
    script: list[np.ndarray | None] = [before] * 15 + [None] * 24 + [recognizer.frame(pos)] * 15
    source, _, _ = camera(script, retry_every=0.0)
    real_read = source.read

    def read():  # Ctrl-C once the camera has nothing more to show
        if not source._cap.script:  # type: ignore[attr-defined]
            raise KeyboardInterrupt
        return real_read()

    source.read = read  # type: ignore[method-assign]
    monkeypatch.setattr(webui.sources, "open_source", lambda spec: source)
    assert main(["referee", "0", "--south", "bottom"]) == 0
    out, err = capsys.readouterr()
    assert [line.split()[1] for line in out.splitlines()] == [played]
    assert "bao referee: camera 0: no picture for 1 s (unplugged" in err
    assert "bao referee: camera 0: pictures again after 3 s" in err
