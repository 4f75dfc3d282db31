"""Matches between players, with confidence intervals on the score.

:func:`run_match` plays games between two players, alternating who plays
South, from the start position and from varied openings (a few random moves
from the start, each opening played twice with the sides swapped so neither
player gets the easier side of it). :func:`wilson_interval` gives the 95%
interval on a score.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.players import Player
from engine.search import copy_position


def wilson_interval(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a proportion `score` out of `n` trials.

    `score` may count draws as halves (the interval is then slightly
    conservative). Returns (low, high) as fractions; (0, 1) when n is 0.
    """
    if n <= 0:
        return 0.0, 1.0
    p = score / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class GameResult:
    """One game: who played South/North, the winner side (None: move limit)."""

    south: str
    north: str
    winner: str | None
    reason: str
    plies: int
    opening: list[str]
    moves: list[str]


@dataclass
class MatchResult:
    """Totals from player A's point of view (A = the first player given)."""

    a: str
    b: str
    games: list[GameResult] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def a_wins(self) -> int:
        return sum(1 for g in self.games if g.winner is not None and self._side_of_a(g) == g.winner)

    @property
    def b_wins(self) -> int:
        return sum(1 for g in self.games if g.winner is not None and self._side_of_a(g) != g.winner)

    @property
    def draws(self) -> int:
        return sum(1 for g in self.games if g.winner is None)

    @property
    def a_score(self) -> float:
        """A's score: wins plus half the unfinished games, over the games played."""
        n = len(self.games)
        return (self.a_wins + 0.5 * self.draws) / n if n else 0.0

    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.a_wins + 0.5 * self.draws, len(self.games))

    def _side_of_a(self, g: GameResult) -> str:
        return "south" if g.south == self.a else "north"

    def summary(self) -> str:
        lo, hi = self.interval()
        n = len(self.games)
        return (
            f"{self.a} vs {self.b}: {n} games, {self.a} won {self.a_wins}, lost {self.b_wins}, "
            f"unfinished {self.draws}; score {100 * self.a_score:.1f}% "
            f"(95% CI {100 * lo:.1f}-{100 * hi:.1f}%)"
        )

    def to_json(self) -> dict[str, Any]:
        lo, hi = self.interval()
        return {
            "a": self.a,
            "b": self.b,
            "games": len(self.games),
            "a_wins": self.a_wins,
            "b_wins": self.b_wins,
            "unfinished": self.draws,
            "a_score": round(self.a_score, 4),
            "ci95": [round(lo, 4), round(hi, 4)],
            "seconds": round(self.seconds, 1),
            "distinct_games": len({tuple(g.opening + g.moves) for g in self.games}),
        }


def random_opening(start: Any, plies: int, rng: random.Random) -> list[Any]:
    """`plies` random legal moves from `start` that do not end the game."""
    pos = copy_position(start)
    moves: list[Any] = []
    for _ in range(plies):
        legal = list(pos.legal_moves)
        rng.shuffle(legal)
        for m in legal:
            pos.push(m)
            if not pos.is_game_over():
                moves.append(m)
                break
            pos.pop()
        else:
            break
    return moves


def play_game(
    south: Player, north: Player, start: Any, opening: list[Any], max_plies: int = 400
) -> GameResult:
    """Play one game from `start` after `opening`; stop as unfinished at `max_plies`."""
    pos = copy_position(start)
    opening_text = []
    for m in opening:
        opening_text.append(pos.notation(m))
        pos.push(m)
    moves: list[str] = []
    while not pos.is_game_over() and len(moves) < max_plies:
        player = south if pos.to_move == "south" else north
        move = player.choose(pos)
        moves.append(pos.notation(move))
        pos.push(move)
    outcome = pos.outcome()
    winner = getattr(outcome, "winner", None) if outcome is not None else None
    reason = getattr(outcome, "reason", "") if outcome is not None else "move limit"
    return GameResult(south.name, north.name, winner, str(reason), len(moves), opening_text, moves)


def run_match(
    a: Player,
    b: Player,
    games: int,
    start: Any,
    opening_plies: int = 4,
    seed: int = 0,
    max_plies: int = 400,
    progress: Callable[[int, GameResult], None] | None = None,
) -> MatchResult:
    """Play `games` games between `a` and `b`, alternating sides.

    Games come in pairs: the pair k uses one opening (pair 0 the plain start,
    later pairs 1..`opening_plies` random moves), A plays South in the first
    game of a pair and North in the second.
    """
    if a.name == b.name:
        b.name = b.name + "'"
    rng = random.Random(seed)
    result = MatchResult(a.name, b.name)
    t0 = time.perf_counter()
    opening: list[Any] = []
    for i in range(games):
        if i % 2 == 0:
            k = 0 if i == 0 or opening_plies <= 0 else rng.randint(1, opening_plies)
            opening = random_opening(start, k, rng)
        south, north = (a, b) if i % 2 == 0 else (b, a)
        for player in (a, b):
            new_game = getattr(player, "new_game", None)
            if new_game is not None:
                new_game(i)
        game = play_game(south, north, start, opening, max_plies)
        result.games.append(game)
        if progress is not None:
            progress(i, game)
    result.seconds = time.perf_counter() - t0
    return result
