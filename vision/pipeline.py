"""The whole pipeline: one BGR image -> :class:`Recognition`.

``recognize(image, south="bottom", profile=None)`` locates the board (or takes
the profile's corners; where no pits fit there, the board is looked for again and
the status says ``board_moved``), rectifies it with South at the bottom, fits the pit
grid, lets the pit lattice correct the corners and rectifies again, cuts one
crop per pit (the counter's convention: docs/vision.md), counts, and decodes.

Debug: ``python -m vision.pipeline IMG [--south SIDE] [--calibration PROFILE]``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

import cv2
import numpy as np

from vision.board import fit_board
from vision.config import DEFAULT, VisionConfig
from vision.decode import decode, status_pits
from vision.errors import BoardNotFound, stage_main
from vision.focus import crops_blur, soften
from vision.grid import PitGrid, crossed_pits, edge_breaks, occluded_cells
from vision.holes import HOLE_CELL, HOLES, NYUMBA, flatten, nested
from vision.io import check_image
from vision.locate import BoardQuad, given_corners, locate_board
from vision.profile import BoardProfile
from vision.rectify import (
    orient_corners,
    oriented_corners,
    south_clearness,
    to_image,
)

#: counter(crops, look) -> one object with .probabilities (41 floats) per crop
Counter = Callable[[Sequence[np.ndarray], Any], Sequence[Any]]


@dataclass
class Recognition:
    position: dict  # {"south": {"front": [8], "back": [8]}, "north": {...}}
    probabilities: dict  # same shape, lists of 41 floats
    confidence: dict  # same shape, floats 0..1
    board_corners_px: list[list[float]]  # canonical TL, TR, BR, BL, image px
    status: list[str]
    timings_ms: dict[str, float]
    pit_centers_px: dict[str, list[float]] = field(default_factory=dict)
    total_on_board: int = 0
    grid_score: float = 0.0
    blur: float | None = None  # the pit crops' blur effect (vision.focus.crops_blur); None: no board
    # the 32 pit crops read (HOLES order), kept to read some again (read_again); not in the JSON
    crops: list[np.ndarray] | None = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        """Exactly the ``bao recognize --json`` object."""
        return {
            "position": self.position,
            "probabilities": self.probabilities,
            "confidence": self.confidence,
            "board_corners_px": self.board_corners_px,
            "status": self.status,
            "timings_ms": self.timings_ms,
        }

    def to_text(self) -> str:
        """The board as South sees it (North's rows on top), then the status."""
        if not self.position:
            return "no board: " + ", ".join(self.status)
        n, s = self.position["north"], self.position["south"]
        rows = [list(reversed(n["back"])), list(reversed(n["front"])), s["front"], s["back"]]
        lines = [" ".join(f"{v:2d}" for v in row) for row in rows]
        lines.insert(2, "")
        lines.append(f"total on board {self.total_on_board}")
        lines.append("status: " + (", ".join(self.status) if self.status else "ok"))
        return "\n".join(lines)

    @classmethod
    def not_found(cls, reason: str, timings: dict[str, float]) -> Recognition:
        return cls({}, {}, {}, [], ["board_not_found", f"reason:{reason}"], timings)


def _default_counter(crops: Sequence[np.ndarray], look: Any, views: int,
                     nyumba_views: int | None = None,
                     recheck: tuple[float, int, int] | None = None) -> Sequence[Any]:
    """:func:`vision.count.count_pits` on the 32 crops (``HOLES`` order), the two nyumba
    with ``nyumba_views`` views (the square pits are the counter's weakest; two crops
    are cheap to look at from every side); ``recheck``: (below, views, max_count), the
    pits of at most ``max_count`` seeds read less surely than ``below`` are read again
    at ``views`` views."""
    from vision.count import count_pits

    if nyumba_views is None or len(crops) != len(HOLES):
        return count_pits(crops, look, views, recheck)
    # all crops through the network together: the round pits at ``views``, the nyumba at theirs
    each = [nyumba_views if n in NYUMBA else views for n in HOLES]
    return count_pits(crops, look, each, recheck)


def _covered(crops: Sequence[np.ndarray], probs: np.ndarray, grid: PitGrid, hidden: np.ndarray,
             cfg: VisionConfig, smalls: np.ndarray | None = None) -> np.ndarray:
    """Pits read as empty, with a weak rim, that look unlike the board's surely empty pits
    (``DecodeConfig.unlike_empty``; :func:`vision.count.unlike_empty`): something covers
    them. ``hidden``: the pits already known to be hidden (not looked at again)."""
    dc = cfg.decode
    none = np.zeros(len(HOLES), bool)
    if dc.unlike_empty <= 0 or grid.evidence is None or len(crops) != len(HOLES):
        return none
    from vision.count import unlike_empty

    ev = np.asarray(grid.evidence, np.float64).ravel()
    empty = probs.argmax(axis=1) == 0
    surely_empty = empty & (probs[:, 0] >= dc.unlike_sure)
    sure = surely_empty & (ev >= dc.unlike_sure_evidence)
    candidates = empty & (ev < dc.unlike_evidence) & ~hidden
    pool = surely_empty & ~hidden  # compared with near a candidate, whatever their rim
    out = unlike_empty(crops, candidates, sure, dc.unlike_empty, dc.unlike_min_sure, dc.unlike_min_shift,
                       smalls, near=dc.unlike_near, pool=pool)
    firmer = empty & (ev >= dc.unlike_evidence) & (ev < dc.unlike_firm_evidence) & ~hidden
    if dc.unlike_firm > 0 and firmer.any():
        # a rim that shows a little more (fingers' edges over it): only a crop far unlike
        out |= unlike_empty(crops, firmer, sure, dc.unlike_firm, dc.unlike_min_sure, dc.unlike_min_shift,
                            smalls, near=dc.unlike_near, pool=pool)
    return out


def _seed_look(profile: BoardProfile | None) -> Any:
    if profile is None or profile.seed_look is None:
        return None
    from vision.count import SeedLook

    return SeedLook.from_json(profile.seed_look)


def pit_crops(image: np.ndarray, hmat: np.ndarray, grid: PitGrid, cfg: VisionConfig = DEFAULT) -> list[np.ndarray]:
    """One square crop per hole (HOLES order), straight from the image through the
    canonical view's homography ``hmat`` (image -> canonical): no double resampling.

    Crop side ``cfg.count.crop_size_px``; the pit's diameter is ``pit_fill`` of it
    along both axes (the view's pit radii (rx, ry) are made equal).
    """
    size = cfg.count.crop_size_px
    # canonical px, centre to crop edge; the rim's outer edge where the fit measured it
    hx, hy = (r / cfg.count.pit_fill for r in (grid.crop_radius or grid.radius))
    inv = np.linalg.inv(hmat)
    crops = []
    for name in HOLES:
        cx, cy = grid.centres[HOLE_CELL[name]]
        # crop px -> canonical px -> image px
        a = np.array([[2 * hx / size, 0, cx - hx], [0, 2 * hy / size, cy - hy], [0, 0, 1]])
        crops.append(cv2.warpPerspective(image, inv @ a, (size, size),
                                         flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                         borderMode=cv2.BORDER_REPLICATE))
    return crops


def _board(image: np.ndarray, south: str, profile: BoardProfile | None,
           cfg: VisionConfig) -> tuple[np.ndarray, float, Any, np.ndarray | None]:
    """Canonical TL, TR, BR, BL corners, the aspect, the locate stage's fit (or None)
    and the calibration's pit centres (HOLES order, or None), from the profile or the
    image. The pit centres are named for the profile's South side, so they are given
    only when the image is read with that side. ``profile``: one made for images of
    this size."""
    if profile is not None:
        quad: BoardQuad = given_corners(profile.corners_px, cfg)
        corners = quad.corners
        pits = None
        if south != profile.south_side:
            corners = oriented_corners(corners, south)
        elif set(profile.pit_centers_px) == set(HOLES):
            pits = np.array([profile.pit_centers_px[n] for n in HOLES], np.float64)
        return corners, profile.aspect, None, pits
    quad = locate_board(image, cfg)
    return orient_corners(quad.corners, south), quad.aspect, quad.fit, None


def _relocated(image: np.ndarray, south: str, cfg: VisionConfig, lap: Callable[[str], None],
               ) -> tuple[np.ndarray, np.ndarray, PitGrid, float] | str:
    """The board looked for in the whole image and fitted (:func:`fit_board`'s
    result), as :func:`recognize` does without a calibration; when none is found, why."""
    try:
        quad = locate_board(image, cfg)
    except BoardNotFound as exc:
        lap("locate")
        return str(exc)
    lap("locate")
    return fit_board(image, orient_corners(quad.corners, south), quad.aspect, cfg, lap, prior=quad.fit)


def recognize(
    image_bgr: np.ndarray,
    south: str = "bottom",
    profile: BoardProfile | None = None,
    *,
    cfg: VisionConfig = DEFAULT,
    counter: Counter | None = None,
    expected_total: int | None = None,
    on_missing: str = "raise",
) -> Recognition:
    """Read the position on the board in ``image_bgr`` (see module docstring).

    Args:
        south: image side nearest South's long edge (bottom|top|left|right).
        profile: calibration of this camera setup (corners, seed look), or None.
        counter: replaces :func:`vision.count.count_pits` (tests, experiments).
        expected_total: seeds known to be on the board (64 - reserves), if known.
        on_missing: "raise" (BoardNotFound) or "status" (a Recognition whose
            status starts with ``board_not_found``) when no board is found.
    """
    image = check_image(image_bgr)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()

    def lap(stage: str) -> None:
        nonlocal t0
        t1 = time.perf_counter()
        timings[stage] = round(timings.get(stage, 0.0) + 1000 * (t1 - t0), 2)
        t0 = t1

    # the profile's geometry, for images of this size: scaled when the camera gives
    # another resolution of the same picture; none when the picture has another shape
    # (another camera, or a crop), and the board is then looked for as without a profile
    geometry = None if profile is None else profile.scaled_to((image.shape[1], image.shape[0]))
    try:
        corners, aspect, prior, pits = _board(image, south, geometry, cfg)
    except BoardNotFound as exc:
        if on_missing == "status":
            lap("locate")
            return Recognition.not_found(str(exc), timings)
        raise
    lap("locate")
    corners, hmat, grid, aspect = fit_board(image, corners, aspect, cfg, lap, prior=prior, pits=pits)
    moved = profile is not None and geometry is None
    elsewhere = ""  # why the board was not found elsewhere either
    if geometry is not None and grid.score < cfg.grid.min_lattice_score:
        # no pits where the calibration saw the board: it was pushed along the table, or
        # the camera knocked, further than a fit from there follows (a board 250 px and
        # 12 degrees away: every later view unread). Looked for in the whole image, as
        # without a calibration; its seed look still holds
        found = _relocated(image, south, cfg, lap)
        if isinstance(found, str):
            elsewhere = f"; nor found elsewhere in the image: {found}"
        elif found[2].score > grid.score:
            corners, hmat, grid, aspect = found
            moved = True
    if grid.score < cfg.grid.min_lattice_score:
        where = "where the calibration saw the board" if geometry is not None else "on the board"
        reason = (f"no 4x8 pit lattice {where} (fit {grid.score:.2f} < "
                  f"{cfg.grid.min_lattice_score:.1f}){elsewhere}")
        if on_missing == "status":
            return Recognition.not_found(reason, timings)
        raise BoardNotFound(reason)
    crops = pit_crops(image, hmat, grid, cfg)
    # (a counter given to recognize gets the look whatever look_area says: tests, experiments)
    look = _seed_look(profile) if cfg.count.look_area or counter is not None else None
    results = (counter(crops, look) if counter is not None
               else _default_counter(crops, look, cfg.count.views, cfg.count.nyumba_views,
                                     (cfg.count.recheck_below, cfg.count.recheck_views,
                                      cfg.count.recheck_max_count)))
    probs = np.array([np.asarray(r.probabilities, np.float64) for r in results])
    smalls = None  # the crops made small once, for the context step and the covered test
    if cfg.count.context and profile is None and counter is None:
        # each pit read against the board's other pits (vision.context); not with a
        # calibration, whose pits it read worse (CountConfig.context)
        from vision.context import apply_context
        from vision.count import crop_smalls

        smalls = crop_smalls(crops)
        probs, _ = apply_context(crops, probs, smalls=smalls)
    # a blurred photo's pits are read less surely than the counter says (vision.focus)
    blur = crops_blur(crops)
    read = soften(probs, blur, cfg.count.blur_from, cfg.count.blur_temper)  # (blur_temper 0: as read)
    lap("count")
    hidden, faint = occluded_cells(grid, cfg.grid)  # (4, 8): row-major is HOLES order
    # pits covered by something that is no seed but whose rim still shows a little: occluded
    # and, like the pits known only by a faint rim, a hand only with a neighbour hidden too
    covered = _covered(crops, probs, grid, hidden.ravel(), cfg, smalls)
    occluded = hidden.ravel() | covered
    crossed = None  # pits beside which something lies across the board's edge (an arm)
    if cfg.decode.hand_edge_break > 0 and occluded.any():
        crossed = crossed_pits(edge_breaks(image, corners, hmat, grid), cfg.decode.hand_edge_break,
                               cfg.decode.hand_edge_reach).ravel()
    dec = decode(read, occluded, expected_total, cfg.decode, faint=faint.ravel() | covered,
                 crossed=crossed)
    if moved:
        dec.status.append("board_moved")
    if cfg.count.blur_flag > 0 and blur >= cfg.count.blur_flag:
        dec.status.append("image_blurred")
    if south_clearness(corners, south) < cfg.rectify.south_clear_min:
        dec.status.append("south_unclear")  # the board's long sides run towards the named side
    centres_img = to_image(grid.centres.reshape(-1, 2), hmat).reshape(grid.centres.shape)
    lap("decode")
    return Recognition(
        position=nested(dec.counts),
        probabilities=nested(dec.probabilities),
        confidence=nested(dec.confidence),
        board_corners_px=[[round(float(x), 1), round(float(y), 1)] for x, y in corners],
        status=dec.status,
        timings_ms=timings,
        pit_centers_px={n: [round(float(v), 1) for v in centres_img[HOLE_CELL[n]]] for n in HOLES},
        total_on_board=dec.total,
        grid_score=grid.score,
        blur=float(blur),
        crops=crops,
    )


def read_again(recognition: Recognition, holes: Sequence[str],
                cfg: VisionConfig = DEFAULT) -> Recognition | None:
    """The pits ``holes`` read again more closely, for the referee: when no legal move
    agrees with some pits' reading (:func:`engine.referee.disputed_pits`), each of those
    crops is read at ``cfg.count.dispute_views`` turned views (and with
    ``dispute_broad`` by the broad network too), softened for blur as the first
    reading was. A pit read at one view can be sure and wrong (two touching seeds read
    as one at 0.997; as two at 0.93 from eight views); it costs ~2 ms a pit.

    Returns a copy of ``recognition`` whose pits ``holes`` have the new distributions,
    counts and confidences (the other pits and the status as read), or None when there
    is nothing to read again: the recognition kept no crops (another recognizer), or
    every pit named is unknown or occluded (its reading says nothing of its seeds).
    """
    crops = recognition.crops
    if not crops or len(crops) != len(HOLES) or not recognition.probabilities:
        return None
    hidden = set(status_pits(recognition.status, "occluded_pits"))
    names = [n for n in dict.fromkeys(holes) if n in HOLE_CELL and n not in hidden]
    if not names:
        return None
    from vision.count import count_pits

    results = count_pits([crops[HOLES.index(n)] for n in names], None, cfg.count.dispute_views,
                         broad=cfg.count.dispute_broad)
    probs = np.array([np.asarray(r.probabilities, np.float64) for r in results])
    if recognition.blur is not None:
        probs = soften(probs, recognition.blur, cfg.count.blur_from, cfg.count.blur_temper)
    counts, p, conf = (flatten(recognition.position), flatten(recognition.probabilities),
                       flatten(recognition.confidence))
    for name, row in zip(names, probs, strict=True):
        counts[name] = int(row.argmax())
        p[name] = [round(float(v), 5) for v in row]
        conf[name] = round(float(row.max()), 4)
    return replace(recognition, position=nested(counts), probabilities=nested(p), confidence=nested(conf),
                   total_on_board=sum(cast(int, c) for c in counts.values()), status=list(recognition.status))


def warm_up(cfg: VisionConfig = DEFAULT) -> float:
    """Do a fresh process's one-time start-up work before the first image is timed.

    One pass of :func:`recognize` over a drawn board loads the counter network
    (and checks it against its weights) and runs it, and has OpenCV build its
    lazily made tables (the 8-bit Lab conversion: ~60 ms; the DFT behind large
    filters). The locate stage's helper threads are started. Otherwise all of this
    lands in the first image's stage times: ``bao recognize`` in a fresh process measured locate +100 ms and count
    +100 ms. The readings are unchanged.

    Returns the milliseconds it took.
    """
    t0 = time.perf_counter()
    from vision.locate import helper_pool

    if cfg.locate.background:
        helper_pool()
    # once through every stage on a drawn board: the network is loaded and run at the
    # pipeline's batch sizes, and the first calls' allocations and lazy imports are made
    board = _practice_board()
    recognize(board, cfg=cfg, on_missing="status")
    # the float Lab conversion of vision.features.prepare (the pits unlike the board's
    # empty ones; a calibrated seed look) builds its tables on first use: ~60-120 ms
    from vision.features import prepare

    prepare(board[:96, :96])
    return round(1000 * (time.perf_counter() - t0), 1)


def _practice_board() -> np.ndarray:
    """A plain drawn board (32 dark pits on a wooden rectangle) on a grey table, 640 x 360."""
    img = np.full((360, 640, 3), (150, 155, 160), np.uint8)
    cv2.rectangle(img, (120, 90), (520, 270), (60, 110, 160), -1)
    for row, y in enumerate((115, 155, 205, 245)):
        for col in range(8):
            cv2.circle(img, (145 + 50 * col, y), 16, (30, 60, 90), -1)
            if (row + col) % 3 == 0:
                cv2.circle(img, (141 + 50 * col, y - 3), 4, (210, 220, 225), -1)
    return img


@stage_main
def main(argv: list[str] | None = None) -> int:
    from vision.io import read_image

    ap = argparse.ArgumentParser(description="Recognise the position in one board image.")
    ap.add_argument("image")
    ap.add_argument("--south", default="bottom")
    ap.add_argument("--calibration", metavar="PROFILE")
    ap.add_argument("--debug", metavar="OUT.png", help="image with corners and pit centres drawn")
    args = ap.parse_args(argv)
    img = read_image(args.image)
    profile = BoardProfile.load(args.calibration) if args.calibration else None
    warm_up()  # the one-time set-up first, so that the timings printed are this image's
    rec = recognize(img, args.south, profile)
    print(rec.to_text())
    print(json.dumps(rec.timings_ms))
    if args.debug:
        cv2.imwrite(args.debug, debug_image(img, rec))
    return 0


def debug_image(image: np.ndarray, rec: Recognition) -> np.ndarray:
    """``image`` with the board's outline and, at each pit centre, its name and the count
    read: white where sure, orange where listed as uncertain, red where occluded."""
    out = image.copy()
    cv2.polylines(out, [np.round(rec.board_corners_px).astype(np.int32)], True, (0, 255, 0), 2)
    occluded = set(status_pits(rec.status, "occluded_pits"))
    uncertain = set(status_pits(rec.status, "uncertain_pits"))
    counts = flatten(rec.position)
    for name, (x, y) in rec.pit_centers_px.items():
        colour = ((0, 0, 255) if name in occluded else
                  (0, 165, 255) if name in uncertain else (255, 255, 255))
        org = (int(x) - 8, int(y) + 5)
        text = str(counts[name])
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.55, colour, 1, cv2.LINE_AA)
        cv2.putText(out, name, (int(x) - 8, int(y) - 9), cv2.FONT_HERSHEY_SIMPLEX, 0.35, (0, 255, 255), 1,
                    cv2.LINE_AA)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
