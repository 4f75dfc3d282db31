"""Notation (BAO_RULES.md §6): Move syntax and resolving moves against a position."""

from __future__ import annotations

import pytest
from engine_boards import board

from engine import AmbiguousMove, IllegalMove, InvalidNotation, Move, Position
from engine.notation import parse_notation


def test_rule_6_move_parse_full_forms() -> None:
    assert Move.parse("A6<*") == Move("A6", "<")
    assert Move.parse("a3>**") == Move("a3", ">")
    assert Move.parse("A5<+") == Move("A5", "<", safari=True)
    assert Move.parse(" B3< ") == Move("B3", "<")
    assert Move.parse("b8>#") == Move("b8", ">")
    assert str(Move("A5", "<", True)) == "A5<+"
    assert Move("a1", ">").side == "north"


@pytest.mark.parametrize("text", ["", "A9<", "C1<", "A0>", "A1<<", "A1<*+", "A1<***", "A1=", "1A<"])
def test_rule_6_invalid_notation(text: str) -> None:
    with pytest.raises(InvalidNotation, match="invalid move"):
        parse_notation(text)


def test_move_parse_needs_row_and_direction() -> None:
    with pytest.raises(InvalidNotation, match="no row letter"):
        Move.parse("6<")
    with pytest.raises(InvalidNotation, match="no direction"):
        Move.parse("A6")


def test_move_rejects_bad_fields() -> None:
    with pytest.raises(InvalidNotation):
        Move("Z1", "<")
    with pytest.raises(InvalidNotation):
        Move("A1", "^")


def test_rule_6_short_forms_resolve_in_kunamua() -> None:
    pos = Position.start()
    # Row letter omitted in kunamua: the front row.
    assert pos.parse_move("6<") == Move("A6", "<")
    assert pos.parse_move("A7>*") == Move("A7", ">")
    # A kimbi capture needs no sign: A2 (kimbi) faces a7.
    kimbi = board({"A2": 1, "a7": 3, "a1": 1}, reserve=(4, 4))
    assert kimbi.parse_move("A2") == Move("A2", "<")
    assert kimbi.parse_move("2") == Move("A2", "<")


def test_rule_6_north_row_letters() -> None:
    pos = Position.start()
    pos.push("A6<")
    assert pos.parse_move("a6<") == Move("a6", "<")
    with pytest.raises(IllegalMove, match="A6 is not a hole of north"):
        pos.parse_move("A6<")


def test_ambiguous_short_form() -> None:
    pos = Position.start()
    with pytest.raises(AmbiguousMove, match=r"'A6'.*A6<\*, A6>\*.*move:S"):
        pos.parse_move("A6")


def test_illegal_move_message_quotes_the_move_and_the_position() -> None:
    pos = Position.start()
    with pytest.raises(IllegalMove) as err:
        pos.parse_move("A5<")
    message = str(err.value)
    assert "'A5<'" in message
    assert "A6<*, A6>*, A7<*, A7>*" in message
    assert pos.to_text() in message
    with pytest.raises(IllegalMove):
        pos.push(Move("B1", "<"))


def test_kutakata_mark_on_a_capture_is_illegal() -> None:
    pos = board({"A3": 1, "a6": 2, "a1": 1}, reserve=(4, 4))
    with pytest.raises(IllegalMove, match="captures"):
        pos.parse_move("A3<*")


def test_safari_flag_must_be_offered() -> None:
    pos = Position.start()
    with pytest.raises(IllegalMove):
        pos.parse_move("A6<+")


def test_notation_writes_full_form() -> None:
    pos = Position.start()
    assert [pos.notation(m) for m in pos.legal_moves] == ["A6<*", "A6>*", "A7<*", "A7>*"]
    assert pos.notation(pos.parse_move("7>")) == "A7>*"


def test_moves_sort_by_hole_direction_safari() -> None:
    items = [Move("B1", "<"), Move("A5", ">"), Move("A5", "<", True), Move("A5", "<")]
    assert [str(m) for m in sorted(items)] == ["A5<", "A5<+", "A5>", "B1<"]
