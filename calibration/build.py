"""Building a board profile from an image of a known position: the start, or any other
(a game resumed, a camera moved during a game)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from vision.config import DEFAULT, VisionConfig
from vision.errors import VisionError
from vision.holes import HOLE_CELL, HOLES, START_COUNTS
from vision.io import check_image
from vision.locate import given_corners, locate_board
from vision.pipeline import fit_board, pit_crops
from vision.profile import BoardProfile
from vision.rectify import orient_corners, oriented_corners, south_clearness, to_image


class CalibrationError(VisionError):
    """The image cannot be turned into a profile; the message says why."""


def calibrate_from_start(
    image_bgr: np.ndarray,
    south: str,
    corners: Sequence[Sequence[float]] | None = None,
    *,
    cfg: VisionConfig = DEFAULT,
    camera: str = "",
    fit_look: Any = None,
) -> BoardProfile:
    """Profile of one camera setup from an image of the start position (rule 2.1: 6, 2
    and 2 seeds per side); :func:`calibrate_from_position` with those counts.

    Args:
        south: image side nearest South's long edge (bottom|top|left|right).
        corners: manual playing-surface corners (image px) in any order round the
            board: the long sides are found from the image and South's from ``south``;
            by default the board is located automatically.
        fit_look: replaces :func:`vision.count.fit_seed_look` (tests).

    Raises:
        BoardNotFound: no board in the image (give ``corners``).
        CalibrationError: the pit grid does not fit the located board.
    """
    return calibrate_from_position(image_bgr, south, START_COUNTS, corners, cfg=cfg, camera=camera,
                                   fit_look=fit_look)


def position_counts(position: Mapping[str, Any]) -> dict[str, int]:
    """Each pit's count (``{hole: n}``) of a position's JSON (``engine.Position.to_json``)."""
    from engine import Position
    from vision.count_data import label_counts

    return label_counts(Position.from_json(dict(position)).to_json())  # (checked as a position first)


def calibrate_from_position(
    image_bgr: np.ndarray,
    south: str,
    counts: Mapping[str, int],
    corners: Sequence[Sequence[float]] | None = None,
    *,
    cfg: VisionConfig = DEFAULT,
    camera: str = "",
    fit_look: Any = None,
) -> BoardProfile:
    """Profile of one camera setup from an image of a known position: ``counts`` gives
    each pit's seeds (``{hole: n}``, every hole; :func:`position_counts` of a position's
    JSON). The start position is one; any other teaches the seed look as well, as long
    as one of its pits is empty and one holds 1 to 8 seeds: a game resumed from its
    record, or a camera moved during a game (the referee knows the position then).
    Arguments and errors as :func:`calibrate_from_start`; a position that cannot teach
    the look is a CalibrationError."""
    missing = [n for n in HOLES if n not in counts]
    if missing:
        raise ValueError(f"the position's counts lack pits {', '.join(missing)}")
    known = [int(counts[n]) for n in HOLES]
    if 0 not in known or not any(1 <= n <= 8 for n in known):
        raise CalibrationError(
            "this position cannot teach the seeds' look: it needs an empty pit and a pit of 1 to 8 "
            "seeds (calibrate on another position, e.g. after the next move)")
    image = check_image(image_bgr)
    if corners is not None:
        pts = np.asarray(corners, np.float64)
        if pts.shape == (4, 2) and np.all(np.isfinite(pts)):
            # any order round the board: its long sides are taken from the image and South's
            # from ``south``, as for a located board (else given_corners names the problem)
            pts = oriented_corners(pts, south)
        quad = given_corners(pts, cfg)
        start_corners, aspect = quad.corners, quad.aspect
    else:
        quad = locate_board(image, cfg)
        start_corners, aspect = orient_corners(quad.corners, south), quad.aspect
    if south_clearness(start_corners, south) < cfg.rectify.south_clear_min:
        across = "left or right" if south in ("bottom", "top") else "bottom or top"
        raise CalibrationError(
            f"South's side {south!r} is unclear: the board's long sides run towards that side "
            f"of the photo, so either could be South's; name the side South sits at ({across})")
    # the locate stage's own fit is the one `bao recognize` reads with: fitting again from
    # its corners alone can settle elsewhere (or fail) where the search had weighed more
    board_corners, hmat, grid, aspect = fit_board(image, start_corners, aspect, cfg, prior=quad.fit)
    if grid.score < cfg.grid.min_lattice_score:
        raise CalibrationError(
            f"the 4x8 pit grid does not fit the board (score {grid.score:.2f} < "
            f"{cfg.grid.min_lattice_score:.2f}); check the corners")
    crops = pit_crops(image, hmat, grid, cfg)
    if fit_look is None:
        from vision.count import fit_seed_look as fit_look
    look = fit_look(crops, known)
    centres = to_image(grid.centres.reshape(-1, 2), hmat).reshape(grid.centres.shape)
    h, w = image.shape[:2]
    return BoardProfile(
        image_size=(w, h),
        corners_px=[[float(x), float(y)] for x, y in board_corners],
        south_side=south,
        pit_centers_px={n: [float(v) for v in centres[HOLE_CELL[n]]] for n in HOLES},
        aspect=aspect,
        seed_look=look.to_json() if hasattr(look, "to_json") else look,
        grid_score=grid.score,
        camera=camera,
    )
