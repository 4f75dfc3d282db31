"""A hand and arm over the board, as capsules, and which pit centres it hides.

The same capsules are meshed by the renderer, so ``occluded_pits`` in a label is
exact for the rendered hand: a pit is occluded when the line of sight from the
camera to its centre (on the playing surface) passes through a capsule.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vision.holes import HOLES
from vision.synth.scene import BoardGeometry, Camera

Capsule = tuple[np.ndarray, np.ndarray, float]  # end a, end b, radius (metres)


def hand_capsules(geometry: BoardGeometry, hand: dict[str, Any]) -> list[tuple[str, Capsule]]:
    """Named capsules (part, (a, b, r)) of a right hand reaching for ``hand['pit']``.

    The hand comes from its owner's side of the table (South from ``-y``), palm
    down, fingertips curled towards the pit, at ``hand['height']`` above the surface.
    """
    s = float(hand["size"])
    yaw = np.radians(float(hand["yaw"]))
    sign = 1.0 if hand["side"] == "south" else -1.0
    d = sign * np.array([np.sin(yaw), np.cos(yaw), 0.0])  # towards the far side
    lat = np.array([d[1], -d[0], 0.0])  # the owner's right
    up = np.array([0.0, 0.0, 1.0])
    px, py = geometry.pit_xy(hand["pit"])
    top = geometry.top_z + float(hand["height"])
    tips = np.array([px, py, top]) + 0.01 * up
    knuckle = tips - d * 0.06 * s + 0.03 * s * up
    wrist = knuckle - d * 0.085 * s + 0.005 * up
    elbow = wrist - d * 0.26 * s + 0.14 * s * up
    shoulder = elbow - d * 0.22 * s + 0.25 * s * up
    spread = 0.2 + 0.6 * float(hand.get("spread", 0.5))
    parts: list[tuple[str, Capsule]] = [
        ("upper_arm", (elbow, shoulder, 0.045 * s)),
        ("forearm", (wrist, elbow, 0.03 * s)),
        ("palm_l", (wrist - lat * 0.014 * s, knuckle - lat * 0.024 * s, 0.017 * s)),
        ("palm_m", (wrist + 0.004 * s * up, knuckle + 0.004 * s * up, 0.018 * s)),
        ("palm_r", (wrist + lat * 0.014 * s, knuckle + lat * 0.024 * s, 0.017 * s)),
    ]
    # index (next to the thumb) .. little finger, each in two bent segments
    for k, (off, length, rad) in enumerate(((-1.5, 0.95, 0.0085), (-0.5, 1.0, 0.0088),
                                            (0.5, 0.95, 0.0083), (1.5, 0.8, 0.0074))):
        base = knuckle + lat * off * 0.017 * s * (1 + 0.3 * spread)
        end = (tips + lat * off * 0.007 * s * (1 + spread)
               - d * (1 - length) * 0.04 * s + (1 - length) * 0.02 * s * up)
        mid = base + (end - base) * 0.55 + 0.012 * s * up + d * 0.008 * s
        parts.append((f"finger{k}a", (base, mid, rad * s)))
        parts.append((f"finger{k}b", (mid, end, rad * 0.92 * s)))
    thumb_base = wrist - lat * 0.025 * s + d * 0.02 * s
    thumb_mid = wrist - lat * (0.04 + 0.01 * spread) * s + d * 0.05 * s
    thumb_tip = knuckle - lat * (0.035 + 0.02 * spread) * s + d * 0.02 * s - 0.015 * s * up
    parts.append(("thumb_a", (thumb_base, thumb_mid, 0.011 * s)))
    parts.append(("thumb_b", (thumb_mid, thumb_tip, 0.0095 * s)))
    return parts


def _segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance from points p (N, 3) to segment a-b."""
    ab = b - a
    t = np.clip(((p - a) @ ab) / max(float(ab @ ab), 1e-12), 0.0, 1.0)
    return np.linalg.norm(p - (a + t[:, None] * ab), axis=1)


def occluded_pits(camera: Camera, geometry: BoardGeometry, capsules: list[Capsule]) -> list[str]:
    """Pits whose centre is hidden from the camera by any capsule."""
    cam = np.asarray(camera.location)
    ts = np.linspace(0.0, 1.0, 400)[:, None]
    hidden: list[str] = []
    for name, centre in zip(HOLES, geometry.pit_centers_world(), strict=True):
        ray = cam + ts * (centre - cam)
        if any(np.any(_segment_distance(ray, a, b) < r) for a, b, r in capsules):
            hidden.append(name)
    return hidden


def over_board(geometry: BoardGeometry, capsules: list[Capsule]) -> bool:
    """Whether any capsule reaches over the board outline."""
    for a, b, _r in capsules:
        for p in (a, b):
            if abs(p[0]) < geometry.length / 2 and abs(p[1]) < geometry.width / 2:
                return True
    return False
