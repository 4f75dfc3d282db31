"""Settled-board detection: read the board only when nothing has moved for a while.

While hands move over the board the seed counts are meaningless, so the
referee reads nothing until the view has been still for ``settle_seconds``.
:class:`SettleDetector` is fed every frame with its timestamp and says when a
new settled view is ready (once per still period).

Motion is measured on a small blurred grey copy of the frame (NumPy
``[row, col]``): the fraction of pixels whose grey level changed by more than
``pixel_threshold`` since the previous frame. Once a still view has been read,
a finer copy is compared with the view read: if seeds changed without any
visible motion (a move between two frames of a slow camera), the still clock
restarts and the new view is read when it has settled. Optionally only the board area
counts (``set_board`` with the four corners in image pixels ``[x, y]``, the
project's corner order), so people moving beside the board do not stop it
settling.

Run alone on a video to see the settled instants::

    python3 -m vision.motion VIDEO [--settle 0.8]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.rectify import pit_spacing


@dataclass(frozen=True)
class MotionConfig:
    """Thresholds of the settle detector.

    Attributes:
        settle_seconds: how long the view must stay still before it is read.
        pixel_threshold: grey-level change (0..255) that counts a pixel as changed.
        moving_fraction: fraction of changed pixels above which the frame is moving.
        width: width in pixels of the grey copy the comparison runs on.
        detail_width: width of the finer grey copy compared with the last view
            read: a move made without visible motion between two frames (a
            slow camera, a skipped hand) still changes a few seeds.
        detail_threshold: grey-level change that counts a pixel as changed
            since the last view read.
        detail_fraction: fraction of such pixels (inside the board, when known)
            that means the board changed since it was read: the still clock
            restarts and the view is read again once it has settled.
    """

    settle_seconds: float = 0.8
    pixel_threshold: int = 18
    moving_fraction: float = 0.004
    width: int = 192
    detail_width: int = 640
    # (40 until the thirty-eighth session: small brown seeds sown into a pale board's pits
    # changed 0.0002-0.00045 of game_05 by that much, and four moves went unread; brown
    # seeds in a golden board's pits under an overcast sky (a game of seed 101) changed
    # under detail_fraction by 25 on 9 moves of 16. At 15, after taking away the median
    # difference (an exposure change), every move of 15 rendered games changes 0.00076 or
    # more of the board; a still view under webcam noise (sd 6-10) made 4-10 % brighter or
    # darker passes detail_fraction on two of them (0.0009 and 0.0022: a needless reading,
    # which finds the board unchanged))
    detail_threshold: int = 15
    detail_fraction: float = 0.0005


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
        self._read_detail: np.ndarray | None = None
        self._detail_mask: np.ndarray | None = None

    def reset(self) -> None:
        """Forget the history (e.g. after the camera changed)."""
        self._previous = None
        self._still_since = None
        self._reported = False
        self._mask = None
        self._read_detail = None
        self._detail_mask = None

    def set_board(self, corners_px: Sequence[Sequence[float]] | None) -> None:
        """Count motion only inside the board outline (4 image points ``[x, y]``); None: whole frame."""
        self._board = None if corners_px is None else np.asarray(corners_px, dtype=np.float32).reshape(4, 2)
        self._mask = None
        self._detail_mask = None

    def _grey(self, image_bgr: np.ndarray, width: int) -> tuple[np.ndarray, float]:
        if image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
            raise ValueError(f"expected a BGR image (rows, cols, 3), got shape {image_bgr.shape}")
        h, w = image_bgr.shape[:2]
        scale = width / float(w)
        small = cv2.resize(image_bgr, (width, max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
        grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        return cv2.GaussianBlur(grey, (5, 5), 0), scale

    def _board_mask(self, shape: tuple[int, ...], scale: float) -> np.ndarray | None:
        if self._board is None:
            return None
        mask = np.zeros(shape, np.uint8)
        cv2.fillConvexPoly(mask, np.round(self._board * scale).astype(np.int32), 1)
        return mask.astype(bool) if mask.any() else None

    @staticmethod
    def _changed(a: np.ndarray, b: np.ndarray, threshold: int, mask: np.ndarray | None,
                 level: bool = False) -> float:
        """The share of (mask) pixels whose grey level differs by more than ``threshold``;
        ``level``: after taking away the median difference (a camera's exposure or a cloud
        changes every pixel alike, a seed only its own)."""
        if level:
            d = a.astype(np.int16) - b.astype(np.int16)
            d -= np.int16(np.median(d[mask] if mask is not None else d))
            changed = np.abs(d) > threshold
        else:
            changed = cv2.absdiff(a, b) > threshold
        return float(changed[mask].mean()) if mask is not None else float(changed.mean())

    def update(self, image_bgr: np.ndarray, t: float) -> MotionState:
        """Feed the next frame taken at time ``t`` (seconds, increasing)."""
        cfg = self.config
        grey, scale = self._grey(image_bgr, cfg.width)
        if self._board is not None and (self._mask is None or self._mask.shape != grey.shape):
            self._mask = self._board_mask(grey.shape, scale)
        if self._previous is None or self._previous.shape != grey.shape:
            fraction = 1.0
        else:
            fraction = self._changed(grey, self._previous, cfg.pixel_threshold, self._mask)
        self._previous = grey
        moving = fraction > cfg.moving_fraction
        if moving or self._still_since is None:
            if moving:
                self._reported = False
            self._still_since = t
        elif self._reported and self._read_detail is not None:
            # still, and already read: did seeds change since that reading?
            detail, dscale = self._grey(image_bgr, cfg.detail_width)
            if self._detail_mask is None or self._detail_mask.shape != detail.shape:
                self._detail_mask = self._board_mask(detail.shape, dscale)
            if detail.shape == self._read_detail.shape and self._changed(
                detail, self._read_detail, cfg.detail_threshold, self._detail_mask, level=True
            ) > cfg.detail_fraction:
                self._reported = False
                self._still_since = t
        still_for = t - self._still_since
        settled = not moving and still_for >= cfg.settle_seconds
        ready = settled and not self._reported
        if ready:
            self._reported = True
            self._read_detail = self._grey(image_bgr, cfg.detail_width)[0]
        return MotionState(moving, fraction, still_for, settled, ready)


@dataclass(frozen=True)
class ChangeConfig:
    """Thresholds of the per-pit change map between two settled views.

    Attributes:
        pixel_threshold: grey-level change (0..255, after a 5 x 5 blur) that
            counts a pixel as changed.
        radius_frac: pit disk radius as a fraction of the distance to the
            nearest pit centre.
        low: changed-pixel fraction at or below which a pit surely did not change.
        high: fraction at or above which it surely did.
        camera_moved: fraction of pits changed above which the camera (or the
            board) moved: the map is then not evidence about seeds.
    """

    pixel_threshold: int = 30
    radius_frac: float = 0.42
    low: float = 0.01
    high: float = 0.03
    camera_moved: float = 0.6


def matched_levels(grey: np.ndarray, like: np.ndarray) -> np.ndarray:
    """``grey`` (uint8) with its grey levels mapped so that their distribution matches
    ``like``'s (histogram matching): the same scene after the light changed, or the
    webcam's exposure (a lamp switched on, a cloud, an arm that came and went), looks as
    it did, while seeds moved in a few pits still differ. Two views of one light come
    back nearly as they were (a level or two off)."""
    have = np.cumsum(_histogram(grey)) / grey.size
    want = np.cumsum(_histogram(like)) / like.size
    lut = np.clip(np.searchsorted(want, have - 1e-9), 0, 255).astype(np.uint8)
    return cv2.LUT(grey, lut)


def _histogram(grey: np.ndarray) -> np.ndarray:
    """Pixels of each grey level 0..255 of a uint8 image (int64): ``np.bincount`` of its
    levels, counted by OpenCV (several times faster on a camera frame)."""
    return cv2.calcHist([grey], [0], None, [256], [0, 256]).ravel().astype(np.int64)


def pit_changes(
    before_bgr: np.ndarray,
    after_bgr: np.ndarray,
    pit_centers_px: Mapping[str, Sequence[float]],
    config: ChangeConfig | None = None,
) -> dict[str, float] | None:
    """Probability that each pit's seeds changed between two settled views of a fixed camera.

    The views are compared once the first's grey levels are matched to the second's
    (:func:`matched_levels`): a change of light between them is no change of seeds.
    ``pit_centers_px`` maps hole names to image points ``[x, y]`` (both views
    share them). Returns ``{hole: p_changed}`` with p in [0.02, 0.98], or None
    when the views cannot be compared (different sizes, the camera moved).
    """
    cfg = config or ChangeConfig()
    if before_bgr.shape != after_bgr.shape or len(pit_centers_px) < 2:
        return None
    a = cv2.GaussianBlur(cv2.cvtColor(before_bgr, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    b = cv2.GaussianBlur(cv2.cvtColor(after_bgr, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    changed = cv2.absdiff(matched_levels(a, b), b) > cfg.pixel_threshold
    names = list(pit_centers_px)
    pts = np.asarray([pit_centers_px[n] for n in names], np.float64).reshape(-1, 2)
    radius = cfg.radius_frac * pit_spacing(pts)
    h, w = changed.shape
    out: dict[str, float] = {}
    for name, (x, y) in zip(names, pts, strict=True):
        x0, x1 = max(0, int(x - radius)), min(w, int(x + radius) + 1)
        y0, y1 = max(0, int(y - radius)), min(h, int(y + radius) + 1)
        if x0 >= x1 or y0 >= y1:
            return None
        yy, xx = np.ogrid[y0:y1, x0:x1]
        disk = (xx - x) ** 2 + (yy - y) ** 2 <= radius * radius
        fraction = float(changed[y0:y1, x0:x1][disk].mean())
        t = (fraction - cfg.low) / (cfg.high - cfg.low)
        out[name] = float(np.clip(t, 0.02, 0.98))
    if sum(p > 0.5 for p in out.values()) > cfg.camera_moved * len(out):
        return None
    return out


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
