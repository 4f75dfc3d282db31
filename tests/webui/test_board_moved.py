"""A board pushed along the table (or a camera knocked) after the calibration: the live
referee finds it again, says so once, and its profile follows the board."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from calibration import calibrate_from_start
from vision.pipeline import recognize
from webui.live import BOARD_MOVED, PICTURE_RESIZED, SOUTH_UNCLEAR, LiveReferee
from webui.sources import Frame
from webui.store import GameStore

GAMES = Path(__file__).resolve().parents[2] / "sample_images" / "games"
GAME = GAMES / "game_01"


def _referee(game: Path) -> tuple[LiveReferee, dict, str]:
    """A live referee (nobody to ask) with a profile from the game's first frame (the start)."""
    record = json.loads((game / "game.json").read_text())
    south = json.loads((game / "frame_000.json").read_text())["south_side"]
    live = LiveReferee(GameStore("sqlite://:memory:"), recognize, players=False)
    live.south_side = south
    live.profile = calibrate_from_start(cv2.imread(str(game / "frame_000.jpg")), south)
    live.new_game(start=record.get("start"))
    return live, record, south


def test_a_board_moved_after_the_calibration_is_found_again_and_the_game_goes_on() -> None:
    live, game, _ = _referee(GAME)
    views = [f for f in game["frames"] if f["settled"] and f["after_move"] <= 7]
    # from the view after move 4 on, the picture is shifted 250 px and turned 12 degrees
    # (the profile's corners then hold no pits: before, every later view was "board not read")
    shift = cv2.getRotationMatrix2D((640, 360), 12, 1.0)
    shift[:, 2] += (-250, 30)
    problems = {}
    for view in views:
        image = cv2.imread(str(GAME / view["file"]))
        if view["after_move"] >= 4:
            image = cv2.warpAffine(image, shift, (1280, 720), borderMode=cv2.BORDER_REPLICATE)
        live.feed(Frame(image, 0.0, still=True, name=view["file"]))
        problems[view["after_move"]] = live.problem
    assert [m.notation for m in live.store.get(live.game_id).moves] == game["moves"][:7]
    assert problems[4] == BOARD_MOVED  # said once, at the first view of the board moved
    assert problems[3] is None and problems[5] is None and problems[7] is None
    label = json.loads((GAME / "frame_010.json").read_text())  # (the camera never moved in the render)
    corners = cv2.transform(np.array([label["corners_px"]], np.float64), shift)[0]
    assert np.linalg.norm(np.array(live.profile.corners_px) - corners, axis=1).max() < 15.0


def test_a_board_read_with_its_ends_placed_otherwise_than_its_profile_has_not_moved() -> None:
    # game_04: from its third view on, the fit places the board's ends 0.9 of a pit pitch
    # from the profile's corners, its pits where the profile has them (0.03 of a pitch):
    # nothing moved, and nothing is said
    live, game, _ = _referee(GAMES / "game_04")
    profile = live.profile
    for view in [f for f in game["frames"] if f["settled"] and f["after_move"] <= 3]:
        live.feed(Frame(cv2.imread(str(GAMES / "game_04" / view["file"])), 0.0, still=True, name=view["file"]))
        assert live.problem is None
    assert live.profile is profile
    assert [m.notation for m in live.store.get(live.game_id).moves] == game["moves"][:3]


def test_pictures_of_another_size_are_read_and_the_profile_follows() -> None:
    # the camera gives 960 x 540 pictures from the view after move 4 on (the profile was
    # made on 1280 x 720 ones): before, every later view was "image is 960x540 but the
    # calibration profile was made for 1280x720"
    live, game, _ = _referee(GAME)
    problems = {}
    for view in [f for f in game["frames"] if f["settled"] and f["after_move"] <= 7]:
        image = cv2.imread(str(GAME / view["file"]))
        if view["after_move"] >= 4:
            image = cv2.resize(image, (960, 540), interpolation=cv2.INTER_AREA)
        live.feed(Frame(image, 0.0, still=True, name=view["file"]))
        problems[view["after_move"]] = live.problem
    assert [m.notation for m in live.store.get(live.game_id).moves] == game["moves"][:7]
    assert problems[4] == PICTURE_RESIZED and problems[5] is None and problems[7] is None
    assert live.profile.image_size == (960, 540)
    label = json.loads((GAME / "frame_010.json").read_text())
    assert np.linalg.norm(np.array(live.profile.corners_px) - np.array(label["corners_px"]) * 0.75,
                          axis=1).max() < 10.0


def test_a_board_turned_across_is_not_followed() -> None:
    # turned a quarter round after move 2, the board's long sides face South's side: which
    # pit is which is a guess, so the view is not refereed and the profile stays
    live, game, _ = _referee(GAME)
    profile = live.profile
    label = json.loads((GAME / "frame_002.json").read_text())
    centre = np.mean(label["corners_px"], axis=0)
    turn = cv2.getRotationMatrix2D((float(centre[0]), float(centre[1])), 90, 1.0)
    for view in [f for f in game["frames"] if f["settled"] and f["after_move"] <= 2]:
        image = cv2.imread(str(GAME / view["file"]))
        if view["after_move"] == 2:
            image = cv2.warpAffine(image, turn, (1280, 720), borderMode=cv2.BORDER_REPLICATE)
        live.feed(Frame(image, 0.0, still=True, name=view["file"]))
    assert live.problem == SOUTH_UNCLEAR
    assert live.profile is profile
    assert [m.notation for m in live.store.get(live.game_id).moves] == game["moves"][:1]
