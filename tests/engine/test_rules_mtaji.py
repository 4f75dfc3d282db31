"""Hand-checked tests of BAO_RULES.md §3 (mtaji, the second phase) and §7.10.

Expected values worked out by hand from the rules; reasoning in comments.
"""

from __future__ import annotations

from engine_boards import board, holes_of, moves

from engine.trace import END_EMPTY_HOLE


def test_rule_3_1_mtaji_begins_when_the_reserves_are_empty() -> None:
    assert board({"A3": 2, "a3": 2}).phase == "mtaji"
    assert board({"A3": 2, "a3": 2}, reserve=(1, 1)).phase == "kunamua"
    # North still has its last reserve seed after South's 22nd move.
    assert board({"A3": 2, "a3": 2}, reserve=(0, 1), move="north").phase == "kunamua"


def test_rule_3_4_capture_from_the_back_row() -> None:
    # B3< sows B2, B1, A1 (the §6 example); A1 held 1 and faces a8=2:
    # capture. A1 is the left kichwa: enter at A1 clockwise: A1 (3), A2
    # (empty): end. B3> (B4 B5 B6) and the one-seed A1 do not capture.
    pos = board({"B3": 3, "A1": 1, "a8": 2, "a2": 1})
    assert moves(pos) == ["B3<"]
    pos.push("B3<")
    assert holes_of(pos) == {"A1": 3, "A2": 1, "B1": 1, "B2": 1, "a2": 1}


def test_rule_3_4_2_no_capture_from_more_than_15_seeds() -> None:
    # A3=15 '>' sows A4..A8 (5), B8..B1 (8), A1, A2 (2): the 15th seed lands
    # in A2 (held 1) facing a7=1: a capture. A3< ends in A4 (empty).
    fifteen = board({"A3": 15, "A2": 1, "a7": 1, "a1": 1})
    assert moves(fifteen) == ["A3>"]
    # With 16 seeds both sowings lap the ring and end in A3 itself, empty:
    # no capture, and a 16-seed hole may not capture anyway -> kutakata.
    sixteen = board({"A3": 16, "A2": 1, "a7": 1, "a1": 1})
    assert moves(sixteen) == ["A3<*", "A3>*"]


def test_rule_3_4_2_seventeen_seeds_would_capture_but_may_not() -> None:
    # A3=17 '>' : 16th seed in A3 itself, 17th in A4 (1 -> 2) facing a5=2:
    # that sowing ends like a capture, but a hole of 16+ may not start one.
    pos = board({"A3": 17, "a5": 2, "a1": 1})
    assert moves(pos) == ["A3<*", "A3>*"]


def test_rule_7_10_sowing_16_laps_and_drops_in_its_own_hole() -> None:
    # A3>* with 16 seeds: A4..A8, B8..B1, A1, A2 and the 16th back into A3,
    # which was empty: the move ends. Every South hole gains one seed.
    pos = board({"A3": 16, "A2": 1, "a7": 1, "a1": 1})
    trace = pos.push("A3>")
    assert trace.sown == 16 and trace.end_reason == END_EMPTY_HOLE
    expected = {f"{row}{i}": 1 for row in "AB" for i in range(1, 9)}
    expected["A2"] = 2
    expected.update({"a7": 1, "a1": 1})
    assert holes_of(pos) == expected


def test_rule_3_5_kutakata_from_the_front_row_first() -> None:
    # A4=2 is a front hole with 2: kutakata from it only, not from B2/B6.
    # (No capture: A4> ends in A6, A4< in A2, B6> in A8, B2< in A1 - all empty.)
    pos = board({"A4": 2, "B6": 3, "B2": 2, "a5": 1})
    assert moves(pos) == ["A4<*", "A4>*"]


def test_rule_3_5_1_back_row_only_when_no_front_hole_has_two() -> None:
    # A4 holds 1: no front hole with 2, so the back row may start.
    pos = board({"A4": 1, "B6": 3, "B2": 2, "a5": 1})
    assert moves(pos) == ["B2<*", "B2>*", "B6<*", "B6>*"]
    # B6>* goes anticlockwise ('>' on the back row): B7, B8, A8 (empty).
    pos.push("B6>")
    assert holes_of(pos) == {"A4": 1, "A8": 1, "B7": 1, "B8": 1, "B2": 2, "a5": 1}


def test_rule_3_5_2_lone_kichwa_mtaji() -> None:
    # The only occupied front hole is the right kichwa A8 (4): A8> would sow
    # into the back row. A8< sows A7 A6 A5 A4. (No capture: a1 faces A8.)
    pos = board({"A8": 4, "B1": 2, "a3": 1})
    assert moves(pos) == ["A8<*"]
