"""A quick procedural *drawn* Bao board for stage tests (not photoreal).

``draw_scene(counts, corners, ...)`` paints a canonical board (wood, 4 x 8
round pits, square nyumba at A5/a5, light seeds as separate discs) and warps it
into a table scene at the given image corners (canonical TL, TR, BR, BL).
Everything is deterministic for a given ``seed``. ``png_claiming`` makes a tiny PNG
whose header claims a huge size (a file OpenCV refuses to decode).
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

import cv2
import numpy as np

from vision.holes import HOLE_CELL, HOLES


@dataclass(frozen=True)
class Board:
    """Drawn board layout in canonical px (the whole board is W x H)."""

    pitch_x: float = 80.0
    pitch_y: float = 76.0
    margin_x: float = 30.0  # board edge to the outer pits' cell edge
    margin_y: float = 26.0
    gap: float = 8.0  # extra space between rows 2 and 3
    radius: int = 30

    @property
    def width(self) -> int:
        return int(round(8 * self.pitch_x + 2 * self.margin_x))

    @property
    def height(self) -> int:
        return int(round(4 * self.pitch_y + self.gap + 2 * self.margin_y))


DEFAULT_BOARD = Board()
#: long and narrow, small pits, no middle gap
NARROW_BOARD = Board(pitch_x=84, pitch_y=70, margin_x=40, margin_y=34, gap=0, radius=24)
#: big pits, wide margins, a large middle gap
WIDE_BOARD = Board(pitch_x=78, pitch_y=80, margin_x=22, margin_y=40, gap=30, radius=33)


@dataclass
class Scene:
    image: np.ndarray
    corners: np.ndarray  # (4, 2) float, canonical TL, TR, BR, BL in image px
    pit_centers: dict[str, tuple[float, float]]  # image px
    counts: dict[str, int]


def cell_centre(name: str, board: Board = DEFAULT_BOARD) -> tuple[float, float]:
    r, c = HOLE_CELL[name]
    x = board.margin_x + (c + 0.5) * board.pitch_x
    y = board.margin_y + (r + 0.5) * board.pitch_y + (board.gap if r >= 2 else 0.0)
    return x, y


def draw_board(counts: dict[str, int], rng: np.random.Generator, wood=(60, 110, 160),
               board: Board = DEFAULT_BOARD) -> np.ndarray:
    """Canonical top view (board.height x board.width) with the counts drawn as seeds."""
    bw, bh = board.width, board.height
    img = np.empty((bh, bw, 3), np.float32)
    img[:] = wood
    grain = rng.normal(0, 1, (bh, 1)).repeat(bw, 1)
    grain = cv2.GaussianBlur(grain.astype(np.float32), (1, 9), 3)
    img += grain[..., None] * 6
    radius = board.radius
    for name in HOLES:
        cx, cy = cell_centre(name, board)
        centre = (int(round(cx)), int(round(cy)))
        dark = tuple(float(v) * 0.55 for v in wood)
        rim = tuple(float(v) * 0.35 for v in wood)
        if name in ("A5", "a5"):
            h = radius
            cv2.rectangle(img, (centre[0] - h, centre[1] - h), (centre[0] + h, centre[1] + h), rim, -1)
            cv2.rectangle(img, (centre[0] - h + 3, centre[1] - h + 3),
                          (centre[0] + h - 3, centre[1] + h - 3), dark, -1)
        else:
            cv2.circle(img, centre, radius, rim, -1)
            cv2.circle(img, centre, radius - 3, dark, -1)
        _draw_seeds(img, centre, radius - 5, counts.get(name, 0), rng)
    return np.clip(img, 0, 255).astype(np.uint8)


def _draw_seeds(img: np.ndarray, centre: tuple[int, int], r: int, n: int, rng: np.random.Generator) -> None:
    seed_r = 4
    placed: list[tuple[float, float]] = []
    tries = 0
    while len(placed) < n and tries < 5000:
        tries += 1
        a, d = rng.uniform(0, 2 * np.pi), r * np.sqrt(rng.uniform(0, 1))
        x, y = centre[0] + d * np.cos(a), centre[1] + d * np.sin(a)
        if all((x - u) ** 2 + (y - v) ** 2 > (2 * seed_r + 4) ** 2 for u, v in placed):
            placed.append((x, y))
    for x, y in placed:
        cv2.circle(img, (int(round(x)), int(round(y))), seed_r, (215, 225, 230), -1)
        cv2.circle(img, (int(round(x)) - 1, int(round(y)) - 1), 2, (250, 250, 250), -1)


def draw_scene(
    counts: dict[str, int],
    corners: np.ndarray | list,
    size: tuple[int, int] = (640, 360),
    seed: int = 0,
    table=(170, 175, 180),
    wood=(60, 110, 160),
    clutter: bool = True,
    board: Board = DEFAULT_BOARD,
) -> Scene:
    """Board warped to ``corners`` (canonical TL, TR, BR, BL) in a ``size`` = (w, h) scene."""
    rng = np.random.default_rng(seed)
    w, h = size
    bw, bh = board.width, board.height
    canvas = draw_board(counts, rng, wood, board)
    scene = np.empty((h, w, 3), np.float32)
    scene[:] = table
    scene += rng.normal(0, 4, (h, w, 1)).astype(np.float32)
    scene = np.clip(scene, 0, 255).astype(np.uint8)
    if clutter:  # reserve seeds and a mug-like disc away from the middle
        for _ in range(25):
            x, y = int(rng.uniform(0, w)), int(rng.uniform(0, h * 0.12))
            cv2.circle(scene, (x, y), 4, (215, 225, 230), -1)
        cv2.circle(scene, (int(w * 0.95), int(h * 0.9)), int(h * 0.08), (40, 40, 140), -1)
    dst = np.asarray(corners, np.float32)
    src = np.float32([[0, 0], [bw, 0], [bw, bh], [0, bh]])
    hmat = cv2.getPerspectiveTransform(src, dst)
    warped = cv2.warpPerspective(canvas, hmat, (w, h), flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.full((bh, bw), 255, np.uint8), hmat, (w, h))
    scene[mask > 127] = warped[mask > 127]
    centres = {}
    for name in HOLES:
        p = cv2.perspectiveTransform(np.float32([[cell_centre(name, board)]]), hmat)[0, 0]
        centres[name] = (float(p[0]), float(p[1]))
    return Scene(scene, dst, centres, dict(counts))


def default_corners(size: tuple[int, int] = (640, 360), angle_deg: float = 0.0,
                    tilt: float = 0.0, scale: float = 0.8, board: Board = DEFAULT_BOARD) -> np.ndarray:
    """Corners of a board centred in the scene, rotated by ``angle_deg``; ``tilt`` > 0
    shrinks the far (top) edge like a camera looking from the South."""
    w, h = size
    aspect = board.width / board.height
    bw = min(w * scale, h * scale * aspect)
    bh = bw / aspect
    pts = np.float32([[-bw / 2, -bh / 2], [bw / 2, -bh / 2], [bw / 2, bh / 2], [-bw / 2, bh / 2]])
    pts[:2, 0] *= 1 - tilt
    a = np.deg2rad(angle_deg)
    rot = np.float32([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return pts @ rot.T + np.float32([w / 2, h / 2])


def occlude(image: np.ndarray, centre: tuple[float, float], radius: float) -> np.ndarray:
    """Paint a skin-coloured 'hand' blob (palm + fingers) over the image."""
    out = image.copy()
    cx, cy = int(centre[0]), int(centre[1])
    cv2.ellipse(out, (cx, cy), (int(radius), int(radius * 0.8)), 20, 0, 360, (120, 160, 215), -1)
    for k in range(4):
        fx = cx + int((k - 1.5) * radius * 0.45)
        cv2.ellipse(out, (fx, cy - int(radius * 1.2)), (int(radius * 0.18), int(radius * 0.6)),
                    0, 0, 360, (120, 160, 215), -1)
    return out


def blob_counter(crop: np.ndarray, look=None):
    """Throwaway counter for drawn boards: counts light seed discs in the crop."""
    from types import SimpleNamespace

    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    mask = (grey > 185).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    areas = stats[1:, cv2.CC_STAT_AREA]
    count = int(np.sum(areas >= 6))
    count = min(count, 40)
    probs = np.full(41, 0.002)
    probs[count] = 1.0 - 0.002 * 40
    return SimpleNamespace(count=count, probabilities=probs.tolist(), confidence=float(probs[count]))


def count_drawn_pits(crops, look=None):  # noqa: ANN001, ANN201
    """:func:`blob_counter` over a board's crops: the pipeline's counter interface
    (``recognize(..., counter=count_drawn_pits)``), for drawn boards."""
    return [blob_counter(c) for c in crops]


def spread_counts(total: int, seed: int) -> dict[str, int]:
    """A position with ``total`` seeds, at most 6 per pit (drawn seeds must not touch)."""
    rng = np.random.default_rng(seed)
    counts = dict.fromkeys(HOLES, 0)
    while sum(counts.values()) < total:
        n = HOLES[int(rng.integers(0, 32))]
        if counts[n] < 6:
            counts[n] += 1
    return counts


def png_claiming(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims ``width`` x ``height`` pixels (and holds almost none)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 4))
            + chunk(b"IEND", b""))
