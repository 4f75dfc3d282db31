"""A hand-drawn single pit for the counter's tests (independent of vision.synth_pits)."""

from __future__ import annotations

import math

import cv2
import numpy as np


def drawn_pit(count: int, seed_px: int = 14, size: int = 96, rng_seed: int = 0,
              seed_bgr=(200, 215, 225), wood_bgr=(40, 70, 110), camera: bool = True) -> np.ndarray:
    """A hand-drawn top view (not the training generator): wood square, darker round
    pit of diameter 0.85 * size, ``count`` shaded non-touching seeds laid on the floor;
    with ``camera``, a slight blur and sensor noise as a webcam gives."""
    img = np.zeros((size, size, 3), np.uint8)
    img[:] = wood_bgr
    c = size // 2
    r_pit = int(0.85 * size / 2)
    cv2.circle(img, (c, c), r_pit, tuple(int(v * 0.6) for v in wood_bgr), -1, cv2.LINE_AA)
    rng = np.random.default_rng(rng_seed)
    placed: list[tuple[float, float]] = []
    rs = seed_px / 2
    tries = 0
    while len(placed) < count:
        tries += 1
        assert tries < 20000, "cannot place seeds"
        a, d = rng.uniform(0, 2 * math.pi), math.sqrt(rng.uniform()) * (r_pit - rs - 2)
        x, y = c + d * math.cos(a), c + d * math.sin(a)
        if all((x - u) ** 2 + (y - v) ** 2 > (2 * rs + 2) ** 2 for u, v in placed):
            placed.append((x, y))
    for x, y in placed:
        cv2.circle(img, (int(x + 1), int(y + 1)), int(rs), (20, 30, 45), -1, cv2.LINE_AA)  # shadow
        cv2.circle(img, (int(x), int(y)), int(rs), tuple(int(v * 0.8) for v in seed_bgr), -1,
                   cv2.LINE_AA)
        cv2.circle(img, (int(x - rs / 3), int(y - rs / 3)), max(1, int(rs / 2)), seed_bgr, -1,
                   cv2.LINE_AA)
    if camera:
        blurred = cv2.GaussianBlur(img, (0, 0), 0.8 * size / 96).astype(np.float32)
        img = np.clip(blurred + rng.normal(0, 4.0, img.shape), 0, 255).astype(np.uint8)
    return img


def finger_over(img: np.ndarray, skin_bgr=(120, 160, 205)) -> np.ndarray:
    """``img`` (a 96-px pit crop) with a finger-like blob drawn over most of the pit:
    something that is not seeds covering it (a hand). Draws in place and returns it."""
    cv2.ellipse(img, (40, 52), (46, 20), 30, 0, 360, skin_bgr, -1, cv2.LINE_AA)
    cv2.ellipse(img, (44, 48), (30, 9), 30, 0, 360, tuple(int(v * 1.15) for v in skin_bgr), -1,
                cv2.LINE_AA)
    return img
