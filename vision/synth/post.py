"""Camera-like finishing of a rendered frame: vignette, blur, sensor noise, JPEG.

NumPy/OpenCV only. :func:`finish` reads the renderer's PNG and writes the JPEG,
lowering the quality until the file is at most ``max_bytes``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

MAX_JPEG_BYTES = 250_000


def degrade(img: np.ndarray, sensor: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    """Vignette, lens blur and signal-dependent sensor noise on a BGR uint8 image."""
    h, w = img.shape[:2]
    out: np.ndarray = img.astype(np.float32) / 255.0
    v = float(sensor.get("vignette", 0.0))
    if v > 0:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
        out *= (1.0 - v * r2)[..., None]
    b = float(sensor.get("blur_sigma", 0.0))
    if b > 0:
        out = cv2.GaussianBlur(out, (0, 0), b)
    sigma = float(sensor.get("noise_sigma", 0.0)) / 255.0
    if sigma > 0:
        shot = rng.normal(0.0, 1.0, out.shape).astype(np.float32) * sigma * np.sqrt(out + 0.05) * 2
        grey = rng.normal(0.0, 1.0, (h, w, 1)).astype(np.float32) * sigma * 0.7
        out = out + shot + grey
    return np.clip(out * 255.0 + 0.5, 0, 255).astype(np.uint8)


def encode_jpeg(img: np.ndarray, quality: int, max_bytes: int = MAX_JPEG_BYTES) -> tuple[bytes, int]:
    """JPEG bytes at ``quality`` or lower until they fit ``max_bytes``; returns (data, quality)."""
    q = int(quality)
    while True:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        if not ok:
            raise ValueError("JPEG encoding failed")
        if buf.size <= max_bytes or q <= 30:
            return buf.tobytes(), q
        q -= 5


def finish(png: Path, jpg: Path, sensor: dict[str, Any], rng: np.random.Generator,
           size: tuple[int, int] | None = None) -> int:
    """Scale the rendered PNG to ``size`` (width, height), degrade it like a camera and
    write it as JPEG; returns the JPEG quality used."""
    img = cv2.imread(str(png), cv2.IMREAD_COLOR)
    if img is None:
        raise OSError(f"cannot read rendered image {png}")
    if size is not None and (img.shape[1], img.shape[0]) != tuple(size):
        img = cv2.resize(img, tuple(size), interpolation=cv2.INTER_LANCZOS4)
    data, q = encode_jpeg(degrade(img, sensor, rng), sensor["jpeg_quality"])
    jpg.write_bytes(data)
    return q
