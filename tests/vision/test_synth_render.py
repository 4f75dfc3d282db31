"""Blender smoke test: render 0 and 1 seed in a pit and check the labels and pixels."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import cv2
import numpy as np
import pytest
from samples import SINGLES

from vision.holes import HOLES

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("bpy") is None,
                       reason="bpy (Blender's Python module) not installed: pip install '.[render]'"),
]


def _params() -> dict:
    from vision.synth.params import sample_params

    p = sample_params(np.random.default_rng(5), width=200, height=112, hand_prob=0.0)
    p["camera"] |= {"side": "south", "azimuth": -90.0, "elevation": 90.0, "roll": 0.0,
                    "focal_mm": 35.0, "fill": 0.9, "target_offset": [0.0, 0.0]}
    p["sensor"] |= {"render_scale": 100, "noise_sigma": 0.0, "blur_sigma": 0.0,
                    "vignette": 0.0, "view_transform": "Standard"}
    p["light"] |= {"kind": "overcast"}
    p["seeds"] |= {"kind": "pale_bean", "color": [0.95, 0.93, 0.9]}
    p["wood"] |= {"kind": "near_black", "light": [0.12, 0.1, 0.08], "dark": [0.05, 0.04, 0.03]}
    return p


def _render(tmp_path: Path, pit_count: int, name: str) -> tuple[dict, np.ndarray]:
    from vision.synth.blender import render_frame
    from vision.synth.generate import label_for_frame, targets_of

    p = _params()
    counts = dict.fromkeys(HOLES, 0) | {"A3": pit_count}
    req = {"counts": counts, "reserves": {"south": 0, "north": 0},
           "nyumba_owned": {"south": False, "north": False}, "to_move": "south",
           "blocked": None}
    png = tmp_path / f"{name}.png"
    res = render_frame(p, targets_of(counts, req["reserves"]), png, samples=4, exact_tries=3)
    label = label_for_frame(f"{name}.png", p, res.seeds, req, res.removed, {}, res.visibility)
    img = cv2.imread(str(png))
    assert img is not None and img.shape[:2] == (112, 200)
    return label, img


def test_zero_and_one_seed(tmp_path: Path) -> None:
    empty, img0 = _render(tmp_path, 0, "zero")
    one, img1 = _render(tmp_path, 1, "one")
    assert sum(empty["position"]["south"]["front"]) == 0
    assert empty["render"]["seeds_actual"] == 0
    assert one["position"]["south"]["front"] == [0, 0, 1, 0, 0, 0, 0, 0]
    assert one["render"]["seeds_requested"] == one["render"]["seeds_actual"] == 1
    # the pale seed brightens the dark board at A3's labelled centre, nowhere else
    diff = np.abs(img1.astype(int) - img0.astype(int)).sum(axis=2)
    x, y = (round(v) for v in one["pit_centers_px"]["A3"])
    assert diff[y - 3:y + 4, x - 3:x + 4].max() > 60
    bx, by = (round(v) for v in one["pit_centers_px"]["b6"])
    assert diff[by - 3:by + 4, bx - 3:bx + 4].max() < 30
    assert one["corners_px"] == empty["corners_px"] and one["south_side"] == "bottom"
    # seen straight down, nothing covers the lone seed; an empty board records no seeds
    assert one["render"]["seed_visibility"]["A3"][0] > 0.5
    assert "seed_visibility" not in empty["render"]


def test_a_heap_hides_some_of_its_seeds(tmp_path: Path) -> None:
    heap, _img = _render(tmp_path, 24, "heap")
    shares = heap["render"]["seed_visibility"]["A3"]
    assert len(shares) == sum(heap["position"]["south"]["front"]) >= 18
    assert shares[0] > 0.5  # the top of the heap is in full view
    assert min(shares) < 0.1  # ... and the seeds under it are not


def test_short_game_keeps_unmoved_seeds_in_place(tmp_path: Path) -> None:
    import json

    from engine import Position
    from vision.synth.game import plan_game, render_game
    from vision.synth.labels import game_errors

    plan = plan_game(5, moves=2, hand_every=2)
    plan.params["camera"] |= {"width": 96, "height": 54}
    states = []
    for _done, _name in render_game(plan, tmp_path, samples=1):
        states.append(json.loads((tmp_path / ".seeds.json").read_text())["seeds"])
    game = json.loads((tmp_path / "game.json").read_text())
    assert game_errors(game, {p.name for p in tmp_path.glob("frame_*.jpg")}) == []
    assert [f["settled"] for f in game["frames"]] == [True, True, False, True]
    pos = Position.start()
    want = [pos.to_json()]
    for text in game["moves"]:
        pos.push(pos.parse_move(text))
        want.append(pos.to_json())
    for fr in game["frames"]:
        label = json.loads((tmp_path / fr["file"].replace(".jpg", ".json")).read_text())
        assert label["position"] == want[fr["after_move"]]
    # the hand frame changes no seed; after move 1, North's untouched holes kept their seeds
    def key(seeds: list[dict]) -> list[str]:
        return sorted(json.dumps(s, sort_keys=True) for s in seeds)

    assert key(states[2]) == key(states[1])
    before = {json.dumps(s["matrix"]) for s in states[0] if s["group"] in ("a5", "a6", "a7")}
    after = {json.dumps(s["matrix"]) for s in states[1] if s["group"] in ("a5", "a6", "a7")}
    assert before == after and len(before) == 10


def test_visibility_is_added_to_an_earlier_render_only_when_its_seeds_settle_the_same(
        tmp_path: Path) -> None:
    import json
    import shutil

    from vision.count_data import label_counts
    from vision.synth.generate import add_visibility

    src = SINGLES
    for ext in ("jpg", "json"):
        shutil.copy(src / f"synth_1_0003.{ext}", tmp_path / f"synth_1_0003.{ext}")
    lp = tmp_path / "synth_1_0003.json"
    label = json.loads(lp.read_text())
    label["render"].pop("seed_visibility", None)
    lp.write_text(json.dumps(label, indent=1) + "\n")
    # a label whose counts the scene does not give back is left alone
    wrong = json.loads(json.dumps(label))
    wrong["position"]["south"]["back"][0] += 1
    wp = tmp_path / "wrong.json"
    wp.write_text(json.dumps(wrong | {"image": "synth_1_0003.jpg"}))
    before = wp.read_text()
    assert add_visibility(wp).startswith("differs: B1 ")
    assert wp.read_text() == before
    assert add_visibility(lp) == "added"
    vis = json.loads(lp.read_text())["render"]["seed_visibility"]
    counts = label_counts(label["position"])
    assert {n: len(v) for n, v in vis.items()} == {n: c for n, c in counts.items() if c}
    assert add_visibility(lp) == "had it"
