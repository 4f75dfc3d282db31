"""The images the pages show: the camera's frame as JPEG and the rectified board.

The play page draws each pit's count over the rectified board (South at the
bottom), so a misread pit is plain to see; :func:`rectify` makes that view with a
band of what lies around the board, and :func:`rectified_pits` maps the pits'
centres into it. Points are OpenCV ``(x, y)`` px.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.rectify import homography

RECTIFIED_WIDTH = 640
"""Width in pixels of the board in the rectified image shown on the play page."""


RECTIFIED_PAD = 0.04
"""Share of the board's width shown around it on every side of the rectified image."""


DEFAULT_ASPECT = 2.345
"""Playing-surface width / height when no profile says otherwise (vision's default)."""


def encode_jpeg(image: np.ndarray, width: int | None = None, quality: int = 80) -> bytes:
    """JPEG bytes of a BGR image, optionally scaled down to ``width`` pixels."""
    if width is not None and image.shape[1] > width:
        h = round(image.shape[0] * width / image.shape[1])
        image = cv2.resize(image, (width, h), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("could not encode the image as JPEG")
    return buf.tobytes()


def rectify(
    image: np.ndarray, corners_px: Sequence[Sequence[float]], aspect: float = DEFAULT_ASPECT
) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """The canonical top view (South at the bottom) from the board corners (TL, TR, BR, BL),
    with a band of ``RECTIFIED_PAD`` x the board's width of what lies around the board on
    every side, so the page shows where the outline ends against the board's own edge.

    Returns the image, the 3x3 homography image px -> rectified px, and the board's box in
    the image ``[x, y, width, height]``.
    """
    w = RECTIFIED_WIDTH
    h = round(w / aspect)
    pad = round(RECTIFIED_PAD * w)
    hmat = homography(np.asarray(corners_px, np.float64).reshape(4, 2), (w, h), pad)
    return cv2.warpPerspective(image, hmat, (w + 2 * pad, h + 2 * pad)), hmat, [pad, pad, w, h]


def rectified_pits(pit_centers_px: dict[str, Sequence[float]], hmat: np.ndarray) -> dict[str, list[float]]:
    """Pit centres (image px) mapped into the rectified view."""
    if not pit_centers_px:
        return {}
    names = list(pit_centers_px)
    pts = np.asarray([pit_centers_px[n] for n in names], np.float32).reshape(-1, 1, 2)
    out = cv2.perspectiveTransform(pts, hmat).reshape(-1, 2)
    return {n: [round(float(x), 1), round(float(y), 1)] for n, (x, y) in zip(names, out, strict=True)}
