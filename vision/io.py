"""Reading images from disk with clear errors."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.errors import ImageUnreadable

#: The longest an image's long side may be for each pixel of its short side. The board
#: search works on copies with a long side of 480 px; on a thinner image their short side
#: shrinks to a few pixels (to none: a 40x60000 image), where no board can be seen.
MAX_ASPECT = 15


def read_image(path: str | Path) -> np.ndarray:
    """Read an image file as BGR ``uint8`` (H, W, 3).

    Raises:
        ImageUnreadable: the file does not exist, cannot be read, or is not an image.
    """
    p = Path(path)
    if not p.exists():
        raise ImageUnreadable(f"{p}: no such file")
    if p.is_dir():
        raise ImageUnreadable(f"{p}: is a directory, not an image")
    try:
        data = np.fromfile(p, dtype=np.uint8)
    except OSError as exc:
        raise ImageUnreadable(f"{p}: cannot read ({exc.strerror})") from None
    try:
        image = decode_image(data)
    except ValueError:
        raise ImageUnreadable(f"{p}: an image OpenCV cannot decode (too many pixels, or damaged)") from None
    if image is None:
        raise ImageUnreadable(f"{p}: not an image OpenCV can decode (JPEG, PNG, ...)")
    return image


def decode_image(data: bytes | np.ndarray) -> np.ndarray | None:
    """An encoded image's bytes as BGR ``uint8`` (H, W, 3); None when they are no image
    OpenCV decodes. ValueError for a header claiming more pixels than OpenCV decodes
    (2**30: a 69-byte PNG can claim 100000x100000), which it refuses with an error
    rather than None."""
    buf = np.frombuffer(data, np.uint8) if isinstance(data, bytes) else data
    if not buf.size:
        return None
    try:
        return cv2.imdecode(buf, cv2.IMREAD_COLOR)
    except cv2.error:
        raise ValueError("too many pixels, or damaged") from None


def check_image(image: object) -> np.ndarray:
    """Validate an in-memory image: BGR or grey ``uint8``; returns BGR."""
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
        raise ImageUnreadable("expected a uint8 numpy image (BGR, as cv2.imread returns)")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim != 3 or image.shape[2] not in (3, 4):
        raise ImageUnreadable(f"expected an (H, W, 3) BGR image, got shape {image.shape}")
    if image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if min(image.shape[:2]) < 32:
        raise ImageUnreadable(f"image too small to hold a board: {image.shape[1]}x{image.shape[0]}")
    if max(image.shape[:2]) > MAX_ASPECT * min(image.shape[:2]):
        raise ImageUnreadable(f"image too thin to hold a board: {image.shape[1]}x{image.shape[0]} "
                              f"(its long side more than {MAX_ASPECT} times its short side)")
    return image
