"""How blurred the pits look, and readings softened to match.

A camera out of focus (or a shaken one) blurs seeds together; the counter then
reads fewer seeds, but as surely as on a sharp photo. On the 80 renders of seeds
283 and 293 blurred by a Gaussian of 1.5 / 2.5 / 4 px, pits were read exactly
86 / 78 / 65 % of the time (90 % sharp) at the same mean confidence, 0.91-0.92
(docs/vision.md, twenty-second session). So the pipeline measures the blur on its own pit crops,
which are scaled to the pits (a blur of 3 px hides more of a small pit's seeds),
and softens every pit's distribution by a temperature that grows with it
(``CountConfig.blur_from``, ``blur_temper``); past ``blur_flag`` it reports
``image_blurred``.

The measure is the blur effect of Crété-Roffet et al. (2007), as
``skimage.measure.blur_effect`` computes it (``h_size`` 11, the larger of the two
axes' values): how much of the image's gradient a further blur takes away. Near 0
for a sharp image, towards 1 for a blurred one. Here it is computed with OpenCV
(~7 ms for the 32 crops) and equals scikit-image's.

Debug: ``python -m vision.focus IMAGE`` prints the blur effect of a whole image.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import cv2
import numpy as np

from vision.errors import stage_main

#: the further blur's length in pixels (scikit-image's default)
H_SIZE = 11


def blur_effect(gray: np.ndarray, h_size: int = H_SIZE) -> float:
    """The blur effect (0 sharp .. 1 blurred) of a one-channel image, as
    ``skimage.measure.blur_effect(gray, h_size)`` gives it."""
    if gray.ndim != 2 or min(gray.shape) < 4:
        raise ValueError(f"blur_effect needs a one-channel image of at least 4 x 4 px, got {gray.shape}")
    im = gray.astype(np.float32)
    if gray.dtype == np.uint8:
        im /= 255.0
    inner = (slice(2, im.shape[0] - 1), slice(2, im.shape[1] - 1))
    values = []
    for along_rows in (True, False):  # the axis the further blur and the derivative run along
        ksize = (1, h_size) if along_rows else (h_size, 1)
        dx, dy = (0, 1) if along_rows else (1, 0)
        blurred = cv2.blur(im, ksize, borderType=cv2.BORDER_REFLECT)
        sharp = np.abs(cv2.Sobel(im, cv2.CV_32F, dx, dy, ksize=3, borderType=cv2.BORDER_REFLECT))
        soft = np.abs(cv2.Sobel(blurred, cv2.CV_32F, dx, dy, ksize=3, borderType=cv2.BORDER_REFLECT))
        m1 = float(sharp[inner].sum(dtype=np.float64))
        if m1 <= 0:
            values.append(1.0)  # no gradient at all: nothing to see
            continue
        m2 = float(np.maximum(sharp - soft, 0)[inner].sum(dtype=np.float64))
        values.append(abs(m1 - m2) / m1)
    return max(values)


def crops_blur(crops: Sequence[np.ndarray]) -> float:
    """The blur effect of the pit crops (BGR, all the same size) laid side by side,
    eight to a row, in grey."""
    if not crops:
        raise ValueError("crops_blur needs at least one crop")
    grey = [c if c.ndim == 2 else cv2.cvtColor(c, cv2.COLOR_BGR2GRAY) for c in crops]
    rows = [np.hstack(grey[i:i + 8]) for i in range(0, len(grey), 8)]
    width = max(r.shape[1] for r in rows)
    rows = [np.pad(r, ((0, 0), (0, width - r.shape[1])), mode="edge") for r in rows]
    return blur_effect(np.vstack(rows))


def soften(probabilities: np.ndarray, blur: float, start: float, per_unit: float) -> np.ndarray:
    """Each row of ``probabilities`` raised to the power 1 / T and normalised, with
    T = 1 + ``per_unit`` x (``blur`` - ``start``) when ``blur`` is past ``start``
    (else the rows unchanged). The most likely count stays; the others gain."""
    p = np.asarray(probabilities, np.float64)
    t = 1.0 + per_unit * max(0.0, blur - start)
    if t <= 1.0:
        return p
    lp = np.log(np.clip(p, 1e-300, None)) / t
    lp -= lp.max(axis=1, keepdims=True)
    q = np.exp(lp)
    return q / q.sum(axis=1, keepdims=True)


@stage_main
def main(argv: list[str] | None = None) -> int:
    from vision.io import read_image

    ap = argparse.ArgumentParser(description="Print the blur effect (0 sharp .. 1 blurred) of an image.")
    ap.add_argument("image")
    args = ap.parse_args(argv)
    img = read_image(args.image)
    print(f"blur effect {blur_effect(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
