"""Geometry behind the photoreal generator's labels (no Blender needed)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from samples import SINGLES

from vision.holes import HOLES
from vision.synth.params import sample_params
from vision.synth.scene import (
    SQUARE_PITS,
    BoardGeometry,
    Camera,
    camera_from_params,
    fit_camera,
    look_from,
    project_board,
)

GEOM = BoardGeometry()


def test_square_pits_are_the_two_nyumba_and_diagonal() -> None:
    # BAO_RULES.md section 0: the nyumba is hole 5 of each front row; seen with South at
    # the bottom, A5 is the 5th front hole from the left and a5 the 4th: diagonal.
    assert {"A5", "a5"} == SQUARE_PITS
    (xa, ya), (xn, yn) = GEOM.pit_xy("A5"), GEOM.pit_xy("a5")
    assert xa == pytest.approx(0.5 * GEOM.pitch_x)  # 5th of 8 columns: just right of centre
    assert xn == pytest.approx(-0.5 * GEOM.pitch_x)  # 4th of 8: just left of centre
    assert ya < 0 < yn
    # front rows are the two middle rows
    assert abs(ya) < abs(GEOM.pit_xy("B5")[1]) and abs(yn) < abs(GEOM.pit_xy("b5")[1])


def test_half_turn_maps_south_holes_onto_north_holes() -> None:
    for i in range(1, 9):
        for s, n in (("A", "a"), ("B", "b")):
            xs, ys = GEOM.pit_xy(f"{s}{i}")
            xn, yn = GEOM.pit_xy(f"{n}{i}")
            assert (xs, ys) == pytest.approx((-xn, -yn))


def test_south_counts_from_its_own_left() -> None:
    # South sits at -y facing +y: its left is -x, so A1 is left of A8.
    assert GEOM.pit_xy("A1")[0] < GEOM.pit_xy("A8")[0]
    # A_i faces a_(9-i): same column
    for i in range(1, 9):
        assert GEOM.pit_xy(f"A{i}")[0] == pytest.approx(GEOM.pit_xy(f"a{9 - i}")[0])


def test_corners_in_canonical_order_near_b8_b1_B8_B1() -> None:
    corners = GEOM.corners_world()
    pits = GEOM.pit_centers_world()
    nearest = [HOLES[int(np.argmin(np.linalg.norm(pits - c, axis=1)))] for c in corners]
    assert nearest == ["b8", "b1", "B8", "B1"]


def test_straight_down_projection_scale_by_hand() -> None:
    # focal 36 mm on a 36 mm sensor: fx = image width in pixels; 1 m above the
    # board centre, a point 0.1 m towards North is 0.1 * 1280 px above the centre.
    loc, rot = look_from(np.array([0, 0, GEOM.top_z]), -90.0, 90.0, 1.0, 0.0)
    cam = Camera(tuple(loc), tuple(map(tuple, rot)), 36.0, 1280, 720)
    (u, v), = cam.project(np.array([[0.0, 0.1, GEOM.top_z]]))
    assert u == pytest.approx(639.5)
    assert v == pytest.approx(359.5 - 128.0)
    (u, v), = cam.project(np.array([[0.05, 0.0, GEOM.top_z]]))
    assert u == pytest.approx(639.5 + 64.0)


def test_ray_inverts_projection() -> None:
    cam = fit_camera(GEOM, 20.0, 55.0, 2.0, 28.0, 0.8, 1280, 720)
    pts = GEOM.pit_centers_world()
    px = cam.project(pts)
    dirs = cam.ray(px)
    expect = pts - np.asarray(cam.location)
    expect /= np.linalg.norm(expect, axis=1, keepdims=True)
    assert np.allclose(dirs, expect, atol=1e-9)


@pytest.mark.parametrize(
    ("azimuth", "side"), [(-90.0, "bottom"), (90.0, "top"), (0.0, "left"), (180.0, "right")]
)
def test_south_side_for_each_camera_side(azimuth: float, side: str) -> None:
    cam = fit_camera(GEOM, azimuth, 60.0, 0.0, 35.0, 0.8, 1280, 720)
    assert project_board(cam, GEOM).south_side == side


def test_canonical_view_from_south_straight_down() -> None:
    cam = fit_camera(GEOM, -90.0, 90.0, 0.0, 35.0, 0.8, 1280, 720)
    proj = project_board(cam, GEOM)
    (tlx, tly), (trx, try_), (brx, bry), (blx, bly) = proj.corners_px
    assert tlx < trx and blx < brx and tly < bly and try_ < bry
    c = proj.pit_centers_px
    assert c["b8"][0] < c["b1"][0] and c["A1"][0] < c["A8"][0]
    assert c["b8"][1] < c["a8"][1] < c["A1"][1] < c["B1"][1]


def test_fit_reaches_the_requested_fill() -> None:
    cam = fit_camera(GEOM, -70.0, 50.0, 0.0, 30.0, 0.75, 1280, 720)
    hx, hy = GEOM.length / 2, GEOM.width / 2
    pts = np.array([[sx * hx, sy * hy, z] for sx in (-1, 1) for sy in (-1, 1)
                    for z in (0.0, GEOM.top_z)])
    p = cam.project(pts)
    ext = np.max(np.maximum(np.abs(p[:, 0] - 640) / 640, np.abs(p[:, 1] - 360) / 360))
    assert ext == pytest.approx(0.75, abs=1e-3)


def test_random_cameras_keep_corners_and_pits_inside_the_image() -> None:
    for k in range(150):
        params = sample_params(np.random.default_rng(k))
        geom = BoardGeometry(**params["geometry"])
        cam = camera_from_params(geom, params["camera"])
        proj = project_board(cam, geom)
        pts = np.array(proj.corners_px + list(proj.pit_centers_px.values()))
        assert np.all(pts[:, 0] >= 0) and np.all(pts[:, 0] <= cam.width - 1), k
        assert np.all(pts[:, 1] >= 0) and np.all(pts[:, 1] <= cam.height - 1), k
        # the corner polygon is convex and not degenerate
        c = np.array(proj.corners_px)
        e = [c[(i + 1) % 4] - c[i] for i in range(4)]
        cross = [e[i][0] * e[(i + 1) % 4][1] - e[i][1] * e[(i + 1) % 4][0] for i in range(4)]
        assert all(x > 0 for x in cross) or all(x < 0 for x in cross), k


def test_random_boards_keep_pits_inside_the_outline() -> None:
    for k in range(200):
        geom = BoardGeometry(**sample_params(np.random.default_rng(k))["geometry"])
        for name in HOLES:
            x, y = geom.pit_xy(name)
            h = geom.pit_half_extent(name)
            assert abs(x) + h < geom.length / 2 and abs(y) + h < geom.width / 2, (k, name)


def test_surface_is_carved_only_inside_pits() -> None:
    x, y = GEOM.pit_xy("A3")
    assert GEOM.surface_height(x, y) == pytest.approx(GEOM.top_z - GEOM.pit_depth)
    # halfway between A3 and A4 the top is flat
    x2, _ = GEOM.pit_xy("A4")
    assert GEOM.surface_height((x + x2) / 2, y) == pytest.approx(GEOM.top_z)
    # a square pit is as deep in its corner region as a round one is not
    xs, ys = GEOM.pit_xy("A5")
    h = GEOM.square_half * 0.8
    assert GEOM.surface_height(xs + h, ys + h) < GEOM.top_z - 1e-4
    assert GEOM.surface_height(x + h, y + h) == pytest.approx(GEOM.top_z)


def test_a_pit_wall_shape_sets_how_steeply_the_floor_meets_the_top_face() -> None:
    # the floor lies pit_depth * (1 - rho^2) ** pit_wall below the top face; at rho 0.9:
    # 0.19 ** 0.6 = 0.3692 of the depth for the default's steep wall, 0.19 ** 2 = 0.0361
    # for a dimple, and the whole depth at the centre either way
    dimple = BoardGeometry(pit_wall=2.0)
    x, y = GEOM.pit_xy("A3")
    edge = x + 0.9 * GEOM.pit_radius
    assert GEOM.surface_height(edge, y) == pytest.approx(GEOM.top_z - 0.3692 * GEOM.pit_depth, abs=1e-6)
    assert dimple.surface_height(edge, y) == pytest.approx(GEOM.top_z - 0.0361 * GEOM.pit_depth, abs=1e-6)
    assert dimple.surface_height(x, y) == pytest.approx(GEOM.top_z - GEOM.pit_depth)


def test_bad_geometry_is_refused() -> None:
    with pytest.raises(ValueError, match="pit radius"):
        BoardGeometry(pit_radius=0.05)
    with pytest.raises(ValueError, match="pit wall 0.1 must be from 0.3 to 3.0"):
        BoardGeometry(pit_wall=0.1)
    with pytest.raises(ValueError, match="fill"):
        fit_camera(GEOM, 0, 60, 0, 30, 1.2, 1280, 720)


def test_default_parameters_still_reproduce_the_committed_samples() -> None:
    """The seed options must not change what ``bao render --seed S`` draws by default."""
    root = SINGLES
    labels = sorted(root.glob("synth_*.json"))[:6]
    assert labels
    for path in labels:
        r = json.loads(path.read_text())["render"]
        params = sample_params(np.random.default_rng([r["seed"], r["index"]]))
        assert params["seeds"] == r["seeds"], path.name
        # (labels from before the pits' wall shape was recorded have the default's)
        assert params["geometry"] == {"pit_wall": 0.6, **r["geometry"]}, path.name


def test_seed_kinds_and_size_are_drawn_from_what_was_asked() -> None:
    kinds = set()
    for k in range(40):
        params = sample_params(np.random.default_rng(k), seed_kinds=["glass_gem", "pebble"],
                               seed_size=(0.2, 0.25))
        s = params["seeds"]
        kinds.add(s["kind"])
        share = s["diameter"] / (2 * params["geometry"]["pit_radius"])
        assert 0.2 - 0.01 <= share <= 0.25 + 0.01, (k, share)
        if s["kind"] == "glass_gem":
            assert 0.0 <= s["hue_spread"] <= 1.0
    assert kinds == {"glass_gem", "pebble"}


def test_woods_and_tables_are_drawn_from_what_was_asked() -> None:
    # bao render --woods / --tables (a stress set: pale boards on tiled floors)
    woods, tables = set(), set()
    for k in range(30):
        params = sample_params(np.random.default_rng(k), woods=["pale", "golden"], tables=["tiles"])
        woods.add(params["wood"]["kind"])
        tables.add(params["table"]["kind"])
    assert woods == {"pale", "golden"} and tables == {"tiles"}
    # not asked: the draws of earlier versions (the same scene for a seed)
    assert sample_params(np.random.default_rng(3)) == sample_params(np.random.default_rng(3), woods=None)


def test_a_fill_range_moves_only_the_camera_away() -> None:
    # bao render --fill: the board small in the frame, everything else the scene of that seed
    for k in range(20):
        before = sample_params(np.random.default_rng(k))
        small = sample_params(np.random.default_rng(k), fill=(0.35, 0.5))
        assert 0.35 <= small["camera"]["fill"] <= 0.5, k
        assert 0.62 <= before["camera"]["fill"] <= 0.93, k
        del before["camera"]["fill"], small["camera"]["fill"]
        assert small == before, k


def test_elevation_and_thickness_ranges_change_only_those_draws() -> None:
    # bao render --elevation/--thickness: a thick board seen from low, everything else
    # the scene of that seed
    for k in range(20):
        before = sample_params(np.random.default_rng(k))
        low = sample_params(np.random.default_rng(k), elevation=(45.0, 55.0), thickness=(0.08, 0.1))
        assert 45.0 <= low["camera"]["elevation"] <= 55.0, k
        assert 45.0 <= before["camera"]["elevation"] <= 90.0, k
        assert 0.08 <= low["geometry"]["thickness"] <= 0.1, k
        assert 0.035 <= before["geometry"]["thickness"] <= 0.08, k
        for params in (before, low):
            del params["camera"]["elevation"], params["geometry"]["thickness"]
        assert low == before, k


def test_a_turn_moves_only_the_camera_round_the_board() -> None:
    # bao render --turn: the camera 25-65 degrees further round from its side, either
    # way (a corner view); every other draw is that seed's scene
    ways = set()
    for k in range(20):
        before = sample_params(np.random.default_rng(k))
        turned = sample_params(np.random.default_rng(k), turn=(25.0, 65.0))
        step = turned["camera"]["azimuth"] - before["camera"]["azimuth"]
        assert 25.0 - 0.01 <= abs(step) <= 65.0 + 0.01, k
        ways.add(step > 0)
        del before["camera"]["azimuth"], turned["camera"]["azimuth"]
        assert turned == before, k
    assert ways == {True, False}


def test_pit_walls_change_only_the_pits_shape() -> None:
    # bao render --pit-walls: pits whose walls run softly into the top face, everything
    # else that seed's scene
    for k in range(20):
        before = sample_params(np.random.default_rng(k))
        soft = sample_params(np.random.default_rng(k), pit_walls=(1.5, 2.0))
        assert 1.5 <= soft["geometry"]["pit_wall"] <= 2.0, k
        assert before["geometry"]["pit_wall"] == 0.6, k
        del before["geometry"]["pit_wall"], soft["geometry"]["pit_wall"]
        assert soft == before, k
    with pytest.raises(ValueError, match="pit walls must be two shapes"):
        sample_params(np.random.default_rng(0), pit_walls=(2.0, 1.0))


def test_varied_layout_changes_only_the_boards_layout() -> None:
    # bao render --varied-layout: wider ends and gaps, other pit sizes than the usual
    # boards; the seeds keep their size as a share of the pit, everything else that
    # seed's scene
    layout = ("pitch_y", "pit_radius", "middle_gap", "margin_x", "margin_y", "pit_depth",
              "square_half")
    gapped, wide_ends, big_pits = set(), 0, 0
    for k in range(60):
        before = sample_params(np.random.default_rng(k))
        varied = sample_params(np.random.default_rng(k), varied_layout=True)
        g, b = varied["geometry"], before["geometry"]
        pitch = min(g["pitch_x"], g["pitch_y"])
        assert 0.8 - 1e-3 <= g["pitch_y"] / g["pitch_x"] <= 1.15 + 1e-3, k
        assert 0.26 - 1e-3 <= g["pit_radius"] / pitch <= 0.46 + 1e-3, k
        assert g["middle_gap"] == 0.0 or 0.02 <= g["middle_gap"] <= 0.06, k
        assert 2 * g["square_half"] < pitch, k
        # (a share of the pit diameter as the usual boards draw it, 0.27..0.38)
        share = varied["seeds"]["diameter"] / (2 * g["pit_radius"])
        assert share == pytest.approx(before["seeds"]["diameter"] / (2 * b["pit_radius"]), abs=5e-3), k
        assert 0.27 - 5e-3 <= share <= 0.38 + 5e-3, k  # (each rounded to 0.1 mm)
        gapped.add(g["middle_gap"] > 0)
        wide_ends += (g["margin_x"] - 0.006) / g["pit_radius"] > 1.9  # past the usual boards' 1.9
        big_pits += g["pit_radius"] / pitch > 0.43  # ... and their 0.43
        for key in layout:
            del g[key], b[key]
        del varied["seeds"]["diameter"], before["seeds"]["diameter"]
        assert varied == before, k
    assert gapped == {True, False}
    assert wide_ends >= 20 and big_pits >= 3


def test_another_image_size_changes_only_the_camera_frame() -> None:
    # bao render --size 640 480: a webcam's frame, the same scene of that seed
    for k in range(10):
        before = sample_params(np.random.default_rng(k))
        small = sample_params(np.random.default_rng(k), 640, 480)
        assert (small["camera"]["width"], small["camera"]["height"]) == (640, 480), k
        for params in (before, small):
            del params["camera"]["width"], params["camera"]["height"]
        assert small == before, k


def test_a_hand_on_every_board_when_asked() -> None:
    # bao render --hand-share 1: a hand on every board (the default is a fifth of them)
    assert all(sample_params(np.random.default_rng(k), hand_prob=1.0)["hand"] for k in range(10))
    assert not any(sample_params(np.random.default_rng(k), hand_prob=0.0)["hand"] for k in range(10))
    with pytest.raises(ValueError, match="turn must be two angles"):
        sample_params(np.random.default_rng(0), turn=(50.0, 40.0))


@pytest.mark.parametrize(("elevation", "thickness", "message"), [
    ((60.0, 50.0), None, "elevation must be two angles"),
    ((20.0, 50.0), None, "30 <= LO <= HI <= 90"),
    (None, (0.02, 0.05), "thickness must be two lengths"),
    (None, (0.05, 0.3), "<= 0.2"),
])
def test_bad_elevation_or_thickness_is_named(elevation, thickness, message: str) -> None:  # noqa: ANN001
    with pytest.raises(ValueError, match=message):
        sample_params(np.random.default_rng(0), elevation=elevation, thickness=thickness)


@pytest.mark.parametrize("fill", [(0.5, 0.4), (0.1, 0.5), (0.5, 1.0)])
def test_bad_fill_is_named(fill: tuple[float, float]) -> None:
    with pytest.raises(ValueError, match="fill must be two shares of the frame"):
        sample_params(np.random.default_rng(0), fill=fill)


@pytest.mark.parametrize(("woods", "tables", "message"), [
    (["oak"], None, "unknown wood 'oak'"),
    (None, ["grass"], "unknown table 'grass'"),
    ([], None, "woods: give at least one"),
])
def test_bad_woods_and_tables_are_named(woods: list[str] | None, tables: list[str] | None,
                                        message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        sample_params(np.random.default_rng(0), woods=woods, tables=tables)


@pytest.mark.parametrize(("kinds", "size", "message"), [
    (["marble"], None, "unknown seed kind 'marble'"),
    ([], None, "at least one"),
    (None, (0.4, 0.3), "LO <= HI"),
    (None, (0.05, 0.3), "0.1 <= LO"),
])
def test_bad_seed_options_are_named(kinds: list[str] | None, size: tuple[float, float] | None,
                                    message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        sample_params(np.random.default_rng(0), seed_kinds=kinds, seed_size=size)
