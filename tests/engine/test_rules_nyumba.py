"""Hand-checked tests of BAO_RULES.md §4 (kichwa, kimbi, nyumba) and §7.1-7.3.

Expected values worked out by hand from the rules; reasoning in comments.
"""

from __future__ import annotations

from engine_boards import board, holes_of, moves

from engine import Rules
from engine.trace import END_NYUMBA_KUTAKATA, END_NYUMBA_STOP

# Kunamua, South owns A5=6. A3=1 faces a6=5. A3< : A3 (2) captures 5, which
# enter at A1 clockwise: A1, A2, A3 (3), A4, A5 (7). A5 is the owned nyumba
# with >= 6 and faces a4 = 0 (no capture): the player stops or plays safari.
# A3> enters at A8: A8, A7, A6, A5, A4 (empty): end - no choice.
SAFARI_HOLES = {"A3": 1, "A5": 6, "a6": 5, "a1": 1}


def test_rule_4_2_1_2_stop_or_safari_after_a_capture() -> None:
    pos = board(SAFARI_HOLES, reserve=(5, 5), nyumba="S")
    assert moves(pos) == ["A3<", "A3<+", "A3>"]
    stop, trace = pos.play("A3<")
    assert trace.end_reason == END_NYUMBA_STOP
    assert holes_of(stop) == {"A1": 1, "A2": 1, "A3": 3, "A4": 1, "A5": 7, "a1": 1}
    assert stop.nyumba_owned("south")


def test_rule_4_2_1_2_safari_empties_the_nyumba_and_sows_on() -> None:
    # Safari: lift A5's 7, sow A6 A7 A8 B8 B7 B6 B5 (empty): end; ownership lost.
    pos = board(SAFARI_HOLES, reserve=(5, 5), nyumba="S")
    after, trace = pos.play("A3<+")
    assert ("safari", "A5", 7) in [(s.kind, s.hole, s.count) for s in trace.steps]
    assert holes_of(after) == {
        "A1": 1,
        "A2": 1,
        "A3": 3,
        "A4": 1,
        "A6": 1,
        "A7": 1,
        "A8": 1,
        "B8": 1,
        "B7": 1,
        "B6": 1,
        "B5": 1,
        "a1": 1,
    }
    assert not after.nyumba_owned("south")
    assert pos.notation(pos.parse_move("A3<+")) == "A3<+"


def test_rule_4_2_1_3_nyumba_rules_need_six_seeds() -> None:
    # Same, but the nyumba holds 4: the 5 captured seeds make it 5 (< 6):
    # an ordinary occupied hole, so relay: lift 5, A6 A7 A8 B8 B7 (empty).
    pos = board({**SAFARI_HOLES, "A5": 4}, reserve=(5, 5), nyumba="S")
    assert moves(pos) == ["A3<", "A3>"]
    pos.push("A3<")
    assert not pos.nyumba_owned("south")
    assert pos["A5"] == 0 and pos["B7"] == 1


def test_rule_4_2_nyumba_captured_by_the_opponent_is_lost() -> None:
    # North owns a5=6; South's A4=1 faces it. A4< captures a5: North's
    # nyumba is emptied by the opponent and no longer owned.
    pos = board({"A4": 1, "a5": 6, "a1": 1}, reserve=(5, 5), nyumba="N")
    pos.push("A4<")
    assert pos["a5"] == 0
    assert not pos.nyumba_owned("north")


def test_rule_4_2_1_1_nyumba_lost_at_the_first_mtaji_capture() -> None:
    # Mtaji, South owns A5=6. A3>: A4, A5 (7) faces a4=1: capture (from the
    # nyumba, which is not emptied); the 1 seed enters at A1: end.
    # §7.1 default: the first capture in mtaji ends the ownership.
    holes = {"A3": 2, "A5": 6, "a4": 1, "a1": 1}
    pos = board(holes, nyumba="S")
    assert moves(pos) == ["A3>"]
    pos.push("A3>")
    assert holes_of(pos) == {"A1": 1, "A4": 1, "A5": 7, "a1": 1}
    assert not pos.nyumba_owned("south")
    # Italian reading (§7.1 option): lost only when emptied.
    keep = board(holes, nyumba="S", rules=Rules(nyumba_lost_at_mtaji_capture=False))
    keep.push("A3>")
    assert keep.nyumba_owned("south")


def test_rule_7_2_mtaji_kutakata_ends_in_the_owned_nyumba() -> None:
    # Mtaji, South owns A5=6, no capture (a4 = 0). A3>*: A4 (1), A5 (7): the
    # kutakata ends there (1.6.2, §7.2 default). In mtaji the nyumba may start
    # a kutakata (2.3.2 is a kunamua rule).
    holes = {"A3": 2, "A5": 6, "a1": 1}
    pos = board(holes, nyumba="S")
    assert moves(pos) == ["A3<*", "A3>*", "A5<*", "A5>*"]
    trace = pos.push("A3>")
    assert trace.end_reason == END_NYUMBA_KUTAKATA
    assert holes_of(pos) == {"A4": 1, "A5": 7, "a1": 1}
    # Option off: relay from the nyumba, A6 A7 A8 B8 B7 B6 B5: end, lost.
    relay = board(holes, nyumba="S", rules=Rules(kutakata_stops_at_nyumba_in_mtaji=False))
    relay.push("A3>")
    assert relay["A5"] == 0 and relay["B5"] == 1 and not relay.nyumba_owned("south")


def test_rule_7_3_kunamua_kutakata_from_a_small_nyumba_option() -> None:
    # Owned nyumba holding 2 and A7=1: by default it may start (§7.3)...
    holes = {"A5": 2, "A7": 1, "a1": 1}
    assert moves(board(holes, reserve=(5, 5), nyumba="S")) == ["A5<*", "A5>*", "A7<*", "A7>*"]
    # ...and not with the option off.
    strict = board(
        holes, reserve=(5, 5), nyumba="S", rules=Rules(kunamua_kutakata_from_small_nyumba=False)
    )
    assert moves(strict) == ["A7<*", "A7>*"]
