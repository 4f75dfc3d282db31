"""Test stand-ins for the web app: a scripted recogniser instead of the vision pipeline.

Frames are small PNG images whose colour encodes which board they show; the
scripted recogniser looks the board up and returns a Recognition-shaped answer
with per-pit probabilities peaked on the true counts (optionally noisy), so the
app, the referee and the game log are tested without any image processing.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from engine import Position
from webui.app import create_app

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vision"))
from drawn import png_claiming  # noqa: E402, F401  (the webui tests import it from here)

SIDES = ("south", "north")
ROWS = ("front", "back")


@dataclass
class FakeRecognition:
    position: dict[str, Any]
    probabilities: dict[str, Any]
    confidence: dict[str, Any]
    board_corners_px: list[list[float]]
    status: list[str] = field(default_factory=list)


def peaked(count: int, certainty: float, rng: np.random.Generator | None) -> list[float]:
    p = np.full(41, (1 - certainty) / 40)
    p[min(count, 40)] = certainty
    if rng is not None:
        p = p * rng.uniform(0.5, 1.5, 41)
        p[min(count, 40)] = max(p[min(count, 40)], p.max() * 1.2)
    return list(p / p.sum())


class ScriptedRecognizer:
    """Frames -> boards by a colour code; ``frame(board)`` makes the frame for a board."""

    def __init__(self, certainty: float = 0.9, seed: int | None = 0) -> None:
        self.boards: list[tuple[dict[str, Any], bool, dict[str, int]]] = []
        self.certainty = certainty
        self.rng = None if seed is None else np.random.default_rng(seed)
        self.calls = 0
        self.unreadable: dict[int, tuple[str, ...]] = {}  # code -> pits read as "any count"
        self.extra_status: list[str] = []  # added to every reading's status (e.g. image_blurred)

    def frame(self, board: dict[str, Any] | Position, hand: bool = False,
              misread: dict[str, int] | None = None, unreadable: tuple[str, ...] = ()) -> np.ndarray:
        if isinstance(board, Position):
            board = board.to_json()
        code = len(self.boards) + 1
        self.boards.append((board, hand, misread or {}))
        self.unreadable[code] = unreadable
        # big random blocks (different boards look different to the motion detector)
        blocks = np.random.default_rng(code).integers(0, 256, (9, 16, 3), dtype=np.uint8)
        image = cv2.resize(blocks, (160, 90), interpolation=cv2.INTER_NEAREST)
        image[0, 0] = (code % 256, code // 256, 90)
        return image

    def png(self, board: dict[str, Any] | Position, **kw: Any) -> bytes:
        ok, buf = cv2.imencode(".png", self.frame(board, **kw))
        assert ok
        return buf.tobytes()

    def __call__(self, image: np.ndarray, south: str = "bottom", profile: Any = None) -> FakeRecognition:
        self.calls += 1
        code = int(image[0, 0, 0]) + 256 * int(image[0, 0, 1])
        board, hand, misread = self.boards[code - 1]
        names = {"south": ("A", "B"), "north": ("a", "b")}
        position: dict[str, Any] = {}
        probs: dict[str, Any] = {}
        conf: dict[str, Any] = {}
        for side in SIDES:
            position[side], probs[side], conf[side] = {}, {}, {}
            for row, letter in zip(ROWS, names[side], strict=True):
                counts = [misread.get(f"{letter}{i + 1}", c) for i, c in enumerate(board[side][row])]
                position[side][row] = counts
                probs[side][row] = [
                    [1 / 41] * 41 if f"{letter}{i + 1}" in self.unreadable.get(code, ()) else
                    peaked(c, self.certainty, self.rng)
                    for i, c in enumerate(counts)
                ]
                conf[side][row] = [max(p) for p in probs[side][row]]
        status = (["hand_over_board"] if hand else []) + list(self.extra_status)
        return FakeRecognition(position, probs, conf, [[10, 10], [150, 10], [150, 80], [10, 80]], status)


class LookupRecognizer(ScriptedRecognizer):
    """Stand-in reader for camera frames: the registered frame nearest to the picture."""

    def __call__(self, image: np.ndarray, south: str = "bottom", profile=None):  # type: ignore[override]
        small = cv2.resize(image, (160, 90), interpolation=cv2.INTER_AREA).astype(int)
        refs = [cv2.resize(self.images[c], (160, 90), interpolation=cv2.INTER_AREA).astype(int)
                for c in range(len(self.boards))]
        code = int(np.argmin([np.abs(ref - small).mean() for ref in refs])) + 1
        labelled = self.images[code - 1].copy()
        return super().__call__(labelled, south, profile)

    def frame(self, board, hand: bool = False, misread=None) -> np.ndarray:  # type: ignore[override]
        image = super().frame(board, hand=hand, misread=misread)
        self.__dict__.setdefault("images", []).append(image)
        return image


@pytest.fixture(autouse=True)
def no_board_search_in_colour_codes(monkeypatch):
    """The scripted frames (160x90 colour codes, or twice that in a test's video) hold no
    board: a calibration tried on one (the live referee's, without a profile, once a move)
    fails at once instead of after a board search of seconds; real images are calibrated
    on as ever."""
    import calibration

    real = calibration.calibrate_from_position

    def calibrate(image, *args, **kwargs):
        if image.shape[:2] in ((90, 160), (180, 320)):
            raise ValueError("no board found: a scripted colour-code frame")
        return real(image, *args, **kwargs)

    monkeypatch.setattr(calibration, "calibrate_from_position", calibrate)


@pytest.fixture
def recognizer() -> ScriptedRecognizer:
    return ScriptedRecognizer()


@pytest.fixture
def make_app(tmp_path: Path, recognizer: ScriptedRecognizer):
    def make(**config: Any):
        base = {"TESTING": True, "DATABASE": f"sqlite:///{tmp_path / 'games.sqlite'}", "RECOGNIZER": recognizer}
        return create_app(base | config, instance_path=str(tmp_path / "instance"))

    return make


@pytest.fixture
def app(make_app):
    return make_app()


@pytest.fixture
def client(app):
    return app.test_client()
