"""Hand-checked tests of BAO_RULES.md §2 (kunamua, the first phase).

Expected values worked out by hand from the rules; reasoning in comments.
South's A_i faces North's a_(9-i).
"""

from __future__ import annotations

from engine_boards import board, holes_of, moves

from engine import Position, Rules
from engine.trace import END_NYUMBA_KUTAKATA


def test_rule_2_1_start_position() -> None:
    # 2.1: nyumba 6, holes 6 and 7 of the front row 2 each, 22 in reserve.
    pos = Position.start()
    for side, front in (("south", "A"), ("north", "a")):
        assert pos.counts(side) == {"front": [0, 0, 0, 0, 6, 2, 2, 0], "back": [0] * 8}
        assert pos.reserve(side) == 22
        assert pos.nyumba_owned(side)
        assert pos[f"{front}5"] == 6
    assert pos.phase == "kunamua"
    assert pos.status() == []


def test_rule_2_1_1_south_moves_first() -> None:
    assert Position.start().to_move == "south"


def test_rule_2_1_2_first_moves_and_the_kiba_tutorial_move() -> None:
    # No capture at the start (A5, A6, A7 face a4, a3, a2, all empty), so a
    # kutakata from A6 or A7 (A5 is the nyumba with 6, 2.3.2). The KIBA
    # tutorial's A6<: reserve seed into A6 (3), sow A5 (7), A4, A3.
    pos = Position.start()
    assert moves(pos) == ["A6<*", "A6>*", "A7<*", "A7>*"]
    pos.push(pos.parse_move("A6<"))
    assert pos.counts("south")["front"] == [0, 0, 1, 1, 7, 0, 2, 0]
    assert pos.reserve("south") == 21
    assert pos.to_move == "north"


def test_rule_2_2_capture_with_kichwa_choice() -> None:
    # A3=1 faces a6=2. Reserve seed into A3 (2), capture a6's 2. A3 is no
    # kichwa/kimbi, so the player chooses the kichwa (2.2.2):
    # A3< enters at A1: A1, A2 (empty) -> end; A3> enters at A8: A8, A7 -> end.
    pos = board({"A3": 1, "a6": 2, "a1": 1}, reserve=(10, 10))
    assert moves(pos) == ["A3<", "A3>"]
    left, _ = pos.play("A3<")
    assert holes_of(left) == {"A1": 1, "A2": 1, "A3": 2, "a1": 1}
    right, _ = pos.play("A3>")
    assert holes_of(right) == {"A8": 1, "A7": 1, "A3": 2, "a1": 1}
    assert right.reserve("south") == 9


def test_rule_2_2_2_kichwa_and_kimbi_captures_have_a_forced_side() -> None:
    # A2 (left kimbi) faces a7=3, A6 faces a3=2: three capture moves, A2<
    # (forced left kichwa), A6< and A6>. A2<: A2 becomes 2, capture 3, sow
    # from A1 clockwise: A1 (1), A2 (3), A3 (0->1): empty, end.
    pos = board({"A2": 1, "A6": 1, "a7": 3, "a3": 2, "a1": 1}, reserve=(10, 10))
    assert moves(pos) == ["A2<", "A6<", "A6>"]
    pos.push("A2")  # the sign may be omitted for a kimbi capture (§6)
    assert holes_of(pos) == {"A1": 1, "A2": 3, "A3": 1, "A6": 1, "a3": 2, "a1": 1}


def test_rule_2_2_captured_seeds_capture_again() -> None:
    # A3< : A3 (2) captures a6's 2, sown A1 (1), A2 (1->2). A2 was occupied
    # and faces a7=4: capture again; A2 is a kimbi, so the 4 enter at A1
    # clockwise: A1 (2), A2 (3), A3 (3), A4 (0->1): empty, end.
    pos = board({"A2": 1, "A3": 1, "a6": 2, "a7": 4, "a1": 1}, reserve=(10, 10))
    trace = pos.push("A3<")
    captured = [(s.hole, s.count) for s in trace.steps if s.kind == "capture"]
    assert captured == [("a6", 2), ("a7", 4)]
    assert holes_of(pos) == {"A1": 2, "A2": 3, "A3": 3, "A4": 1, "a1": 1}


def test_rule_2_3_kutakata_only_from_the_front_row() -> None:
    # No capture (a1 faces A8 = 0). The reserve seed goes into an occupied
    # FRONT hole: A3 only, never B2. A3<*: A3 (2) sows A2, A1: end.
    pos = board({"A3": 1, "B2": 5, "a1": 1}, reserve=(4, 4))
    assert moves(pos) == ["A3<*", "A3>*"]
    pos.push("A3<")
    assert holes_of(pos) == {"A1": 1, "A2": 1, "B2": 5, "a1": 1}


def test_rule_2_3_1_lone_kichwa_kunamua() -> None:
    # A8 is the only occupied front hole: A8> would sow B8, B7 (front row
    # empty), so only A8<*: A8 (2) sows A7, A6.
    pos = board({"A8": 1, "B5": 3, "a2": 1}, reserve=(3, 3))
    assert moves(pos) == ["A8<*"]
    pos.push("A8<")
    assert holes_of(pos) == {"A7": 1, "A6": 1, "B5": 3, "a2": 1}


def test_rule_2_3_2_no_kutakata_from_the_nyumba_with_six() -> None:
    # Owned nyumba A5=6 and A2=1; no capture: only A2 may start.
    pos = board({"A5": 6, "A2": 1, "a1": 1}, reserve=(5, 5), nyumba="S")
    assert moves(pos) == ["A2<*", "A2>*"]


def test_rule_2_3_2_house_tax() -> None:
    # The owned nyumba (6) is the only occupied front hole: reserve seed in
    # (7), only two seeds taken out and sown to the chosen side.
    # A5>*: A6, A7 (empty): end; the nyumba keeps 5 and stays owned.
    pos = board({"A5": 6, "B3": 2, "a1": 1}, reserve=(5, 5), nyumba="S")
    assert moves(pos) == ["A5<*", "A5>*"]
    trace = pos.push("A5>")
    assert [(s.kind, s.hole, s.count) for s in trace.steps][:3] == [
        ("reserve", None, 1),
        ("drop", "A5", 1),
        ("tax", "A5", 2),
    ]
    assert holes_of(pos) == {"A5": 5, "A6": 1, "A7": 1, "B3": 2, "a1": 1}
    assert pos.nyumba_owned("south")


def test_rule_2_3_2_small_lone_nyumba_is_an_ordinary_hole() -> None:
    # §7.5 default: owned nyumba with 4, the only front hole: no tax. A5>*:
    # reserve seed (5), lift all 5: A6 A7 A8 B8 B7 -> end; the nyumba is lost.
    pos = board({"A5": 4, "a1": 1}, reserve=(5, 5), nyumba="S")
    pos.push("A5>")
    assert holes_of(pos) == {"A6": 1, "A7": 1, "A8": 1, "B8": 1, "B7": 1, "a1": 1}
    assert not pos.nyumba_owned("south")
    # With the option on, the tax applies: 5 - 2 = 3 stay, A6 and A7 get one.
    taxed = board(
        {"A5": 4, "a1": 1}, reserve=(5, 5), nyumba="S", rules=Rules(tax_small_nyumba=True)
    )
    taxed.push("A5>")
    assert holes_of(taxed) == {"A5": 3, "A6": 1, "A7": 1, "a1": 1}
    assert taxed.nyumba_owned("south")


def test_rule_2_3_3_no_singleton_once_the_nyumba_is_lost() -> None:
    # Nyumba lost and A6 holds 3 (> 1): the single seed in A2 may not start.
    pos = board({"A2": 1, "A6": 3, "a1": 1}, reserve=(5, 5))
    assert moves(pos) == ["A6<*", "A6>*"]
    # §7.4: while the nyumba is owned (here holding 2, §7.3) singletons may start.
    owned = board({"A2": 1, "A5": 2, "A6": 3, "a1": 1}, reserve=(5, 5), nyumba="S")
    assert moves(owned) == ["A2<*", "A2>*", "A5<*", "A5>*", "A6<*", "A6>*"]


def test_rule_2_3_3_singletons_allowed_when_no_hole_holds_more() -> None:
    # Nyumba lost, every front hole holds one: all of them may start.
    pos = board({"A2": 1, "A6": 1, "a1": 1}, reserve=(5, 5))
    assert moves(pos) == ["A2<*", "A2>*", "A6<*", "A6>*"]


def test_rule_4_2_2_3_1_kunamua_kutakata_ends_in_the_nyumba() -> None:
    # A3>*: A3 (2) sows A4 (1), A5 (6->7): the owned nyumba holding >= 6 ends
    # the kutakata (no relay from it).
    pos = board({"A3": 1, "A5": 6, "a1": 1}, reserve=(5, 5), nyumba="S")
    assert moves(pos) == ["A3<*", "A3>*"]
    trace = pos.push("A3>")
    assert trace.end_reason == END_NYUMBA_KUTAKATA
    assert holes_of(pos) == {"A4": 1, "A5": 7, "a1": 1}
    assert pos.nyumba_owned("south")
