"""Stage 4: per-pit distributions -> the most likely position and its status.

Pure numbers, no image. Holes are in :data:`vision.holes.HOLES` order.

The board total is a constraint: a legal position has 20 (start) to 64 seeds
on the board — 20 plus one per kunamua move played, 64 in mtaji. The decoded
position is the joint most likely assignment whose total lies in that range
(or equals ``expected_total`` when the caller knows the reserves), found by
dynamic programming over the running total. When keeping to the range costs
much likelihood, the implied (unconstrained) total is reported as
``total_implausible:N``.

One position is likelier than the rest: the start (rule 2.1), which begins
every game. It is taken when it explains the pits almost as well as the most
likely position (``DecodeConfig.start_within`` nats): a start read with a seed
hidden in a nyumba and a 2 read as 1 is the start, not a 19-seed board pulled
up to 20 by the least sure pit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from vision.cnn import blur_counts
from vision.config import DEFAULT, DecodeConfig
from vision.holes import HOLE_CELL, HOLES, START_COUNTS

#: log-likelihood drop (nats) beyond which forcing the total is reported as implausible
_TOTAL_DROP_NATS = 4.0
#: the start position's counts in HOLES order
_START = np.array([START_COUNTS[n] for n in HOLES])


@dataclass
class Decoded:
    counts: dict[str, int]
    probabilities: dict[str, list[float]]
    confidence: dict[str, float]
    status: list[str] = field(default_factory=list)
    total: int = 0  # seeds on the board in the decoded position
    implied_total: int = 0  # sum of the per-pit most likely counts


def status_pits(status: Sequence[str], key: str) -> list[str]:
    """The pits the status entry ``key:`` names (``occluded_pits``, ``uncertain_pits``),
    in its order; [] when there is none."""
    return [n for entry in status if entry.startswith(key + ":")
            for n in entry[len(key) + 1:].split(",") if n]


def heap_tail(p: np.ndarray, share: float, from_mean: float, sd_per_seed: float) -> np.ndarray:
    """Rows of ``p`` (distributions over 0..n) whose mean is at least ``from_mean`` get
    ``share`` of their mass blurred upwards only, by a Gaussian of sd ``sd_per_seed`` x
    the mean: a heap may hold more seeds than show, never fewer for that reason."""
    p = np.asarray(p, np.float64)
    out = p.copy()
    levels = np.arange(p.shape[1], dtype=np.float64)
    for i, row in enumerate(p):
        mean = float(row @ levels)
        if mean < from_mean or share <= 0:
            continue
        out[i] = (1.0 - share) * row + share * blur_counts(row, 0.0, sd_per_seed * mean)
    return out


def _constrained_map(logp: np.ndarray, allowed: np.ndarray) -> tuple[np.ndarray, float]:
    """Joint argmax of independent pits subject to total in ``allowed`` (bool over totals)."""
    n, k = logp.shape
    tmax = len(allowed) - 1
    neg = -np.inf
    best = np.full(tmax + 1, neg)
    best[0] = 0.0
    choice = np.zeros((n, tmax + 1), np.int16)
    rev = np.arange(k - 1, -1, -1)
    for i in range(n):
        # windows[t, j] = best[t + j - (k - 1)]: the running total before adding c = k-1-j
        padded = np.concatenate([np.full(k - 1, neg), best])
        windows = np.lib.stride_tricks.sliding_window_view(padded, k)[: tmax + 1]
        cand = windows + logp[i, rev][None, :]
        j = np.argmax(cand, axis=1)
        best = cand[np.arange(tmax + 1), j]
        choice[i] = rev[j]
    scores = np.where(allowed, best, neg)
    t = int(np.argmax(scores))
    if not np.isfinite(scores[t]):
        return logp.argmax(axis=1), float(logp.max(axis=1).sum())
    counts = np.zeros(n, int)
    for i in range(n - 1, -1, -1):
        counts[i] = choice[i, t]
        t -= counts[i]
    return counts, float(scores.max())


def _largest_cluster(names: list[str]) -> int:
    """Size of the largest group of neighbouring holes (8-neighbourhood on the board)."""
    cells = {HOLE_CELL[n] for n in names}
    best = 0
    while cells:
        stack = [cells.pop()]
        size = 0
        while stack:
            r, c = stack.pop()
            size += 1
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    if (r + dr, c + dc) in cells:
                        cells.remove((r + dr, c + dc))
                        stack.append((r + dr, c + dc))
        best = max(best, size)
    return best


def decode(
    probabilities: np.ndarray,
    occluded: np.ndarray | None = None,
    expected_total: int | None = None,
    cfg: DecodeConfig = DEFAULT.decode,
    faint: np.ndarray | None = None,
    crossed: np.ndarray | None = None,
) -> Decoded:
    """Most likely position from (32, 41) per-pit distributions (HOLES order).

    ``occluded`` (32 bools) marks pits whose rim is hidden. Those read as fewer than
    ``hand_heap_from`` seeds are covered by something else than seeds: their
    distribution is flattened (``occluded_flatten``), their confidence is 0 and they
    are named in ``occluded_pits``. A heap hides its own rim too (on renders, 75 of the
    85 pits with hidden rims and no hand over them were read as 5 or more): such a pit
    has its distribution spread upwards only, from ``occluded_heap_from`` x its reading
    (``occluded_heap_flatten``: seeds hide seeds, so it holds about as many as are read or
    more; spread over 0..40, it made the cheapest pit to empty when the total was cut to
    64), and is named with the uncertain pits when unsure, not as occluded.
    ``hand_over_board`` is reported when ``hand_min_pits`` neighbouring pits are
    occluded and read as fewer than ``hand_heap_from`` seeds, or one occluded pit is
    most likely empty (``covered_empty``): a heap hides a rim too, but it is read as
    many seeds; on renders, hidden pits under a hand are mostly read as empty, those
    hidden by a heap as 5 or more. ``faint`` (32 bools) marks the occluded pits
    known only by a faint rim (:func:`vision.grid.occluded_cells`): they count
    towards the neighbouring pits, but one alone read as empty is no hand (an
    empty pit with a soft rim on one side looks so too). ``crossed`` (32 bools) marks
    the pits beside which something lies across the board's edge
    (:func:`vision.grid.crossed_pits`): one occluded pit read as few seeds there is a
    hand too (an arm reaching in over the edge to it).
    """
    p = np.asarray(probabilities, np.float64)
    if p.shape != (len(HOLES), cfg.max_count + 1):
        raise ValueError(f"expected ({len(HOLES)}, {cfg.max_count + 1}) probabilities, got {p.shape}")
    p = np.clip(np.nan_to_num(p, nan=0.0), 0.0, None)
    p = p / np.maximum(p.sum(axis=1, keepdims=True), 1e-12)
    occ = np.zeros(len(HOLES), bool) if occluded is None else np.asarray(occluded, bool)
    # a rim hidden with no seed in sight: something lies over the pit (an empty pit
    # shows its rim; a heap hiding it is read as many seeds)
    mode = p.argmax(axis=1)
    alone = occ if faint is None else occ & ~np.asarray(faint, bool)
    covered = alone & (mode == 0) if cfg.covered_empty else np.zeros_like(occ)
    # hidden and read as few seeds: covered by something else than its seeds (a heap
    # hides its own rim too, but is read as many)
    hidden = occ & (mode < cfg.hand_heap_from)
    hidden_names = [n for n, h in zip(HOLES, hidden, strict=True) if h]
    # a covered pit's count is unknown: half its distribution spread over 0..40; a heap
    # hiding its own rim holds about as many seeds as are read or more (seeds hide seeds):
    # half spread from occluded_heap_from x its reading up
    levels = np.arange(cfg.max_count + 1)
    for i in np.flatnonzero(occ):
        lo = 0 if hidden[i] else int(cfg.occluded_heap_from * mode[i])
        share = cfg.occluded_flatten if hidden[i] else cfg.occluded_heap_flatten
        spread = (levels >= lo) / float(cfg.max_count + 1 - lo)
        p[i] = (1.0 - share) * p[i] + share * spread
    if cfg.heap_tail > 0:
        p[~occ] = heap_tail(p[~occ], cfg.heap_tail, cfg.heap_tail_from, cfg.heap_tail_sd)
    logp = np.log(np.maximum(p, 1e-12))
    free = logp.argmax(axis=1)
    implied = int(free.sum())
    free_ll = float(logp.max(axis=1).sum())
    allowed = np.zeros(cfg.total_max + 1, bool)
    if expected_total is not None:
        if not 0 <= expected_total <= cfg.total_max:
            raise ValueError(f"expected_total must be 0..{cfg.total_max}, got {expected_total}")
        allowed[expected_total] = True
    else:
        allowed[cfg.total_min :] = True
    if implied <= cfg.total_max and allowed[implied]:
        counts, ll = free, free_ll
    else:
        counts, ll = _constrained_map(logp, allowed)
    start = False
    if cfg.start_within > 0 and allowed[int(_START.sum())]:
        start_ll = float(logp[np.arange(len(HOLES)), _START].sum())
        start = start_ll >= ll - cfg.start_within
        if start:
            counts, ll = _START.copy(), start_ll
    status: list[str] = []
    if not start and (free_ll - ll > _TOTAL_DROP_NATS
                      or (expected_total is None and not allowed[min(int(counts.sum()), cfg.total_max)])):
        status.append(f"total_implausible:{implied}")
    conf = p[np.arange(len(HOLES)), counts]
    conf[hidden] = 0.0
    reached = crossed is not None and bool((hidden & np.asarray(crossed, bool)).any())
    if _largest_cluster(hidden_names) >= cfg.hand_min_pits or covered.any() or reached:
        status.append("hand_over_board")
    if hidden_names:
        status.append("occluded_pits:" + ",".join(hidden_names))
    unsure = [n for n, c, o in zip(HOLES, conf, hidden, strict=True) if c < cfg.uncertain_below and not o]
    if unsure:
        status.append("uncertain_pits:" + ",".join(unsure))
    return Decoded(
        counts={n: int(c) for n, c in zip(HOLES, counts, strict=True)},
        probabilities={n: [round(float(v), 5) for v in row] for n, row in zip(HOLES, p, strict=True)},
        confidence={n: round(float(c), 4) for n, c in zip(HOLES, conf, strict=True)},
        status=status,
        total=int(counts.sum()),
        implied_total=implied,
    )
