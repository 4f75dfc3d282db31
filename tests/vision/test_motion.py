"""Settled-board detection (vision/motion.py) on synthetic frames."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from samples import GAMES

from vision.motion import MotionConfig, SettleDetector


def scene(hand_x: int | None = None, noise_seed: int | None = None) -> np.ndarray:
    """A 360 x 640 grey table with a board; optionally a hand blob at x=hand_x and sensor noise."""
    img = np.full((360, 640, 3), 150, np.uint8)
    cv2.rectangle(img, (120, 100), (520, 270), (60, 110, 160), -1)
    for i in range(8):
        for j in range(4):
            cv2.circle(img, (145 + i * 50, 120 + j * 42), 16, (40, 70, 100), -1)
    if hand_x is not None:
        cv2.ellipse(img, (hand_x, 190), (60, 45), 0, 0, 360, (120, 160, 215), -1)
    if noise_seed is not None:
        noise = np.random.default_rng(noise_seed).integers(-3, 4, img.shape)
        img = np.clip(img.astype(int) + noise, 0, 255).astype(np.uint8)
    return img


def run(detector: SettleDetector, frames: list[np.ndarray], fps: float = 10.0, t0: float = 0.0):
    return [detector.update(f, t0 + i / fps) for i, f in enumerate(frames)]


def test_still_board_settles_once_after_the_settle_time() -> None:
    det = SettleDetector(MotionConfig(settle_seconds=0.8))
    states = run(det, [scene(noise_seed=i) for i in range(20)])
    ready = [i for i, s in enumerate(states) if s.ready]
    assert ready == [8]  # first frame starts the clock; 0.8 s at 10 fps
    assert not states[7].settled and all(s.settled for s in states[8:])


def test_moving_hand_blocks_reading_until_it_is_gone() -> None:
    det = SettleDetector(MotionConfig(settle_seconds=0.5))
    frames = [scene()] * 10 + [scene(hand_x=150 + 30 * k) for k in range(10)] + [scene()] * 10
    states = run(det, frames)
    assert [i for i, s in enumerate(states) if s.ready] == [5, 25]
    assert all(s.moving for s in states[10:21])
    assert not any(s.settled for s in states[10:25])


def test_motion_beside_the_board_is_ignored_with_a_board_outline() -> None:
    det = SettleDetector(MotionConfig(settle_seconds=0.5))
    det.set_board([[120, 100], [520, 100], [520, 270], [120, 270]])
    frames = [scene()]
    for k in range(12):  # something moves at the image's top edge, off the board
        f = scene()
        cv2.circle(f, (40 + 40 * k, 30), 25, (0, 0, 255), -1)
        frames.append(f)
    states = run(det, frames)
    assert any(s.ready for s in states)


def test_bad_frame_shape_is_an_error() -> None:
    with pytest.raises(ValueError, match="BGR"):
        SettleDetector().update(np.zeros((10, 10), np.uint8), 0.0)


def test_seeds_changed_without_visible_motion_are_read_again() -> None:
    """A move between two frames of a slow camera: no hand seen, a few seeds differ."""
    det = SettleDetector(MotionConfig(settle_seconds=0.5))
    before = scene()
    after = before.copy()
    for x in (145, 195, 245):  # three seeds sown into three pits
        cv2.circle(after, (x, 120), 4, (235, 235, 225), -1)
    states = run(det, [before] * 10 + [after] * 10)
    assert not any(s.moving for s in states[1:])  # too small to count as motion
    assert [i for i, s in enumerate(states) if s.ready] == [5, 15]


def test_small_seeds_sown_into_a_pale_board_are_read_again() -> None:
    """MotionConfig.detail_threshold (sample_images/games/game_05, moves 9 and 10: small
    brown seeds on a pale board, no hand between the views): at the old threshold of 40
    grey levels the views differed on 0.0002-0.00037 of the board, under detail_fraction,
    and neither move was read."""
    import json

    game = GAMES / "game_05"
    views = [cv2.imread(str(game / f"frame_{k:03d}.jpg")) for k in (10, 11, 12)]
    for old in (False, True):
        det = SettleDetector(MotionConfig(settle_seconds=0.5, **({"detail_threshold": 40} if old else {})))
        det.set_board(json.loads((game / "frame_000.json").read_text())["corners_px"])
        states = run(det, [views[0]] * 10 + [views[1]] * 10 + [views[2]] * 10)
        assert not any(s.moving for s in states[1:])  # no hand: too small to count as motion
        ready = [i for i, s in enumerate(states) if s.ready]
        assert ready == ([5] if old else [5, 15, 25])


def test_seeds_little_lighter_than_their_pit_are_read_again() -> None:
    """MotionConfig.detail_threshold 15: brown seeds sown into a golden board's pits under an
    overcast sky differ from the pit floor by under 25 grey levels (a rendered game of seed
    101: at 25, 9 of its 16 moves changed too little of the board to be read)."""
    before = scene()
    after = before.copy()
    for x in (145, 195, 245):  # three seeds about 22 grey levels lighter than the pit floor
        cv2.circle(after, (x, 120), 5, (55, 95, 120), -1)
    frames = [before] * 10 + [after] * 10
    states = run(SettleDetector(MotionConfig(settle_seconds=0.5)), frames)
    assert not any(s.moving for s in states[1:])
    assert [i for i, s in enumerate(states) if s.ready] == [5, 15]
    old = run(SettleDetector(MotionConfig(settle_seconds=0.5, detail_threshold=25)), frames)
    assert [i for i, s in enumerate(old) if s.ready] == [5]


def test_a_view_a_little_brighter_is_not_read_again() -> None:
    """The median difference is taken away before the seeds are looked for: a camera's
    exposure (or a cloud) changes every pixel alike, here 16 grey levels, under the
    motion threshold but over the seeds' one."""
    before = scene()
    brighter = cv2.add(before, np.full_like(before, 16))
    states = run(SettleDetector(MotionConfig(settle_seconds=0.5)), [before] * 10 + [brighter] * 10)
    assert not any(s.moving for s in states[1:])
    assert [i for i, s in enumerate(states) if s.ready] == [5]


def test_pit_change_map_names_the_pits_whose_seeds_changed() -> None:
    from vision.motion import pit_changes

    centres = {f"P{i}{j}": [145 + i * 50, 120 + j * 42] for i in range(8) for j in range(4)}
    before = scene()
    after = before.copy()
    cv2.circle(after, (195, 162), 5, (235, 235, 225), -1)  # a seed dropped into pit P11
    changed = pit_changes(before, after, centres)
    assert changed is not None
    assert changed["P11"] > 0.9
    assert max(p for name, p in changed.items() if name != "P11") < 0.1
    moved = np.roll(before, 25, axis=1)  # the camera was bumped: no evidence
    assert pit_changes(before, moved, centres) is None


def test_pit_change_map_holds_when_the_light_changed_between_the_views() -> None:
    # the same seed dropped into P11 while a lamp was switched on (gamma 0.6, every level
    # up to 60 grey levels brighter): only P11 changed. Compared level for level, every
    # pit had changed and the map said nothing (the camera-moved rule)
    from vision.motion import matched_levels, pit_changes

    centres = {f"P{i}{j}": [145 + i * 50, 120 + j * 42] for i in range(8) for j in range(4)}
    before = scene()
    after = before.copy()
    cv2.circle(after, (195, 162), 5, (235, 235, 225), -1)
    for gamma in (0.6, 1.6):
        lit = (255 * (after / 255.0) ** gamma).round().astype(np.uint8)
        changed = pit_changes(before, lit, centres)
        assert changed is not None
        assert changed["P11"] > 0.9
        assert max(p for name, p in changed.items() if name != "P11") < 0.1
    grey = cv2.cvtColor(before, cv2.COLOR_BGR2GRAY)
    assert np.array_equal(matched_levels(grey, grey), grey)  # one light: as it was
