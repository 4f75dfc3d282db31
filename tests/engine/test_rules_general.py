"""Hand-checked tests of BAO_RULES.md §1 (general rules).

Every expected value below was worked out by hand from the rules text; the
reasoning is in the comments. Reminder: South's A_i faces North's a_(9-i);
the sowing ring is A1..A8, B8..B1; a front-row '>' is clockwise (towards A8).
"""

from __future__ import annotations

from engine_boards import board, holes_of, moves

from engine import Rules
from engine.trace import END_EMPTY_HOLE, END_OPPONENT_EMPTY, END_OWN_EMPTY


def test_rule_1_2_1_front_row_empty_loses() -> None:
    # North's front row is empty: North has lost, nobody moves any more.
    pos = board({"A3": 2, "b4": 5}, move="north")
    assert pos.is_game_over()
    assert pos.outcome().winner == "south"
    assert "north's front row is empty" in pos.outcome().reason
    assert pos.legal_moves == []


def test_rule_1_2_1_capture_emptying_front_row_ends_the_game_at_once() -> None:
    # Kunamua, South A1=1 faces a8=3, North's only front hole. A1< (left kichwa,
    # forced): reserve seed into A1 (2), capture a8's 3 -> North's front row is
    # empty at that instant: South wins, the 3 captured seeds stay in hand and
    # are counted in South's reserve (§7.7): 5 - 1 + 3 = 7.
    pos = board({"A1": 1, "a8": 3, "b1": 4}, reserve=(5, 5))
    assert moves(pos) == ["A1<"]
    trace = pos.push("A1<")
    assert trace.end_reason == END_OPPONENT_EMPTY
    assert holes_of(pos) == {"A1": 2, "b1": 4}
    assert pos.reserve("south") == 7
    assert pos.outcome().winner == "south"


def test_rule_1_2_2_no_legal_move_loses() -> None:
    # Mtaji, every South hole holds one seed: no hole can be sown (1.3.2), so
    # South, to move, has no legal move and loses.
    pos = board({"A3": 1, "B5": 1, "a1": 2})
    assert pos.legal_moves == []
    outcome = pos.outcome()
    assert outcome.winner == "north"
    assert outcome.reason == "south has no legal move"


def test_rule_1_3_2_single_seed_hole_is_never_sown() -> None:
    # Mtaji, no capture (North's only hole a1 faces A8 = 0 and no sowing ends
    # in A8): kutakata from front holes with >= 2 seeds only; A3 (1) is out.
    pos = board({"A3": 1, "A6": 2, "a1": 1})
    assert moves(pos) == ["A6<*", "A6>*"]


def test_rule_1_4_3_clockwise_capture_enters_left_kichwa() -> None:
    # Mtaji. A3=2 '>' sows A4, A5; A5 held 1 (now 2) and faces a4=3: capture.
    # Direction clockwise -> the 3 seeds enter at A1: A1, A2, A3 (A3 was
    # emptied, so the last seed falls in an empty hole: the move ends).
    # A3 '<' sows A2, A1 -> empty, no capture; capturing is compulsory (1.4.1)
    # so A3> is the only move.
    pos = board({"A3": 2, "A5": 1, "a4": 3, "a1": 1})
    assert moves(pos) == ["A3>"]
    trace = pos.push("A3>")
    assert trace.capture and trace.end_reason == END_EMPTY_HOLE
    assert holes_of(pos) == {"A1": 1, "A2": 1, "A3": 1, "A4": 1, "A5": 2, "a1": 1}


def test_rule_1_4_4_anticlockwise_capture_enters_right_kichwa() -> None:
    # Mirror image: A6=2 '<' sows A5, A4; A4 held 1 and faces a5=3: capture.
    # Anticlockwise -> enter at A8: A8, A7, A6 (empty) -> end.
    # A6 '>' sows A7, A8 -> empty: no capture.
    pos = board({"A6": 2, "A4": 1, "a5": 3, "a1": 1})
    assert moves(pos) == ["A6<"]
    pos.push("A6<")
    assert holes_of(pos) == {"A4": 2, "A5": 1, "A6": 1, "A7": 1, "A8": 1, "a1": 1}


def test_rule_1_4_5_kimbi_capture_enters_its_own_kichwa() -> None:
    # Mtaji. A4=3 '>' sows A5, A6, A7; A7 (right kimbi) held 1, faces a2=2:
    # capture. 4.1: the 2 seeds enter at the RIGHT kichwa, anticlockwise,
    # although the move went clockwise: A8 (0->1), A7 (2->3). A7 is occupied,
    # a2 is now empty: relay (1.6), lift 3 from A7, sow A6 (1->2), A5 (1->2),
    # A4 (0->1): empty, end.
    pos = board({"A4": 3, "A7": 1, "a2": 2, "a8": 1})
    assert moves(pos) == ["A4>"]
    pos.push("A4>")
    assert holes_of(pos) == {"A4": 1, "A5": 2, "A6": 2, "A8": 1, "a8": 1}


def test_rule_1_4_1_capture_is_compulsory() -> None:
    # As in 1.4.3: the kutakata moves A3<* is not legal while A3> captures.
    pos = board({"A3": 2, "A5": 1, "a4": 3, "a1": 1})
    assert "A3<*" not in moves(pos)
    assert [m.hole for m in pos.legal_moves] == ["A3"]


def test_rule_1_5_3_no_capture_during_a_kutakata() -> None:
    # Mtaji. No capture start: A1 '>' (2) ends in A3 (1->2) facing a6=0;
    # A1 '<' goes to the back row; A3, A5 hold 1. So kutakata from A1.
    # A1>*: A2 (1), A3 (2) -> relay: lift 2, A4 (1), A5 (1->2). A5 faces
    # a4=2, but a kutakata never captures: relay, lift 2, A6, A7 (empty): end.
    pos = board({"A1": 2, "A3": 1, "A5": 1, "a4": 2})
    assert moves(pos) == ["A1<*", "A1>*"]
    trace = pos.push("A1>")
    assert not trace.capture
    assert holes_of(pos) == {"A2": 1, "A4": 1, "A6": 1, "A7": 1, "a4": 2}


def test_rule_1_5_3_1_lone_kichwa_may_not_sow_towards_the_back_row() -> None:
    # Mtaji. South's only occupied front hole is A1 (3); no capture anywhere
    # (A1> ends in A4, empty; B4 sows within the back row). Kutakata from the
    # front row (A1 has >= 2), but not A1< which would go B1, B2, B3.
    pos = board({"A1": 3, "B4": 2, "a3": 1})
    assert moves(pos) == ["A1>*"]


def test_rule_1_5_6_infinite_moves_are_illegal() -> None:
    # Start position. Every first move sows exactly 3 seeds (A6<: A5 A4 A3;
    # A6>: A7 A8 B8; A7<: A6 A5 A4; A7>: A8 B8 B7; each ends in an empty
    # hole). With a bound of 3 all are legal, with 2 none is, and a player
    # whose every move is infinite loses.
    from engine import Position

    assert len(Position.start(Rules(max_sown=3)).legal_moves) == 4
    pos = Position.start(Rules(max_sown=2))
    assert pos.legal_moves == []
    assert pos.outcome().winner == "north"
    assert "infinite" in pos.outcome().reason


def test_rule_1_6_relay_kuendelea() -> None:
    # Kunamua, nyumba lost, no capture (North a8 faces A1=0). A3>*: reserve
    # seed into A3 (2), lift 2: A4 (1), A5 (1->2) occupied: relay, lift 2:
    # A6 (1), A7 (1): empty, end.
    pos = board({"A3": 1, "A5": 1, "a8": 1}, reserve=(4, 4))
    trace = pos.push("A3>")
    kinds = [(s.kind, s.hole, s.count) for s in trace.steps]
    assert kinds == [
        ("reserve", None, 1),
        ("drop", "A3", 1),
        ("pickup", "A3", 2),
        ("drop", "A4", 1),
        ("drop", "A5", 1),
        ("pickup", "A5", 2),
        ("drop", "A6", 1),
        ("drop", "A7", 1),
    ]
    assert holes_of(pos) == {"A4": 1, "A6": 1, "A7": 1, "a8": 1}
    assert pos.reserve("south") == 3


def test_rule_1_2_1_own_front_row_emptied_mid_move_loses() -> None:
    # §7.8, reachable only with a capture bound above 15: A1 (25) is South's
    # only front hole; A1< sows B1..B8, A8..A2, A1, B1..B8, A8: the 25th seed
    # lands in A8 (1 -> 2) facing a1 -> a capture start. But lifting A1 empties
    # the front row and the first seed goes to B1: South loses at once and
    # keeps the 24 seeds in hand (added to the reserve).
    rules = Rules(max_capture_seeds=30)
    pos = board({"A1": 25, "a1": 1, "a5": 2}, rules=rules)
    assert moves(pos) == ["A1<"]
    trace = pos.push("A1<")
    assert trace.end_reason == END_OWN_EMPTY
    assert holes_of(pos) == {"B1": 1, "a1": 1, "a5": 2}
    assert pos.reserve("south") == 24
    assert pos.outcome().winner == "north"


def test_rule_1_3_1_direction_changes_only_at_a_kichwa_or_kimbi_capture() -> None:
    # The 1.4.5 position: A4> sows clockwise (A5, A6, A7); the capture at the
    # kimbi A7 turns the move anticlockwise (A8, A7, then A6, A5, A4).
    pos = board({"A4": 3, "A7": 1, "a2": 2, "a8": 1})
    trace = pos.push("A4>")
    drops = [s.hole for s in trace.steps if s.kind == "drop"]
    assert drops == ["A5", "A6", "A7", "A8", "A7", "A6", "A5", "A4"]


def test_rule_7_7_option_finish_the_move_after_emptying_the_front_row() -> None:
    # The 1.2.1 capture with win_at_instant_capture off: the 3 captured seeds
    # are sown from A1: A1 (3), A2, A3 (empty) -> end. North has still lost.
    rules = Rules(win_at_instant_capture=False)
    pos = board({"A1": 1, "a8": 3, "b1": 4}, reserve=(5, 5), rules=rules)
    trace = pos.push("A1<")
    assert trace.end_reason == END_EMPTY_HOLE
    assert holes_of(pos) == {"A1": 3, "A2": 1, "A3": 1, "b1": 4}
    assert pos.reserve("south") == 4
    assert pos.outcome().winner == "south"


def test_rule_7_8_option_only_the_end_of_the_move_counts() -> None:
    # The own-front-row case with lose_at_instant_own_empty off. A1< sows 25:
    # B1..B8, A8..A2, A1, B1..B8 (2 each), A8 (2): capture a1's 1, enter at
    # the right kichwa A8 (3): relay A7 A6 A5 (2) -> relay A4 A3 (2) -> relay
    # A2 A1 (2) -> relay B1 B2 (3) -> relay B3 B4 B5 (3) -> relay B6 B7 B8 (3)
    # -> relay A8 (1) A7 (3) A6 (3) -> relay A5 (1) A4 (3) A3 (0 -> 1): end.
    rules = Rules(max_capture_seeds=30, lose_at_instant_own_empty=False)
    pos = board({"A1": 25, "a1": 1, "a5": 2}, rules=rules)
    trace = pos.push("A1<")
    assert trace.end_reason == END_EMPTY_HOLE
    assert holes_of(pos) == {
        "A2": 2, "A3": 1, "A4": 3, "A5": 1, "A7": 3, "A8": 1,
        "B1": 3, "B3": 3, "B4": 3, "B6": 3, "B7": 3, "a5": 2,
    }  # fmt: skip
    assert pos.reserve("south") == 0
    assert pos.outcome() is None
