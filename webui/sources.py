"""Frame sources: where the referee's pictures of the board come from.

Every source is a :class:`FrameSource`: ``read()`` returns the next
:class:`Frame` or None when the source has ended. Frames posted by the
browser's camera do not need a source object: the web page posts them and
the view hands each straight to :meth:`webui.live.LiveReferee.feed`, the same
entry point the pull sources' loop uses.

- :class:`CameraSource`: a local webcam (``cv2.VideoCapture(index)``). A webcam that
  stops giving pictures (a USB hiccup, unplugged, taken by another program) is
  opened again and again until it gives them back; meanwhile its ``read`` raises
  :class:`SourceLapse` now and then, so that the reader can say so and go on.
- :class:`VideoFileSource`: a recorded video (timestamps from its frame rate).
- :class:`StillsSource`: a folder of still images in name order, each one
  taken as a settled view of the board (a phone's photos after each move).
- :class:`GameSequenceSource`: a rendered game sequence
  (``sample_images/games/<game>/``) replayed as a virtual camera, showing each
  frame for a while as if it were live (``bao serve --demo``).

:func:`open_source` turns a command-line SOURCE (camera index, video file,
folder) into the right one.
"""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

import vision.io
from vision.errors import ImageUnreadable

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
#: The largest camera index: OpenCV takes it as a C int (a larger one is a cv2.error).
MAX_CAMERA_INDEX = 2**31 - 1


@dataclass
class Frame:
    """One picture of the board.

    Attributes:
        image: BGR uint8 image, NumPy ``[row, col, channel]``.
        t: capture time in seconds (increasing within a source).
        still: True when the frame is by itself a settled view (a still
            photo): it is read at once, without waiting for the board to settle.
        name: file name or frame number, for messages.
    """

    image: np.ndarray
    t: float
    still: bool = False
    name: str = ""


class FrameSource(ABC):
    """A stream of frames; ``read`` blocks until the next frame (real-time sources)."""

    kind: str = "source"
    skipped: list[str]
    """What the source passed over, oldest first: one line for each frame it could not
    read (a still that is no image) and for each lapse of a camera and its end, for the
    referee to report; the game goes on."""

    def __init__(self) -> None:
        self.skipped = []
        self._told = 0  # of skipped, handed out by new_skips

    def new_skips(self) -> list[str]:
        """The lines of :attr:`skipped` added since the last call, to report once each."""
        fresh, self._told = self.skipped[self._told:], len(self.skipped)
        return fresh

    @abstractmethod
    def read(self) -> Frame | None:
        """The next frame, or None when the source has ended."""

    def close(self) -> None:  # noqa: B027 - sources without a device have nothing to release
        """Release the device or file."""

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}


class SourceLapse(OSError):
    """A live source has given no frame for a while and is still trying: say so and read
    again (the message names the source and for how long)."""


def read_frame(source: FrameSource) -> tuple[Frame | None, bool]:
    """``source.read()``, and whether the source lapsed instead (:class:`SourceLapse`: no
    frame for now, a camera trying again; read again, after saying what its
    :meth:`FrameSource.new_skips` says)."""
    try:
        return source.read(), False
    except SourceLapse:
        return None, True


class CameraSource(FrameSource):
    """A local webcam through OpenCV.

    A camera never ends by itself: when it stops giving pictures (``read`` fails: a USB
    hiccup, the cable pulled, another program holding it), it is tried again every
    ``retry_every`` seconds and opened again every ``reopen_every`` seconds, until it
    gives pictures again or the reader stops. ``read`` gives the reader control back
    every ``hold`` seconds meanwhile, raising :class:`SourceLapse` (so that a reader asked
    to stop can). After ``lapse_after`` seconds without a picture, and every
    ``tell_every`` seconds after that, a line in :attr:`skipped` says so; when pictures
    come back, another says after how long. ``open_camera``, ``clock`` and ``pause``
    stand in for ``cv2.VideoCapture``, ``time.monotonic`` and ``time.sleep`` (tests).
    """

    kind = "camera"

    def __init__(self, index: int = 0, *, lapse_after: float = 1.0, tell_every: float = 10.0,
                 reopen_every: float = 2.0, retry_every: float = 0.05, hold: float = 0.5,
                 open_camera: Callable[[int], Any] = cv2.VideoCapture,
                 clock: Callable[[], float] = time.monotonic,
                 pause: Callable[[float], None] = time.sleep) -> None:
        super().__init__()
        self.index = index
        self.lapse_after, self.tell_every = lapse_after, tell_every
        self.reopen_every, self.retry_every, self.hold = reopen_every, retry_every, hold
        self._open_camera, self._clock, self._pause = open_camera, clock, pause
        self._cap = open_camera(index)
        if not self._cap.isOpened():
            raise OSError(f"cannot open camera {index}")
        self._t0 = self._opened = clock()
        self._lost: float | None = None  # when the pictures stopped
        self._said: float | None = None  # when that was last said
        self.reopened = 0  # times the camera was opened again

    def read(self) -> Frame | None:
        """The next picture; while there is none, tries again (and opens the camera again),
        raising :class:`SourceLapse` every ``hold`` seconds to hand control back."""
        began = self._clock()
        while True:
            ok, image = self._cap.read()
            now = self._clock()
            if ok and image is not None and image.size:
                if self._lost is not None:
                    if self._said is not None:
                        self.skipped.append(f"camera {self.index}: pictures again after {now - self._lost:.0f} s")
                    self._lost = self._said = None
                return Frame(image, now - self._t0, name=f"camera {self.index}")
            if self._lost is None:
                self._lost = now
            if now - self._lost >= self.reopen_every and now - self._opened >= self.reopen_every:
                self._reopen(now)
            gone = now - self._lost
            line = (f"camera {self.index}: no picture for {gone:.0f} s (unplugged, or taken by "
                    "another program?); trying again, the game is kept")
            if gone >= self.lapse_after and (self._said is None or now - self._said >= self.tell_every):
                self._said = now
                self.skipped.append(line)
            if now - began >= self.hold:
                raise SourceLapse(line)
            self._pause(self.retry_every)

    def _reopen(self, now: float) -> None:
        """Release the camera and open it again (a camera plugged back in needs it)."""
        self._cap.release()
        self._cap = self._open_camera(self.index)
        self._opened = now
        self.reopened += 1

    def close(self) -> None:
        self._cap.release()

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "index": self.index}


class VideoFileSource(FrameSource):
    """A video file; ``realtime`` paces reading to the video's frame rate."""

    kind = "video"

    def __init__(self, path: str | Path, realtime: bool = False) -> None:
        super().__init__()
        self.path = Path(path)
        self._cap = cv2.VideoCapture(str(self.path))
        if not self._cap.isOpened():
            raise OSError(f"cannot open video {str(self.path)!r}")
        fps = self._cap.get(cv2.CAP_PROP_FPS)
        self.fps = fps if fps and fps > 0 else 25.0
        self.realtime = realtime
        self._index = 0
        self._t0 = time.monotonic()

    def read(self) -> Frame | None:
        ok, image = self._cap.read()
        if not ok:
            return None
        t = self._index / self.fps
        self._index += 1
        if self.realtime:
            delay = self._t0 + t - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        return Frame(image, t, name=f"frame {self._index - 1}")

    def close(self) -> None:
        self._cap.release()

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "path": str(self.path)}


def read_image(path: Path) -> np.ndarray:
    """A frame from an image file, as :func:`vision.io.read_image` reads it (the same
    checks and messages), but an :class:`OSError` like every other source's failure."""
    try:
        return vision.io.read_image(path)
    except ImageUnreadable as exc:
        raise OSError(f"cannot read image: {exc}") from None


class StillsSource(FrameSource):
    """A folder of still photos, read in name order; each is one settled view."""

    kind = "stills"

    def __init__(self, folder: str | Path) -> None:
        super().__init__()
        self.folder = Path(folder)
        self.files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise OSError(f"no images ({', '.join(IMAGE_SUFFIXES)}) in folder {str(self.folder)!r}")
        self._i = 0

    def read(self) -> Frame | None:
        """The next still that reads as an image; one that does not (a broken file) is
        passed over and named in :attr:`skipped`."""
        while self._i < len(self.files):
            path = self.files[self._i]
            self._i += 1
            try:
                return Frame(read_image(path), float(self._i), still=True, name=path.name)
            except OSError as exc:
                self.skipped.append(f"{path.name}: skipped: {exc}")
        return None

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "path": str(self.folder), "frames": len(self.files)}


class GameSequenceSource(FrameSource):
    """A rendered game sequence shown as a virtual camera.

    Each frame of ``game.json`` is repeated at ``fps`` for ``settled_hold``
    seconds (``moving_hold`` for frames with hands over the board), like a
    camera watching the players. The ``settled`` labels are not passed on:
    the referee has to find the settled views itself. With ``realtime`` the
    source sleeps to keep to the clock (the web demo); without, it returns
    frames at once with virtual timestamps (benchmarks, tests).
    """

    kind = "demo"

    def __init__(
        self,
        folder: str | Path,
        fps: float = 5.0,
        settled_hold: float = 2.0,
        moving_hold: float = 0.4,
        realtime: bool = True,
    ) -> None:
        super().__init__()
        self.folder = Path(folder)
        manifest = self.folder / "game.json"
        try:
            self.game = json.loads(manifest.read_text())
            self.entries = list(self.game["frames"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise OSError(f"not a game sequence (need game.json with frames): {str(self.folder)!r}: {exc}") from exc
        if not self.entries:
            raise OSError(f"game sequence {str(self.folder)!r} has no frames")
        self.fps = fps
        self.settled_hold = settled_hold
        self.moving_hold = moving_hold
        self.realtime = realtime
        self._schedule = self._build_schedule()
        self._i = 0
        self._cache: tuple[int, np.ndarray] | None = None
        self._t0 = time.monotonic()

    def _build_schedule(self) -> list[tuple[float, int]]:
        out: list[tuple[float, int]] = []
        t = 0.0
        step = 1.0 / self.fps
        for index, entry in enumerate(self.entries):
            hold = self.settled_hold if entry.get("settled", True) else self.moving_hold
            for _ in range(max(1, round(hold * self.fps))):
                out.append((t, index))
                t += step
        return out

    @property
    def south_side(self) -> str:
        """The side South sits on in this sequence (from the first frame's label)."""
        label = self.folder / Path(self.entries[0]["file"]).with_suffix(".json").name
        try:
            return str(json.loads(label.read_text()).get("south_side", "bottom"))
        except (OSError, ValueError):
            return "bottom"

    @property
    def duration(self) -> float:
        return self._schedule[-1][0] if self._schedule else 0.0

    def read(self) -> Frame | None:
        if self._i >= len(self._schedule):
            return None
        t, index = self._schedule[self._i]
        self._i += 1
        if self._cache is None or self._cache[0] != index:
            self._cache = (index, read_image(self.folder / self.entries[index]["file"]))
        if self.realtime:
            delay = self._t0 + t - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        return Frame(self._cache[1].copy(), t, name=str(self.entries[index]["file"]))

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "path": str(self.folder), "frames": len(self.entries)}


def open_source(spec: str, realtime: bool = False) -> FrameSource:
    """A source from a command-line SOURCE: a camera index, a video file or a folder of stills."""
    if spec.isascii() and spec.isdigit():  # (isdigit alone takes '²' too, which int() refuses)
        if int(spec) > MAX_CAMERA_INDEX:
            raise OSError(f"camera index {spec} is out of range (at most {MAX_CAMERA_INDEX})")
        return CameraSource(int(spec))
    path = Path(spec)
    if path.is_dir():
        return StillsSource(path)
    if path.is_file():
        return VideoFileSource(path, realtime=realtime)
    raise OSError(f"source {spec!r} is not a camera index, a video file or a folder of images")


def find_demo_game(root: str | Path) -> Path:
    """The first rendered game sequence under ``root`` (``sample_images/games``)."""
    root = Path(root)
    games = sorted(p.parent for p in root.glob("*/game.json"))
    if not games:
        raise OSError(f"no rendered game sequence (*/game.json) under {str(root)!r}")
    return games[0]
