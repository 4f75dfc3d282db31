"""Position JSON and text forms, validation errors, status flags, push/pop."""

from __future__ import annotations

import json

import pytest
from engine_boards import board

from engine import InvalidPosition, Position

START_JSON = {
    "south": {
        "front": [0, 0, 0, 0, 6, 2, 2, 0],
        "back": [0] * 8,
        "reserve": 22,
        "nyumba_owned": True,
    },
    "north": {
        "front": [0, 0, 0, 0, 6, 2, 2, 0],
        "back": [0] * 8,
        "reserve": 22,
        "nyumba_owned": True,
    },
    "to_move": "south",
    "blocked": None,
}
START_TEXT = (
    "A:0,0,0,0,6,2,2,0 B:0,0,0,0,0,0,0,0 a:0,0,0,0,6,2,2,0 b:0,0,0,0,0,0,0,0 "
    "reserve:22,22 nyumba:SN move:S"
)


def test_start_json_is_exactly_the_contract() -> None:
    assert Position.start().to_json() == START_JSON
    assert Position.from_json(START_JSON) == Position.start()
    assert Position.from_json(json.dumps(START_JSON)) == Position.start()


def test_text_form_round_trip() -> None:
    assert Position.start().to_text() == START_TEXT
    assert Position.from_text(START_TEXT) == Position.start()
    assert Position.from_text("start") == Position.start()
    pos = board({"A1": 1, "A2": 2, "A3": 1, "a2": 2, "a4": 1, "a6": 3, "B4": 7, "b2": 5})
    pos.push("A2<")
    assert pos.blocked == "a6"
    text = pos.to_text()
    assert text.endswith("move:N blocked:a6")
    assert Position.from_text(text) == pos
    assert Position.from_json(pos.to_json()) == pos
    # fields in any order
    shuffled = " ".join(reversed(START_TEXT.split()))
    assert Position.from_text(shuffled) == Position.start()


def test_back_row_order_in_json() -> None:
    # JSON "back" lists B1..B8 from South's left.
    pos = board({"B1": 3, "B8": 5, "b1": 2})
    obj = pos.to_json()
    assert obj["south"]["back"] == [3, 0, 0, 0, 0, 0, 0, 5]
    assert obj["north"]["back"] == [2, 0, 0, 0, 0, 0, 0, 0]
    assert pos.counts("south") == {"front": [0] * 8, "back": [3, 0, 0, 0, 0, 0, 0, 5]}


def _with(path: list[str], value: object) -> dict:
    obj = json.loads(json.dumps(START_JSON))
    target = obj
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return obj


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ("not json", "not JSON"),
        ([], "expected a JSON object"),
        ({"south": {}}, "missing: north, to_move"),
        (_with(["colour"], 1), "unknown: colour"),
        (_with(["south", "front"], [1, 2, 3]), "south.front must be a list of 8"),
        (_with(["north", "back"], [0, 0, 0, -1, 0, 0, 0, 0]), r"north.back\[3\] is -1"),
        (_with(["south", "reserve"], 2.5), "south.reserve must be a whole number"),
        (_with(["south", "reserve"], True), "south.reserve must be a whole number"),
        (_with(["south", "nyumba_owned"], "yes"), "nyumba_owned must be true or false"),
        (_with(["to_move"], "east"), "to_move must be 'south' or 'north'"),
        (_with(["blocked"], "a4"), "blocked must be null or a front hole"),
        (_with(["blocked"], "B4"), "blocked must be null or a front hole"),
        (_with(["south", "reserve"], 40), "82 seeds .* more than 64"),
    ],
)
def test_invalid_json_positions(obj: object, message: str) -> None:
    with pytest.raises(InvalidPosition, match=message):
        Position.from_json(obj)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (START_TEXT.replace("A:0,0,0,0,6,2,2,0", "A:1,2"), "A: needs 8 whole numbers"),
        (START_TEXT.replace("move:S", "move:X"), "move: takes S or N"),
        (START_TEXT.replace("nyumba:SN", "nyumba:Q"), "nyumba: takes"),
        (START_TEXT.replace("reserve:22,22", ""), "missing reserve"),
        (START_TEXT + " colour:red", "unknown field"),
        (START_TEXT.replace("A:0,0,0,0,6", "A:0,0,0,0,-6"), "A: needs 8 whole numbers"),
        # (str.isdigit takes '²': int() then said "invalid literal for int()")
        (START_TEXT.replace("A:0,0,0,0,6", "A:0,0,0,0,²"), r"A: needs 8 whole numbers .* \('²' is not a count\)"),
        (START_TEXT.replace("reserve:22", "reserve:2²"), r"reserve: needs 2 .* \('2²' is not a count\)"),
    ],
)
def test_invalid_text_positions(text: str, message: str) -> None:
    with pytest.raises(InvalidPosition, match=message):
        Position.from_text(text)


def test_status_flags() -> None:
    assert Position.start().status() == []
    odd = board({"A3": 2, "a3": 2}, nyumba="S")
    flags = odd.status()
    assert "seed total is 4, not 64" in flags
    assert "south nyumba owned but empty" in flags
    wrong_reserves = Position.from_json(_with(["north", "reserve"], 21))
    assert any("do not match south to move" in f for f in wrong_reserves.status())


def test_push_pop_restores_exactly() -> None:
    pos = Position.start()
    before = pos.to_json()
    pos.push("A6<")
    pos.push("a6<")
    assert [str(m) for m in pos.move_stack] == ["A6<", "a6<"]
    assert str(pos.pop()) == "a6<"
    pos.pop()
    assert pos.to_json() == before
    with pytest.raises(IndexError):
        pos.pop()


def test_play_does_not_change_the_position() -> None:
    pos = Position.start()
    after, trace = pos.play("A6<")
    assert pos == Position.start()
    assert after.to_move == "north"
    assert trace.move == "A6<"


def test_hole_access() -> None:
    pos = Position.start()
    assert pos["A5"] == 6 and pos["a7"] == 2 and pos["B1"] == 0
    with pytest.raises(KeyError):
        pos["Z9"]


def test_docstring_examples() -> None:
    import doctest

    import engine
    import engine.position

    for module in (engine, engine.position):
        assert doctest.testmod(module).failed == 0
