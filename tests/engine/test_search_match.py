"""Players and matches (engine/players.py, engine/match.py)."""

from __future__ import annotations

import pytest

from engine import Position
from engine.match import play_game, random_opening, run_match, wilson_interval
from engine.players import GreedyPlayer, RandomPlayer, SearchPlayer, captured_seeds, make_player


def test_wilson_interval_by_hand():
    # p = 0.5, n = 100, z = 1.96: centre 0.5, half-width
    # 1.96 * sqrt(0.0025 + 3.8416 / 40000) / (1 + 3.8416 / 100) = 0.09617.
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.40383, abs=1e-4) and hi == pytest.approx(0.59617, abs=1e-4)
    # 10 wins of 10: centre (1 + 0.19208) / 1.38416 = 0.86123, half 0.13877.
    lo, hi = wilson_interval(10, 10)
    assert lo == pytest.approx(0.72246, abs=1e-4) and hi == pytest.approx(1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_greedy_takes_the_biggest_capture():
    # South: A1=1, A3=2, A5=1; North: a4=2, a8=1 (+ b1, b2). A3> captures a4 (2
    # seeds: it ends in A5, which faces a4), A3< captures a8 (1 seed): 1.4.
    pos = Position.from_json(
        {
            "south": {"front": [1, 0, 2, 0, 1, 0, 0, 0], "back": [0] * 8, "reserve": 0,
                      "nyumba_owned": False},
            "north": {"front": [0, 0, 0, 2, 0, 0, 0, 1], "back": [1, 1, 0, 0, 0, 0, 0, 0],
                      "reserve": 0, "nyumba_owned": False},
            "to_move": "south",
            "blocked": None,
        }
    )  # fmt: skip
    gains = {pos.notation(m): captured_seeds(pos, m) for m in pos.legal_moves}
    assert gains == {"A3>": 2, "A3<": 1}
    assert pos.notation(GreedyPlayer().choose(pos)) == "A3>"


def test_make_player_forms():
    assert isinstance(make_player("random"), RandomPlayer)
    assert isinstance(make_player("greedy"), GreedyPlayer)
    ai = make_player("ai:0.25")
    assert isinstance(ai, SearchPlayer) and ai.time_limit == 0.25 and ai.node_limit is None
    ai = make_player("ai:n4000")
    assert isinstance(ai, SearchPlayer) and ai.node_limit == 4000 and ai.time_limit is None
    for bad in ("ai:0", "ai:n-5", "ai:fast", "human", "random@nothing.json", "ai:inf", "ai:1e400", "ai:nan"):
        with pytest.raises(ValueError):
            make_player(bad)
    with pytest.raises(ValueError, match="name the weights file after '@'"):
        make_player("ai@")


def test_random_openings_are_legal_and_do_not_end_the_game():
    import random

    rng = random.Random(1)
    for k in range(8):
        moves = random_opening(Position.start(), k, rng)
        pos = Position.start()
        for m in moves:
            assert m in pos.legal_moves
            pos.push(m)
        assert not pos.is_game_over()


def test_match_alternates_sides_and_counts():
    a = make_player("ai:n300")
    b = RandomPlayer(seed=5)
    result = run_match(a, b, 6, Position.start(), opening_plies=3, seed=2)
    assert [g.south for g in result.games] == ["ai:n300", "random"] * 3
    assert result.a_wins + result.b_wins + result.draws == 6
    # Both games of a pair start from the same opening.
    for i in range(0, 6, 2):
        assert result.games[i].opening == result.games[i + 1].opening
    assert result.games[0].opening == []  # the first pair starts from the start position


def test_unfinished_games_stop_at_the_move_limit():
    game = play_game(RandomPlayer(1), RandomPlayer(2), Position.start(), [], max_plies=3)
    assert game.plies == 3 and game.winner is None and game.reason == "move limit"
