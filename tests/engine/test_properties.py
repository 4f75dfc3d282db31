"""Property tests over random legal play (hypothesis).

Invariants: 64 seeds (board + reserves), no negative counts, push/pop restores
exactly, parse(format(m)) == m, no duplicate moves, every listed move can be
played, and the trace replays the board change step by step.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Move, Position, Rules
from engine.holes import ALL_HOLES, FRONT_LETTER, SIDES
from engine.trace import CAPTURE, DROP, KEEP, PICKUP, RESERVE, SAFARI, TAX, Trace

PLIES = 60


def _replay_trace(before: Position, trace: Trace) -> tuple[dict[str, int], dict[str, int]]:
    """Apply the trace steps to ``before``'s counts; return holes and reserves."""
    holes = {h: before[h] for h in ALL_HOLES}
    reserves = {s: before.reserve(s) for s in SIDES}
    mover = before.to_move
    for step in trace.steps:
        if step.kind == RESERVE:
            reserves[mover] -= 1
        elif step.kind == DROP:
            holes[step.hole] += 1
        elif step.kind in (PICKUP, SAFARI, CAPTURE):
            assert holes[step.hole] == step.count, f"{step} but the hole held {holes[step.hole]}"
            holes[step.hole] = 0
        elif step.kind == TAX:
            holes[step.hole] -= 2
        elif step.kind == KEEP:
            reserves[mover] += step.count
        else:
            raise AssertionError(f"unknown step kind {step.kind}")
        assert holes[step.hole or "A1"] >= 0
    return holes, reserves


def _check_position(pos: Position) -> None:
    counts = [pos[h] for h in ALL_HOLES]
    assert min(counts) >= 0
    assert sum(counts) + pos.reserve("south") + pos.reserve("north") == 64
    moves = pos.legal_moves
    assert len(moves) == len(set(moves)), "duplicate moves"
    assert moves == sorted(moves)
    for move in moves:
        written = pos.notation(move)
        assert pos.parse_move(written) == move
        assert Move.parse(written) == move
        assert move.hole[0] in (FRONT_LETTER[0] + "B" if pos.to_move == "south" else "ab")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(choices=st.lists(st.integers(min_value=0, max_value=10_000), min_size=PLIES, max_size=PLIES))
def test_random_play_invariants(choices: list[int]) -> None:
    pos = Position.start()
    snapshots = []
    for choice in choices:
        _check_position(pos)
        if pos.is_game_over():
            assert pos.legal_moves == [] or pos.outcome() is not None
            break
        moves = pos.legal_moves
        move = moves[choice % len(moves)]
        before = pos.copy()
        after, played = pos.play(move)
        snapshots.append(pos.to_json())
        trace = pos.push(move)
        assert trace == played
        assert pos == after
        holes, reserves = _replay_trace(before, trace)
        assert holes == {h: pos[h] for h in ALL_HOLES}
        assert reserves == {s: pos.reserve(s) for s in SIDES}
        assert pos.to_move != before.to_move
    # Undo everything: each pop restores the exact earlier position.
    while snapshots:
        pos.pop()
        assert pos.to_json() == snapshots.pop()
    assert pos == Position.start()


@settings(max_examples=60, deadline=None)
@given(
    hole=st.sampled_from(ALL_HOLES),
    direction=st.sampled_from("<>"),
    safari=st.booleans(),
    marks=st.sampled_from(["", "*", "**", "#", "*#"]),
)
def test_parse_format_round_trip(hole: str, direction: str, safari: bool, marks: str) -> None:
    move = Move(hole, direction, safari)
    assert Move.parse(str(move)) == move
    if not safari:
        assert Move.parse(f"{move}{marks}") == move


def _random_position(seed: int) -> Position:
    """A random 64-seed position: random reserves, ownership, side to move."""
    import random

    rng = random.Random(seed)
    to_move = rng.randrange(2)
    south = rng.choice([0, 0, rng.randrange(1, 23)])
    north = south + (1 if to_move == 1 and south else 0)
    north = min(north, 22)
    board = [0] * 32
    for _ in range(64 - south - north):
        board[rng.randrange(32)] += 1
    obj = {}
    for side, name in enumerate(SIDES):
        cells = board[16 * side : 16 * side + 16]
        obj[name] = {
            "front": cells[:8],
            "back": cells[8:],
            "reserve": (south, north)[side],
            "nyumba_owned": rng.random() < 0.4,
        }
    obj["to_move"] = SIDES[to_move]
    obj["blocked"] = None
    return Position.from_json(obj)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_random_position_invariants(seed: int) -> None:
    pos = _random_position(seed)
    _check_position(pos)
    for move in pos.legal_moves:
        after, trace = pos.play(move)
        holes, reserves = _replay_trace(pos, trace)
        assert holes == {h: after[h] for h in ALL_HOLES}
        assert reserves == {s: after.reserve(s) for s in SIDES}
        _check_position(after)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    options=st.fixed_dictionaries(
        {
            "nyumba_lost_at_mtaji_capture": st.booleans(),
            "kutakata_stops_at_nyumba_in_mtaji": st.booleans(),
            "kunamua_kutakata_from_small_nyumba": st.booleans(),
            "kunamua_singletons_while_nyumba_owned": st.booleans(),
            "tax_small_nyumba": st.booleans(),
            "kutakatia": st.booleans(),
            "win_at_instant_capture": st.booleans(),
            "lose_at_instant_own_empty": st.booleans(),
            "max_sown": st.sampled_from([40, 1000]),
            "max_capture_seeds": st.sampled_from([15, 40]),
            "lap_skips_origin": st.booleans(),
        }
    ),
)
def test_invariants_under_every_rule_option(seed: int, options: dict) -> None:
    rules = Rules(**options)
    pos = Position.from_json(_random_position(seed).to_json(), rules)
    _check_position(pos)
    for move in pos.legal_moves:
        after, trace = pos.play(move)
        assert trace.sown <= rules.max_sown
        holes, reserves = _replay_trace(pos, trace)
        assert holes == {h: after[h] for h in ALL_HOLES}
        assert reserves == {s: after.reserve(s) for s in SIDES}
        _check_position(after)
