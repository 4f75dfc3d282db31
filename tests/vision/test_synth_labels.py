"""Seed -> pit assignment, label schema and requested-vs-actual bookkeeping (no Blender)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from vision.holes import HOLES
from vision.synth.blender import Seed
from vision.synth.generate import label_for_frame
from vision.synth.hand import hand_capsules, occluded_pits
from vision.synth.labels import (
    assign_seeds,
    count_by_pit,
    game_errors,
    label_errors,
    position_json,
    validate_label,
)
from vision.synth.params import sample_params
from vision.synth.scene import BoardGeometry, fit_camera

GEOM = BoardGeometry()
R = 0.008  # seed radius


def at(name: str, dz: float = 0.0, dx: float = 0.0, dy: float = 0.0) -> list[float]:
    x, y = GEOM.pit_xy(name)
    return [x + dx, y + dy, GEOM.top_z - GEOM.pit_depth + R + dz]


def test_seed_resting_in_a_pit_counts_for_that_pit() -> None:
    assert assign_seeds(GEOM, np.array([at("A3"), at("b7")]), R) == ["A3", "b7"]


def test_seed_on_the_flat_top_between_two_pits_is_in_no_pit() -> None:
    (x1, y), (x2, _) = GEOM.pit_xy("A3"), GEOM.pit_xy("A4")
    assert assign_seeds(GEOM, np.array([[(x1 + x2) / 2, y, GEOM.top_z + R]]), R) == ["board"]


def test_seed_on_the_table_is_off_the_board() -> None:
    assert assign_seeds(GEOM, np.array([[0.0, -GEOM.width / 2 - 0.05, R]]), R) == [None]


def test_seed_heaped_over_the_rim_belongs_to_its_pit() -> None:
    # raised two seed radii above the top, centre 0.6 seed radius beyond the rim
    x, y = GEOM.pit_xy("a2")
    p = [x + GEOM.pit_radius + 0.6 * R, y, GEOM.top_z + 2 * R]
    assert assign_seeds(GEOM, np.array([p]), R) == ["a2"]
    # the same spot lying on the flat top is not in the pit
    p_flat = [x + GEOM.pit_radius + 0.6 * R, y, GEOM.top_z + R]
    assert assign_seeds(GEOM, np.array([p_flat]), R) == ["board"]


def test_seed_in_the_corner_of_a_square_nyumba() -> None:
    h = 0.85 * GEOM.square_half
    # outside the inscribed circle, inside the square
    assert np.hypot(h, h) > GEOM.square_half
    assert assign_seeds(GEOM, np.array([at("A5", dx=h, dy=h, dz=0.01)]), R) == ["A5"]


def test_rolled_seed_changes_the_count() -> None:
    where = assign_seeds(GEOM, np.array([at("A3"), at("A3", dz=0.01), at("A4")]), R)
    counts = count_by_pit(where)
    assert counts["A3"] == 2 and counts["A4"] == 1 and sum(counts.values()) == 3


def _label() -> dict:
    params = sample_params(np.random.default_rng(3))
    params["hand"] = None
    seeds = [Seed("A6", 0, (1, 1, 1), 0.5), Seed("A6", 0, (1, 1, 1), 0.5),
             Seed("a5", 1, (1, 1, 1), 0.2), Seed("reserve_south", 2, (1, 1, 1), 0.1)]
    counts = dict.fromkeys(HOLES, 0) | {"A6": 2, "A7": 1, "a5": 1}
    req = {"counts": counts, "reserves": {"south": 1, "north": 1},
           "nyumba_owned": {"south": True, "north": False}, "to_move": "north", "blocked": None}
    return label_for_frame("x.jpg", params, seeds, req, removed=2, extra={"seed": 3})


def test_label_records_requested_and_actual_totals() -> None:
    label = _label()
    r = label["render"]
    # asked: A6=2, A7=1, a5=1 + reserves 1 + 1 = 6 seeds; rendered: A6=2, a5=1, reserve S 1
    assert r["seeds_requested"] == 6
    assert r["seeds_actual"] == 4
    assert r["seeds_removed"] == 2
    assert r["holes_changed_by_physics"] == ["A7"]
    pos = label["position"]
    assert pos["south"]["front"] == [0, 0, 0, 0, 0, 2, 0, 0]
    assert pos["north"]["front"][4] == 1
    assert pos["south"]["reserve"] == 1 and pos["north"]["reserve"] == 0
    assert pos["to_move"] == "north" and pos["north"]["nyumba_owned"] is False
    assert label_errors(label) == []


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda lb: lb.pop("corners_px"), "missing key 'corners_px'"),
        (lambda lb: lb["position"]["south"].__setitem__("front", [0] * 7), "position.south.front"),
        (lambda lb: lb["position"]["north"].__setitem__("back", [0, -1] + [0] * 6),
         "position.north.back"),
        (lambda lb: lb.__setitem__("south_side", "middle"), "south_side"),
        (lambda lb: lb.__setitem__("occluded_pits", ["A1"]), "hand_over_board is false"),
        (lambda lb: lb["pit_centers_px"].pop("b8"), "32 holes"),
        (lambda lb: lb.__setitem__("corners_px", [[0, 0]] * 3), "corners_px"),
        (lambda lb: lb["position"].__setitem__("to_move", "east"), "to_move"),
        (lambda lb: lb["position"].__setitem__("blocked", "Z9"), "blocked"),
    ],
)
def test_schema_names_what_is_wrong(mutate, message: str) -> None:
    label = copy.deepcopy(_label())
    mutate(label)
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        validate_label(label)


def test_position_json_form() -> None:
    counts = dict.fromkeys(HOLES, 0) | {"A1": 3, "B8": 2, "a1": 4, "b8": 5}
    pos = position_json(counts, {"south": 2, "north": 1}, {"south": True, "north": True},
                        "south", None)
    assert pos["south"] == {"front": [3, 0, 0, 0, 0, 0, 0, 0], "back": [0] * 7 + [2],
                            "reserve": 2, "nyumba_owned": True}
    assert pos["north"]["front"][0] == 4 and pos["north"]["back"][7] == 5
    assert pos["to_move"] == "south" and pos["blocked"] is None


def test_game_json_checks() -> None:
    ok = {"start": {}, "moves": ["A6<*"], "frames": [
        {"file": "frame_000.jpg", "after_move": 0, "settled": True},
        {"file": "frame_001.jpg", "after_move": 1, "settled": True}]}
    assert game_errors(ok, {"frame_000.jpg", "frame_001.jpg"}) == []
    bad = copy.deepcopy(ok)
    bad["frames"][1]["after_move"] = 2
    assert any("out of range" in e for e in game_errors(bad))
    assert any("missing" in e for e in game_errors(ok, {"frame_000.jpg"}))


def test_hand_hides_the_pit_it_reaches_for_from_above() -> None:
    cam = fit_camera(GEOM, -90.0, 90.0, 0.0, 35.0, 0.8, 1280, 720)
    hand = {"side": "south", "pit": "A4", "height": 0.05, "yaw": 0.0, "size": 1.0,
            "spread": 0.5}
    hidden = occluded_pits(cam, GEOM, [c for _n, c in hand_capsules(GEOM, hand)])
    assert "A4" in hidden  # fingertips are right above it
    assert "b8" not in hidden and "b1" not in hidden  # far corner pits stay visible


def test_heaped_counts_hold_the_heaps_and_all_64_seeds() -> None:
    from vision.synth.params import sample_counts

    for heaps in (1, 2, 3):
        for seed in range(50):
            req = sample_counts(np.random.default_rng(seed), heaps)
            counts = list(req["counts"].values())
            assert sum(counts) == 64 and req["reserves"] == {"south": 0, "north": 0}
            assert sum(c >= 16 for c in counts) >= heaps
    with pytest.raises(ValueError, match="at most 3 heaps"):
        sample_counts(np.random.default_rng(0), 4)


def _resting(group: str, z: float = 0.0) -> Seed:
    """A seed resting at its pit's centre, raised by ``z`` metres."""
    x, y = GEOM.pit_xy(group) if group in HOLES else (0.5, 0.0)
    m = np.eye(4)
    m[:3, 3] = (x, y, GEOM.top_z + z)
    return Seed(group, 0, (1, 1, 1), 0.5, m.tolist())


def test_seed_visibility_is_recorded_per_pit_most_visible_first() -> None:
    from vision.count_data import hidden_seeds, least_seen
    from vision.synth.scene import geometry_dict

    params = sample_params(np.random.default_rng(3))
    params["hand"] = None
    params["geometry"] = geometry_dict(GEOM)
    seeds = [_resting("A6"), _resting("A6", 0.02), _resting("A6", 0.01), _resting("reserve_south")]
    counts = dict.fromkeys(HOLES, 0) | {"A6": 3}
    req = {"counts": counts, "reserves": {"south": 1, "north": 0},
           "nyumba_owned": {"south": True, "north": True}, "to_move": "south", "blocked": None}
    label = label_for_frame("x.jpg", params, seeds, req, 0, {}, [0.04, 0.9, 0.3, None])
    assert label["render"]["seed_visibility"] == {"A6": [0.9, 0.3, 0.04]}
    assert label_errors(label) == []
    # the points follow the same order: the 0.04 seed lies on the plane of the top face at
    # the pit's centre, so it projects onto the labelled centre; the 0.9 seed, raised 2 cm,
    # is seen a little off it by this slanted camera
    pts = label["render"]["seed_points_px"]["A6"]
    centre = np.array(label["pit_centers_px"]["A6"])
    assert len(pts) == 3 and np.hypot(*(np.array(pts[2]) - centre)) < 1.0
    assert 0 < np.hypot(*(np.array(pts[0]) - centre)) < 30
    # one of A6's three seeds shows under a tenth of itself: no photo can count it
    hidden = hidden_seeds(label)
    assert hidden is not None and hidden["A6"] == 1 and sum(hidden.values()) == 1
    assert hidden_seeds(label, below=0.5)["A6"] == 2
    # the least visible seed of each pit: A6's 0.04 one; an empty pit shows nothing hidden
    faintest = least_seen(label)
    assert faintest is not None and faintest["A6"] == 0.04 and faintest["A5"] == 1.0
    # renders made before visibility was recorded say nothing about hidden seeds
    assert "seed_visibility" not in label_for_frame("x.jpg", params, seeds, req, 0, {})["render"]
    assert hidden_seeds(_label()) is None and least_seen(_label()) is None


def test_seed_visibility_needs_one_figure_and_a_pose_per_seed() -> None:
    from vision.synth.generate import seeds_in_view
    from vision.synth.scene import fit_camera

    cam = fit_camera(GEOM, -90.0, 90.0, 0.0, 35.0, 0.8, 200, 120)
    with pytest.raises(ValueError, match="2 seeds but 1 figures"):
        seeds_in_view([_resting("A6")] * 2, [0.5], cam)
    with pytest.raises(ValueError, match="a seed in A6 has no resting pose"):
        seeds_in_view([Seed("A6", 0, (1, 1, 1), 0.5)], [0.5], cam)


def test_hidden_seeds_names_a_bad_visibility_entry() -> None:
    from vision.count_data import hidden_seeds

    label = copy.deepcopy(_label())
    label["render"]["seed_visibility"] = {"Z9": [0.5]}
    with pytest.raises(ValueError, match="Z9"):
        hidden_seeds(label)
