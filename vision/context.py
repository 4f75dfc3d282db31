"""Each pit read against the board's other pits (stage 3, after the counter).

The counter (:mod:`vision.count`) reads every pit alone, from a 64 px crop, so it
cannot know how large one seed looks on this board: four big seeds and six small
ones can fill a pit alike. The board's other pits know. The pits it reads surely
as empty show what an empty pit looks like here (the wood, the bowl's shading, the
light); the pits it reads surely as one to three seeds show how much of a crop one
seed changes. Every pit's changed area, in seeds (``ratio``), is then a second clue
to its count, strongest for the pits of 4-8 seeds that the counter reads worst.

A small learnt model (:class:`ContextModel`, 16 hidden units) turns the counter's
log-probabilities for 0..k-1 seeds (the shipped model: k = 9, counts 0..8) and the
pit's clues into new log-probabilities: the counter's own plus a learnt correction,
zero at the start of training. Pits the counter reads as k or more are left as they
are (heaps hide most of their seeds; their widening is fitted on the counter's own
reading), and so is the share of probability the counter gives to k or more. The model is trained by
``python -m vision.train_context`` on the pipeline's crops of labelled renders the
counter was never trained on; the feature settings are stored with its weights, so
a model is always read with the features it was trained on.

When a board has fewer than ``min_empty`` surely empty pits or fewer than
``min_seeded`` pits read surely as 1-3 seeds, there is nothing to compare with and
the counter's reading stands.

Run alone: ``python -m vision.context IMAGE [--south SIDE]`` prints each pit's
counts before and after, and its clue.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from vision.count import crop_smalls
from vision.errors import stage_main
from vision.features import PIT_MASK_T

MODEL_PATH = Path(__file__).with_name("models") / "counter_context.npz"


@dataclass(frozen=True)
class FeatureSettings:
    """How a board's clues are measured (stored with the model that was trained on them)."""

    sure_empty: float = 0.95  # a pit read as empty with this probability or more shows the empty look
    min_empty: int = 3  # ... and at least this many of them are needed
    changed_pct: float = 99.0  # a pixel is changed beyond this percentile of the empty pits' differences
    changed_mult: float = 1.2  # ... times this
    changed_add: float = 0.02  # ... plus this (Lab, 0..1 scale, L1 over L, a, b)
    sure_seeded: float = 0.9  # a pit read as 1-3 seeds with this probability or more sizes one seed
    min_seeded: int = 2  # ... and at least this many of them are needed

    def to_array(self) -> np.ndarray:
        return np.array([self.sure_empty, self.min_empty, self.changed_pct, self.changed_mult,
                         self.changed_add, self.sure_seeded, self.min_seeded], np.float64)

    @classmethod
    def from_array(cls, a: np.ndarray) -> FeatureSettings:
        v = [float(x) for x in np.asarray(a, np.float64).ravel()]
        if len(v) != 7:
            raise ValueError(f"feature settings: expected 7 numbers, got {len(v)}")
        return cls(v[0], int(v[1]), v[2], v[3], v[4], v[5], int(v[6]))


DEFAULT_SETTINGS = FeatureSettings()
N_FEATURES = 3  # ratio, log(ratio + 0.3), 1


def context_features(smalls: np.ndarray, probs: np.ndarray,
                     settings: FeatureSettings = DEFAULT_SETTINGS) -> tuple[np.ndarray, bool]:
    """Per pit (n, N_FEATURES): its changed area in seeds, that number's log, and 1; and
    whether the board had enough surely empty and surely seeded pits to measure it
    (False: all zeros). ``smalls`` from :func:`crop_smalls`, ``probs`` the counter's (n, 41)."""
    s = np.asarray(smalls, np.float32)
    p = np.asarray(probs, np.float64)
    if s.ndim != 4 or len(s) != len(p):
        raise ValueError(f"context_features: {len(s)} crops but {len(p)} distributions")
    out = np.zeros((len(p), N_FEATURES))
    empty = p[:, 0] >= settings.sure_empty
    if np.count_nonzero(empty) < settings.min_empty:
        return out, False
    template = np.median(s[empty], axis=0)
    diff = np.abs(s - template).sum(axis=-1)[:, PIT_MASK_T]  # (n, pixels in the pit)
    thr = float(np.percentile(diff[empty], settings.changed_pct)) * settings.changed_mult + settings.changed_add
    changed = (diff > thr).sum(axis=1).astype(np.float64)
    mode = p.argmax(axis=1)
    seeded = (p.max(axis=1) >= settings.sure_seeded) & (mode >= 1) & (mode <= 3)
    if np.count_nonzero(seeded) < settings.min_seeded:
        return out, False
    per_seed = max(float(np.median(changed[seeded] / mode[seeded])), 1.0)
    ratio = changed / per_seed
    out[:, 0] = ratio
    out[:, 1] = np.log(ratio + 0.3)
    out[:, 2] = 1.0
    return out, True


def model_inputs(lk: np.ndarray, feats: np.ndarray) -> np.ndarray:
    """The model's inputs (n, k + N_FEATURES): the counter's log-probabilities over 0..k-1
    (``lk``), clipped to -15..0 and scaled by 1/5, then the pit's clues (trained and read
    alike: :func:`vision.train_context.train` builds them here too)."""
    return np.concatenate([np.clip(lk, -15.0, 0.0) / 5.0, feats], axis=1)


@dataclass(frozen=True)
class ContextModel:
    """The learnt correction: z = logp[:k] + W2 tanh(W1 [clip(logp[:k], -15, 0) / 5, f] + b1) + b2."""

    w1: np.ndarray  # (k + N_FEATURES, hidden)
    b1: np.ndarray  # (hidden,)
    w2: np.ndarray  # (hidden, k)
    b2: np.ndarray  # (k,)
    settings: FeatureSettings = DEFAULT_SETTINGS
    note: str = ""

    @property
    def k(self) -> int:
        return int(self.w2.shape[1])

    def __post_init__(self) -> None:
        k = self.w2.shape[1]
        if (self.w1.shape[0] != k + N_FEATURES or self.w1.shape[1] != self.w2.shape[0]
                or self.b1.shape != (self.w1.shape[1],) or self.b2.shape != (k,)):
            raise ValueError(f"context model: inconsistent shapes {self.w1.shape} {self.b1.shape} "
                             f"{self.w2.shape} {self.b2.shape}")

    def save(self, path: Path) -> None:
        np.savez(path, w1=self.w1, b1=self.b1, w2=self.w2, b2=self.b2,
                 settings=self.settings.to_array(), note=np.array(self.note))

    @classmethod
    def load(cls, path: Path) -> ContextModel:
        try:
            with np.load(path) as z:
                return cls(z["w1"].astype(np.float64), z["b1"].astype(np.float64),
                           z["w2"].astype(np.float64), z["b2"].astype(np.float64),
                           FeatureSettings.from_array(z["settings"]), str(z["note"]))
        except (OSError, KeyError, ValueError) as exc:
            raise ValueError(f"cannot read the context model {path}: {exc}") from exc

    def logits(self, logp: np.ndarray, feats: np.ndarray) -> np.ndarray:
        """New log-scores over 0..k-1 for pits (n, 41) log-probabilities and (n, N_FEATURES)."""
        lk = logp[:, : self.k]
        return lk + np.tanh(model_inputs(lk, feats) @ self.w1 + self.b1) @ self.w2 + self.b2

    def adjust(self, probs: np.ndarray, feats: np.ndarray) -> np.ndarray:
        """The distributions (n, 41) re-read: for each pit the counter reads as fewer than k
        seeds, its probability over 0..k-1 is shared out anew (the same total); the rest
        is left as it was."""
        p = np.asarray(probs, np.float64)
        out = p.copy()
        sel = p.argmax(axis=1) < self.k
        if not sel.any():
            return out
        logp = np.log(np.clip(p[sel], 1e-9, 1.0))
        z = self.logits(logp, np.asarray(feats, np.float64)[sel])
        z -= z.max(axis=1, keepdims=True)
        q = np.exp(z)
        q /= q.sum(axis=1, keepdims=True)
        out[sel, : self.k] = q * p[sel, : self.k].sum(axis=1, keepdims=True)
        return out


@lru_cache(maxsize=4)
def load_model(path: str | None = None) -> ContextModel | None:
    """The shipped model (None when its file is missing: the counter's reading stands)."""
    p = Path(path) if path else MODEL_PATH
    if not p.exists():
        return None
    return ContextModel.load(p)


def apply_context(crops: Sequence[np.ndarray], probs: np.ndarray, model: ContextModel | None = None,
                  smalls: np.ndarray | None = None) -> tuple[np.ndarray, bool]:
    """The counter's distributions (n, 41) read against the board's other pits, and
    whether they were (False: too few sure pits to compare with, or no model)."""
    model = model if model is not None else load_model()
    p = np.asarray(probs, np.float64)
    if model is None or len(crops) != len(p) or len(p) == 0:
        return p, False
    s = crop_smalls(crops) if smalls is None else smalls
    feats, ok = context_features(s, p, model.settings)
    if not ok:
        return p, False
    return model.adjust(p, feats), True


def counter_reading(image: np.ndarray, south: str = "bottom") -> tuple[Any, list[np.ndarray], np.ndarray]:
    """The board pipeline's reading of ``image`` with its own 32 crops (HOLES order) and the
    counter's distributions (32, 41) as they were before this step: ``recognize`` with the
    pipeline's own counter hooked (a counter given to ``recognize`` turns this step off).
    Raises what ``recognize`` raises (BoardNotFound, ...)."""
    from vision.config import DEFAULT
    from vision.pipeline import _default_counter, recognize

    cc = DEFAULT.count
    got: list[Any] = []

    def counter(crops: Sequence[np.ndarray], look: Any) -> Sequence[Any]:
        results = _default_counter(crops, look, cc.views, cc.nyumba_views,
                                   (cc.recheck_below, cc.recheck_views, cc.recheck_max_count))
        got[:] = [list(crops), np.array([r.probabilities for r in results], np.float64)]
        return results

    rec = recognize(image, south, counter=counter)
    return rec, got[0], got[1]


@stage_main
def main(argv: list[str] | None = None) -> int:
    from vision.holes import HOLES
    from vision.io import read_image

    ap = argparse.ArgumentParser(description="Each pit of a board photo read against the board's other pits.")
    ap.add_argument("image")
    ap.add_argument("--south", default="bottom", choices=["bottom", "top", "left", "right"])
    args = ap.parse_args(argv)
    model = load_model()
    if model is None:
        print(f"error: no context model at {MODEL_PATH}", file=sys.stderr)
        return 2
    _rec, crops, probs = counter_reading(read_image(args.image), args.south)
    feats, ok = context_features(crop_smalls(crops), probs, model.settings)
    after = model.adjust(probs, feats) if ok else probs
    rows = {n: {"counter": int(probs[i].argmax()), "in_context": int(after[i].argmax()),
                "seeds_by_area": round(float(feats[i, 0]), 2)} for i, n in enumerate(HOLES)}
    print(json.dumps({"compared": ok, "pits": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
