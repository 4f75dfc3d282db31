"""Every committed sample in sample_images/ has a valid label that fits its image."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from samples import SAMPLES

from vision.synth.labels import counts_from_position, game_errors, label_errors
from vision.synth.post import MAX_JPEG_BYTES

LABELS = (sorted(SAMPLES.glob("singles/*.json")) + sorted(SAMPLES.glob("hard/*.json"))
          + sorted(SAMPLES.glob("games/*/frame_*.json")))
GAME_FILES = sorted(SAMPLES.glob("games/*/game.json"))


def test_sample_set_is_there() -> None:
    assert len(list(SAMPLES.glob("singles/*.json"))) >= 10
    assert GAME_FILES, "no rendered game sequence"


@pytest.mark.parametrize("path", LABELS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_label_is_valid_and_matches_its_image(path: Path) -> None:
    label = json.loads(path.read_text())
    assert label_errors(label) == []
    img_path = path.parent / label["image"]
    assert img_path.name == path.name.replace(".json", ".jpg")
    assert img_path.stat().st_size <= MAX_JPEG_BYTES
    img = cv2.imread(str(img_path))
    assert img is not None and img.shape[:2] == (label["height"], label["width"])
    pts = np.array(label["corners_px"] + list(label["pit_centers_px"].values()))
    assert np.all((pts >= 0) & (pts < [label["width"], label["height"]]))
    r = label["render"]
    # requested vs actual totals are recorded and agree with the counts
    pos = label["position"]
    actual = sum(counts_from_position(pos).values()) + pos["south"]["reserve"] \
        + pos["north"]["reserve"]
    assert r["seeds_actual"] == actual
    assert r["seeds_requested"] == r["seeds_actual"] + r["seeds_removed"]


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.parent.name)
def test_game_sequence_replays_with_the_engine(path: Path) -> None:
    from engine import Position

    game = json.loads(path.read_text())
    names = {p.name for p in path.parent.glob("frame_*.jpg")}
    assert game_errors(game, names) == []
    positions = [Position.from_json(game["start"])]
    for text in game["moves"]:
        pos = positions[-1]
        nxt, _trace = pos.play(pos.parse_move(text))
        positions.append(nxt)
    assert any(not f["settled"] for f in game["frames"]), "no hand-over-board frame"
    for fr in game["frames"]:
        label = json.loads((path.parent / fr["file"].replace(".jpg", ".json")).read_text())
        assert label["hand_over_board"] == (not fr["settled"])
        want = positions[fr["after_move"]].to_json()
        assert label["position"] == want, fr["file"]
