"""The live referee without a profile calibrates on a settled view of the accepted position
(``auto_calibrate``), and a view with no board costs one board search, not two."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import calibration.build
import vision.pipeline
from vision.pipeline import recognize
from webui.live import LiveReferee
from webui.store import GameStore

GAME = Path(__file__).resolve().parents[2] / "sample_images" / "games" / "game_01"


@pytest.fixture
def searches(monkeypatch) -> list[int]:
    """Each whole-image board search (the calibration's and the reader's) appends 1."""
    calls: list[int] = []
    real = vision.pipeline.locate_board

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(vision.pipeline, "locate_board", counted)
    monkeypatch.setattr(calibration.build, "locate_board", counted)
    return calls


def _live(reader=recognize) -> LiveReferee:
    live = LiveReferee(GameStore("sqlite://:memory:"), reader, auto_calibrate=True, players=False)
    live.new_game()
    return live


def _bare_table() -> np.ndarray:
    return np.random.default_rng(0).integers(90, 160, (240, 320, 3)).astype(np.uint8)


def test_a_view_with_no_board_is_searched_once_and_named(searches) -> None:
    live = _live()
    assert live.read_settled(_bare_table()) is None
    assert len(searches) == 1  # the calibration's search; the reader's would be the same one
    assert live.problem is not None and live.problem.startswith("board not read: no board-sized")
    assert live.profile is None and live.ply == 0


def test_another_reader_is_still_asked_when_the_calibration_finds_no_board(searches) -> None:
    asked: list[int] = []

    def reader(image, south="bottom", profile=None):
        asked.append(1)
        return recognize(image, south=south, profile=profile)

    live = _live(reader)
    assert live.read_settled(_bare_table()) is None
    assert asked == [1] and len(searches) == 2  # a reader we do not know may find one
    assert live.problem is not None and live.problem.startswith("board not read:")


def test_the_first_settled_view_of_the_start_makes_the_profile(searches) -> None:
    south = json.loads((GAME / "frame_000.json").read_text())["south_side"]
    live = _live()
    live.south_side = south
    live.read_settled(cv2.imread(str(GAME / "frame_000.jpg")))
    assert live.profile is not None and live.profile.south_side == south
    assert len(searches) == 1  # the reader reads with the new profile: no search of its own
    assert live.problem is None and live.ply == 0
