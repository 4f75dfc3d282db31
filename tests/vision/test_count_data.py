"""Pit crops cut from labelled renders for the counter's training and benchmark."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.count_data import CROP, FILL, camera_pit_crops, pit_crops

# a board 1.0 x 0.4 m seen straight down at 1000 px per metre, its corner at (100, 100)
GEOM = {"pitch_x": 0.1, "margin_x": 0.1, "pitch_y": 0.1, "middle_gap": 0.0, "margin_y": 0.05,
        "pit_radius": 0.03}
CORNERS = [[100, 100], [1100, 100], [1100, 500], [100, 500]]


def _label(centres: dict[str, list[float]], corners: list[list[float]] = CORNERS) -> dict:
    return {"corners_px": corners, "pit_centers_px": centres, "render": {"geometry": GEOM}}


def _extent(crop: np.ndarray) -> tuple[float, float, float, float]:
    """Width, height and centre of the white disc drawn in a crop."""
    ys, xs = np.nonzero(crop[:, :, 0] > 127)
    return (xs.max() - xs.min() + 1, ys.max() - ys.min() + 1, xs.mean(), ys.mean())


def test_a_pit_seen_straight_down_fills_its_share_of_the_crop() -> None:
    img = np.zeros((600, 1200, 3), np.uint8)
    cv2.circle(img, (400, 250), 30, (255, 255, 255), -1)  # pit radius 0.03 m = 30 px
    crops = camera_pit_crops(img, _label({"A3": [400, 250]}))
    w, h, cx, cy = _extent(crops["A3"])
    assert crops["A3"].shape == (CROP, CROP, 3)
    assert abs(w - CROP * FILL) <= 3 and abs(h - CROP * FILL) <= 3
    assert abs(cx - CROP / 2) <= 1.5 and abs(cy - CROP / 2) <= 1.5
    # seen straight down, the rectified crop is the same picture
    assert np.abs(_extent(pit_crops(img, _label({"A3": [400, 250]}))["A3"])[0] - w) <= 3


def test_an_oblique_pit_stays_an_ellipse_and_edge_pits_are_left_out() -> None:
    img = np.zeros((600, 1200, 3), np.uint8)
    cv2.ellipse(img, (400, 250), (30, 15), 0, 0, 360, (255, 255, 255), -1)
    # the board squashed to half its height: a camera low over the long side
    squashed = [[100, 100], [1100, 100], [1100, 300], [100, 300]]
    crops = camera_pit_crops(img, _label({"A3": [400, 250], "A1": [5, 250]}, squashed))
    assert set(crops) == {"A3"}  # A1's square would leave the image
    w, h, _cx, _cy = _extent(crops["A3"])
    assert abs(w - CROP * FILL) <= 3
    assert abs(h - CROP * FILL / 2) <= 3  # not stretched back to a circle


def test_fill_frames_the_pit_looser_or_tighter_in_both_kinds_of_crop() -> None:
    img = np.zeros((600, 1200, 3), np.uint8)
    cv2.circle(img, (400, 250), 30, (255, 255, 255), -1)
    label = _label({"A3": [400, 250]})
    for fill in (0.5, 1.0):
        for crops in (camera_pit_crops(img, label, fill), pit_crops(img, label, fill)):
            w, h, cx, cy = _extent(crops["A3"])
            assert crops["A3"].shape == (CROP, CROP, 3)
            assert abs(w - CROP * fill) <= 3 and abs(h - CROP * fill) <= 3  # 48 or 96 px wide
            assert abs(cx - CROP / 2) <= 1.5 and abs(cy - CROP / 2) <= 1.5


def test_a_fill_outside_any_sensible_framing_is_refused() -> None:
    img = np.zeros((600, 1200, 3), np.uint8)
    label = _label({"A3": [400, 250]})
    for bad in (0.0, 0.1, 2.0):
        for cut in (camera_pit_crops, pit_crops):
            with pytest.raises(ValueError, match="fill"):
                cut(img, label, bad)


def test_seed_points_land_where_the_crops_show_the_seeds() -> None:
    from vision.count_data import crop_seed_points

    # a pit at (400, 250) (radius 30 px straight down), two seeds drawn 12 px right of and
    # 15 px above its centre, a third buried (visibility 0.02)
    img = np.zeros((600, 1200, 3), np.uint8)
    cv2.circle(img, (412, 250), 4, (255, 255, 255), -1)
    cv2.circle(img, (400, 235), 4, (255, 255, 255), -1)
    label = _label({"A3": [400, 250], "A4": [500, 250]})
    label["render"] |= {"seed_points_px": {"A3": [[412, 250], [400, 235], [401, 251]]},
                        "seed_visibility": {"A3": [0.9, 0.8, 0.02]}}
    for camera, crops in ((False, pit_crops(img, label)), (True, camera_pit_crops(img, label))):
        pts = crop_seed_points(label, img.shape, camera=camera)
        assert pts is not None and set(pts) == set(crops) == {"A3", "A4"}
        assert pts["A4"].shape == (0, 2) and pts["A3"].shape == (2, 2)  # the buried seed is left out
        for x, y in pts["A3"]:
            assert crops["A3"][int(round(y)), int(round(x)), 0] > 127  # on a drawn seed
        scale = CROP * FILL / 60  # the pit's 60 px fill FILL of the crop
        assert np.allclose(pts["A3"][0], (CROP / 2 - 0.5 + 12 * scale, CROP / 2 - 0.5), atol=1.0)
    assert crop_seed_points(_label({"A3": [400, 250]}), img.shape) is None  # no seed points
