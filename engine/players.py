"""Players for matches and benchmarks: random, greedy and the search.

A player is any object with a ``name`` and ``choose(position) -> Move``
(and optionally ``new_game(index)``, called before each game of a match).
:func:`make_player` builds one from the text used by ``bao match``:

- ``random`` - a uniformly random legal move;
- ``greedy`` - the move that captures the most seeds this move (ties random);
- ``ai`` / ``ai:SECONDS`` / ``ai:nNODES`` - the search at 1 s, SECONDS or a
  node limit per move; append ``@WEIGHTS.json`` to use other evaluation
  weights (e.g. an earlier version of the tuned weights).
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any, Protocol

from engine.search import MAX_NODE_LIMIT


class Player(Protocol):
    """Chooses a move in a position that is not over."""

    name: str

    def choose(self, position: Any) -> Any: ...


def _opponent(side: str) -> str:
    return "north" if side == "south" else "south"


def captured_seeds(position: Any, move: Any) -> int:
    """Seeds the mover takes from the opponent's holes by playing `move`.

    The opponent's holes lose seeds only by captures, so this is the fall of
    the opponent's seed count on the board.
    """
    opp = _opponent(position.to_move)
    before = sum(position.counts(opp)["front"]) + sum(position.counts(opp)["back"])
    after_pos, _ = position.play(move)
    after = sum(after_pos.counts(opp)["front"]) + sum(after_pos.counts(opp)["back"])
    return before - after


class RandomPlayer:
    """A uniformly random legal move (seeded)."""

    def __init__(self, seed: int = 0) -> None:
        self.name = "random"
        self.rng = random.Random(seed)

    def choose(self, position: Any) -> Any:
        return self.rng.choice(list(position.legal_moves))


class GreedyPlayer:
    """The legal move that captures the most seeds this move; ties broken at random."""

    def __init__(self, seed: int = 0) -> None:
        self.name = "greedy"
        self.rng = random.Random(seed)

    def choose(self, position: Any) -> Any:
        moves = list(position.legal_moves)
        gains = [captured_seeds(position, m) for m in moves]
        top = max(gains)
        return self.rng.choice([m for m, g in zip(moves, gains, strict=True) if g == top])


class SearchPlayer:
    """The alpha-beta search at a time or node limit per move."""

    def __init__(
        self,
        time_limit: float | None = 1.0,
        node_limit: int | None = None,
        seed: int = 0,
        weights: dict[str, float] | None = None,
        name: str | None = None,
        backend: str = "auto",
    ) -> None:
        if time_limit is None and node_limit is None:
            raise ValueError("a search player needs a time limit or a node limit")
        self.time_limit = time_limit
        self.node_limit = node_limit
        self.seed = seed
        self.weights = weights
        self.backend = backend
        self.name = name or (f"ai:{time_limit:g}s" if node_limit is None else f"ai:n{node_limit}")
        self.nodes = 0
        self.seconds = 0.0
        self._base_seed = seed

    def new_game(self, index: int) -> None:
        """Vary the tie-breaking seed from game to game (matches call this)."""
        self.seed = self._base_seed + index

    def choose(self, position: Any) -> Any:
        from engine.search import best_move

        result = best_move(
            position,
            time_limit=self.time_limit,
            node_limit=self.node_limit,
            seed=self.seed,
            weights=self.weights,
            top=0,
            backend=self.backend,
        )
        self.nodes += result.nodes
        self.seconds += result.time_s
        return result.move


def make_player(spec: str, seed: int = 0) -> Player:
    """Build a player from its text form (see the module docstring)."""
    text = spec.strip()
    weights = None
    if "@" in text:
        text, weights_path = text.split("@", 1)
        if not weights_path.strip():
            raise ValueError(f"player {spec!r}: name the weights file after '@' (ai@WEIGHTS.json)")
        from engine.evaluate import load_weights

        weights = load_weights(Path(weights_path))
    if text == "random" and weights is None:
        return RandomPlayer(seed)
    if text == "greedy" and weights is None:
        return GreedyPlayer(seed)
    if text == "ai":
        return SearchPlayer(1.0, None, seed, weights, name=spec)
    if text.startswith("ai:"):
        arg = text[3:]
        nodes: int | None = None
        seconds: float | None = None
        try:
            if arg.startswith("n"):
                nodes = int(arg[1:])
            else:
                seconds = float(arg)
        except ValueError:
            pass
        if nodes is not None and nodes > MAX_NODE_LIMIT:  # (the form is right: no "unknown player")
            raise ValueError(f"player {spec!r}: at most {MAX_NODE_LIMIT} nodes a move, got {nodes}")
        if nodes is not None and nodes > 0:
            return SearchPlayer(None, nodes, seed, weights, name=spec)
        if seconds is not None and 0 < seconds < math.inf:  # (ai:inf would search for ever)
            return SearchPlayer(seconds, None, seed, weights, name=spec)
    raise ValueError(
        f"unknown player {spec!r}: expected random, greedy, ai, ai:SECONDS or ai:nNODES "
        "(optionally followed by @WEIGHTS.json)"
    )
