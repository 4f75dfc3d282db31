"""Settled-board detection: read the board only when nothing has moved for a while.

While hands move over the board the seed counts are meaningless, so the
referee reads nothing until the view has been still for ``settle_seconds``.
:class:`SettleDetector` is fed every frame with its timestamp and says when a
new settled view is ready (once per still period).

Motion is measured on a small blurred grey copy of the frame (NumPy
``[row, col]``): the fraction of pixels whose grey level changed by more than
``pixel_threshold`` since the previous frame. Optionally only the board area
counts (``set_board`` with the four corners in image pixels ``[x, y]``, the
project's corner order), so people moving beside the board do not stop it
settling.

Run alone on a video to see the settled instants::

    python3 -m vision.motion VIDEO [--settle 0.8]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class MotionConfig:
    """Thresholds of the settle detector.

    Attributes:
        settle_seconds: how long the view must stay still before it is read.
        pixel_threshold: grey-level change (0..255) that counts a pixel as changed.
        moving_fraction: fraction of changed pixels above which the frame is moving.
        width: width in pixels of the grey copy the comparison runs on.
    """

    settle_seconds: float = 0.8
    pixel_threshold: int = 18
    moving_fraction: float = 0.004
    width: int = 192


@dataclass(frozen=True)
class MotionState:
    """The detector's answer for one frame.

    Attributes:
        moving: this frame differs from the previous one.
        changed_fraction: fraction of (board) pixels that changed.
        still_for: seconds since the last motion.
        settled: the view has been still for ``settle_seconds``.
        ready: True exactly once per still period, on the frame to read.
    """

    moving: bool
    changed_fraction: float
    still_for: float
    settled: bool
    ready: bool


class SettleDetector:
    """Tells moving frames from settled ones; feed it every frame in order."""

    def __init__(self, config: MotionConfig | None = None) -> None:
        self.config = config or MotionConfig()
        self._previous: np.ndarray | None = None
        self._still_since: float | None = None
        self._reported = False
        self._board: np.ndarray | None = None
        self._mask: np.ndarray | None = None

    def reset(self) -> None:
        """Forget the history (e.g. after the camera changed)."""
        self._previous = None
        self._still_since = None
        self._reported = False
        self._mask = None

    def set_board(self, corners_px: Sequence[Sequence[float]] | None) -> None:
        """Count motion only inside the board outline (4 image points ``[x, y]``); None: whole frame."""
        self._board = None if corners_px is None else np.asarray(corners_px, dtype=np.float32).reshape(4, 2)
        self._mask = None

    def _grey(self, image_bgr: np.ndarray) -> tuple[np.ndarray, float]:
        if image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
            raise ValueError(f"expected a BGR image (rows, cols, 3), got shape {image_bgr.shape}")
        h, w = image_bgr.shape[:2]
        scale = self.config.width / float(w)
        small = cv2.resize(image_bgr, (self.config.width, max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
        grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        return cv2.GaussianBlur(grey, (5, 5), 0), scale

    def update(self, image_bgr: np.ndarray, t: float) -> MotionState:
        """Feed the next frame taken at time ``t`` (seconds, increasing)."""
        grey, scale = self._grey(image_bgr)
        if self._board is not None and (self._mask is None or self._mask.shape != grey.shape):
            mask = np.zeros(grey.shape, np.uint8)
            cv2.fillConvexPoly(mask, np.round(self._board * scale).astype(np.int32), 1)
            self._mask = mask.astype(bool) if mask.any() else None
        if self._previous is None or self._previous.shape != grey.shape:
            fraction = 1.0
        else:
            changed = cv2.absdiff(grey, self._previous) > self.config.pixel_threshold
            if self._mask is not None:
                fraction = float(changed[self._mask].mean())
            else:
                fraction = float(changed.mean())
        self._previous = grey
        moving = fraction > self.config.moving_fraction
        if moving or self._still_since is None:
            if moving:
                self._reported = False
            self._still_since = t
        still_for = t - self._still_since
        settled = not moving and still_for >= self.config.settle_seconds
        ready = settled and not self._reported
        if ready:
            self._reported = True
        return MotionState(moving, fraction, still_for, settled, ready)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the settled instants of a video (debugging aid)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("video")
    parser.add_argument("--settle", type=float, default=MotionConfig.settle_seconds)
    args = parser.parse_args(argv)
    cap = cv2.VideoCapture(args.video)
    if not cap.isOpened():
        print(f"cannot open video {args.video!r}", file=sys.stderr)
        return 2
    fps = cap.get(cv2.CAP_PROP_FPS) or 25.0
    detector = SettleDetector(MotionConfig(settle_seconds=args.settle))
    index = 0
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        state = detector.update(frame, index / fps)
        if state.ready:
            print(f"settled at frame {index} ({index / fps:.2f} s)")
        index += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
