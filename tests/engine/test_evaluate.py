"""The evaluation features and weights (engine/evaluate.py)."""

from __future__ import annotations

import json
import random

import pytest

from engine import Position, core
from engine import evaluate as ev


def _pos(south_front, south_back, north_front, north_back, to_move="south", reserve=0):
    def side(front, back):
        return {"front": front, "back": back, "reserve": reserve, "nyumba_owned": False}

    return Position.from_json(
        {
            "south": side(south_front, south_back),
            "north": side(north_front, north_back),
            "to_move": to_move,
            "blocked": None,
        }
    )


def test_layout_matches_the_fast_core():
    assert (ev.RESERVE, ev.OWNED, ev.TO_MOVE, ev.BLOCKED, ev.STATE_SIZE) == (
        core.RESERVE,
        core.OWNED,
        core.TO_MOVE,
        core.BLOCKED,
        core.STATE_SIZE,
    )


def test_features_of_a_hand_made_mtaji_position():
    # South: A1=1, A3=2, A5=1.  North: a4=2, a8=1, b1=1, b2=1.  South to move.
    pos = _pos([1, 0, 2, 0, 1, 0, 0, 0], [0] * 8, [0, 0, 0, 2, 0, 0, 0, 1], [1, 1] + [0] * 6)
    f = ev.features(pos)
    assert f["material"] == 4 - 5
    assert f["front"] == 4 - 3
    assert f["front_occupied"] == 3 - 2
    assert f["movable"] == 1 - 1  # A3 / a4
    assert f["nyumba"] == 0
    # A1 faces a8 and A5 faces a4 (A_i faces a_(9-i)): 2 South seeds exposed;
    # a4 (2) faces A5 and a8 (1) faces A1: 3 North seeds exposed.
    assert f["exposed"] == 2 - 3
    # A3 (2 seeds) sown right ends in A5 (occupied, facing a4=2): capture 2 (1.4);
    # sown left it ends in A1 (occupied, facing a8=1): capture 1.
    assert f["mover_capture"] == 2
    assert f["mover_threats"] == 2
    # a4 (2 seeds) ends in a6 or a2, both empty: North threatens nothing.
    assert f["opponent_capture"] == 0
    assert f["opponent_threats"] == 0
    assert f["mover_blocked"] == 0


def test_kunamua_threats_count_every_facing_pair():
    # In kunamua any occupied front hole facing an occupied one captures (2.2).
    pos = _pos([0, 0, 0, 0, 6, 2, 2, 0], [0] * 8, [0, 0, 3, 0, 6, 0, 0, 0], [0] * 8, reserve=10)
    f = ev.features(pos)
    # A6 faces a3 (3); A5 faces a4 (0); A7 faces a2 (0). North: a3 faces A6 (2), a5 faces A4 (0).
    assert (f["mover_capture"], f["mover_threats"]) == (3, 1)
    assert (f["opponent_capture"], f["opponent_threats"]) == (2, 1)


def _mirror(pos: Position) -> Position:
    data = pos.to_json()
    data["south"], data["north"] = data["north"], data["south"]
    data["to_move"] = "north" if data["to_move"] == "south" else "south"
    data["blocked"] = None
    return Position.from_json(data)


def test_features_are_the_same_for_either_colour():
    rng = random.Random(4)
    for _ in range(30):
        pos = Position.start()
        for _ in range(rng.randint(0, 50)):
            if pos.is_game_over():
                break
            pos.push(rng.choice(pos.legal_moves))
        if pos.blocked is not None:
            continue
        assert ev.features(pos) == ev.features(_mirror(pos))


def test_start_position_is_level():
    assert ev.evaluate(Position.start()) == 0.0


def test_evaluate_is_the_weighted_sum():
    pos = _pos([1, 0, 2, 0, 1, 0, 0, 0], [0] * 8, [0, 0, 0, 2, 0, 0, 0, 1], [1, 1] + [0] * 6)
    assert ev.evaluate(pos, {"material": 2.0}) == -2.0
    assert ev.evaluate(pos, {"material": 1.0, "mover_capture": 0.5}) == 0.0


def test_weights_file_is_checked(tmp_path):
    path = tmp_path / "w.json"
    path.write_text(json.dumps({"weights": {"material": 1.0, "bogus": 2.0}}))
    with pytest.raises(ValueError, match="bogus"):
        ev.load_weights(path)
    path.write_text(json.dumps({"weights": {"material": 1.5}}))
    w = ev.load_weights(path)
    assert w["material"] == 1.5 and w["front"] == 0.0 and set(w) == set(ev.FEATURES)
    # a file that is no JSON, or none at all, is a ValueError naming it
    path.write_text("weights: material 1")
    with pytest.raises(ValueError, match=r"w\.json: not JSON \(.* line 1, column 1\)"):
        ev.load_weights(path)
    with pytest.raises(ValueError, match="cannot read the weights file .*missing.json"):
        ev.load_weights(tmp_path / "missing.json")
    # a weight that is no finite number is named (a list was a TypeError traceback in bao match)
    path.write_text('{"weights": {"material": [1], "front": true, "movable": NaN, "nyumba": 2}}')
    with pytest.raises(ValueError, match=r"w\.json: the weights of \['front', 'material', 'movable'\] are not finite"):
        ev.load_weights(path)


def test_shipped_weights_load_and_value_material():
    w = ev.load_weights()
    assert set(w) == set(ev.FEATURES)
    assert w["material"] == 1.0  # the tuning script scales to seeds
