"""Hand-checked tests of BAO_RULES.md §5 (kutakatia, blocking).

Expected values worked out by hand from the rules; reasoning in comments.
South's A_i faces North's a_(9-i).
"""

from __future__ import annotations

from engine_boards import board, holes_of, moves

from engine import Rules
from engine.trace import END_BLOCKED

# Mtaji, no nyumba owned. South: A1=1, A2=2, A3=1. North: a2=2, a4=1, a6=3.
# South has no capture start (A2> ends in A4, empty; A2< ends in B1; A1 and A3
# hold one seed), so South plays a kutakata from A2.
#  * A2<*: A1 (2), B1 (1): end. Now A1 (2) '>' would sow A2, A3 (1 -> 2)
#    facing a6=3: South threatens exactly one hole, a6. North has no capture
#    (a2> ends in a4 facing A5=0, a2< in b1, a6< in a3 empty, a6> in b8;
#    a4 holds one). a6 is not North's nyumba, not North's only occupied front
#    hole, not its only hole with more than one seed (a2 has 2): a6 is blocked.
#  * A2>*: A3 (2), A4 (1): end. A3 '<' ends in A1 facing a8=0, A3 '>' in A5
#    (empty): no threat, no block.
BLOCK_HOLES = {"A1": 1, "A2": 2, "A3": 1, "a2": 2, "a4": 1, "a6": 3}


def test_rule_5_1_kutakatia_blocks_the_one_threatened_hole() -> None:
    pos = board(BLOCK_HOLES)
    assert moves(pos) == ["A2<**", "A2>*"]
    trace = pos.push("A2<")
    assert trace.blocked == "a6"
    assert pos.blocked == "a6"
    assert holes_of(pos) == {"A1": 2, "A3": 1, "B1": 1, "a2": 2, "a4": 1, "a6": 3}
    # North may not start its kutakata from a6: only a2 remains.
    assert moves(pos) == ["a2<*", "a2>*"]


def test_rule_5_2_relay_ending_in_the_blocked_hole_ends_the_move() -> None:
    # North a2>*: a3 (1), a4 (1 -> 2): relay, lift 2: a5 (1), a6 (3 -> 4):
    # a6 is blocked, so the move ends there (without the block it would relay).
    pos = board(BLOCK_HOLES)
    pos.push("A2<")
    trace = pos.push("a2>")
    assert trace.end_reason == END_BLOCKED
    assert {h: n for h, n in holes_of(pos).items() if h[0] == "a"} == {"a3": 1, "a5": 1, "a6": 4}


def test_rule_5_1_block_lasts_one_move() -> None:
    pos = board(BLOCK_HOLES)
    pos.push("A2<")
    pos.push("a2<")  # a1, b1: end
    assert pos.blocked is None  # the block was for North's move only


def test_rule_5_1_no_block_without_a_single_threat() -> None:
    pos = board(BLOCK_HOLES)
    assert pos.play("A2>")[0].blocked is None


def test_rule_5_1_1_2_only_occupied_front_hole_cannot_be_blocked() -> None:
    holes = {"A1": 1, "A2": 2, "A3": 1, "a6": 3}
    assert moves(board(holes)) == ["A2<*", "A2>*"]
    assert board(holes).play("A2<")[0].blocked is None


def test_rule_5_1_1_3_only_front_hole_with_more_than_one_cannot_be_blocked() -> None:
    # North a1=1 and a6=3: a6 is North's only front hole with more than one.
    holes = {"A1": 1, "A2": 2, "A3": 1, "a1": 1, "a6": 3}
    pos = board(holes)
    assert moves(pos) == ["A2<*", "A2>*"]
    assert pos.play("A2<")[0].blocked is None


def test_rule_5_1_1_1_owned_nyumba_cannot_be_blocked() -> None:
    # South in kunamua (nyumba lost), North in mtaji and owning a5=6, a1=2.
    # A2>*: reserve seed into A2 (2), sow A3, A4. Now A4 faces a5 - the one
    # threat (A3 faces a6 = 0). North has no capture: a5 (6) ends in b6 or
    # b2, a1 (2) in a3 (empty) or b2. The threatened hole is North's owned
    # nyumba: no block (5.1.1.1, 4.2.3.1).
    holes = {"A2": 1, "a5": 6, "a1": 2}
    pos = board(holes, reserve=(3, 0), nyumba="N")
    assert moves(pos) == ["A2<*", "A2>*"]
    assert pos.play("A2>")[0].blocked is None
    # The same with North's nyumba no longer owned: a5 is blocked.
    lost = board(holes, reserve=(3, 0))
    assert lost.notation(lost.parse_move("A2>")) == "A2>**"
    assert lost.play("A2>")[0].blocked == "a5"


def test_rule_5_option_kutakatia_off() -> None:
    pos = board(BLOCK_HOLES, rules=Rules(kutakatia=False))
    assert moves(pos) == ["A2<*", "A2>*"]
    assert pos.play("A2<")[0].blocked is None
