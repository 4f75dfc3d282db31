"""Stage 1: find the four corners of the playing surface, without markers.

Method (no single look is assumed; the details and the measurements behind each
threshold are in docs/vision.md):

1. **Pits** (:mod:`vision.pit_scan`): pit rims found over the whole image, grown
   into 8 x 4 lattices and fitted; a clear fit (``pit_scan_early``) is taken at
   once (most photos). When the fit is not clear, the small rims again on a larger
   copy (:func:`_small_pits`), for a board small in the frame; then the first
   scan's weak fits are fitted again as an outline would be (``pit_scan_refit``).
2. **Outlines** (:func:`vision.outlines.outline_candidates`). On a downscaled copy, several
   segmentations are made: colour distance from the table (estimated on the
   image border), Otsu on grey in both polarities, closed Canny edges, k-means
   colour clusters and the density of pit-like rings. Their large outer contours
   become quads (hull polygon, best 4 hull points, min-area rectangle); sides are
   refitted on the gradient; quads are ordered by outline contrast x pit-ring
   density inside.
3. **Ranking** (:func:`vision.outlines.rank_candidates`): the quick free lattice search in each
   quad's rectified view (x the outline's strength).
4. **Fits** (:func:`vision.board.fit_top_face`): the best-ranked of the 3
   strongest outlines is fitted first and taken when clearly good. Otherwise
   the best-ranked finalist gets a fit, then the first fit is restarted; when
   that fit and a pit scan's agree on one board (``agree_within``), the better
   of them is taken. Else the finalists are fitted in turn (a weaker pit-scan
   fit competes with them); before giving up, the pits as dark discs and the
   next outlines (which are also fitted when the best fit so far is weak, and
   must beat it); as a last chance, a weaker lattice whose playing surface
   ends at its own outline's corners. A fit is accepted by its
   :attr:`vision.grid.PitGrid.score` (rim evidence on the pit lattice).
5. **Small boards** (:func:`_small_board`): when nothing fits, the pit scan again
   on larger copies of the image (rims, then dark discs), for a board small in
   the frame.

The result's corners are the playing surface's, from the fitted pit lattice
(:mod:`vision.board`). Points are OpenCV ``(x, y)`` image px. The result is a
clockwise quad with side 0 -> 1 along the board's long axis (rows of 8 pits);
:func:`vision.rectify.orient_corners` then applies the South side.

Debug: ``python -m vision.locate IMG --debug OUT.png``.
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import cv2
import numpy as np

from vision.config import DEFAULT, LocateConfig, VisionConfig
from vision.errors import BoardNotFound, stage_main
from vision.outlines import (
    edge_magnitude,
    outline_candidates,
    rank_candidates,
    ranked_keyed,
    refine_sides,
    unkeyed,
)
from vision.rectify import long_axis_first, squash
from vision.threads import LazyPool


@dataclass
class BoardQuad:
    corners: np.ndarray  # (4, 2) image (x, y), clockwise, side 0->1 along the long axis
    score: float  # grid-fit score of the chosen quad
    aspect: float  # width / height of the playing surface used for rectification
    method: str  # which segmentation produced it ("given" for user corners)
    fit: Any = None  # vision.board.TopFace of these corners when the locate stage fitted it


T = TypeVar("T")
HELPER_THREADS = 2  # the helper pool's threads (this machine's two cores)
_HELPERS = LazyPool(HELPER_THREADS, "bao-helper")


def helper_pool() -> ThreadPoolExecutor:
    """The board search's helper threads (``HELPER_THREADS``), made on first use: the
    outline ranking started ahead (``LocateConfig.background``) and the refits made side
    by side (:func:`vision.board._fitted`)."""
    return _HELPERS.get()


class _Later(Generic[T]):
    """``fn(*args)``, started now on a helper thread when ``background`` (its result
    may be needed: the second core works while this one fits), else computed only
    when :meth:`result` is first called. Either way the same value; OpenCV and
    numpy release the GIL for their work."""

    def __init__(self, background: bool, fn: Callable[..., T], *args: Any) -> None:
        self._fn, self._args = fn, args
        self._future: Future[T] | None = helper_pool().submit(fn, *args) if background else None
        self._value: tuple[T] | None = None

    def result(self) -> T:
        if self._future is not None:
            return self._future.result()
        if self._value is None:
            self._value = (self._fn(*self._args),)
        return self._value[0]


#: what a user can check when no board is found and none runs off the image
NOT_FOUND_HINT = ("check that the whole board is in the picture, lit, and not covered "
                  "by a hand or an arm")


def locate_board(image: np.ndarray, cfg: VisionConfig = DEFAULT) -> BoardQuad:
    """Find the playing surface in a BGR image (see module docstring).

    Raises:
        BoardNotFound: no candidate quad holds a plausible 4 x 8 pit grid.
    """
    lc = cfg.locate
    if lc.use_aruco:
        marked = aruco_corners(image, cfg)
        if marked is not None:
            return marked
    try:
        return _outlined(_search(image, cfg))
    except BoardNotFound as exc:
        small = _small_board(image, cfg)
        if small is None:
            small = _brightened_search(image, cfg)
        if small is None:
            cut = off_image_message(image, cfg)
            if cut:
                raise BoardNotFound(f"{cut}; {exc}") from exc
            raise BoardNotFound(f"{exc}; {NOT_FOUND_HINT}") from exc
        return _outlined(small)


def _outlined(quad: BoardQuad) -> BoardQuad:
    """``quad`` with the outline of its fit (``TopFace.outlined``: the ends searched past
    the pits' rims' outer step) when the search settled on that fit's corners."""
    fit = quad.fit
    if fit is None or getattr(fit, "outline", None) is None or not np.allclose(quad.corners, fit.corners):
        return quad
    out = fit.outlined()
    return BoardQuad(out.corners, quad.score, out.aspect, quad.method, out)


def is_dark(image: np.ndarray, lc: LocateConfig) -> bool:
    """Whether at least ``lc.dark_retry_share`` of the image's pixels are darker than
    ``lc.dark_retry_level`` (grey, 0..255)."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return float(np.count_nonzero(grey < lc.dark_retry_level)) >= lc.dark_retry_share * grey.size


def brightened(image: np.ndarray, gamma: float) -> np.ndarray:
    """``image`` with every channel raised to ``gamma`` (< 1 lifts the shadows)."""
    lut = np.clip(np.round(255.0 * (np.arange(256) / 255.0) ** gamma), 0, 255).astype(np.uint8)
    return cv2.LUT(image, lut)


def dark_retry_copy(image: np.ndarray, lc: LocateConfig) -> np.ndarray | None:
    """The brightened copy a dark photo is searched again on (``LocateConfig.dark_retry_gamma``),
    or None (the photo is not dark, or the retry is off)."""
    if not 0.0 < lc.dark_retry_gamma < 1.0 or not is_dark(image, lc):
        return None
    return brightened(image, lc.dark_retry_gamma)


def _brightened_search(image: np.ndarray, cfg: VisionConfig) -> BoardQuad | None:
    """The search again on a brightened copy of a dark photo (:func:`dark_retry_copy`),
    or None (not dark, off, or still nothing). The corners are the photo's own."""
    lifted = dark_retry_copy(image, cfg.locate)
    if lifted is None:
        return None
    found: BoardQuad | None
    try:
        found = _search(lifted, cfg)
    except BoardNotFound:
        found = _small_board(lifted, cfg)
    if found is not None:
        found.method += "+brightened"
    return found


def off_image_message(image: np.ndarray, cfg: VisionConfig = DEFAULT) -> str | None:
    """What to tell the user when the pits found run off the image
    (:func:`vision.pit_scan.off_image`), or None."""
    from vision.pit_scan import off_image

    if cfg.locate.cut_min_pits <= 0:
        return None
    found = off_image(image, cfg.locate, cfg.grid.gradient_log_offset, cfg.grid.gap_steps)
    if found is None:
        return None
    sides, pits = found
    edges = " and ".join(sides)
    return (f"the board seems to run off the image at the {edges} edge{'s' if len(sides) > 1 else ''} "
            f"with {pits} of its 32 pits found: move the camera so that the whole board is in the picture")


def _small_board(image: np.ndarray, cfg: VisionConfig) -> BoardQuad | None:
    """The pit scan again on larger copies of the image (``LocateConfig.small_board_scan_px``,
    long sides, in turn): a board far from the camera or filling little of the frame has
    pits too small for the scan's usual copy (a pit 5 px across or less there). Only once
    the whole search has found nothing; the first fit found is taken. The rims first, on
    each copy; then (``pit_scan_blobs``) the dark discs, whose lattice steps are taken
    from each seed's own neighbours: a small board on a tiled floor is outnumbered by
    the tiles' candidates, and the steps of all candidates together are the tiles'."""
    import dataclasses

    if not cfg.locate.pit_scan:
        return None
    long_side = max(image.shape[:2])
    sides: list[int] = []
    done = min(long_side, cfg.locate.pit_scan_long_side_px)
    for side in cfg.locate.small_board_scan_px:
        if min(side, long_side) > done:  # larger than a copy already scanned
            done = min(side, long_side)
            sides.append(side)
    for blobs in (False, True) if cfg.locate.pit_scan_blobs else (False,):
        for side in sides:
            zoomed = dataclasses.replace(cfg, locate=dataclasses.replace(cfg.locate, pit_scan_long_side_px=side))
            found = _pit_scanned(image, zoomed, blobs=blobs)
            if found is not None:
                return dataclasses.replace(found, method=found.method + "_zoomed")
    return None


def _small_pits(image: np.ndarray, cfg: VisionConfig) -> BoardQuad | None:
    """The rim scan on a larger copy (``LocateConfig.small_pit_scan_px``), at the small
    radii ``small_pit_scan_radii_px`` only and with no refits (34-145 ms): pits too
    small for the first scan's copy. None when off, when the image is no larger than
    the first scan's copy, or when no lattice fits."""
    import dataclasses

    lc = cfg.locate
    side = min(lc.small_pit_scan_px, max(image.shape[:2]))
    if not lc.small_pit_scan_px or not lc.small_pit_scan_radii_px or side <= lc.pit_scan_long_side_px:
        return None
    zoomed = dataclasses.replace(cfg, locate=dataclasses.replace(
        lc, pit_scan_long_side_px=side, pit_scan_radii_px=lc.small_pit_scan_radii_px, pit_scan_refit=0))
    found = _pit_scanned(image, zoomed)
    return None if found is None else dataclasses.replace(found, method=found.method + "_small_pits")


def _search(image: np.ndarray, cfg: VisionConfig) -> BoardQuad:
    """:func:`locate_board` at the usual scales (no markers); BoardNotFound if nothing fits."""
    from vision.board import fit_top_face

    lc = cfg.locate
    scan: list[BoardQuad | None] = []  # the pit scan's result, once it has run
    tiny: BoardQuad | None = None  # the small rims' (for _agreeing, with the scan's)
    if lc.pit_scan and lc.pit_scan_early > 0:
        # the pits alone first (~80 ms): a clear lattice from them ends the search. On
        # half of 160 renders the strongest outline's first fit failed and the scan found
        # the board after it; scanning first, 129 of 160 end here, the same boards are
        # found and the median time falls by ~20-30 ms (docs/vision.md, seventh session)
        memo: dict[str, Any] = {}
        rims = _pit_scanned(image, cfg, memo=memo, refit=not lc.small_pits_before_refits)
        if rims is not None and rims.score >= lc.pit_scan_early:
            return rims
        tiny = _small_pits(image, cfg)
        if tiny is not None and tiny.score >= lc.pit_scan_early:
            return tiny
        if lc.small_pits_before_refits:
            # the first scan's weak fits refitted only now (150-350 ms each), its
            # lattices and first fits kept from above
            rims = _pit_scanned(image, cfg, memo=memo)
            if rims is not None and rims.score >= lc.pit_scan_early:
                return rims
        scan.append(rims)
        if scan[0] is None and lc.pit_scan_blobs and lc.blobs_early > 0:
            # no rim lattice at all: the dark-disc scan, the last resort, is made now
            # (0.2-2 s) and a clear fit from it ends the search. Over 297 renders the
            # rims gave no lattice on 32; with the outlines fitted first (4-9 s), the
            # search ended on this same scan's fit on 14 of them, and each of the 15
            # clear fits from it was the board the whole search found (docs/vision.md,
            # seventeenth session); so was each of 15 fair ones (0.6-1.0) over 739 photos
            # (sixty-eighth session: ``blobs_early`` 0.7)
            scan.append(_pit_scanned(image, cfg, blobs=True))
            if scan[1] is not None and scan[1].score >= lc.blobs_early:
                return scan[1]
    scored, small, scale = outline_candidates(image, cfg)
    first = None
    ranked0: list[tuple[float, np.ndarray, str]] | None = None
    if lc.verify_finalists and scored:
        # most often one of the strongest few outlines is the board: the best of them
        # by the quick lattice search (``first_ranked``, ~5 ms each) is fitted first
        # (over 220 renders, 123 such first fits were clearly good, against 109 for
        # the strongest outline alone). When that fit is clearly good, the ranking of
        # the other finalists is not needed (with ``background``, it is made on the
        # other core meanwhile, in case)
        unwanted = threading.Event()
        head = ranked_keyed(small, scored, cfg, count=lc.first_ranked) if lc.first_ranked > 0 else []
        q0, name0 = (head[0][2], head[0][3]) if head else (long_axis_first(scored[0][1]), scored[0][2])
        ranking = _Later(lc.background, ranked_keyed, small, scored, cfg, unwanted, len(head),
                         max(lc.finalists - len(head), 0))
        fit = fit_top_face(image, q0 / scale, cfg.rectify.default_aspect, cfg, restart=False,
                           nominal=False, comb_min=lc.first_comb_min)
        if fit.grid.score >= max(lc.first_fit_enough, _off_bar(fit.corners, image, lc)):
            unwanted.set()  # (the ranking's helper thread stops at its next outline)
            return BoardQuad(fit.corners, fit.grid.score, fit.aspect, name0, fit)
        if fit.grid.score >= lc.verify_enough:
            unwanted.set()
        else:
            # not good. The other finalists are ranked too (~15 ms), and the best-ranked
            # outline, when another, gets a single fit too (the strongest outline is the
            # board on 45 of 80 renders, the best-ranked one on 53), unless its quick
            # lattice is weak (``second_fit_min``)
            ranked0 = unkeyed(head + ranking.result())
            if ranked0 and not np.allclose(ranked0[0][1], q0) and ranked0[0][0] >= lc.second_fit_min:
                f2 = fit_top_face(image, ranked0[0][1] / scale, cfg.rectify.default_aspect, cfg,
                                  restart=False, nominal=False, comb_min=lc.first_comb_min)
                if f2.grid.score >= max(lc.verify_enough, _off_bar(f2.corners, image, lc)):
                    return BoardQuad(f2.corners, f2.grid.score, f2.aspect, ranked0[0][2], f2)
        fit = fit_top_face(image, q0 / scale, cfg.rectify.default_aspect, cfg, first=fit)
        if fit.grid.score >= max(lc.verify_enough, _off_bar(fit.corners, image, lc)):
            return BoardQuad(fit.corners, fit.grid.score, fit.aspect, name0, fit)
        agreed = _agreeing(BoardQuad(fit.corners, fit.grid.score, fit.aspect, name0, fit), [tiny, *scan],
                           image, lc)
        if agreed is not None:
            return agreed
        first = (q0, fit)
    ranked = ranked0 if ranked0 is not None else rank_candidates(small, scored, cfg)
    if not ranked:
        scanned = _last_resort(image, cfg, scan) if lc.pit_scan else None
        if scanned is None:
            raise BoardNotFound("no board-sized four-sided shape in the image, nor a 4x8 pit lattice")
        return scanned
    if lc.verify_finalists:
        def more() -> list[tuple[float, np.ndarray, str]]:
            return rank_candidates(small, scored, cfg, first=lc.finalists,
                                   count=lc.more_ranked)[: lc.more_finalists]

        return _verified(image, ranked, scale, cfg, first, scan, more)
    best_s, best_q, method = ranked[0]
    if best_s < lc.min_quick_lattice:
        raise BoardNotFound(
            f"no 4x8 pit lattice found (best fit {best_s:.2f} < {lc.min_quick_lattice:.2f})")
    full = best_q / scale
    mag = edge_magnitude(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    refined = refine_sides(mag, full, band=max(2.0, 1.5 / scale))
    return BoardQuad(refined, best_s, cfg.rectify.default_aspect, method)


def _agreeing(found: BoardQuad, scans: list[BoardQuad | None], image: np.ndarray,
              lc: LocateConfig) -> BoardQuad | None:
    """The highest-scoring of ``found`` (an outline's fit) and the pit scans' fits among
    ``scans`` that agree with it, when at least one does: each scoring
    ``LocateConfig.agree_min`` (and what a surface running off the image needs), every
    corner of a scan's fit within ``agree_within`` x its longest side of ``found``'s.
    Else None."""
    if lc.agree_within is None or found.score < max(lc.agree_min, _off_bar(found.corners, image, lc)):
        return None
    agreeing = [other for other in scans
                if other is not None and other.score >= max(lc.agree_min, _off_bar(other.corners, image, lc))
                and outline_agreement(found.corners, other.corners) <= lc.agree_within]
    if not agreeing:
        return None
    return max([found, *agreeing], key=lambda q: q.score)


def outline_agreement(corners: np.ndarray, outline: np.ndarray) -> float:
    """How far the fitted playing surface's ``corners`` lie from the ``outline`` quad's
    corners (both image px, any order and direction): the largest corner distance,
    for the best pairing, over the outline's longest side."""
    c, o = np.asarray(corners, float), np.asarray(outline, float)
    side = float(np.max(np.linalg.norm(o - np.roll(o, 1, axis=0), axis=1)))
    worst = min(float(np.max(np.linalg.norm(np.roll(cc, k, axis=0) - o, axis=1)))
                for cc in (c, c[::-1]) for k in range(4))
    return worst / max(side, 1e-9)


def _verified(image: np.ndarray, ranked: list[tuple[float, np.ndarray, str]], scale: float,
              cfg: VisionConfig, known: tuple[np.ndarray, Any] | None = None,
              scan: list[BoardQuad | None] | None = None,
              more: Callable[[], list[tuple[float, np.ndarray, str]]] | None = None) -> BoardQuad:
    """The candidate whose top-face pit lattice fits best (vision.board.fit_board).
    ``known``: a (work-scale quad, its fit with ``cfg``) already made; ``scan``:
    ``[the pit scan's result]`` when it has run; ``more``: the next outlines, ranked,
    fitted before giving up, when neither the finalists nor the pit scan fit (a
    table of bricks or tiles has sharper outlines and more ring-like corners than
    the board, and can push it out of the finalists)."""
    import dataclasses

    from vision.board import fit_top_face

    lc = cfg.locate
    # a quick fit (coarse lattice view, fewer passes) ranks the finalists; the best
    # is fitted again in full
    quick = cfg
    if (lc.verify_pitch_px, lc.verify_passes) != (cfg.grid.lattice_pitch_px, cfg.grid.lattice_passes):
        quick = dataclasses.replace(cfg, grid=dataclasses.replace(
            cfg.grid, lattice_pitch_px=lc.verify_pitch_px, lattice_passes=lc.verify_passes))

    def quick_fit(q: np.ndarray) -> Any:
        # (a comb lattice under verify_comb_min ends the fit: no nominal start, no restarts)
        return fit_top_face(image, q / scale, cfg.rectify.default_aspect, quick,
                            comb_min=lc.verify_comb_min, comb_ends=True)

    best: tuple[float, np.ndarray, str, Any] | None = None
    others: list[tuple[float, np.ndarray, str, Any]] = []  # for the last chance
    for i, (_, q, name) in enumerate(ranked[: lc.verify_finalists]):
        if known is not None and quick is cfg and np.array_equal(known[0], q):
            fit = known[1]
        else:
            fit = quick_fit(q)
        # the best-ranked quad needs a plausible lattice; another one must fit clearly
        # better than a table can (a wrong board is worse than none)
        need = cfg.grid.min_lattice_score if i == 0 else lc.verify_other_min
        if (i == 0 and lc.slid_fit_agree is not None and fit.grid.score < lc.verify_other_min
                and outline_agreement(fit.corners, q / scale) > lc.slid_fit_agree):
            need = lc.verify_other_min  # (slid off its outline: held as the others are)
        off = _off_bar(fit.corners, image, lc)  # (a lattice running off the image: a clear one)
        if fit.grid.score >= max(need, off) and (best is None or fit.grid.score > best[0]):
            best = (fit.grid.score, q, name, fit)
        elif i > 0 and fit.grid.score >= max(lc.last_chance_min, off) and lc.last_chance_min > 0:
            others.append((fit.grid.score, q, name, fit))
        if best is not None and best[0] >= lc.verify_enough:
            break
    if lc.pit_scan and (best is None or best[0] < lc.verify_enough):
        # no outline holds a clear lattice: the pits alone may show one (better)
        scanned = _last_resort(image, cfg, scan)
        if scanned is not None and (best is None or scanned.score > best[0]):
            return scanned
    if more is not None and lc.more_finalists and (best is None or best[0] < lc.more_below):
        # nor the pits (or only weakly): the next outlines, each needing a clear fit,
        # better than the best so far
        bar = lc.verify_other_min if best is None else max(lc.verify_other_min, best[0] + 1e-6)
        for _, q, name in more():
            fit = quick_fit(q)
            if fit.grid.score >= max(bar, _off_bar(fit.corners, image, lc)):
                best, bar = (fit.grid.score, q, name, fit), fit.grid.score
            if bar >= lc.verify_enough:
                break
    if best is None:
        # last chance: a weaker lattice that ends where its own outline does
        for cand in sorted(others, key=lambda c: -c[0]):
            if outline_agreement(cand[3].corners, cand[1] / scale) <= lc.last_chance_agree:
                best = cand
                break
    if best is None:
        raise BoardNotFound("no 4x8 pit lattice found on any board-shaped outline nor from the pits alone")
    score, q, name, fit = best
    if quick is not cfg:
        fit = fit_top_face(image, q / scale, cfg.rectify.default_aspect, cfg)
        score = fit.grid.score
    if score < cfg.grid.min_lattice_score:
        raise BoardNotFound(
            f"no 4x8 pit lattice found (best fit {score:.2f} < {cfg.grid.min_lattice_score:.2f})")
    if score < _off_bar(fit.corners, image, lc):
        raise BoardNotFound(f"no 4x8 pit lattice found (the best, {score:.2f}, runs off the image, "
                            "where a board needs a clear fit)")
    return BoardQuad(fit.corners, score, fit.aspect, name, fit)


def _off_bar(corners: np.ndarray, image: np.ndarray, lc: LocateConfig) -> float:
    """The fit a top face with these ``corners`` (image px) needs, whether found from an
    outline or from a pit scan's lattice: none more (0) when the playing surface lies in
    the image; when it runs off the image, ``pit_scan_cut_min`` (infinite when 0). A lattice laid
    on a chequered floor spans the whole image and more, scoring 0.5 (synth_397_0024);
    a board seen from close by, its edges out of the frame and its pits in, scores 1.06
    or more (seed 97)."""
    h, w = image.shape[:2]
    c = np.asarray(corners, np.float64)
    if np.all((c >= 0) & (c <= (w - 1, h - 1))):
        return 0.0
    return lc.pit_scan_cut_min or np.inf


def _pit_scanned(image: np.ndarray, cfg: VisionConfig, blobs: bool = False,
                 memo: dict[str, Any] | None = None, refit: bool = True) -> BoardQuad | None:
    """The best top-face fit started from the pits alone (:mod:`vision.pit_scan`;
    ``blobs``: dark-disc candidates instead of rims), when it scores at least
    ``LocateConfig.pit_scan_min_score``. ``refit`` False: no lattice's fit is fitted
    again (``pit_scan_refit``); ``memo``: a dict kept between calls on the same image
    and settings, holding the lattices and their first fits, so that a scan made first
    without refits costs little more once they are made."""
    from vision.board import fit_from_lattice, fit_top_face
    from vision.pit_scan import pit_lattices

    best = None
    memo = {} if memo is None else memo
    if "lattices" not in memo:
        memo["lattices"] = pit_lattices(image, cfg.locate, cfg.grid.gradient_log_offset, blobs=blobs,
                                        gap_steps=cfg.grid.gap_steps)
    fits: dict[int, Any] = memo.setdefault("fits", {})
    for k, (_, hlat) in enumerate(memo["lattices"]):
        if k not in fits:
            fits[k] = fit_from_lattice(image, hlat, 0.0, cfg)
        fit = fits[k]
        clear = best is not None and 0 < cfg.locate.pit_scan_early <= best.grid.score
        if (refit and fit.grid.score < cfg.locate.pit_scan_refit_below and k < cfg.locate.pit_scan_refit
                and not clear):
            # near the pits but not settled on them: fitted again as an outline would be
            # (150-350 ms; not once an earlier lattice's fit is clear enough to end the search)
            again = fit_top_face(image, fit.corners, fit.aspect, cfg)
            weak = cfg.locate.pit_scan_refit_weak_outer
            settled = weak is not None and _weakest_outer(fit) < weak <= _weakest_outer(again)
            if again.grid.score > fit.grid.score and (fit.grid.score < cfg.locate.pit_scan_min_score
                                                      or again.grid.score >= cfg.locate.pit_scan_refit_keep
                                                      or settled):
                fit = again
        if squash(fit.corners, fit.aspect) < cfg.locate.pit_scan_min_squash:
            continue  # no board seen from 45 degrees or higher: a lattice along the pits' diagonals
        # the whole playing surface in the image (a pattern running off the image
        # shows no end, so whether it is a board cannot be told), or, for a board
        # filling the frame, all its pits (a fit with a pit off the image scores 0)
        # and a clear lattice
        need = max(cfg.locate.pit_scan_min_score, _off_bar(fit.corners, image, cfg.locate))
        if fit.grid.score >= need and (best is None or fit.grid.score > best.grid.score):
            best = fit
            if 0 < cfg.locate.pit_scan_enough <= best.grid.score:
                break  # clear: the later lattices (weaker candidates) are not fitted
    if best is None:
        return None
    return BoardQuad(best.corners, best.grid.score, best.aspect, "pit_scan_blobs" if blobs else "pit_scan", best)


def _weakest_outer(fit: Any) -> float:
    """The weakest of a fit's outer columns and rows: the median of its pits' evidence
    (``PitGrid.evidence``, over the lattice's median); NaN (no comparison holds) when the
    fit has none."""
    ev = getattr(fit.grid, "evidence", None)
    if ev is None:
        return float("nan")
    cols, rows = np.median(ev, axis=0), np.median(ev, axis=1)
    return float(min(cols[0], cols[-1], rows[0], rows[-1]))


def _last_resort(image: np.ndarray, cfg: VisionConfig, scan: list[BoardQuad | None] | None) -> BoardQuad | None:
    """The rim scan's result (``scan``: ``[it]`` when it has run already, ``[it, the
    dark-disc scan's]`` when that has too), or when
    the rims made no lattice and ``pit_scan_blobs``, the dark-disc scan's (~300 ms:
    only once nothing else fits clearly)."""
    scanned = scan[0] if scan else _pit_scanned(image, cfg)
    if scanned is None and cfg.locate.pit_scan_blobs:
        if scan and len(scan) > 1:
            return scan[1]  # made already (``blobs_early``)
        return _pit_scanned(image, cfg, blobs=True)
    return scanned


def aruco_corners(image: np.ndarray, cfg: VisionConfig = DEFAULT) -> BoardQuad | None:
    """Board corners from four ArUco markers (dictionary ``LocateConfig.aruco_dict``,
    ids 0, 1, 2, 3 stuck at the playing surface's canonical TL, TR, BR, BL corners;
    each marker's centre is taken as the corner). None unless all four are seen."""
    aruco = getattr(cv2, "aruco", None)
    if aruco is None:
        return None
    dictionary = aruco.getPredefinedDictionary(getattr(aruco, cfg.locate.aruco_dict))
    detector = aruco.ArucoDetector(dictionary, aruco.DetectorParameters())
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    marks, ids, _ = detector.detectMarkers(grey)
    if ids is None:
        return None
    found = {int(i): m.reshape(4, 2).mean(axis=0) for m, i in zip(marks, ids.ravel(), strict=True)}
    if not all(k in found for k in range(4)):
        return None
    return BoardQuad(np.array([found[k] for k in range(4)], np.float64), float("nan"),
                     cfg.rectify.default_aspect, "aruco")


def given_corners(corners: np.ndarray | list, cfg: VisionConfig = DEFAULT) -> BoardQuad:
    """Wrap user-given canonical TL, TR, BR, BL corners (no search, no reordering)."""
    q = np.asarray(corners, np.float64)
    if q.shape != (4, 2) or not np.all(np.isfinite(q)):
        raise BoardNotFound(f"expected four [x, y] corners, got {np.asarray(corners).tolist()}")
    if not cv2.isContourConvex(q.astype(np.float32).reshape(-1, 1, 2)):
        raise BoardNotFound("the four given corners do not form a convex quadrilateral")
    return BoardQuad(q, float("nan"), cfg.rectify.default_aspect, "given")


def draw_quad(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    out = image.copy()
    pts = np.round(quad).astype(np.int32)
    cv2.polylines(out, [pts], True, (0, 255, 0), 2)
    for i, (x, y) in enumerate(pts):
        cv2.putText(out, str(i), (int(x) + 4, int(y) - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 255), 2)
    return out


@stage_main
def main(argv: list[str] | None = None) -> int:
    from vision.io import read_image

    ap = argparse.ArgumentParser(description="Locate the Bao board in an image.")
    ap.add_argument("image")
    ap.add_argument("--debug", metavar="OUT.png", help="write the image with the found quad")
    args = ap.parse_args(argv)
    img = read_image(args.image)
    quad = locate_board(img)
    print(f"corners {np.round(quad.corners, 1).tolist()} score {quad.score:.3f} via {quad.method}")
    if args.debug:
        cv2.imwrite(args.debug, draw_quad(img, quad.corners))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
