"""Stage 2a: orientation and homography to the canonical top view.

Canonical view (docs/ARCHITECTURE.md): South at the bottom, rows top to bottom
``b8..b1``, ``a8..a1``, ``A1..A8``, ``B1..B8``. Corners are given in image
pixels ``[x, y]`` in the order top-left, top-right, bottom-right, bottom-left
of that view.

Debug: ``python -m vision.rectify IMG [--south SIDE] --debug OUT.png``.
"""

from __future__ import annotations

import argparse

import cv2
import numpy as np

from vision.config import DEFAULT, RectifyConfig
from vision.errors import stage_main

SIDES = ("bottom", "top", "left", "right")


def order_clockwise(pts: np.ndarray) -> np.ndarray:
    """Four (x, y) points in clockwise order as seen in the image (y down),
    starting with the one nearest the image's top-left."""
    p = np.asarray(pts, np.float64).reshape(4, 2)
    c = p.mean(axis=0)
    ang = np.arctan2(p[:, 1] - c[1], p[:, 0] - c[0])
    p = p[np.argsort(ang)]  # increasing angle with y down = clockwise on screen
    start = int(np.argmin(p[:, 0] + p[:, 1]))
    return np.roll(p, -start, axis=0)


def long_axis_first(quad: np.ndarray) -> np.ndarray:
    """Roll a clockwise quad so that side 0->1 is a long side (by image length)."""
    q = np.asarray(quad, np.float64)
    s01 = np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])
    s12 = np.linalg.norm(q[2] - q[1]) + np.linalg.norm(q[3] - q[0])
    return q if s01 >= s12 else np.roll(q, -1, axis=0)


#: each image side's direction from the image's middle (x right, y down)
_TOWARD = {"bottom": (0.0, 1.0), "top": (0.0, -1.0), "left": (-1.0, 0.0), "right": (1.0, 0.0)}


def _toward(south: str) -> np.ndarray:
    if south not in SIDES:
        raise ValueError(f"south must be one of {', '.join(SIDES)}, got {south!r}")
    return np.array(_TOWARD[south])


def orient_corners(quad: np.ndarray, south: str) -> np.ndarray:
    """Canonical TL, TR, BR, BL corners from a clockwise quad whose side 0->1 is long.

    ``south`` names the image side nearest the midpoint of South's long edge.
    """
    toward = _toward(south)
    q = np.asarray(quad, np.float64)
    # the two long sides: (0, 1) and (2, 3); pick the one nearest the named image side
    mids = [(q[0] + q[1]) / 2, (q[2] + q[3]) / 2]
    k = 0 if float(np.dot(mids[0], toward)) > float(np.dot(mids[1], toward)) else 2
    # clockwise TL, TR, BR, BL: the South edge is BR -> BL, i.e. (q[k], q[k+1]) = (BR, BL)
    br, bl, tl, tr = (q[(k + i) % 4] for i in range(4))
    return np.array([tl, tr, br, bl], np.float64)


def oriented_corners(quad: np.ndarray, south: str) -> np.ndarray:
    """Canonical TL, TR, BR, BL corners from four corners in any order round the board:
    clockwise, a long side (by image length) first, South's long side the one nearest the
    image side ``south``."""
    return orient_corners(long_axis_first(order_clockwise(quad)), south)


def south_clearness(corners: np.ndarray, south: str) -> float:
    """How squarely South's long edge faces the image side ``south``, for canonical TL, TR,
    BR, BL corners: the cosine of the angle between that side's direction and the way from
    the middle of North's long edge to the middle of South's. 1: straight that way; about
    0: the board's long sides run towards the named side, and which is South's cannot be
    told from it."""
    toward = _toward(south)
    q = np.asarray(corners, np.float64)
    way = (q[2] + q[3]) / 2 - (q[0] + q[1]) / 2
    n = float(np.linalg.norm(way))
    return float(np.dot(way, toward) / n) if n > 0 else 0.0


def canonical_size(aspect: float, cfg: RectifyConfig = DEFAULT.rectify, width: int | None = None) -> tuple[int, int]:
    """(width, height) in px of the canonical view for a board of this aspect."""
    w = int(width or cfg.width_px)
    a = float(np.clip(aspect, cfg.min_aspect, cfg.max_aspect))
    return w, int(round(w / a))


def homography(corners: np.ndarray, size: tuple[int, int], pad: int = 0) -> np.ndarray:
    """3x3 matrix mapping image px -> canonical px for canonical TL, TR, BR, BL corners;
    the board fills ``size`` and ``pad`` px of surroundings are kept on every side."""
    w, h = size
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) + pad
    return cv2.getPerspectiveTransform(np.asarray(corners, np.float32), dst)


def rectify(image: np.ndarray, corners: np.ndarray, aspect: float | None = None,
            cfg: RectifyConfig = DEFAULT.rectify, width: int | None = None,
            pad: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Warp the playing surface to the canonical top view (plus ``pad`` px around).

    Returns ``(canonical_bgr, H)`` with ``H`` mapping image px -> canonical px.
    """
    w, h = canonical_size(aspect or cfg.default_aspect, cfg, width)
    hmat = homography(corners, (w, h), pad)
    out = cv2.warpPerspective(image, hmat, (w + 2 * pad, h + 2 * pad), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    return out, hmat


def to_image(points: np.ndarray, hmat: np.ndarray) -> np.ndarray:
    """Canonical (x, y) points -> image (x, y) points through the inverse of ``hmat``."""
    pts = np.asarray(points, np.float32).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, np.linalg.inv(hmat)).reshape(-1, 2)


def pit_spacing(points: np.ndarray) -> float:
    """The median distance from each pit centre (N, 2) to its nearest neighbour: about
    one pit pitch, in the points' units."""
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    dist = np.linalg.norm(pts[:, None] - pts[None], axis=2)
    np.fill_diagonal(dist, np.inf)
    return float(np.median(dist.min(axis=1)))


def squash(corners: np.ndarray, aspect: float) -> float:
    """How unevenly the plane is stretched at the centre of a playing surface whose
    clockwise ``corners`` (image px) bound a rectangle of ``aspect`` (width / height):
    the smaller over the larger singular value of the rectangle -> image map's
    derivative there (1: seen square on; a plane tilted by t from facing the
    camera: about cos t; a 4 x 8 lattice sheared by one pit per row: under 0.4)."""
    src = np.array([[0, 0], [aspect, 0], [aspect, 1], [0, 1]], np.float32)
    h = cv2.getPerspectiveTransform(src, np.asarray(corners, np.float32)).astype(np.float64)
    x, y = 0.5 * aspect, 0.5
    u, v, w = h @ np.array([x, y, 1.0])
    # d(u/w)/d(x, y) and d(v/w)/d(x, y)
    jac = (np.array([[h[0, 0], h[0, 1]], [h[1, 0], h[1, 1]]]) * w
           - np.outer([u, v], [h[2, 0], h[2, 1]])) / (w * w)
    sv = np.linalg.svd(jac, compute_uv=False)
    return float(sv[1] / max(sv[0], 1e-12))


@stage_main
def main(argv: list[str] | None = None) -> int:
    from vision.io import read_image
    from vision.locate import locate_board

    ap = argparse.ArgumentParser(description="Locate, orient and rectify a board image.")
    ap.add_argument("image")
    ap.add_argument("--south", choices=SIDES, default="bottom")
    ap.add_argument("--debug", metavar="OUT.png", required=True)
    args = ap.parse_args(argv)
    img = read_image(args.image)
    quad = locate_board(img)
    corners = orient_corners(quad.corners, args.south)
    out, _ = rectify(img, corners, quad.aspect)
    cv2.imwrite(args.debug, out)
    print(f"corners TL,TR,BR,BL: {np.round(corners, 1).tolist()}  aspect {quad.aspect:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
