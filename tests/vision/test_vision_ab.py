"""benchmarks/vision_ab.py: two checkouts timed on the same images, interleaved."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAME = ROOT / "sample_images" / "games" / "game_01"


def _load():
    spec = importlib.util.spec_from_file_location("vision_ab", ROOT / "benchmarks" / "vision_ab.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_same_checkout_twice_finds_the_same_boards(tmp_path: Path) -> None:
    data = tmp_path / "game"
    data.mkdir()
    for name in ("frame_000.jpg", "frame_000.json", "game.json"):
        shutil.copy(GAME / name, data / name)
    out = tmp_path / "results"
    assert _load().main([str(ROOT), str(ROOT), str(data), "--name", "t", "--out", str(out)]) == 0
    result = json.loads((out / "vision_ab_t.json").read_text())
    assert result["images"] == 1  # game.json holds no image
    assert result["found"] == [1, 1] and result["both_found"] == 1
    assert all(ms > 0 for ms in result["median_ms_both_found"])


def test_a_folder_that_is_no_checkout_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        _load().main([str(tmp_path), str(ROOT), str(GAME)])
