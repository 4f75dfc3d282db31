"""Readings for the referee's tests (engine/referee.py, engine/branches.py): boards by
hole name and noisy count probabilities."""

from __future__ import annotations

import numpy as np

from engine.observation import COUNT_LEVELS, HOLES, Observation


def board(**holes: int) -> list[int]:
    """32 counts in HOLES order: every hole 0 except those named."""
    return [holes.get(h, 0) for h in HOLES]


START = dict(A5=6, A6=2, A7=2, a5=6, a6=2, a7=2)
# 2.3 kutakata in kunamua: A6<* puts the reserve seed into A6 (3) and sows A5, A4, A3.
AFTER_A6_LEFT = dict(A3=1, A4=1, A5=7, A6=0, A7=2, a5=6, a6=2, a7=2)
# A7<*: reserve seed into A7 (3), sown into A6, A5, A4.
AFTER_A7_LEFT = dict(A4=1, A5=7, A6=3, A7=0, a5=6, a6=2, a7=2)


def noisy(counts: list[int], certainty: float, rng: np.random.Generator) -> Observation:
    """A reading that favours the true counts but spreads noise over the rest."""
    probs = rng.uniform(0.2, 1.0, (32, COUNT_LEVELS)) * (1 - certainty) / COUNT_LEVELS
    probs[np.arange(32), np.minimum(counts, COUNT_LEVELS - 1)] += certainty
    nested = {
        side: {row: [list(probs[i]) for i in range(base, base + 8)] for row, base in zip(("front", "back"), bases, strict=True)}
        for side, bases in (("south", (0, 8)), ("north", (16, 24)))
    }
    return Observation.from_probabilities(nested)
