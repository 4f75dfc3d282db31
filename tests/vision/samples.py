"""Where the committed renders lie (``sample_images/``: the singles, the games and the
hard renders, each of which showed a rule of the board pipeline), how far a
reading's corners and pits lie from their labels, and the benchmark scripts as modules."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.holes import HOLES

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_images"
SINGLES = SAMPLES / "singles"
GAMES = SAMPLES / "games"
HARD = SAMPLES / "hard"


def hard_sample(name: str) -> tuple[np.ndarray, dict]:
    """A render kept in sample_images/hard/ and its label."""
    path = HARD / f"{name}.jpg"
    return cv2.imread(str(path)), json.loads(path.with_suffix(".json").read_text())


def corner_error(found: np.ndarray, true: np.ndarray) -> float:
    """Largest corner distance, over the 4 cyclic rotations of ``found`` (order-free)."""
    return min(float(np.linalg.norm(np.roll(found, k, 0) - true, axis=1).max()) for k in range(4))


def corner_errors(rec: Any, label: dict) -> np.ndarray:
    """Each of a reading's board corners against the label's, image px (in order)."""
    return np.linalg.norm(np.subtract(rec.board_corners_px, label["corners_px"]), axis=1)


def pit_offsets(centres: dict, label: dict) -> np.ndarray:
    """Each pit's centre (``{hole: [x, y]}``) against the label's, image px (HOLES order)."""
    return np.array([np.linalg.norm(np.subtract(centres[n], label["pit_centers_px"][n])) for n in HOLES])


def grid_changed(**changes: Any) -> Any:
    """The default vision settings with these ``GridConfig`` fields changed."""
    from dataclasses import replace

    from vision.config import DEFAULT

    return replace(DEFAULT, grid=replace(DEFAULT.grid, **changes))


def load_benchmark(name: str) -> Any:
    """``benchmarks/NAME.py`` loaded as a module (the benchmarks are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
