"""Vision: one camera image of a Bao board -> per-pit seed-count probabilities.

Stages (one module each, each runnable alone with ``python -m vision.STAGE IMG``):
:mod:`vision.locate` (board corners) -> :mod:`vision.rectify` (canonical top
view) -> :mod:`vision.grid` (4 x 8 pit centres) -> :mod:`vision.count`
(per-pit distribution) -> :mod:`vision.decode` (position + status).
:func:`vision.pipeline.recognize` runs them all.

Names are imported lazily so ``import vision`` does not load OpenCV.
"""

from __future__ import annotations

from typing import Any

__all__ = ["recognize", "count_pit", "Recognition", "PitCount", "BoardProfile"]

_WHERE = {
    "recognize": "vision.pipeline",
    "Recognition": "vision.pipeline",
    "count_pit": "vision.count",
    "PitCount": "vision.count",
    "BoardProfile": "vision.profile",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'vision' has no attribute {name!r}")
