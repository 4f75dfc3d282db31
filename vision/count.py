"""Count the seeds in one pit as a probability distribution over 0..40.

``count_pit(crop_bgr, look=None) -> PitCount`` takes a square BGR crop of one
pit (the pit centred and filling most of it, any side length; see
docs/vision.md) and returns the most likely count, the distribution over
counts 0..40 and a confidence.

How: a small convolutional network (:mod:`vision.cnn`, numpy inference,
weights in ``vision/models/counter_cnn.npz``, trained by ``python -m
vision.train_cnn`` on procedural crops from :mod:`vision.synth_pits` and pits
cut from photoreal renders) maps the crop, resized to 64 px and standardised,
to probabilities over the counts at a fitted temperature; ``views`` > 1
averages its logits over turned (and mirrored) copies of the crop, since a pit
has no preferred direction (``CountConfig.views``, 1 by default for speed;
``bao count-pit`` uses 8). It was trained on
soft targets that widen with the count, because heaped seeds hide each other.
``bao count-pit`` also asks a second network, trained mostly on procedural pits of
many looks, and combines the two (``broad``; a crop of another board).

A :class:`SeedLook` learned at calibration from the start position (known
counts 6, 2, 2, 0) holds the seed and floor colours, the seed size and the
board's mean empty pit; the area of a crop differing from that empty pit, in
seeds, sharpens the network's distribution (:func:`combine_changed_area`).
Inference is numpy and OpenCV only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from vision.cnn import BROAD_MODEL_PATH, N_COUNTS, CountNet, load_net
from vision.config import CountConfig
from vision.features import PIT_MASK_T, SIZE, TEMPLATE, prepare, small_lab
from vision.holes import HOLE_CELL, HOLES

MAX_COUNT = N_COUNTS - 1  # 40: counts 0..40, as the network reads them
#: (row, column) on the board of each pit, in :data:`vision.holes.HOLES` order
_CELLS = np.array([HOLE_CELL[n] for n in HOLES])


@dataclass(frozen=True)
class PitCount:
    """Result for one pit: most likely count, distribution over 0..40, confidence 0..1."""

    count: int
    probabilities: np.ndarray  # shape (41,), sums to 1
    confidence: float

    def to_json(self) -> dict:
        """The ``bao count-pit --json`` form."""
        return {
            "count": int(self.count),
            "probabilities": [round(float(p), 6) for p in self.probabilities],
            "confidence": round(float(self.confidence), 4),
        }


@dataclass(frozen=True)
class SeedLook:
    """Seed appearance learned at calibration (colours in Lab scaled as in vision.features).

    ``seed_diam_px`` is the seed diameter in pixels of a crop resized to
    ``vision.features.SIZE``; ``empty`` is the mean empty pit of the board
    (Lab, TEMPLATE x TEMPLATE), or None.
    """

    seed_lab: tuple[float, float, float]
    floor_lab: tuple[float, float, float]
    seed_diam_px: float
    n_crops: int = 0
    empty: np.ndarray | None = field(default=None, compare=False)
    empty_thr: float = 0.0  # Lab distance to `empty` that counts as changed
    area_per_seed: float = 0.0  # changed template pixels per seed (calibration)

    def to_json(self) -> dict:
        out = {
            "seed_lab": [round(float(v), 5) for v in self.seed_lab],
            "floor_lab": [round(float(v), 5) for v in self.floor_lab],
            "seed_diam_px": round(float(self.seed_diam_px), 3),
            "crop_size_px": SIZE,
            "n_crops": int(self.n_crops),
        }
        if self.empty is not None:
            out["empty_pit_lab"] = np.round(self.empty, 4).tolist()
            out["empty_thr"] = round(float(self.empty_thr), 5)
            out["area_per_seed"] = round(float(self.area_per_seed), 3)
        return out

    @classmethod
    def from_json(cls, obj: dict) -> SeedLook:
        """Inverse of :meth:`to_json`; ValueError on a malformed object."""
        try:
            seed = tuple(float(v) for v in obj["seed_lab"])
            floor = tuple(float(v) for v in obj["floor_lab"])
            diam = float(obj["seed_diam_px"])
            empty = obj.get("empty_pit_lab")
            empty = None if empty is None else np.asarray(empty, np.float32)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"seed_look: malformed ({exc!r}): {obj!r:.200}") from None
        if len(seed) != 3 or len(floor) != 3 or not 0 < diam < SIZE:
            raise ValueError(f"seed_look: bad values: {obj!r:.200}")
        if empty is not None and empty.shape != (TEMPLATE, TEMPLATE, 3):
            raise ValueError(f"seed_look: empty_pit_lab must be {TEMPLATE}x{TEMPLATE}x3")
        return cls(seed, floor, diam, int(obj.get("n_crops", 0)), empty,
                   float(obj.get("empty_thr", 0.0)), float(obj.get("area_per_seed", 0.0)))

    def changed_seeds(self, lab: np.ndarray) -> float | None:
        """Area differing from the empty template, in seeds (None without a template)."""
        if self.empty is None or self.area_per_seed <= 0:
            return None
        changed = np.count_nonzero(_diff(small_lab(lab), self.empty) > self.empty_thr)
        if changed > CHANGED_MAX * np.count_nonzero(PIT_MASK_T):
            return None  # a heap covers the floor: the area says nothing about the count
        return changed / self.area_per_seed


def _pit_pixels(lab: np.ndarray) -> np.ndarray:
    from vision.features import _M

    return lab[_M["pit"]]


def fit_seed_look(crops: Sequence[np.ndarray], counts: Sequence[int]) -> SeedLook:
    """Learn the seed look from pit crops with known counts (e.g. the start position).

    Needs at least one empty pit and one pit with 1..8 seeds. The floor colour
    is the median of the empty pits and their mean image the empty-pit
    template; seed pixels are those of the seeded pits farther from the floor
    colour than 99 % of empty-pit pixels; the seed diameter follows from their
    area per seed.
    """
    if len(crops) != len(counts):
        raise ValueError(f"fit_seed_look: {len(crops)} crops but {len(counts)} counts")
    labs = [prepare(_square(_check_crop(c))) for c in crops]
    empty = [_pit_pixels(lab) for lab, n in zip(labs, counts, strict=True) if n == 0]
    seeded = [(lab, n) for lab, n in zip(labs, counts, strict=True) if 1 <= n <= 8]
    if not empty or not seeded:
        raise ValueError("fit_seed_look needs at least one empty pit and one pit with 1..8 seeds")
    floor = np.median(np.concatenate(empty), axis=0)
    d_empty = np.concatenate([np.sqrt(((p - floor) ** 2).sum(axis=1)) for p in empty])
    thr = max(float(np.percentile(d_empty, 99)), 0.04)
    seed_px, total = [], 0
    for lab, n in seeded:
        p = _pit_pixels(lab)
        d = np.sqrt(((p - floor) ** 2).sum(axis=1))
        seed_px.append(p[d > thr])
        total += n
    px = np.concatenate(seed_px)
    if len(px) < 4:  # seeds indistinguishable from the floor: take the farthest pixels
        p = np.concatenate([_pit_pixels(lab) for lab, _ in seeded])
        d = np.sqrt(((p - floor) ** 2).sum(axis=1))
        px = p[d >= np.percentile(d, 90)]
    seed = np.median(px, axis=0)
    area = len(px) / max(total, 1)
    diam = float(np.clip(2 * np.sqrt(area / np.pi), 3.0, SIZE * 0.45))
    smalls = [small_lab(lab) for lab in labs]
    template = np.mean([sm for sm, n in zip(smalls, counts, strict=True) if n == 0], axis=0)
    # Changed area per seed against the empty template, from the pits with fewest seeds.
    d_tmpl = np.concatenate([_diff(sm, template) for sm, n in zip(smalls, counts, strict=True)
                             if n == 0])
    thr_t = max(EMPTY_THR_MIN, float(np.percentile(d_tmpl, 97)))
    fewest = min(n for n in counts if n >= 1)
    few = [(sm, n) for sm, n in zip(smalls, counts, strict=True) if 1 <= n <= max(3, fewest)]
    changed = sum(np.count_nonzero(_diff(sm, template) > thr_t) for sm, _ in few)
    area_t = max(changed / max(sum(n for _, n in few), 1), 1.0)
    return SeedLook(tuple(float(v) for v in seed), tuple(float(v) for v in floor),  # type: ignore[arg-type]
                    diam, len(crops), template.astype(np.float32), thr_t, area_t)


EMPTY_THR_MIN = 0.05
CHANGED_MAX = 0.6  # changed share of the pit above which changed_seeds gives no evidence


def _diff(small: np.ndarray, template: np.ndarray) -> np.ndarray:
    """Lab distance to the empty-pit template over the pit (TEMPLATE scale), after matching
    the crop's median brightness and colour to the template's (light differs across a board)."""
    s = small[PIT_MASK_T]
    t = template[PIT_MASK_T]
    ms, mt = np.median(s, axis=0), np.median(t, axis=0)
    gain = float(np.clip(mt[0] / max(float(ms[0]), 1e-3), 0.5, 2.0))
    s = s.copy()
    s[:, 0] *= gain
    s[:, 1:] += mt[1:] - ms[1:]
    return np.sqrt(((s - t) ** 2).sum(axis=1))


#: a crop's longer side over its shorter, at most: its centred square is read, so a
#: photo's usual 4:3 or 16:9 frame with the pit in the middle is fine, while a long
#: strip is no crop of one pit
MAX_CROP_ASPECT = 4.0


def _check_crop(crop: object) -> np.ndarray:
    from vision.io import check_image

    if isinstance(crop, np.ndarray) and crop.ndim >= 2:
        h, w = crop.shape[:2]
        if min(h, w) < 8:
            raise ValueError(f"pit crop too small: {w}x{h} (need 8x8 or more)")
        if max(h, w) > MAX_CROP_ASPECT * min(h, w):
            raise ValueError(f"pit crop {w}x{h} is no crop of one pit: its sides differ more than "
                             f"{MAX_CROP_ASPECT:g} times (crop it to the pit, about square)")
    if isinstance(crop, np.ndarray) and crop.dtype == np.uint8 and crop.ndim == 3 \
            and crop.shape[2] == 3:
        return crop
    import cv2

    if isinstance(crop, np.ndarray) and crop.dtype == np.uint8 and crop.ndim == 2:
        return cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR)
    return check_image(crop)


def _square(img: np.ndarray) -> np.ndarray:
    """The centred square of a non-square crop (the pit is assumed centred)."""
    h, w = img.shape[:2]
    if h == w:
        return img
    n = min(h, w)
    y0, x0 = (h - n) // 2, (w - n) // 2
    return img[y0:y0 + n, x0:x0 + n]


# Changed-area evidence with a calibrated empty pit: the area differing from the
# template, in seeds, is ~ N(n, (A + B n)^2) for n seeds (B_UP above the estimate); the network's
# distribution is tempered by W before the product. Tuned on the photoreal
# renders numbered 1 mod 4 (benchmark reports all odd ones).
HYBRID_A, HYBRID_B, HYBRID_W, HYBRID_FLOOR = 0.7, 0.1, 1.0, 0.01
HYBRID_B_UP = 1.5


def combine_changed_area(p: np.ndarray, seeds: float) -> np.ndarray:
    """Product of the network's distribution ``p`` (tempered) and the changed-area likelihood."""
    n = np.arange(N_COUNTS, dtype=np.float64)
    # Seeds hidden under others add no area: more seeds than the area shows is far likelier
    # than fewer, so the likelihood is wide above the estimate.
    above = n > seeds
    sd = HYBRID_A + np.where(above, HYBRID_B_UP, HYBRID_B) * n
    norm = HYBRID_A + HYBRID_B * np.where(above, seeds, n)
    like = np.exp(-0.5 * ((seeds - n) / sd) ** 2) / norm
    q = np.power(np.clip(p, 1e-12, None), HYBRID_W)
    q = (1 - HYBRID_FLOOR) * q / q.sum() + HYBRID_FLOOR / N_COUNTS  # the network can be wrong
    q = q * like + 1e-300
    return q / q.sum()


def _result(p: np.ndarray, seeds: float | None = None) -> PitCount:
    p = np.asarray(p, np.float64)
    p = p / p.sum()
    if seeds is not None:
        p = combine_changed_area(p, seeds)
    k = int(np.argmax(p))
    return PitCount(k, p, float(p[k]))


def count_pit(crop_bgr: np.ndarray, look: SeedLook | None = None,
              views: int | None = None, broad: bool = False) -> PitCount:
    """Count the seeds in one square pit crop (BGR uint8); see the module doc.

    ``views``: the network's answers on this many turned (from 5 on, also mirrored)
    copies of the crop are averaged (default ``CountConfig.views``; 1 is fastest).
    ``broad``: also ask the second network (see :func:`count_pits`)."""
    return count_pits([crop_bgr], look, views, broad=broad)[0]


def count_pits(crops: Sequence[np.ndarray], look: SeedLook | None = None,
               views: int | Sequence[int] | None = None,
               recheck: tuple[float, int, int] | None = None,
               broad: bool = False) -> list[PitCount]:
    """:func:`count_pit` for many crops, batched.

    ``views``: one number for all crops, or one per crop. ``recheck`` = (below, views,
    max_count): the crops whose most likely count is at most ``max_count`` with a
    probability under ``below`` are read again at ``views`` views (the views already
    run are not run again), and that reading replaces the first
    (``CountConfig.recheck_*`` in the board pipeline). ``broad``: each crop is also read
    by a second network, ``vision/models/counter_cnn_broad.npz`` (trained mostly on
    procedural pits of many looks of wood, seeds and light), and the distribution is
    the normalised geometric mean of the two (``bao count-pit``: a crop of another
    board). The board pipeline reads its renders' kind of board as well with the
    board network alone, saving the broad network's time."""
    if not crops:
        return []
    squares = [_square(_check_crop(c)) for c in crops]
    first = np.broadcast_to(np.asarray(CountConfig.views if views is None else views, int),
                            (len(squares),))
    nets = [load_net()] + ([load_net(BROAD_MODEL_PATH)] if broad else [])
    x = nets[0].inputs(squares)
    logits = [net.mean_logits(x, first) for net in nets]
    probs = _combined(nets, logits, first)
    if recheck is not None:
        unsure = np.flatnonzero((probs.max(axis=1) < recheck[0]) & (probs.argmax(axis=1) <= recheck[2])
                                & (first < recheck[1]))
        if len(unsure):
            more = [net.mean_logits(x[unsure], recheck[1], known=(lg[unsure], first[unsure]))
                    for net, lg in zip(nets, logits, strict=True)]
            probs[unsure] = _combined(nets, more, recheck[1])
    if look is None or look.empty is None:
        return [_result(p) for p in probs]
    seeds = [look.changed_seeds(prepare(c)) for c in squares]
    return [_result(p, s) for p, s in zip(probs, seeds, strict=True)]


def _combined(nets: list[CountNet], logits: list[np.ndarray], views: int | np.ndarray) -> np.ndarray:
    """The first network's distributions, or with two the normalised geometric mean of
    both networks' (each at its own temperature), then the first network's heap
    widening."""
    if len(nets) == 1:
        return nets[0].calibrate(logits[0], views)
    logp = sum(np.log(np.maximum(net.calibrate(lg, views, widened=False), 1e-300))
               for net, lg in zip(nets, logits, strict=True)) / len(nets)
    p = np.exp(logp - logp.max(axis=1, keepdims=True))
    return nets[0].widened(p / p.sum(axis=1, keepdims=True))


def flat_counts(crops: Sequence[np.ndarray], look: SeedLook | None = None) -> list[PitCount]:
    """A stand-in counter with no information about counts (uniform over 0..40), for
    runs that need only the board pipeline's geometry (``recognize(counter=...)``)."""
    flat = np.full(N_COUNTS, 1.0 / N_COUNTS)
    return [PitCount(0, flat, 1.0 / N_COUNTS) for _ in crops]


def crop_smalls(crops: Sequence[np.ndarray]) -> np.ndarray:
    """Each crop as the empty-pit template sees it: Lab, ``TEMPLATE`` x ``TEMPLATE`` px
    (n, 24, 24, 3), float32 (the covered test here and :mod:`vision.context` compare these)."""
    return np.stack([small_lab(prepare(_square(_check_crop(c)))) for c in crops]).astype(np.float32)


def unlike_empty(crops: Sequence[np.ndarray], candidates: np.ndarray, sure: np.ndarray,
                 z_min: float, min_sure: int = 3, min_shift: float = 0.0,
                 smalls: np.ndarray | None = None, near: int = 0,
                 pool: np.ndarray | None = None) -> np.ndarray:
    """Which ``candidates`` (bools, one per crop) look unlike the board's ``sure`` empty pits.

    The template is the median of the sure empty pits' crops (Lab, ``TEMPLATE`` px, over
    the pit); a crop's difference is its mean Lab distance to it (L1 over L, a, b), and
    its score that difference over the 90th percentile of the sure pits' own. A pit read
    as empty whose rim shows weakly is either an empty pit with a soft rim (it looks
    like the others: scores under 1.7 on 442 renders) or something over the pit, a hand,
    a sleeve (half of them score over 4.7). Something lying over a pit also shifts its
    mean colour: a candidate must also differ from the template on average by
    ``min_shift`` or more (the L1 norm of its mean Lab difference). An empty pit that
    only lacks the others' highlight, lit from another side, differs in pattern but
    hardly on average. Returns bools, True where a candidate scores over ``z_min``
    (and shifts by ``min_shift``); all False when fewer than ``min_sure`` pits are sure
    (nothing to compare with) or no pit is a candidate. ``smalls``: the crops already
    made small (:func:`crop_smalls`), not made again.

    ``near`` (with ``pool``, bools over the 32 pits in :data:`vision.holes.HOLES` order:
    pits surely read as empty): each candidate is compared with the median of the
    ``near`` pits of the pool nearest to it on the board (rows and columns apart; the
    candidates left out) instead of the whole board's template, when the pool holds at
    least ``max(near, min_sure)`` such pits. A board lit from one end has its far pits
    darker or softer than the surely empty ones, which lie where the rims show best;
    beside a pit, its neighbours are lit alike, while a hand still differs from them.
    The scale stays the board's.
    """
    cand = np.asarray(candidates, bool)
    ref = np.asarray(sure, bool)
    out = np.zeros(len(crops), bool)
    if len(cand) != len(crops) or len(ref) != len(crops):
        raise ValueError(f"unlike_empty: {len(crops)} crops, {len(cand)} candidates, {len(ref)} sure")
    if not cand.any() or np.count_nonzero(ref) < max(min_sure, 1):
        return out
    local = None  # the pits each candidate is compared with near it (``near``), if enough
    if near > 0 and pool is not None and len(crops) == len(HOLES):
        local = np.flatnonzero(np.asarray(pool, bool) & ~cand)
        if len(local) < max(near, min_sure):
            local = None
    keep = cand | ref
    if local is not None:
        keep[local] = True
    idx = np.flatnonzero(keep)
    if smalls is None:
        made = crop_smalls([crops[int(i)] for i in idx])
        pits = {int(i): made[j][PIT_MASK_T] for j, i in enumerate(idx)}
    else:
        pits = {int(i): np.asarray(smalls[int(i)], np.float32)[PIT_MASK_T] for i in idx}
    template = np.median(np.stack([pits[int(i)] for i in np.flatnonzero(ref)]), axis=0)

    def diff(i: int, against: np.ndarray = template) -> float:
        return float(np.abs(pits[i] - against).sum(axis=1).mean())

    scale = max(float(np.percentile([diff(int(i)) for i in np.flatnonzero(ref)], 90)), 1e-3)
    for i in np.flatnonzero(cand):
        own = template
        if local is not None:
            apart = np.abs(_CELLS[local] - _CELLS[i]).sum(axis=1)
            nearest = local[np.argsort(apart, kind="stable")[:near]]
            own = np.median(np.stack([pits[int(j)] for j in nearest]), axis=0)
        shift = float(np.abs((pits[int(i)] - own).mean(axis=0)).sum())
        out[i] = diff(int(i), own) / scale > z_min and shift >= min_shift
    return out


def interval(probabilities: np.ndarray, mass: float = 0.9) -> tuple[int, int]:
    """Shortest run of counts [lo, hi] around the mode holding at least ``mass`` of the probability."""
    p = np.asarray(probabilities, np.float64)
    lo = hi = int(np.argmax(p))
    acc = p[lo]
    while acc < mass - 1e-9 and (lo > 0 or hi < len(p) - 1):
        left = p[lo - 1] if lo > 0 else -1.0
        right = p[hi + 1] if hi < len(p) - 1 else -1.0
        if right >= left:
            hi += 1
            acc += p[hi]
        else:
            lo -= 1
            acc += p[lo]
    return lo, hi
