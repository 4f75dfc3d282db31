"""Hand-worked rule tests of the numba core (engine.core), named after the clauses.

Every expected position below was worked out by hand from BAO_RULES.md;
rows are written A1..A8 / B1..B8 (and a1..a8 / b1..b8), each player's holes
numbered from that player's own left.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

from engine import Move, core


def state(
    front: list[int],
    back: list[int],
    north_front: list[int],
    north_back: list[int] | None = None,
    reserve: tuple[int, int] = (0, 0),
    owned: tuple[bool, bool] = (False, False),
    to_move: str = "south",
    blocked: str | None = None,
) -> np.ndarray:
    obj: dict[str, Any] = {"to_move": to_move, "blocked": blocked}
    obj["south"] = {"front": front, "back": back, "reserve": reserve[0], "nyumba_owned": owned[0]}
    obj["north"] = {
        "front": north_front,
        "back": north_back if north_back is not None else [0] * 8,
        "reserve": reserve[1],
        "nyumba_owned": owned[1],
    }
    return core.state_from_json(obj)


def moves(st: np.ndarray, rules: np.ndarray = core.DEFAULT_RULES) -> list[str]:
    out = np.empty(core.MAX_MOVES, dtype=np.int32)
    n = core.gen_moves(st, rules, out)
    return sorted(str(core.move_to_engine(int(c), st)) for c in out[:n])


def play(st: np.ndarray, text: str, rules: np.ndarray = core.DEFAULT_RULES) -> np.ndarray:
    code = core.move_from_engine(Move.parse(text), st)
    assert str(core.move_to_engine(code, st)) == text
    return core.apply_copy(st, code, rules)


def rows(st: np.ndarray, side: str = "south") -> tuple[list[int], list[int]]:
    obj = core.json_from_state(st)[side]
    return obj["front"], obj["back"]


Z = [0] * 8


def test_rule_2_1_start_position_moves() -> None:
    # 2.1: A5=6, A6=A7=2; no capture (A5..A7 face the empty a4..a2), so kutakata;
    # 2.3.2: not from the owned nyumba holding 6.
    st = core.start_state()
    assert moves(st) == ["A6<", "A6>", "A7<", "A7>"]


def test_rule_2_3_kunamua_kutakata_first_move() -> None:
    # KIBA tutorial: A6< puts the reserve seed in A6 (3) and sows A5, A4, A3.
    after = play(core.start_state(), "A6<")
    assert rows(after) == ([0, 0, 1, 1, 7, 0, 2, 0], Z)
    assert after[core.RESERVE] == 21 and after[core.TO_MOVE] == core.NORTH
    assert after[core.BLOCKED] == -1 and after[core.OWNED] == 1


def test_rule_2_2_kunamua_capture_kichwa_choice() -> None:
    # A4 (1) faces a5 (3): the only capture; the player picks the kichwa.
    st = state(
        [0, 0, 0, 1, 0, 2, 0, 0], Z, [1, 0, 0, 0, 3, 0, 0, 0], reserve=(5, 5), owned=(False, True)
    )
    assert moves(st) == ["A4<", "A4>"]
    # A4<: A4=2, 3 captured enter at A1 and go right: A1, A2, A3 (empty: end).
    left = play(st, "A4<")
    assert rows(left) == ([1, 1, 1, 2, 0, 2, 0, 0], Z)
    assert rows(left, "north")[0] == [1, 0, 0, 0, 0, 0, 0, 0]
    assert left[core.OWNED + 1] == 0  # 4.2: nyumba emptied by a capture is lost
    assert left[core.CAPTURED] == 3 and left[core.RESERVE] == 4
    # A4>: enter at A8 going left: A8, A7, A6 (2 -> 3, a3 empty: relay 1.6)
    # then A5, A4 (2 -> 3), A3 (empty: end).
    right = play(st, "A4>")
    assert rows(right) == ([0, 0, 1, 3, 1, 0, 1, 1], Z)


def test_rule_4_1_kimbi_capture_forces_left_kichwa() -> None:
    # A2 (kimbi) faces a7 (2): forced entry at A1 (1.4.5): A1, A2 (-> 3, a7 now
    # empty: relay) then A3, A4, A5 (empty: end).
    st = state([0, 1, 0, 0, 0, 0, 0, 0], Z, [1, 0, 0, 0, 0, 0, 2, 0], reserve=(3, 3))
    assert moves(st) == ["A2<"]
    assert rows(play(st, "A2<")) == ([1, 0, 1, 1, 1, 0, 0, 0], Z)


def test_rule_4_1_kichwa_capture_forces_right_kichwa() -> None:
    # A8 (1) faces a1 (2): forced entry at A8 going left: A8 (-> 3), A7; end.
    st = state([0, 0, 0, 0, 0, 0, 0, 1], Z, [2, 0, 0, 0, 0, 0, 0, 1], reserve=(3, 3))
    assert moves(st) == ["A8>"]
    assert rows(play(st, "A8>")) == ([0, 0, 0, 0, 0, 0, 1, 3], Z)


def test_rule_3_4_mtaji_capture_from_back_row() -> None:
    # B2 (3) sown to the left: B1, A1 (1 -> 2), A2 (1 -> 2, faces a7=2): capture.
    # A2 is a kimbi: enter at A1 (-> 3), A2 (-> 3, a7 empty): relay A3, A4, A5.
    st = state([1, 1, 0, 0, 0, 0, 0, 0], [0, 3, 0, 0, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0, 2, 0])
    assert moves(st) == ["B2<"]  # B2> ends in B5; nothing else holds 2+
    after = play(st, "B2<")
    assert rows(after) == ([3, 0, 1, 1, 1, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0, 0])
    assert rows(after, "north")[0] == [0, 0, 0, 1, 0, 0, 0, 0]


def test_rule_3_4_2_sixteen_plus_may_not_capture_and_laps() -> None:
    # A1 holds 17: sown right it would end in A2 (filled on the first lap) facing
    # a7 - but 3.4.2 forbids capturing from more than 15. So kutakata; A1 is the
    # lone front hole, so not towards the back row (1.5.3.1): only A1>.
    st = state([17, 0, 0, 0, 0, 0, 0, 0], Z, [1, 0, 0, 0, 0, 0, 1, 0])
    assert moves(st) == ["A1>"]
    # §7 #10: the lap drops into A1 too; the 17th seed makes A2 = 2, then the
    # relays lift 2 from A2, A4, A6, A8, B7, B5, B3, B1 in turn, ending in A2 (0 -> 1).
    after = play(st, "A1>")
    assert rows(after) == ([2, 1, 2, 0, 2, 0, 2, 0], [0, 2, 0, 2, 0, 2, 0, 2])
    assert after[core.SOWN] == 17 + 8 * 2


def test_rule_3_5_1_mtaji_kutakata_front_row_first() -> None:
    # No capture: A3 (2) ends in A5 facing the empty a4 or in A1; B4 ends in A2/A8 (empty).
    st = state([0, 0, 2, 0, 1, 0, 0, 0], [0, 0, 0, 5, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0, 1])
    assert moves(st) == ["A3<", "A3>"]
    # With no front hole of 2+, the back row may start (3.5.1).
    st = state([0, 0, 1, 0, 1, 0, 0, 0], [0, 0, 0, 5, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0, 1])
    assert moves(st) == ["B4<", "B4>"]


def test_rule_1_5_3_1_lone_kichwa_not_towards_back_row() -> None:
    # Kunamua (2.3.1): only A1 occupied (a8 empty, no capture): only A1>.
    st = state([3, 0, 0, 0, 0, 0, 0, 0], Z, [2, 0, 0, 0, 0, 0, 0, 0], reserve=(2, 2))
    assert moves(st) == ["A1>"]
    assert rows(play(st, "A1>")) == ([0, 1, 1, 1, 1, 0, 0, 0], Z)
    # Mtaji (3.5.2): only A8 occupied: only A8<.
    st = state([0, 0, 0, 0, 0, 0, 0, 3], Z, [0, 2, 0, 0, 0, 0, 0, 0])
    assert moves(st) == ["A8<"]


def test_rule_2_3_2_nyumba_tax() -> None:
    # The owned nyumba (6) is the only occupied front hole: reserve seed in, only
    # two out, sown left (A4, A3) or right; the nyumba keeps 5 and stays owned.
    st = state(
        [0, 0, 0, 0, 6, 0, 0, 0], Z, [1, 0, 0, 0, 0, 0, 0, 0], reserve=(3, 3), owned=(True, True)
    )
    assert moves(st) == ["A5<", "A5>"]
    after = play(st, "A5<")
    assert rows(after) == ([0, 0, 1, 1, 5, 0, 0, 0], Z)
    assert after[core.OWNED] == 1 and after[core.RESERVE] == 2


def test_rule_2_3_2_no_kutakata_from_full_nyumba() -> None:
    # Owned nyumba 6 plus a singleton A2: only A2 may start (4.2.2.1); the
    # singleton is allowed while the nyumba is owned (§7 #4).
    st = state(
        [0, 1, 0, 0, 6, 0, 0, 0], Z, [1, 0, 0, 0, 0, 0, 0, 0], reserve=(3, 3), owned=(True, True)
    )
    assert moves(st) == ["A2<", "A2>"]


def test_rule_2_3_3_no_singleton_once_nyumba_lost() -> None:
    # Nyumba not owned and A5 holds 6 (> 1): A2 (1) may not start; A5 is ordinary.
    st = state([0, 1, 0, 0, 6, 0, 0, 0], Z, [1, 0, 0, 0, 0, 0, 0, 0], reserve=(3, 3))
    assert moves(st) == ["A5<", "A5>"]
    # §7 #4 off: singletons barred even while the nyumba is owned.
    st = state(
        [0, 1, 0, 0, 3, 0, 0, 0], Z, [1, 0, 0, 0, 0, 0, 0, 0], reserve=(3, 3), owned=(True, True)
    )
    assert moves(st, core.make_rules(kunamua_singletons_while_nyumba_owned=False)) == [
        "A5<",
        "A5>",
    ]


def test_rule_7_5_no_tax_on_small_nyumba() -> None:
    # Owned nyumba 4, alone: no tax (4.2.1.3); reserve seed in, all 5 sown, nyumba lost.
    st = state(
        [0, 0, 0, 0, 4, 0, 0, 0], Z, [1, 0, 0, 0, 0, 0, 0, 0], reserve=(3, 3), owned=(True, True)
    )
    after = play(st, "A5>")
    assert rows(after) == ([0, 0, 0, 0, 0, 1, 1, 1], [0, 0, 0, 0, 0, 0, 1, 1])
    assert after[core.OWNED] == 0
    # With the option on, the tax applies: two seeds to A6, A7; A5 keeps 3.
    after = play(st, "A5>", core.make_rules(tax_small_nyumba=True))
    assert rows(after) == ([0, 0, 0, 0, 3, 1, 1, 0], Z)


def test_rule_4_2_1_2_stop_or_safari() -> None:
    # A1 (1) faces a8 (5): capture, enter at A1 (-> 3), A2, A3, A4, A5 (6 -> 7,
    # owned, a4 empty): the player stops or plays safari.
    st = state(
        [1, 0, 0, 0, 6, 0, 0, 0], Z, [1, 0, 0, 0, 0, 0, 0, 5], reserve=(5, 5), owned=(True, False)
    )
    assert moves(st) == ["A1<", "A1<+"]
    stop = play(st, "A1<")
    assert rows(stop) == ([3, 1, 1, 1, 7, 0, 0, 0], Z) and stop[core.OWNED] == 1
    # Safari: lift 7 from A5, sow A6, A7, A8, B8, B7, B6, B5 (empty: end).
    safari = play(st, "A1<+")
    assert rows(safari) == ([3, 1, 1, 1, 0, 1, 1, 1], [0, 0, 0, 0, 1, 1, 1, 1])
    assert safari[core.OWNED] == 0


def test_rule_4_2_2_3_1_kunamua_kutakata_ends_in_nyumba() -> None:
    # A3 (1) + reserve seed = 2, sown A4, A5 (6 -> 7, owned): the kutakata ends.
    st = state(
        [0, 0, 1, 0, 6, 0, 0, 0], Z, [1, 0, 0, 0, 0, 0, 0, 0], reserve=(3, 3), owned=(True, False)
    )
    after = play(st, "A3>")
    assert rows(after) == ([0, 0, 0, 1, 7, 0, 0, 0], Z)


def test_rule_4_2_1_1_nyumba_lost_at_first_mtaji_capture() -> None:
    # Mtaji: A3 (2) sown right ends in A5 (7, faces a4 = 1): capture, the owner's
    # first in mtaji, so the nyumba is lost (§7 #1) although it is not emptied.
    # The captured seed enters at A1 (clockwise) and the move ends there.
    st = state([0, 0, 2, 0, 6, 0, 0, 0], Z, [1, 0, 0, 1, 0, 0, 0, 0], owned=(True, False))
    after = play(st, "A3>")
    assert rows(after) == ([1, 0, 0, 1, 7, 0, 0, 0], Z)
    assert after[core.OWNED] == 0
    kept = play(st, "A3>", core.make_rules(nyumba_lost_at_mtaji_capture=False))
    assert kept[core.OWNED] == 1


def test_rule_5_1_kutakatia_blocks_and_5_2_relay_ends_there() -> None:
    # South kutakata from the back row (no front hole has 2): B2< sows B1, A1
    # (1 -> 2), A2. Now A1 (2) sown right ends in A3 facing a6: South threatens
    # exactly a6; North has no capture and a6 is not exempt (5.1.1): blocked.
    st = state([1, 0, 1, 0, 0, 0, 0, 0], [0, 3, 0, 0, 0, 0, 0, 0], [0, 2, 0, 1, 0, 2, 0, 0])
    after = play(st, "B2<")
    assert rows(after) == ([2, 1, 1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0, 0])
    assert core.json_from_state(after)["blocked"] == "a6"
    assert moves(after) == ["a2<", "a2>"]  # 5.1: not from a6
    # a2> sows a3, a4 (1 -> 2): relay a5, a6 (2 -> 3): the blocked hole ends it (5.2).
    north = play(after, "a2>")
    assert rows(north, "north")[0] == [0, 0, 1, 0, 1, 3, 0, 0]
    # Without kutakatia there is no block and the relay goes on: a7, a8, b8.
    free = play(st, "B2<", core.make_rules(kutakatia=False))
    assert free[core.BLOCKED] == -1
    assert rows(play(free, "a2>"), "north") == ([0, 0, 1, 0, 1, 0, 1, 1], [0] * 7 + [1])


def test_rule_5_1_1_3_only_big_hole_cannot_be_blocked() -> None:
    # As above but a2 holds 1: a6 is North's only front hole with more than one seed.
    st = state([1, 0, 1, 0, 0, 0, 0, 0], [0, 3, 0, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 2, 0, 0])
    assert play(st, "B2<")[core.BLOCKED] == -1


def test_rule_1_2_1_capture_empties_front_row_wins_at_once() -> None:
    # A4 (1) faces a5 (3), North's only front seeds: the game ends at once and
    # the 3 seeds stay in South's hand, counted in South's reserve (§7 #7).
    st = state([0, 0, 0, 1, 0, 0, 0, 0], Z, [0, 0, 0, 0, 3, 0, 0, 0], [1] * 8, reserve=(2, 2))
    after = play(st, "A4<")
    assert after[core.WINNER] == core.SOUTH
    assert after[core.END_REASON] == core.END_FRONT_CAPTURED
    assert rows(after)[0] == [0, 0, 0, 2, 0, 0, 0, 0] and after[core.RESERVE] == 1 + 3
    assert core.game_result(after, core.DEFAULT_RULES) == core.SOUTH


def test_rule_1_2_2_no_legal_move_loses() -> None:
    # Mtaji, South has only singletons everywhere and no capture: no move at all.
    st = state([1, 0, 0, 0, 0, 0, 0, 0], [1] * 8, [0, 1, 0, 0, 0, 0, 0, 2])
    assert moves(st) == []
    assert core.game_result(st, core.DEFAULT_RULES) == core.NORTH


def test_rule_1_5_6_infinite_moves_are_illegal() -> None:
    # From the start every move sows 3 seeds first: with max_sown = 2 all are
    # "infinite", so South has no legal move and loses; with 3, A6< (3 sown) is legal.
    st = core.start_state()
    assert moves(st, core.make_rules(max_sown=2)) == []
    assert core.game_result(st, core.make_rules(max_sown=2)) == core.NORTH
    assert "A6<" in moves(st, core.make_rules(max_sown=3))


def test_random_playout_ends_and_conserves_seeds() -> None:
    st = core.start_state()
    for seed in range(20):
        winner, plies = core.random_playout(st, core.DEFAULT_RULES, seed, 5000)
        assert winner in (core.SOUTH, core.NORTH) and 0 < plies < 5000
    out = np.empty(core.MAX_MOVES, dtype=np.int32)
    cur = st.copy()
    while core.gen_moves(cur, core.DEFAULT_RULES, out) > 0:
        core.apply_move(cur, out[0], core.DEFAULT_RULES)
        assert cur[:34].sum() == 64 and cur[:34].min() >= 0


def test_import_engine_does_not_load_numba() -> None:
    # docs/ARCHITECTURE.md: the command line must start fast; only engine.core loads numba.
    code = "import sys, engine; assert 'numba' not in sys.modules; import engine.core"
    code += "; assert 'numba' in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[2])
