"""What the camera gives the referee: one settled view's per-pit count probabilities
(:class:`Observation`) and the per-pit change map between two views
(:func:`change_evidence`).

Numbers only, no images. A view is 32 rows of probabilities over counts 0..40, one per
hole in :data:`HOLES` order (the Position JSON's order); :func:`board_vector` puts a
position, or a reading, in that order. :mod:`engine.referee` scores every legal
continuation against them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

COUNT_LEVELS = 41
"""Counts 0..40 have a probability each (the vision pipeline's output size)."""

SIDES = ("south", "north")
ROWS = ("front", "back")
HOLES: tuple[str, ...] = tuple(
    f"{letter}{i}" for letter in ("A", "B", "a", "b") for i in range(1, 9)
)
"""The 32 holes in the observation's order: A1..A8, B1..B8, a1..a8, b1..b8
(south front, south back, north front, north back: the Position JSON order)."""

_MIN_PROB = 1e-9


def board_vector(position_json: Mapping[str, Any]) -> np.ndarray:
    """The 32 pit counts of a Position JSON (or Recognition.position) in HOLES order."""
    try:
        values = [
            int(v)
            for side in SIDES
            for row in ROWS
            for v in position_json[side][row]
        ]
    except (KeyError, TypeError) as exc:
        raise ValueError(f"not a board: expected south/north front/back rows, got {position_json!r:.200}") from exc
    if len(values) != 32:
        raise ValueError(f"a board has 32 pits, got {len(values)}")
    return np.array(values, dtype=np.int64)


@dataclass(frozen=True)
class Observation:
    """Per-pit count probabilities of one settled view.

    Attributes:
        log_probs: array (32, 41), row i for HOLES[i], column c the natural log
            of the probability that the pit holds c seeds (floored at 1e-9).
    """

    log_probs: np.ndarray

    def __post_init__(self) -> None:
        if self.log_probs.shape != (32, COUNT_LEVELS):
            raise ValueError(f"log_probs must have shape (32, {COUNT_LEVELS}), got {self.log_probs.shape}")

    @classmethod
    def from_probabilities(cls, probabilities: Mapping[str, Any]) -> Observation:
        """Build from ``Recognition.probabilities`` (sides -> rows -> 8 lists of 41 floats)."""
        rows: list[Sequence[float]] = []
        try:
            for side in SIDES:
                for row in ROWS:
                    pits = probabilities[side][row]
                    if len(pits) != 8:
                        raise ValueError(f"{side} {row}: expected 8 pits, got {len(pits)}")
                    rows.extend(pits)
        except (KeyError, TypeError) as exc:
            raise ValueError("probabilities must map south/north -> front/back -> 8 lists") from exc
        probs = np.zeros((32, COUNT_LEVELS))
        for i, p in enumerate(rows):
            arr = np.asarray(p, dtype=float)
            if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr < 0):
                raise ValueError(f"{HOLES[i]}: probabilities must be a list of non-negative numbers")
            n = min(arr.size, COUNT_LEVELS)
            probs[i, :n] = arr[:n]
            if arr.size > COUNT_LEVELS:  # fold any tail into the last level
                probs[i, -1] += arr[COUNT_LEVELS:].sum()
            total = probs[i].sum()
            if total <= 0:
                raise ValueError(f"{HOLES[i]}: probabilities sum to zero")
            probs[i] /= total
        return cls(np.log(np.maximum(probs, _MIN_PROB)))

    @classmethod
    def from_counts(cls, board: Mapping[str, Any] | Sequence[int], certainty: float = 0.98) -> Observation:
        """A sharp observation of known counts (a still labelled by hand, or a player's correction).

        ``board`` is a Position JSON / Recognition.position mapping or 32 counts in HOLES order.
        Each pit gets ``certainty`` on its count and the rest spread over the other counts.
        """
        counts = board_vector(board) if isinstance(board, Mapping) else np.asarray(board, dtype=np.int64)
        if counts.shape != (32,) or np.any(counts < 0):
            raise ValueError("from_counts needs 32 non-negative counts")
        rest = (1.0 - certainty) / (COUNT_LEVELS - 1)
        probs = np.full((32, COUNT_LEVELS), rest)
        probs[np.arange(32), np.minimum(counts, COUNT_LEVELS - 1)] = certainty
        return cls(np.log(np.maximum(probs, _MIN_PROB)))

    def most_likely(self) -> np.ndarray:
        """The most likely count of every pit, in HOLES order."""
        return np.argmax(self.log_probs, axis=1)

    def confidence(self) -> np.ndarray:
        """The probability of each pit's most likely count, in HOLES order."""
        return np.exp(self.log_probs.max(axis=1))

    def best_score(self) -> float:
        """The log-likelihood of the most likely board (upper bound of every score)."""
        return float(self.log_probs.max(axis=1).sum())

    def score(self, counts: np.ndarray) -> float:
        """Log-likelihood of a board of 32 counts (counts above 40 read as 40)."""
        idx = np.minimum(counts, COUNT_LEVELS - 1)
        return float(self.log_probs[np.arange(32), idx].sum())

    def pit_scores(self, counts: np.ndarray) -> np.ndarray:
        """Per-pit deficit (nats) of a board: how much worse than each pit's best reading."""
        idx = np.minimum(counts, COUNT_LEVELS - 1)
        return self.log_probs.max(axis=1) - self.log_probs[np.arange(32), idx]


def change_logs(changed: Mapping[str, float]) -> np.ndarray:
    """A per-pit change map (:func:`change_evidence`) as log-probabilities, shape (2, 32),
    HOLES order: row 0 if the pit changed, row 1 if it was left alone (each probability
    held within 0.01..0.99; 0 in both rows for a pit the map leaves out). Computed once
    for a map that many hypotheses are ranked on."""
    logs = np.zeros((2, 32))
    for i, hole in enumerate(HOLES):
        p = changed.get(hole)
        if p is None:
            continue
        p = min(max(float(p), 0.01), 0.99)
        logs[0, i], logs[1, i] = math.log(p), math.log(1.0 - p)
    return logs


def change_evidence(before: np.ndarray, after: np.ndarray, changed: Mapping[str, float],
                    logs: np.ndarray | None = None) -> float:
    """Log-likelihood of a per-pit change map under a hypothesis.

    ``changed`` maps holes to the probability (0..1, exclusive) that the
    pit's seeds changed since the view of the position ``before`` (counts in
    HOLES order); the hypothesis predicts the board ``after``. ``logs``: the map's
    :func:`change_logs`, when already computed.
    """
    logs = change_logs(changed) if logs is None else logs
    return float(np.where(before != after, logs[0], logs[1]).sum())
