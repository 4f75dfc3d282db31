"""The hint search (engine/search.py, engine/search_core.py).

Forced wins are hand-made positions whose analysis is written out below from
BAO_RULES.md; the search must find them. Other tests: legality on random
positions, time limit, determinism, and the fast search agreeing with the
generic reference search.
"""

from __future__ import annotations

import math
import random
import time

import pytest

from engine import Move, Position
from engine.search import WIN_SCORE, best_move, proven_text


def _side(front, back, reserve=0, owned=False):
    return {"front": front, "back": back, "reserve": reserve, "nyumba_owned": owned}


# Win in 1 (mtaji: reserves 0; neither nyumba owned, so A5 is an ordinary hole).
#   South: A1=1, A3=2, A5=1.   North: a4=2, a8=1, b1=1, b2=1.
# South's front holes facing occupied holes: A1 faces a8, A5 faces a4. Only A3
# holds >= 2 seeds (3.3), so South has two moves, both captures (1.4, 3.4):
# - A3> sows A4, A5: A5 held 1 and faces a4 (2) -> captures a4. Not a kichwa
#   or kimbi, so the 2 seeds enter at the left kichwa, clockwise (1.4.3): A1,
#   A2; A2 was empty, the move ends (1.5.4). North is left with a8=1, b1=1,
#   b2=1: no hole with two seeds, so no legal move, and it loses (1.2.2).
# - A3< sows A2, A1: A1 held 1 and faces a8 (1) -> captures a8; at the left
#   kichwa the seed enters at A1 (4.1), relays on. North keeps a4=2 and can move.
# So A3> wins at once and A3< does not.
WIN_IN_1 = {
    "south": _side([1, 0, 2, 0, 1, 0, 0, 0], [0] * 8),
    "north": _side([0, 0, 0, 2, 0, 0, 0, 1], [1, 1, 0, 0, 0, 0, 0, 0]),
    "to_move": "south",
    "blocked": None,
}

# Win in 3 plies (South, North, South: "South wins in 2").
#   South: A4=4, A6=2.   North: a1=1 (its only front seed; faces A8), b3=2, b6=2.
# No capture for South now (A8 is empty), so South makes a kutakata (3.5):
# - A6>* sows A7, A8 (A8 was empty: the move ends). Now A4> (4 seeds: A5, A6,
#   A7, A8) ends in A8, occupied, facing a1: a capture that empties North's
#   front row, which wins at once (1.2.1). North cannot stop it: its front
#   holes hold one seed, so it moves from the back row (3.5.1); b3 and b6 sow
#   two seeds within the back row (b2,b1 / b4,b5 / b5,b4 / b7,b8) and never
#   touch a1. a1 cannot be blocked, being North's only occupied front hole
#   (5.1.1).
# - A6<* sows A5, A4 (now 5): relay A3, A2, A1, B1, B2. South then has no hole
#   with two seeds: after North's move South cannot move and loses (1.2.2).
# - A4>* sows A5, A6 (3), A7, A8: the only hole that can move next is A6 (3
#   seeds), whose sowings end in B8 or A3 - no capture, no win on move 2.
# - A4<* sows A3, A2, A1, B1: next, A6 sows to A8 or A4, both empty - no capture.
# North always keeps one of b3/b6 with two seeds, so it never runs out of
# moves within these three plies. Only A6>* wins within three plies.
WIN_IN_3 = {
    "south": _side([0, 0, 0, 4, 0, 2, 0, 0], [0] * 8),
    "north": _side([1, 0, 0, 0, 0, 0, 0, 0], [0, 0, 2, 0, 0, 2, 0, 0]),
    "to_move": "south",
    "blocked": None,
}


@pytest.mark.parametrize("backend", ["fast", "python"])
def test_finds_win_in_1(backend):
    pos = Position.from_json(WIN_IN_1)
    assert sorted(pos.notation(m) for m in pos.legal_moves) == ["A3<", "A3>"]
    result = best_move(pos, time_limit=5.0, node_limit=20000, top=1, backend=backend)
    assert result.move == Move("A3", ">")
    assert result.proven == "South wins in 1"
    assert result.evaluation == WIN_SCORE - 1
    assert result.alternatives[0][0] == Move("A3", "<")
    assert result.alternatives[0][1] < WIN_SCORE - 1000


@pytest.mark.parametrize("backend", ["fast", "python"])
def test_finds_forced_win_in_3_plies(backend):
    pos = Position.from_json(WIN_IN_3)
    assert sorted(pos.notation(m) for m in pos.legal_moves) == ["A4<*", "A4>*", "A6<*", "A6>*"]
    result = best_move(pos, time_limit=5.0, node_limit=50000, top=3, backend=backend)
    assert pos.notation(result.move) == "A6>*"
    assert result.proven == "South wins in 2"
    assert result.evaluation == WIN_SCORE - 3
    # The principal variation is South's move, a North back-row move, A4>.
    assert len(result.pv) == 3
    assert result.pv[0] == Move("A6", ">")
    assert result.pv[1].hole in ("b3", "b6")
    assert result.pv[2] == Move("A4", ">")
    # A6<* loses: South is left without a move.
    alts = dict(result.alternatives)
    assert alts[Move("A6", "<")] < -(WIN_SCORE - 1000)


def test_proven_text_counts_the_winners_moves():
    assert proven_text(WIN_SCORE - 1, "south") == "South wins in 1"
    assert proven_text(WIN_SCORE - 3, "north") == "North wins in 2"
    assert proven_text(-(WIN_SCORE - 2), "south") == "North wins in 1"
    assert proven_text(-(WIN_SCORE - 4), "north") == "South wins in 2"
    assert proven_text(12.5, "south") is None


def _random_positions(count: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = Position.start()
        for _ in range(rng.randint(0, 60)):
            if pos.is_game_over():
                break
            pos.push(rng.choice(pos.legal_moves))
        if not pos.is_game_over():
            out.append(pos)
    return out


def test_suggests_only_legal_moves_on_random_positions():
    for pos in _random_positions(40, seed=7):
        result = best_move(pos, time_limit=None, node_limit=3000, top=2)
        legal = pos.legal_moves
        assert result.move in legal
        assert all(m in legal for m, _ in result.alternatives)
        assert result.pv[0] == result.move
        line = pos.copy()
        for move in result.pv:  # the whole principal variation is playable
            assert move in line.legal_moves
            line.push(move)


def test_same_seed_and_node_limit_give_the_same_result():
    for pos in _random_positions(5, seed=11) + [Position.start()]:
        a = best_move(pos, time_limit=None, node_limit=20000, top=2, seed=3)
        b = best_move(pos, time_limit=None, node_limit=20000, top=2, seed=3)
        assert (a.move, a.evaluation, a.pv, a.alternatives, a.nodes, a.depth) == (
            b.move,
            b.evaluation,
            b.pv,
            b.alternatives,
            b.nodes,
            b.depth,
        )


@pytest.mark.parametrize("limit", [0.2, 0.5])
def test_respects_the_time_limit(limit):
    pos = Position.start()
    best_move(pos, time_limit=0.05)  # warm-up: compile or load the kernels
    t0 = time.perf_counter()
    result = best_move(pos, time_limit=limit)
    wall = time.perf_counter() - t0
    assert wall <= 1.1 * limit + 0.05
    assert result.time_s <= 1.1 * limit
    # It used the time: a second of search is not over in a few milliseconds.
    assert wall >= 0.8 * limit or result.proven is not None


def test_fast_search_agrees_with_the_reference_at_fixed_depth():
    # At depth <= 3 no transposition can graft a deeper result, so both
    # searches compute the exact depth-3 minimax values of all root moves.
    for pos in _random_positions(6, seed=5):
        n = len(pos.legal_moves)
        fast = best_move(pos, node_limit=10**7, time_limit=None, top=n, max_depth=3)
        ref = best_move(
            pos, node_limit=10**7, time_limit=None, top=n, max_depth=3, backend="python"
        )
        f = {str(fast.move): fast.evaluation} | {str(m): v for m, v in fast.alternatives}
        r = {str(ref.move): ref.evaluation} | {str(m): v for m, v in ref.alternatives}
        assert f == pytest.approx(r)
        assert fast.evaluation == pytest.approx(ref.evaluation)


def test_game_over_is_an_error():
    # North's front row is empty: the game is over (1.1).
    over = {
        "south": _side([0, 0, 2, 0, 0, 0, 0, 0], [0] * 8),
        "north": _side([0] * 8, [2, 0, 0, 0, 0, 0, 0, 0]),
        "to_move": "south",
        "blocked": None,
    }
    with pytest.raises(ValueError, match="game is over"):
        best_move(Position.from_json(over))


def test_bad_limits_are_errors():
    pos = Position.start()
    with pytest.raises(ValueError, match="time_limit"):
        best_move(pos, time_limit=0)
    for endless in (math.inf, math.nan):  # (inf searched for ever; the node limit ends it if not refused)
        with pytest.raises(ValueError, match="time_limit must be positive and finite"):
            best_move(pos, time_limit=endless, node_limit=1000)
    with pytest.raises(ValueError, match="node_limit"):
        best_move(pos, time_limit=None, node_limit=None)
    # the fast search keeps the limit in an int64: an OverflowError from numpy before
    with pytest.raises(ValueError, match="node_limit must be at most 9223372036854775807"):
        best_move(pos, time_limit=0.05, node_limit=2**63)
