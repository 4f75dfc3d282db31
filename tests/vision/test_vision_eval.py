"""benchmarks/vision_eval.py on a game folder (frames plus a game.json without an image)."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GAME = ROOT / "sample_images" / "games" / "game_01"


def _load():
    spec = importlib.util.spec_from_file_location("vision_eval", ROOT / "benchmarks" / "vision_eval.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_game_folder_skips_game_json_and_scores_frames(tmp_path: Path) -> None:
    data = tmp_path / "game"
    data.mkdir()
    for name in ("frame_000.jpg", "frame_000.json", "game.json"):
        shutil.copy(GAME / name, data / name)
    (data / "notes.json").write_text("[1, 2, 3]")  # any other JSON is not a label either
    out = tmp_path / "results"
    rc = _load().main([str(data), "--geometry-only", "--name", "t", "--out", str(out)])
    assert rc == 0
    summary = json.loads((out / "vision_eval_t.json").read_text())
    assert summary["images"] == 1
    rows = (out / "vision_eval_t_images.csv").read_text().splitlines()
    assert len(rows) == 2 and rows[1].startswith("frame_000.jpg")


def test_folder_without_labels_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "game.json").write_text(json.dumps({"moves": []}))
    assert _load().main([str(tmp_path), "--out", str(tmp_path / "r")]) == 2
