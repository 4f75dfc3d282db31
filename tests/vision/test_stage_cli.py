"""The stage modules' own command lines (``python -m vision.STAGE IMAGE``, debugging
aids; docs/vision.md): a file that is no image, or a picture with no board, is one
line naming the trouble and exit status 2, as ``bao recognize`` says it, not a traceback."""

from __future__ import annotations

import importlib
from pathlib import Path

import cv2
import numpy as np
import pytest

STAGES = [("locate", []), ("rectify", ["--debug", "OUT"]), ("grid", ["--debug", "OUT"]),
          ("pipeline", []), ("focus", []), ("context", [])]


@pytest.mark.parametrize(("stage", "extra"), STAGES)
def test_a_file_that_is_no_image_is_named(stage: str, extra: list[str], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    notes = tmp_path / "notes.jpg"
    notes.write_text("a shopping list, not a photo")
    argv = [str(notes)] + [str(tmp_path / "out.png") if a == "OUT" else a for a in extra]
    assert importlib.import_module(f"vision.{stage}").main(argv) == 2
    err = capsys.readouterr().err
    assert "error: " in err and "notes.jpg: not an image OpenCV can decode" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(("stage", "extra"), [s for s in STAGES if s[0] != "focus"])
def test_a_picture_with_no_board_is_named(stage: str, extra: list[str], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    wall = tmp_path / "wall.png"
    cv2.imwrite(str(wall), np.full((360, 640, 3), 128, np.uint8))  # a plain grey wall
    argv = [str(wall)] + [str(tmp_path / "out.png") if a == "OUT" else a for a in extra]
    assert importlib.import_module(f"vision.{stage}").main(argv) == 2
    err = capsys.readouterr().err
    assert "error: no board-sized four-sided shape in the image, nor a 4x8 pit lattice" in err
    assert not (tmp_path / "out.png").exists()
