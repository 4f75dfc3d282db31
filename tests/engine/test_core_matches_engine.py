"""Cross-check: the numba core (engine.core) against the pure-Python engine.

Two independent implementations of BAO_RULES.md must agree, on positions
reached by random play from the start and from random valid positions, under
the default rules and under every non-default §7 option: the same legal moves
(as engine.Move), the same position after each move, the same game end.
Disagreements settled from the rules text are listed in docs/DISAGREEMENTS.md.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from engine import Position, Rules, core
from engine.trace import CAPTURE

pytestmark = pytest.mark.slow


def _core_moves(pos: Position) -> dict[str, tuple[dict[str, Any], tuple[int, int, bool]]]:
    """Every legal move of the core: notation -> (position JSON after it,
    (seeds sown, seeds captured, capture move?))."""
    rules_arr = core.rules_array(pos.rules)
    st = core.state_from_position(pos)
    out = np.empty(core.MAX_MOVES, dtype=np.int32)
    n = core.gen_moves(st, rules_arr, out)
    assert list(out[:n]) == sorted(out[:n]), "gen_moves codes are not ascending"
    before = st.copy()
    result = {}
    for code in out[:n]:
        move = core.move_to_engine(int(code), st, pos.rules)
        assert str(move) not in result, f"core lists {move} twice in {pos.to_text()}"
        after = core.apply_copy(st, code, rules_arr)
        counters = (int(after[core.SOWN]), int(after[core.CAPTURED]), bool(after[core.WAS_CAPTURE]))
        result[str(move)] = (core.json_from_state(after), counters)
    assert np.array_equal(st, before), "apply_copy changed its input"
    return result


def _check(pos: Position) -> int:
    """Assert both engines agree on ``pos``; return how many moves were compared."""
    expected = {}
    for m in pos.legal_moves:
        after, trace = pos.play(m)
        captured = sum(step.count for step in trace.steps if step.kind == CAPTURE)
        expected[str(m)] = (after.to_json(), (trace.sown, captured, trace.capture))
    got = _core_moves(pos)
    where = f"in position {pos.to_text()} ({pos.to_json()})"
    assert sorted(got) == sorted(expected), f"legal moves differ {where}"
    for move, (after, counters) in expected.items():
        assert got[move][0] == after, f"position after {move} differs {where}"
        assert got[move][1] == counters, f"sown/captured/capture of {move} differ {where}"
    st = core.state_from_position(pos)
    winner = core.game_result(st, core.rules_array(pos.rules))
    outcome = pos.outcome()
    expected_winner = (
        core.NO_WINNER if outcome is None else ("south", "north").index(outcome.winner)
    )
    assert winner == expected_winner, f"game result differs {where}"
    return len(expected)


def _random_position(rng: random.Random, rules: Rules) -> Position:
    """A random valid position: 64 seeds, reserves consistent with the side to move,
    sometimes a blocked hole."""
    to_move = rng.randrange(2)
    south_reserve = rng.choice([0, 0, rng.randrange(1, 23)])
    north_reserve = south_reserve + (1 if to_move == 1 and south_reserve else 0)
    if to_move == 1 and south_reserve == 0 and rng.random() < 0.3:
        north_reserve = 1
    on_board = 64 - south_reserve - north_reserve
    board = [0] * 32
    holes = rng.sample(range(32), rng.randrange(6, 24))
    for _ in range(on_board):
        board[rng.choice(holes)] += 1
    for side in (0, 1):  # both front rows occupied: the game is not over yet
        if not any(board[16 * side : 16 * side + 8]):
            donor = max(range(32), key=lambda i: board[i])
            board[donor] -= 1
            board[16 * side + rng.randrange(8)] += 1
    obj: dict[str, Any] = {"to_move": ("south", "north")[to_move], "blocked": None}
    occupied = [r for r in range(8) if board[16 * to_move + r] > 0]
    if rng.random() < 0.2:  # a kutakatia block as a position file may carry one
        obj["blocked"] = ("A", "a")[to_move] + str(rng.choice(occupied) + 1)
    for side, name in enumerate(("south", "north")):
        ring = board[16 * side : 16 * side + 16]
        obj[name] = {
            "front": ring[:8],
            "back": [ring[15 - i] for i in range(8)],
            "reserve": (south_reserve, north_reserve)[side],
            "nyumba_owned": ring[4] > 0 and rng.random() < 0.5,
        }
    return Position.from_json(obj, rules)


def _walk(pos: Position, rng: random.Random, max_plies: int) -> Iterator[Position]:
    """``pos`` and the positions of one random game from it."""
    yield pos
    for _ in range(max_plies):
        moves = pos.legal_moves
        if not moves:
            return
        pos.push(rng.choice(moves))
        yield pos


def _run(rules: Rules, seed: int, games: int, random_starts: int) -> tuple[int, int]:
    rng = random.Random(seed)
    positions = moves = 0
    starts = [Position.start(rules) for _ in range(games)]
    starts += [_random_position(rng, rules) for _ in range(random_starts)]
    for start in starts:
        for pos in _walk(start, rng, 400):
            moves += _check(pos)
            positions += 1
    return positions, moves


def test_core_matches_engine_default_rules() -> None:
    positions, moves = _run(Rules(), seed=1, games=40, random_starts=150)
    assert positions > 5000 and moves > 20000


@pytest.mark.parametrize(
    "option",
    [
        {"nyumba_lost_at_mtaji_capture": False},
        {"kutakata_stops_at_nyumba_in_mtaji": False},
        {"kunamua_kutakata_from_small_nyumba": False},
        {"kunamua_singletons_while_nyumba_owned": False},
        {"tax_small_nyumba": True},
        {"kutakatia": False},
        {"win_at_instant_capture": False},
        {"lose_at_instant_own_empty": False},
        {"max_sown": 40},
        {"max_capture_seeds": 40},
        {"lap_skips_origin": True},
    ],
    ids=lambda option: "-".join(f"{k}={v}" for k, v in option.items()),
)
def test_core_matches_engine_rule_options(option: dict[str, Any]) -> None:
    positions, moves = _run(Rules(**option), seed=2, games=3, random_starts=20)
    assert positions > 250
