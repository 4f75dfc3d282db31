"""Every threshold of the vision pipeline, grouped by stage.

Nothing else in ``vision/`` holds tuning numbers: stages take a config object
(default :data:`DEFAULT`) so a test or a benchmark can change one value with
``dataclasses.replace``. Lengths marked *frac* are fractions of the canonical
board width or height; lengths in px are in the stage's own image.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True)
class LocateConfig:
    """Stage 1: finding the four corners of the playing surface."""

    use_aruco: bool = False  # try four ArUco markers (ids 0..3 at TL, TR, BR, BL) first
    aruco_dict: str = "DICT_4X4_50"
    work_long_side_px: int = 480  # image is downscaled to this long side for the search
    min_area_frac: float = 0.04  # candidate quad must cover >= this share of the image
    max_area_frac: float = 0.97
    min_side_px: float = 40.0  # at work scale
    blur_px: int = 5
    canny_low: int = 30
    canny_high: int = 90
    close_px: int = 7  # closing kernel joining board edges in the edge segmentation
    open_px: int = 9  # opening kernel detaching reserve seeds from the board blob
    kmeans_k: tuple[int, ...] = (3, 4)  # colour clusters tried for the colour segmentation
    cluster_width_px: int = 160  # image width for the k-means colour clustering
    cluster_lab_weights: tuple[float, float, float] = (0.5, 1.5, 1.5)  # L, a, b
    approx_eps_frac: tuple[float, ...] = (0.02, 0.04, 0.07)  # of the contour perimeter
    max_candidates: int = 24  # quads scored by the grid fit
    pit_radii_px: tuple[int, ...] = (5, 8, 12)  # pit sizes (work scale) for the pit-density map
    min_side_ratio: float = 1.15  # long / short side in the image, plausible boards
    max_side_ratio: float = 5.0
    same_quad_frac: float = 0.035  # quads whose corners all agree within this / diagonal are one
    finalists: int = 6  # quads with the strongest outlines scored by the lattice search
    # ... of which the strongest this many are ranked first and the best of them fitted
    # first (0: the strongest outline is fitted first, unranked)
    first_ranked: int = 3
    both_axes_below: float = 1.35  # long/short below this: try both long-axis hypotheses
    outline_power: float = 0.5  # ranking: lattice score x (outline / best outline) ** this
    min_quick_lattice: float = 2.0  # weaker pits' response / mean below this -> BoardNotFound
    refine_edge_band_px: float = 3.0  # work-scale band around each side searched by the line refit
    density_levels: tuple[float, ...] = ()  # pit-density / its mean thresholds giving pit-area masks
    density_close_px: int = 15  # closing joining the pits of one board (work scale)
    verify_finalists: int = 6  # this many best quads get the top-face lattice fit; the best fit wins (0: off)
    verify_pitch_px: float = 40.0  # lattice view pitch of that quick fit
    verify_passes: int = 3  # its lattice refits
    # a finalist's quick fit (and a next outline's) whose comb lattice scores under this
    # ends there, scoring 0, with no nominal start nor restarts (~50 ms against ~300). Over
    # 1059 photos (the labelled render sets of seeds 739-961, the singles, the hard samples,
    # 160 webcam-spoilt copies, 25 bare tables) 144 such fits began under 0.5 and one of
    # them reached 0.3 (0.34, not the board the search took); the fits that found a board
    # began at 0.77 or more (docs/vision.md, fifty-ninth session). 0: off
    verify_comb_min: float = 0.5
    verify_other_min: float = 0.7  # a finalist other than the best-ranked needs this fit
    # ... and so does the best-ranked one when its fit (quick, under verify_other_min) has
    # a playing surface with a corner more than this x the outline's longest side from the
    # outline's own corners: a lattice that slid off its outline onto the table beside it
    # is no better than another finalist's. Over 1059 photos (the labelled render sets of
    # seeds 739-961, the singles, the hard samples, 160 webcam-spoilt copies, 25 bare
    # tables) the boards found by an outline's fit under 0.7 slid 0.01-0.15 from it, the
    # one bare table taken for a board (tiles, 0.35) 0.50; fits of 0.7-1.0 on the board
    # slid up to 0.46 (docs/vision.md, fifty-ninth session). None: off
    slid_fit_agree: float | None = 0.3
    # the strongest and the best-ranked outlines' single fits stop after the comb search
    # when the comb lattice scores under this (over 220 renders, all 109 first fits of 0.75
    # or more had 1.83 or more, and 34 of the 111 failing ones less than 1.6; ~20 ms each)
    first_comb_min: float = 1.6
    # the best-ranked outline gets its single fit before the pit scan only when its quick
    # lattice scores this (on 160 renders, none of the 21 such fits below 3.5 held a
    # board, 24 of 36 above did; ~40 ms each)
    second_fit_min: float = 3.5
    # before giving up (no finalist nor the pit scan fits), this many of the next outlines
    # (ranked as the finalists were) get the quick fit too, each needing verify_other_min
    # (a brick pavement's outlines and ring-like corners can outrank the board's). 4: on
    # grey bricks the board's own outline came 4th of these (synth_451_0009, fit 0.99); of
    # the 220 renders and bare tables that reach this step, two others find the same board
    # by another outline or fit (corners within 0.4 px of before), nothing else changes
    more_finalists: int = 4
    more_ranked: int = 12  # ... of the next this many outlines
    # ... and also when the best fit so far is weaker than this (each then needing to beat
    # it): a board on tiles whose outline came 7th was read as a weak (0.6) lattice on
    # another outline spilling over the tiles (synth_89_0006)
    more_below: float = 1.0
    # last chance, when nothing else fits: a finalist other than the best-ranked scoring
    # at least ``last_chance_min`` whose fitted playing surface has its corners within
    # ``last_chance_agree`` x the outline's longest side of the outline's own corners (a
    # board found by its own outline; a lattice laid on a pavement inside some outline
    # does not end at its corners). 545 + 64 renders and 65 bare tables: right fits of
    # 0.3-0.7 agree within 0.04-0.17, the three wrong ones 0.18-0.27 (0: off)
    last_chance_min: float = 0.4
    last_chance_agree: float = 0.12
    verify_enough: float = 1.0  # a finalist fitting this well ends the search
    # the first outline's full fit under verify_enough, but at least agree_min, whose
    # playing surface has every corner within agree_within x its longest side of a pit
    # scan's fit (rims, small rims or dark discs, also at least agree_min) ends the search
    # too, the highest-scoring of the agreeing fits taken: two starts that share nothing
    # found the same board. 0.04 is about a third of a column pitch (a lattice a row or
    # column off is a whole pitch, 0.11). Over 777 photos (18 render sets, the singles, the hard
    # samples) the search ends here on 15 photos (two of them also among the hard
    # samples), 0.4-3.2 s sooner (the finalists and the next outlines, ~300 ms a fit, are
    # not fitted). Five outlines move: synth_1_0066 82 -> 12 px and synth_1_0070 66 -> 4
    # px (a finalist or a later outline had scored higher, off the board), synth_487_0032
    # 12.4 -> 11.5, synth_503_0017 6.8 -> 6.5, synth_531_0010 4.3 -> 4.6 px. The whole
    # run: 353 -> 323 s (None: off)
    agree_min: float = 0.5
    agree_within: float | None = 0.04
    # the strongest outline's first fit this good is taken at once (first fits over 316
    # renders: all 11 between 0.7 and 1.0 on the right pits; one of 10 at 0.5-0.6 not)
    first_fit_enough: float = 0.75
    # start work that may be needed (the outline ranking) on a helper thread. Off: on
    # this 2-core machine it made no median faster (Python holds the GIL between the
    # small numpy calls, and leftover work slowed the count stage): seed 53, 2 threads,
    # 185 ms on and off; seed 43 165 on, 158 off
    background: bool = False
    # outline-free start (vision/pit_scan.py): pits found over the whole image
    pit_scan: bool = True  # pits found over the whole image, no outline needed (first: pit_scan_early)
    pit_scan_long_side_px: int = 480
    pit_scan_stride: int = 2  # rim evidence every this many px
    # the scan's maps (rim evidence, dark discs) of its radii made on two threads, half the
    # radii each, when this is 2 and OpenCV has more than one thread (vision.pit_scan._shared):
    # the same maps; 1: in turn
    pit_scan_threads: int = 2
    pit_scan_radii_px: tuple[int, ...] = (4, 6, 8, 11, 15, 20)  # pit radii tried (at that scale)
    pit_scan_min_evidence: float = 1.0  # a pit candidate's rim evidence / mean gradient, at least
    pit_scan_rel_evidence: float = 0.45  # ... and this x the median of the 24 strongest
    pit_scan_max_peaks: int = 200
    pit_scan_min_pits: int = 16  # candidates on one 8 x 4 lattice needed
    pit_scan_seeds: int = 6  # lattices grown from this many strongest candidates (per radius)
    pit_scan_tolerance: float = 0.3  # a neighbour is within this x the step of its prediction
    pit_scan_extend: bool = True  # no lattice grown: grown again by a model of the whole lattice (pit_scan._extend)
    pit_scan_lattices: int = 4  # lattices fitted (best first)
    # the pit scan runs first, before any outline, and a fit from it this good is taken at
    # once (0: the scan only as a last resort, once no outline fits). 160 renders: 129 end
    # there, the same 159 boards found, median 156 -> 127 ms (interleaved, one thread)
    pit_scan_early: float = 1.0
    # PitGrid.score a pit-scan fit needs (0.75 before log gradients, 0.5 until the sixty-fourth
    # session). synth_1063_0001 (a clear board from above on tiles, soft half-lit rims) fitted
    # at 0.487 and no outline held a lattice: no board. At 0.45, over 326 labelled photos one
    # more board found (that one), one other 3 -> 13 px (synth_467_0002), the rest the same;
    # no new board on 92 bare tables (docs/vision.md, sixty-fourth session)
    pit_scan_min_score: float = 0.45
    # a pit-scan fit this good ends the scan: the later (weaker) lattices are not fitted
    # (~30 ms each). On 212 renders with a scan lattice (the sample singles and games,
    # seeds 149 and 151), 25 stop sooner; in 5 a later lattice scored a little higher,
    # with its worst corner as far or farther from the truth (7.0 against 6.1 px, 26.0
    # / 25.4, 4.9 / 4.8, 2.2 / 2.0, 8.2 / 8.2). A first fit of 1.14 was a row off with
    # the second lattice right (game_01 frame_018): the bar is above that. 0: all fitted
    pit_scan_enough: float = 1.5
    # ... and this when its playing surface runs off the image (a camera close over the
    # board: its edges out of the frame, its pits in). Renders cropped to 0.55 pitch
    # round the outer pits (seed 97) were found 36 -> 40 of 40 (fits 1.06-3.0); with the
    # bar at the 0.5 above, a lattice of dark blobs on one of 65 bare tables (0: never).
    # Also the fit an outline's top face needs when it runs off the image (thirtieth
    # session): a chequered floor's lattice of 0.50 on an outline spanning the whole image
    # (synth_397_0024) and a brick table's of 0.51 (synth_257_0014, a bare table) were read
    # as boards; over 1411 renders and bare tables (and seed 461) nothing else changes
    pit_scan_cut_min: float = 1.0
    # a pit-scan lattice whose fit scores under pit_scan_refit_below is fitted again as a
    # top face from that fit's corners (the comb, restarts and nominal start of an
    # outline's fit), for the first this many lattices: a board whose outline merges with
    # the table and a hand gave a scan lattice a few px off scoring 0.09, and 1.29 so
    # refitted (synth_97_0022); 0: off. Not once an earlier lattice fits at pit_scan_early
    # or better (its fit ends the search; the refit would cost 150-350 ms)
    pit_scan_refit: int = 2
    # ... when its fit scores under this; the refit is kept when it scores higher, and
    # for a fit of pit_scan_min_score or more, only when it scores pit_scan_refit_keep.
    # Up to 1.0 from 0.5 (twenty-seventh session): a scan fit half a pitch off onto the
    # far rims (0.51, synth_421_0017, the board's outline lost in a brick floor) refits
    # to the board (2.29, corners 96 -> 9 px off); a fit of 0.79 beside a hand refitted
    # a row too large (1.07, synth_421_0030), hence the bar to keep. Over 160 renders
    # (seeds 409, 389, 347, 401) no board moved out of place; the mean time to find one
    # fell on three sets (seed 389: 267 -> 194 ms) and rose 5 % on small boards (409:
    # 460 -> 484 ms)
    pit_scan_refit_below: float = 1.0
    pit_scan_refit_keep: float = 1.5
    # ... or, whatever it scores, when the fit has an outer column or row whose pits show
    # less than this x the lattice's median evidence (``PitGrid.evidence``) and the refit
    # has none: the fit was a line off the pits, onto the table or a thick board's front
    # face, and the refit settled on them. A thick board from 46 degrees whose far column
    # barely shows (soft pit walls) had a scan fit of 0.61 one column off, its near column on
    # the front face at 0.22, refitting to the board at 0.85 (synth_839_0019). None: off
    pit_scan_refit_weak_outer: float | None = 0.35
    # a pit-scan fit whose playing surface is stretched more unevenly than this at its
    # centre (vision.rectify.squash: about the cosine of the camera's tilt from straight
    # down, times the pitch ratio) is not taken. From 45 degrees or higher a board gives
    # 0.6 or more (611 scan fits of 16 render sets: 0.56 lowest, 1 % under 0.67); a
    # lattice run along the pits' diagonals 0.34-0.38 (synth_103_0031 scored 1.45 so,
    # before its outline's 1.94 fit was looked at; synth_41_0012)
    pit_scan_min_squash: float = 0.5
    pit_scan_max_ring: int = 6  # more candidates than this just outside the 8 x 4 window: a pattern going on (0: no test)
    # ... unless the window and the row beyond it are a board whose halves lie a row pitch
    # apart (vision.pit_scan._apart_block): the block's middle row holds at most
    # pit_scan_void_row_max candidates, its other rows pit_scan_half_row_min or more each,
    # and its own ring pit_scan_max_ring at most (a near-black board on a dark floor,
    # synth_983_0008, whose outline no search found)
    pit_scan_halves_apart: bool = True
    pit_scan_void_row_max: int = 1
    pit_scan_half_row_min: int = 4  # (of the homography's inliers, too)
    # ... and the middle gap fitting the block's candidates best is this many row pitches
    # or more (halves 0.7 apart also fit the block's homography in a false perspective:
    # synth_881_0000, a fit 38 px off)
    pit_scan_apart_gap_min: float = 0.8
    # once no board is found: a block of at least this many pits with a pit, or the next line
    # of pits where it is short of 8 x 4, at the image border is reported as a board running
    # off the image (vision.pit_scan.off_image; 0: not looked for)
    cut_min_pits: int = 12
    pit_scan_blobs: bool = True  # last resort (no clear fit, no rim lattice): scan again with dark discs for candidates
    # the rims gave no lattice: the dark-disc scan runs before the outlines, and a fit scoring
    # this ends the search (0: last only). 1.0 until the sixty-eighth session: of 183 photos
    # (of 739, 94 of them bare tables) whose search reached this scan, the 15 with a fit of
    # 0.6-1.0 all ended on the same board either way (corners within 2 px), the 13 of 0.7 or
    # more after 2.5-17 s of outlines (brick floors, spoilt photos), now 1.3-4.3 s. No bare
    # table's fit reached 0.45; at 0.58 an outline fitted better (synth_1083_0012: 5 px, the
    # dark discs' 20)
    blobs_early: float = 0.7
    pit_scan_blob_share: float = 0.25  # a dark disc's darker share over its ring's, counted as evidence 1
    # nothing found at all: the pit scan again on copies with these long sides (px), in
    # turn, for a board small in the frame (its pits too small for the usual copy): rims
    # on each copy, then dark discs on each when pit_scan_blobs (locate._small_board); () off
    small_board_scan_px: tuple[int, ...] = (720, 960)
    # still nothing, in a dark photo (at least ``dark_retry_share`` of its pixels darker
    # than ``dark_retry_level``): the whole search again on a copy brightened by this
    # gamma. A near-black board in dim light (synth_467_0002: the board's median grey 8)
    # has its pits' gradients under the lattice score's floor (GridConfig.min_mean_gradient);
    # brightened, the pit scan finds it 3-6 px from the truth. Costs a second search only
    # where the first found nothing. Corners that were given (vision.board.fit_board) are
    # fitted again on the brightened copy too when their fit finds no board (that photo
    # from its true corners: 0.26 -> 0.70, calibrated with its pits in place) (0 or 1: off)
    dark_retry_gamma: float = 0.5
    dark_retry_level: int = 16
    dark_retry_share: float = 0.04
    # the first pit scan unclear: the rims again at once on a copy with this long side
    # (px), at these radii only (px of that copy), for pits too small for the first
    # scan (a board far off or small in the frame), with no refits; a fit scoring
    # pit_scan_early ends the search. It costs 34-145 ms (median 58) and spares such
    # boards the outlines' fits (1-5 s). Over 200 renders (small boards of seeds 397
    # and 409, usual ones of 401, 389 and 347): 16 of 61 unclear first scans end here,
    # corners 1.0-5.6 px from the truth; radius 8 too gave a clear fit 32 px off
    # (docs/vision.md, twenty-seventh session). 0: off
    small_pit_scan_px: int = 720
    small_pit_scan_radii_px: tuple[int, ...] = (4, 6)
    # the small rims scanned before the first scan's weak fits are refitted (False:
    # after). Five small boards of seed 433 that the small rims find took 0.4-1.3 s
    # to find, the refits first; with this, 0.10-0.18 s. Median time to find a small
    # board (locate_board alone, interleaved): 128 -> 100 ms on seed 433, 74 on 409
    # either way; usual boards unchanged (docs/vision.md, twenty-eighth session)
    small_pits_before_refits: bool = True


@dataclass(frozen=True)
class RectifyConfig:
    """Stage 2a: homography to the canonical top view (South at the bottom)."""

    width_px: int = 400  # canonical view width for the grid fit (crops come from the image)
    default_aspect: float = 2.345  # width / height of the playing surface when unknown
    min_aspect: float = 1.4
    max_aspect: float = 3.3
    score_width_px: int = 160  # small canonical view used to score candidates
    lattice_width_px: int = 200  # view width for re-ranking located candidates
    pad_frac: float = 0.12  # surroundings kept around the board in the view / width
    # the side named as South's must face the board's South long side: the cosine of the
    # angle between the named side's direction and the board's way from North's long edge
    # to South's (vision.rectify.south_clearness) at least this (67.5 degrees). Under it the
    # board's long sides run towards the named side, and which is South's is a guess
    # (`south_unclear`; a calibration is refused)
    south_clear_min: float = 0.38


@dataclass(frozen=True)
class GridConfig:
    """Stage 2b: the 4 x 8 pit grid on the canonical view."""

    rows: int = 4
    cols: int = 8
    # Nominal layout of a typical board (68 x 29 cm, pitch 7.5 x 7 cm, 1 cm gap
    # between the two halves); the fit refines it on every image.
    margin_x_frac: float = 0.0588  # board edge to the outer pit column's cell edge / width
    margin_y_frac: float = 0.1207  # board edge to the outer row's cell edge / height
    middle_gap_frac: float = 0.0345  # extra space between rows 2 and 3 / height
    pit_radius_frac: float = 0.40  # pit radius / cell pitch (min of x and y pitch)
    score_tolerance_frac: float = 0.12  # grid score: rim band half-width / pitch
    # free lattice search (vision/lattice.py): ranges for boards of any proportions
    cols_span_min: float = 8.2  # view width / column pitch, smallest
    cols_span_max: float = 10.8  # ... largest
    row_pitch_min: float = 0.6  # row pitch / column pitch in the view
    row_pitch_max: float = 1.3
    gap_max: float = 0.6  # extra gap between rows 2 and 3 / column pitch
    ring_width_frac: float = 0.05  # ring template width / pitch
    search_radius_fracs: tuple[float, ...] = (0.26, 0.34, 0.42, 0.50)  # ring radii / pitch, lattice search
    quick_radius_fracs: tuple[float, ...] = (0.30, 0.40)  # ring radii / pitch, ranking quads
    radius_fracs: tuple[float, ...] = (0.24, 0.27, 0.30, 0.33, 0.36, 0.39, 0.42, 0.45)  # pit radius / x pitch
    rim_score_frac: float = 1.0  # pit radius: largest ring scoring >= this x the best (0.8 fits the rim better but counted worse)
    cell_ratio: float = 0.95  # typical row pitch / column pitch of a board (0.85..1.05)
    anisotropy_steps: tuple[float, ...] = (0.88, 0.94, 1.0, 1.06, 1.12)  # x the pitch-ratio guess
    score_quantile: float = 0.4  # board score: this quantile of the 32 pits' response (a hand may hide some)
    min_lattice_score: float = 0.3  # PitGrid.score (pits' rim evidence x share of lattice inliers) below -> no board
    search_frac: float = 0.22  # refine each centre within +/- this share of the pitch
    ring_width_px: float = 3.0  # width of the rim ring template (canonical px)
    min_inliers: int = 10  # pits agreeing with the lattice fit needed to trust it
    inlier_frac: float = 0.1  # RANSAC reprojection threshold / pitch
    edge_strength: float = 0.5  # surface edge: innermost step at least this x the strongest one
    # ... searched from the foot of the pits' rims' outer slope when the edge profile still
    # falls away from the rims where the search begins, with no valley between
    # (vision.surface._innermost_peak): at the board's "ends", at "both" its ends and long
    # sides, or "" nowhere. A bevel or a shadow carries a rim's step beyond the measured
    # radius, and the ends were taken there. Over 611 photos (13 render sets, the singles
    # and the hard samples), "ends" moved 8 corners' mean error by more than 3 px, all for
    # the better (78 -> 12, 73 -> 12, 54 -> 5, 40 -> 7 px, ...; 13 photos changed, 8 of
    # them over 20 px before and 2 after); "both" moved 14 for the better but 4 for the
    # worse (a narrow long side's edge right at its rims, synth_467_0030: 6 -> 23 px)
    edge_past_rim_slope: Literal["ends", "both", ""] = "ends"
    # ... and at the ends (edge_past_rim_slope), where the search meets first a step
    # peaking within edge_rim_peak_reach / pitch of its start (past that slope's foot, or
    # rising into the start from the rims' side) no stronger than edge_rim_peak_ratio x the
    # strongest step over the half pitch inwards (the outer pits' own rims), that step is
    # the rims' outer edge (a bevel round each pit; the measured radius lies inside it) and
    # the search goes on past it. Only the outline reported for the board the search
    # settles on (vision.board.TopFace.outline): its refits and checks go on from corners
    # without it, as they were tuned (with it there too, the same photos gained but a
    # weak fit's refit started from the new corners lost 7 others and a drawn arm's
    # board). Over 1055 photos (14 render sets, the samples, 21 rendered games' frames)
    # corners within 20 px of the truth 982 -> 999, none worse by 3 px (docs/vision.md,
    # fifty-first session). None: off
    edge_rim_peak_reach: float | None = 0.15
    edge_rim_peak_ratio: float = 1.5
    # ... and up to edge_rim_peak_bumps such steps one after the other, each within the
    # reach and with no valley between it and the one before: the profile between them
    # stays over edge_rim_peak_dip x the higher of the two (a bevel, then the rims'
    # shadow: deep bowls 0.42 pitch wide seen from 54 degrees, synth_1003_0008, an end
    # 66 px off at 1920 x 1080; a speck and then, past a dip far under it, a narrow end's
    # own edge, synth_863_0010, are no such pair). Over 1220 photos three ends moved,
    # 66 -> 6, 40 -> 4.5 and 79 -> 74 px, and no other (docs/vision.md, sixty-first
    # session); 1: one step, as before
    edge_rim_peak_bumps: int = 8
    edge_rim_peak_dip: float = 0.5
    # ... and on the long sides, where the wood ends: the top face's colour (CIE Lab, the
    # median round the points between the pits, its spread theirs) is followed out from
    # where the edge search starts; the first run of edge_wood_run / pitch whose colour
    # lies more than edge_wood_ratio spreads from it (each channel's spread at least
    # edge_wood_floor Lab units) is surely past the wood, and the change began where the
    # distance last rose over edge_wood_foot x that ratio (its foot). An edge taken more
    # than edge_wood_move / pitch beyond the sure run moves to the step nearest the foot
    # (a local peak of the edge profile, at least edge_wood_min x that side's strongest,
    # from edge_wood_snap / pitch past the run to as far inside the foot): a floor's
    # mortar lines or tile joints, a shadow or a thick board's side face beyond the top
    # face step more strongly than the wood's edge, and margins held alike took such
    # steps on both sides. Only inwards (the wood's side face, in light, continues its
    # colour past the top face's edge) and only on the long sides (at the ends a hand or
    # an end pit's heap stood for the edge of the wood). Only the reported outline, as
    # edge_rim_peak_reach (docs/vision.md, fifty-seventh session). None: off. 5 spreads,
    # not 6 (sixty-sixth session): thick boards' lit front faces and shadows at 5.4
    # spreads from the top were taken as wood, on 525 photos 9 outlines closer (63 -> 11,
    # 40 -> 5 twice, 29 -> 2 px), 2 farther (1.4 -> 6, 6.9 -> 9.3: a band of shade along
    # the margin taken for past the wood)
    edge_wood_ratio: float | None = 5.0
    edge_wood_run: float = 0.35
    edge_wood_foot: float = 0.5
    edge_wood_floor: float = 3.0
    edge_wood_move: float = 0.15
    edge_wood_snap: float = 0.1
    edge_wood_min: float = 0.1
    # The innermost strong step (edge_strength) on any side gives way, in the outline
    # reported (TopFace.outline, as with edge_rim_peak_reach: the search's own fits and
    # refits go on without it), to a higher peak within edge_double_reach / pitch beyond
    # it, the profile between staying over edge_double_dip x the first: the same edge's
    # outer line (a bevel's line, then the edge itself). synth_1071_0016 (a pale board, a
    # bevel line 3 px inside its far long side): the inner line was taken, the margins
    # looked unlike, and the near side moved in onto the outer rims (16 -> 5 px). Over
    # 508 photos (12 render sets, the singles, hard samples, 136 webcam-spoilt copies):
    # 68 moved over 0.5 px, 54 closer; 10 closer by over 3 px (38 -> 5.6 twice, 16 -> 5,
    # 8.5 -> 3.1, ...), 1 farther (5.6 -> 8.7); mean 7.01 -> 6.71 px (docs/vision.md,
    # sixty-fifth session). None: off
    edge_double_reach: float | None = 0.1
    edge_double_dip: float = 0.3
    # With margins held alike (surface_symmetry_min_score), a long side's margin beyond the
    # rims still wider than the other's by more than edge_wider_max / pitch once steps at
    # the narrower margin and the wood's end were looked for moves in to the narrower one.
    # A thick board seen from low shows the face under its near side, and its shadow may
    # fall beyond either long side: in shade, the top face's own colour with no step
    # between them, the face's foot or the shadow's edge stepped instead (synth_1051_0002
    # 26 -> 5 px). Over 538 photos (14 render sets, singles, hard samples, 136 webcam-spoilt
    # copies): 5 outlines closer (23 -> 3, 26 -> 5, 19 -> 7, 15 -> 8, 13 -> 5 px), none
    # farther; at 0.25, 3 more closer and 3 farther (9 -> 21 px); on the ends too, 2 farther
    # (37 -> 67, 45 -> 70 px: ends' margins differ, a hand or a heap over an end). Only the
    # reported outline, as edge_rim_peak_reach (docs/vision.md, sixty-seventh session).
    # None: off
    edge_wider_max: float | None = 0.35
    affine_to_peaks: bool = True  # move the comb lattice onto per-pit rim peaks (affine)
    own_peak_frac: float = 0.06  # a pit keeps its own rim peak within this / pitch of the fit
    occluded_rim_ratio: float = 0.7  # rim radial coherence below this x the median -> occluded
    # ... or rim evidence (PitGrid.evidence) under this x the median pit's with the coherence
    # under ``occluded_evidence_rim``: a hand hides a rim's contrast more surely than it
    # turns its gradients (0: off)
    occluded_evidence: float = 0.1
    occluded_evidence_rim: float = 0.85
    # ... that second test also for the two nyumba. Off: a square nyumba's rim is no
    # circle, so its rim evidence is weak with nothing over it, and the two (diagonal
    # neighbours across the middle) were read as a hand on 2 of 230 renders (synth_1_0065,
    # synth_467_0003: both empty, coherence 0.75-0.82, evidence -0.14 to 0.07). On the 48
    # with a hand, no nyumba hidden by it was found by that test alone (the hand turns
    # their gradients: coherence 0.55, 0.67)
    occluded_evidence_nyumba: bool = False
    # top-face lattice refinement (vision/board.py)
    max_pitch_ratio: float = 3.0  # largest / smallest pit spacing in the image for a plausible lattice
    min_mean_gradient: float = 8.0  # floor of the lattice view's mean Sobel magnitude in the score
    # the score's evidence is over the mean gradient of the lattice view, or of its part
    # within this many pitches of the outer pits' centres when that is lower
    # (vision.board.fit_from_lattice): a busy floor beside the board (bricks, tiles) lifted
    # the view's mean and sank a pale, soft-rimmed board's score to the bar (0.30 for the
    # true lattice of synth_577_0025), under a lattice one row off onto the bricks (0.31).
    # Over 716 photos (16 render sets, the singles, the hard samples) it moved 5 outlines:
    # that board 39 -> 9 px, synth_491_0011 62 -> 34 px, synth_463_0018 5 -> 11 px (an
    # earlier fit ends the search), two by under 0.3 px; None: the whole view
    score_norm_margin: float | None = 0.6
    # rim gradients are taken on (128 + c) log(I + c), c this (0: on the intensity): rims on
    # near-black wood count as much as on pale wood (boards found on 200 renders: 181 -> 192)
    gradient_log_offset: float = 16.0
    nominal_start_below: float = 1.0  # a first top-face fit scoring below this is also tried from ...
    nominal_margin: float = 0.6  # ... the lattice of a board with margins of this x pitch to the outer pit centres
    # a fit still under restart_below is also started from a comb that sees no edges
    # further than this share of the board's width outside the given corners (tiles and
    # bricks around a board make ring-like peaks that pull the comb off the pits; as the
    # first comb it found 3 more boards of 600 but made 3 wrong ones); None: off
    masked_restart_frac: float | None = 0.0
    restart_below: float = 1.2  # a top-face fit scoring below this is started again ...
    restart_aspects: tuple[float, ...] = (1.12, 0.88, 1.25)  # ... with the first view's aspect times these
    # with a calibration's pit centres, the fit starts from their lattice, and from the
    # corners only when that fit scores under restart_below (vision.board.fit_board)
    start_from_calibrated_pits: bool = True
    # with corners given (a calibration's clicks, a profile's corners: vision.board.
    # _within_corners), a top-face fit whose pits lie further than this from where a board
    # with those corners has them (the median over the pits, in pitches; the least over
    # ``given_margins``), or one scoring under restart_below, is weighed against fits that
    # lie within: the comb that sees nothing outside the corners, and the lattices of a
    # board with each of those margins. With the labelled corners of 622 renders (17 sets)
    # the true pits lie at most 0.35 pitch away (median 0.20); 4 fits lay 0.62-2.48 away (a
    # row off, or mostly outside the board) and the next worst fit in place 0.36. Manual
    # calibrations of 528 renders (14 sets): failed 6 -> 3, pits over 8 px off 18 -> 13;
    # None: off
    given_offset_max: float | None = 0.5
    given_margins: tuple[float, ...] = (0.4, 0.6, 0.8, 1.0)  # pitches from the surface's edges to the outer pit centres
    # a fit within replaces one outside only when it finds a board and scores at least this
    # share of it (a board moved since its profile's corners were taken is found outside
    # them, scoring far higher)
    given_min_share: float = 0.5
    # ... but not from those margins' lattices when a calibration's pits gave a lattice (weak,
    # under restart_below, or the corners would not be searched): the calibration's lattice
    # stands in for a typical board's. Their refits, with the searches for a doubled or
    # respaced lattice, took up to 3 s a frame (game s103, frame 5: 57 lattice refits in
    # 3.3 s, against 8 in 0.45 s without); over the 473 frames of 23 rendered games the
    # readings were the same but one pit of one frame with a hand over the board
    # (docs/vision.md, thirty-ninth session)
    calibrated_margin_starts: bool = False
    # ... and the fits of that search are not started again at other row pitches when an inner
    # row shows no pits (inner_row_void): the calibration knows the rows. Game s179's frame
    # 19 (a calibrated lattice scoring just under restart_below) made 90 lattice refits in
    # 5.9 s, 64 of them respacing; over 681 frames of 33 rendered games the same readings and
    # hands, all frames 74.5 -> 68.4 s, the slowest 4.5 -> 0.8 s (docs/vision.md, thirty-ninth
    # session)
    calibrated_respace: bool = False
    lattice_pitch_px: float = 40.0  # column pitch in the lattice view (top face, pits on a grid)
    lattice_border: float = 1.6  # pitches of surroundings kept around the outer pit centres
    # an axis of the lattice view whose two sides show no step beyond the pits' rims (each
    # side's strongest under edge_unseen_ratio x the strongest at the rims; the wood runs on
    # past the view) has its edges searched on a view keeping edge_view_border pitches
    # (vision.surface.surface_edges): a board whose ends lie 1.9 pitches past its outer pits'
    # centres (synth_557_0021) had its ends taken at the rims, 100 -> 1.7 px. Over 675
    # other photos (15 render sets, the singles, the hard samples) it changes none; with
    # one flat side enough, it moved one board in shade under a hand (13 -> 24 px).
    # edge_unseen_ratio None: off
    edge_view_border: float = 3.0
    edge_unseen_ratio: float | None = 0.12
    # ... not counting the view's outermost edge_unseen_border / pitch on each side: a step
    # there is an edge beyond the view that its border cuts. A board whose ends lay 1.56
    # pitches past its outer pits' centres showed only the foot of its end's step at the
    # border of the 1.6-pitch view, so its ends were taken at the rims' slope, 54 px off
    # (synth_877_0012, `bao render --varied-layout`)
    edge_unseen_border: float = 0.08
    # ... nor, at either end of a side, a run of the profile (smoothed over 5 px) that keeps
    # rising towards that end: the foot of a step whose peak lies beyond the view's border,
    # however wide, or the outer slope of the rims. Ends 1.63 pitches past the outer pits'
    # centres showed a foot 5 px wide at the border and the rims' slope at the search's
    # start, and were taken 59 px inside the board (synth_889_0007); False: off
    edge_unseen_foot: bool = True
    # ... or one side so and the other's strongest value within edge_unseen_near / pitch of
    # the view's border: ends 1.57 pitches past the outer pits' centres, one step seen 4 px
    # inside the view and the other just past it (the lattice a little off centre), were
    # taken at the rims on that side, the corners 58 px off (synth_911_0021); None: off
    edge_unseen_near: float | None = 0.25
    # a lattice whose row pairs 0-1 and 2-3 look more like tall pits than its points look like
    # pits (vision.lattice_checks.paired_ratios; 0.2-0.7 on 230 boards, 1.8 and 2.3 on the two fits of
    # half the row pitch among them) is fitted again from twice the row pitch
    paired_rows_max: float = 1.2
    # the same across: columns 0-1, 2-3, 4-5, 6-7 as pits twice as wide as tall
    # (vision.lattice_checks.paired_ratios; 0.17-0.66 on 119 boards, 2.24 on the half board of
    # synth_223_0014), a lattice of half the column pitch on half the board
    paired_columns_max: float = 1.2
    paired_radius_fracs: tuple[float, ...] = (0.22, 0.26, 0.30, 0.34, 0.38, 0.42)
    # an inner row (1 or 2) whose median rim evidence is below this x the lattice's: the
    # lattice may span three of the board's rows at two-thirds of their pitch (one of its
    # rows on the wood between two of the board's; synth_251_0013); it is fitted again
    # from inner_row_void_pitch x the row pitch (each), the first row at each of
    # inner_row_void_starts (in the old lattice's rows), with each middle gap of
    # inner_row_void_gaps, and the best of those fits kept if it scores inner_row_void_gain
    # x as much or more, and inner_row_void_min at least (heaps hide their rims too: a row
    # of heaps must not lose a right lattice, and a refit of a wrong candidate must not
    # outbid the right one; over 290 renders the three refits that found the board scored
    # 2.0-4.0, 1.8-3.9 x the first lattice, and weaker ones, 0.68-1.26, took the place of
    # right fits of other candidates); None: off
    inner_row_void: float | None = 0.15
    inner_row_void_gain: float = 1.5
    inner_row_shown: float = 0.5  # ... and only while the other inner row shows pits (this x)
    inner_row_void_min: float = 1.5
    inner_row_void_pitch: tuple[float, ...] = (4 / 3, 1.5)
    inner_row_void_starts: tuple[float, ...] = (-1.5, -1.0, 0.0, 0.5)
    inner_row_void_gaps: tuple[float, ...] = (0.0, 0.3)
    # ... and fitted again at its own row pitch with the void row as the middle gap, of each
    # of these (row pitches; the refit settles the gap), that fit kept if it scores
    # halves_apart_gain x as much or more (and wide_gap_min_score): a board whose halves lie
    # about a row pitch apart took a lattice with a row on the wood between them, 16 pits
    # wrong and a false hand (synth_889_0034, 1.02 row pitches: 3.05, the right lattice
    # 3.90); () leaves it off
    halves_apart_gaps: tuple[float, ...] = (1.0,)
    halves_apart_gain: float = 1.1
    # ... or halves_apart_bare_gain x as much when the void row looks like the board's bare
    # surface (the median over its 8 cells of vision.lattice_checks.cell_unlikeness at most
    # halves_apart_bare_unlike; a row of heaps or an arm mostly looks unlike it): a board
    # whose halves lay 0.74 row pitches apart took a lattice with a row on the wood between
    # them (1.38; its cells 1.22 unlike the surface), a row of pits off it named hidden
    # under a hand, and the refit with the halves apart, every pit in place, scored 1.42
    # (synth_941_0000).
    # None: off
    halves_apart_bare_unlike: float | None = 1.5
    halves_apart_bare_gain: float = 1.0
    # the respaced rows' 16 fits and a doubled lattice's 3-5 are made on the locate stage's
    # two helper threads when this is above 1 (vision.board._fitted; not when OpenCV has one
    # thread, where one core's time is measured): the same fits, in the same order, while
    # OpenCV and numpy release the GIL for much of each. On two cores the respaced rows of
    # four photos took 0.60-0.85 s instead of 0.78-1.1 s. 1: in turn
    refit_threads: int = 2
    lattice_passes: int = 3  # peak -> homography refits
    peak_search_frac: float = 0.25  # each pit's rim is searched within +/- this x pitch (first pass)
    rim_radius_fracs: tuple[float, ...] = tuple(0.22 + 0.02 * i for i in range(13))  # pit radius / pitch
    rim_ratio_steps: tuple[float, ...] = (0.88, 0.94, 1.0, 1.06, 1.12)  # pit height / width in the view
    # crop radius: where the rim evidence, going outwards from its peak, falls below this x
    # the peak (the rim's outer edge; the peak is often on the bowl's shading inside it)
    crop_rim_level: float = 0.7
    crop_radius_max: float = 1.4  # ... at most this x the radius of most evidence
    # ... and at least this x the pitch on each axis: a Bao pit is about 0.6 pitch wide or more, and a
    # dark bowl lit from one side shows its strongest ring well inside the rim (470 renders:
    # per pit 90.06 -> 90.12 %, 8 boards better by 1-4 pits, 4 worse by 1; 0.27 and 0.34 less)
    crop_radius_min: float = 0.3
    crop_recentre_frac: float = 0.15  # a pit's crop centre moves at most this x pitch from the lattice fit's
    crop_recentre_min: float = 0.75  # ... on its own rim when that shows >= this x the pits' median
    # ... then taken to the perspective lattice fitted through all 32 such centres, keeping
    # only the part of a pit's offset from it beyond this x pitch (vision.board.snapped_to_lattice):
    # a pit's own rim centre wanders with its seeds and light, the lattice through all does
    # not. Three fresh sets: pit centres 1.38 -> 0.97, 1.82 -> 1.56, 2.46 -> 1.87 px (median),
    # the pits read as well as before (1724 of 1888 either way; docs/vision.md, sixty-second
    # session). None: off
    crop_lattice_snap: float | None = 0.03
    crop_snap_outlier: float = 0.1  # ... the lattice fitted again without pits this x pitch off it
    slip_abs: float = 1.0  # slip: the outside line's rim evidence >= this x the lattice's median
    slip_rel: float = 3.0  # ... and >= this x that of the lattice's opposite line
    edge_empty: float = 0.2  # final check: an outer line of the lattice below this x its median rim evidence ...
    edge_outside: float = 0.35  # ... while the line beyond the opposite side reaches this x: one pitch off
    # ... or an outer line below edge_weak x while the line beyond the opposite side shows pits
    # (edge_beyond x) and edge_beyond_ratio x as much: a fine pattern on the table (a woven
    # mat's dots, aliased in the lattice view) lifts the empty line over edge_empty
    edge_weak: float = 0.35
    edge_beyond: float = 0.7
    edge_beyond_ratio: float = 3.0
    # ... and between edge_doubt_ratio and edge_beyond_ratio: the lattice is fitted again
    # shifted, and the better-scoring fit kept (0: off; vision.board.fit_from_lattice)
    edge_doubt_ratio: float = 2.0
    # ... and so is a lattice with one outer line showing no pits at all (under this x its
    # median rim evidence), whatever lies beyond the opposite side (vision.lattice_checks.
    # void_side): a hand over the board's true outer line hides its rims as well
    # (synth_1049_0013: the lattice a column off onto the bare end, its far column 0.0
    # and the hand's 0.04; shifted back it scores 2.64 against 2.47). Over 368 photos
    # (seeds 1003-1049, the spoilt copies, the committed samples): in place 355 -> 356,
    # corners 37 -> 2.2 and 6.1 -> 3.4 px, one board off before and after moved (52 ->
    # 82 px), the median time the same; 0.2: the same (None: off)
    edge_void_doubt: float | None = 0.1
    reslips: int = 2  # lattice refits after such a shift, at most
    # a lattice still one pitch off after the last of those refits (its comb started more
    # than ``reslips`` pitches off) scores 0: it is not settled on the pits, and its void outer line
    # must not be taken for an end column under an arm (synth_499_0020: started three
    # pitches off a near-black board, it kept a void end column and scored 1.52, over the
    # true fit's 1.48) (False: kept as it is)
    unsettled_void: bool = True
    edge_void: float = 0.1  # an outer line still below this x the lattice's median after the shifts -> no board
    column_void: float = 0.15  # two columns whose 2nd-strongest pit is below this x the lattice's median -> no board ...
    # ... unless they are neighbours, at most this many, inside the lattice, and each looks
    # unlike the board's surface by this much (an arm over the board: vision.lattice_checks.covered_columns)
    covered_columns_max: int = 3
    covered_unlike: float = 2.0
    # ... and such a run may take in one end column: an arm over the board's end hides
    # that column's rims, and the outer line void of pits (edge_void) is not then taken
    # for a lattice one pitch off (synth_431_0039, synth_347_0001; False: never). Over
    # 962 renders of 25 sets, boards found 958 -> 961 (in place 928 -> 931, with
    # continues_also; none moved), the same one false board on 169 bare tables
    # (docs/vision.md, twenty-eighth session)
    covered_ends: bool = True
    covered_end_unlike: float = 1.0  # ... each such column this unlike the surface (vision.lattice_checks.end_covered)
    # ... and no straight edge stronger than this along it (the board's end), its strength
    # summed over ``covered_end_edge_px`` neighbouring view px: an edge falling between two
    # px splits its gradient. synth_1061_0008 (dark wood on bricks, an arm over the far end):
    # the board's near end along the void column 3.97 + 3.90 -> the lattice a column off,
    # 85 px; summed over 2 px at 6 (4 at one px before): in place, 38 px; the same boards on
    # the other 265 photos of seeds 1019-1061 (docs/vision.md, sixty-fourth session)
    covered_end_edge_max: float = 6.0
    covered_end_edge_px: int = 2
    # ... looked for across the whole void run, from the first column showing pits, not in
    # the end column alone: a lattice two pitches off the board's end, the real end columns
    # under a hand, has the end edge between its two void columns (synth_787_0016; no
    # change on the 268 other labelled photos tried, 85 with a hand: docs/vision.md,
    # fifty-third session)
    covered_end_edge_run: bool = True
    # ... and an outer row void of pits only in part: an arm reaching in from a long side,
    # as a player's does, lies over one run of that row's pits (at least
    # ``covered_row_void_min`` cells under ``covered_row_void`` x the lattice's median
    # evidence, in one run) while ``covered_row_shown`` of its pits or more still show
    # (at least ``covered_row_pit`` x): a lattice one pitch off has its whole outer row
    # on the margin or the table. Each void cell must look unlike the board's surface by
    # ``covered_row_unlike`` (vision.lattice_checks.row_covered). synth_487_0022 (an arm over ten
    # pits, cells 1.37-1.45) is found in place and its hand flagged; over 409 other
    # photos (330 renders and game frames, 79 bare tables) nothing changes (False: never)
    covered_rows: bool = True
    covered_row_void: float = 0.25
    covered_row_void_min: int = 2
    covered_row_pit: float = 0.5
    covered_row_shown: int = 2
    covered_row_unlike: float = 1.0
    continues_beyond: float = 0.4  # lines beyond 2+ sides with this x the lattice's rim evidence: tiles, no board
    continues_unseen: bool = True  # ... once one in view goes on, counting the lines beyond the lattice off the image as going on
    # tiles too: lines beyond one side with continues_beyond and another in view with this (0: off).
    # A lattice refitted onto a brick floor beside a board under a hand scored 1.0 with
    # the lines beyond it at 0.87, 0.38, 0.32 and 0.16 (synth_431_0027); on 311 boards
    # found in place (nine render sets) the second-highest of the four is 0.18 at most
    continues_also: float = 0.3
    # middle gap / row pitch tried: up to 1.2, a board whose two halves lie a row pitch apart
    # (three renders with gaps of 0.84-1.1 row pitches, seed 557, beyond the 0-0.64 that
    # the generator draws, were read with up to 0.6 only: a lattice row on the gap, 11-15
    # pits wrong and a false hand; their fits now score 1.8-3.1). A fit with a gap over
    # wide_gap_from must score wide_gap_min_score or more: a lattice on a brick floor took
    # a gap of 0.62 to score 0.64, over its board's 0.52 (synth_521_0004). It was 1.2 until
    # the fifty-sixth session: a board with large pits, its halves 0.67 row pitches apart, on
    # tiles scored 0.91 and was not found (synth_889_0021). At 0.8 it is found, two more move
    # 11 -> 4 and 4 -> 9 px, and nothing else on 629 photos and 25 bare tables
    gap_steps: tuple[float, ...] = tuple(0.03 * i for i in range(41))
    wide_gap_from: float = 0.6
    wide_gap_min_score: float = 0.8
    surface_gap_frac: float = 0.12  # surface edges searched from this / pitch beyond the pits' rims
    # ... the rims taken at the pits' outer radius (the crops' radius, vision.rims.rim_centres,
    # at least crop_radius_min) where it is this many times the radius of most rim evidence or
    # more on both axes: a shaded deep bowl has its strongest gradient well inside its rim, and
    # a search started there took the rim's outer bevel for the board's edge (synth_1021_0018:
    # radius 0.22 pitch against 0.30, all four corners 70 px inside). Over 326 photos (seeds
    # 1019-1033, their webcam-spoilt copies, the singles and hard renders): 1.3: 3 outlines
    # closer (70 -> 4.5, 8.2 -> 4.0, 12.3 -> 8.7 px), none farther; 1.15: 20 closer, 8 farther
    # (a thick board's narrow margin passed over, its side face's foot taken: 2 -> 20 px);
    # 1.0: 19 and 13 (docs/vision.md, sixty-third session) (None: the radius of most evidence)
    edge_outer_rim: float | None = 1.3
    # opposite margins (beyond the outer rims) differing by more than this / pitch: the wider
    # side's edge may be a shadow, the side face or the table, and a step there at the
    # narrower margin (within ``surface_pair_within`` / pitch, at least ``surface_symmetry_weak``
    # x that side's strongest) is taken instead, else a pair of steps whose margins agree
    # that closely (vision.surface._edge_pair; None: each side on its own)
    surface_symmetry: float | None = 0.3
    surface_pair_within: float = 0.12
    # ... failing such a step or pair, a pair agreeing within this / pitch (at most 0.12 leaves
    # it off: synth_317_0002's margins were 33 and 26 px at a pitch of 40)
    surface_pair_wider: float = 0.2
    surface_symmetry_min_score: float = 0.5  # ... for lattices scoring this or more (PitGrid.score)
    surface_symmetry_weak: float = 0.15
    # ... but when the narrower side alone has ``surface_covered_pits`` or more of its outer
    # pits under ``surface_covered_evidence`` x the median rim evidence (a hand or an arm over
    # them), that side takes the wider one's margin (vision.surface.covered_sides; None: off)
    surface_covered_evidence: float | None = 0.2
    surface_covered_pits: int = 2
    lattice_inlier_frac: float = 0.08  # RANSAC threshold / pitch for the lattice homography

    def __post_init__(self) -> None:
        if self.edge_past_rim_slope not in ("ends", "both", ""):
            raise ValueError(f"GridConfig.edge_past_rim_slope must be 'ends', 'both' or '' (none), "
                             f"not {self.edge_past_rim_slope!r}")


@dataclass(frozen=True)
class CountConfig:
    """Stage 3: pit crops handed to ``count_pit``."""

    crop_size_px: int = 96  # square crop side given to the counter
    pit_fill: float = 0.85  # pit diameter / crop side (the counter's convention)
    views: int = 1  # the counter's logits averaged over this many turned views of each crop (1..8; each costs ~18 ms a board at one thread, ~35 with the numpy network)
    nyumba_views: int = 2  # ... and of the two square nyumba (their MAE 0.41 -> 0.38 with 2, 0.35 with 8; ~2 ms a view)
    # a pit read at those views less surely than this is read again at ``recheck_views``
    # (~1 pit in 4; turned views settle many one-seed doubts). 80 renders of seed 61, which
    # the shipped model never saw: per-pit exact 0.863 -> 0.874 (8 views: 0.875), count
    # stage 25 -> 43 ms (8 views: 62)
    recheck_below: float = 0.9
    recheck_views: int = 4  # (1: no second look)
    recheck_max_count: int = 8  # ... when its most likely count is at most this (heaps are left: no better read
    # from more views, and their widening is fitted at one view; 16+ coverage unchanged this way)
    # The referee's closer look (vision.pipeline.read_again): the pits no legal move agrees
    # with (engine.referee.disputed_pits) are read again at this many views (a pit read at
    # one view can be sure and wrong: two touching seeds read as one at 0.997, as two at
    # 0.93 from eight views; docs/vision.md, thirty-ninth session)
    dispute_views: int = 8
    dispute_broad: bool = False  # ... also by the broad network (the geometric mean of both)
    # Each pit read again against the board's other pits (vision.context): its changed
    # area in seeds, measured on the pits read surely as empty and as 1-3 seeds, weighed
    # in by a small learnt model. Grouped by render set over 24 sets the counter never
    # saw (20 896 pits): exact 0.9066 -> 0.9102, pits of 4-8 seeds 0.558 -> 0.582, log
    # loss 0.285 -> 0.267 (benchmarks/context_cv.py; docs/counting.md, twenty-ninth
    # session). Not with a calibration (on the rendered games it read 57 pits wrong against
    # 46 without it, docs/counting.md, thirtieth session), nor with a counter given to recognize
    context: bool = True
    # A calibration's seed look also learns the empty pit and one seed's changed area
    # (vision.count.SeedLook); weighing each pit's changed area in (combine_changed_area)
    # moved one count of 1536 on the three rendered games, but under a lamp, whose shadows
    # differ from pit to pit, the empty pits' changed area read as 2-14 seeds and a whole
    # game was refereed as 145 seeds on the board (docs/vision.md, thirty-eighth session):
    # off, the network reads the calibrated pits alone
    look_area: bool = False
    # A blurred photo (out of focus, shaken) is read with fewer seeds but as surely as a sharp
    # one. The blur effect of the 32 crops (vision.focus.crops_blur; sharp renders 0.46-0.78,
    # blurred 1.5 / 2.5 / 4 px: median 0.77 / 0.83 / 0.86) past ``blur_from`` softens every
    # pit's distribution by the temperature 1 + ``blur_temper`` x (blur - blur_from), fitted by
    # log loss on seeds 307 and 311 blurred four ways (held out, seeds 283 and 293: log loss
    # 1.53 -> 0.75, sharp photos 0.306 -> 0.307; docs/vision.md, twenty-second session); at
    # ``blur_flag`` or more the status says ``image_blurred`` (0: not said)
    blur_from: float = 0.65
    blur_temper: float = 14.0
    blur_flag: float = 0.8


@dataclass(frozen=True)
class DecodeConfig:
    """Stage 4: most likely position and status flags."""

    max_count: int = 40
    total_min: int = 20  # fewest seeds on the board in any legal position (start)
    total_max: int = 64
    uncertain_below: float = 0.6  # per-pit confidence below this -> listed as uncertain
    # The start position (rule 2.1: 6, 2, 2 in each side's nyumba and the two holes beside
    # it) begins every game: it is taken when it explains the pits within this many nats
    # of the most likely position. On 417 renders of 10 sets, 38 of the 39 starts came
    # within 0-12.5 nats (one 21) and every other board 77 or more, but for a start whose
    # nyumba lost 3 seeds in the renderer's physics (17 seeds: no legal position), 8.5;
    # positions one or two moves from the start, their pits' readings drawn from those
    # renders, lie 15 or more from it in 99.75 % and 99.93 % of draws (docs/vision.md,
    # nineteenth session; 0: off)
    start_within: float = 15.0
    hand_min_pits: int = 2  # this many neighbouring occluded pits (or more) -> hand_over_board
    # ... counting only those read as fewer seeds than this: a heap hides its own rim (two
    # neighbouring heaps of 5-7 on near-black wood were the only false hands in 372 clean
    # renders; none of the 60 hand renders needed them)
    hand_heap_from: int = 5
    # An occluded pit's distribution is mixed with a uniform one: this share over 0..40 for
    # pits read as fewer than hand_heap_from seeds (covered: the count is unknown), and
    # ``occluded_heap_flatten`` from ``occluded_heap_from`` x the reading's mode up to 40 for
    # those read as more (a heap hiding its own rim holds about as many seeds as are read or
    # more: seeds hide seeds). Spread over 0..40 (before the fortieth session), the total's
    # constraint took a heap of 13 to 0 (synth_613_0033: its free reading 84 seeds, a7's 0
    # cost 1.3 nats); now a7 9 (13) and A8 14 (12). Over 207 photos rendered this session
    # (seeds 617, 619, 641, heap set 631, three games): the same readings but two pits, each
    # one seed nearer; the same statuses; the truth's log loss 0.2335 -> 0.2327; heaps of
    # 16+ inside their 90 % interval 66/66 (with no spread 65/66: a heap of 22 read as 6).
    # 0.6 was chosen on these photos (1.0 and 0.8: a heap of 18 read as 24 fell outside)
    # (docs/vision.md, fortieth session)
    occluded_flatten: float = 0.5
    occluded_heap_flatten: float = 0.5
    occluded_heap_from: float = 0.6
    # A thin upper tail for the pits read as heaps (mean of at least ``heap_tail_from``):
    # ``heap_tail`` of the distribution blurred upwards only, by a Gaussian of sd
    # ``heap_tail_sd`` x the mean. Seeds hidden by seeds: heaps of 9-12 were read as 5-7
    # with their truth 7-9 nats below the mode, more than the referee allows one pit (5).
    # Over 166 photos without hands of the fortieth session's sets, the pits of 9-15
    # seeds whose truth lay over 5 nats below the mode 8.1 % -> 0 %, inside the 90 %
    # interval 81 -> 83 %, per pit 92.51 -> 92.58 %, log loss 0.2355 -> 0.2326; on 24
    # fresh renders (seed 647) per pit 87.96 -> 88.10 %; the committed samples 93.50 ->
    # 93.46 % (log loss 0.204 -> 0.206); over 21 rendered games one false alarm fewer
    # (docs/vision.md, forty-first session). 0: off.
    heap_tail: float = 0.05
    heap_tail_from: float = 4.0
    heap_tail_sd: float = 0.5
    covered_empty: bool = True  # ... or one occluded pit most likely empty (its rim hidden by no seeds)
    # A pit read as empty whose rim shows weakly (evidence < ``unlike_evidence`` x the
    # median pit's) and whose crop differs from this board's surely empty pits (a template
    # of those read as empty with >= ``unlike_sure`` probability and evidence >=
    # ``unlike_sure_evidence``; at least ``unlike_min_sure`` of them) by more than
    # ``unlike_empty`` x their own 90th-percentile difference is covered by something
    # (vision.count.unlike_empty): occluded, and a hand when a neighbouring pit is hidden
    # too (as for a faint rim). Over 745 renders (20 sets): the pits under a hand named
    # occluded 145 -> 182, hand photos flagged 52 -> 61 of 128, false flags 1 of 617 as
    # before (a hand on one such pit alone: 72 of 128, but 3 false flags) (0: off)
    unlike_empty: float = 2.5
    unlike_evidence: float = 0.3
    unlike_sure: float = 0.95
    unlike_sure_evidence: float = 0.6
    unlike_min_sure: int = 3
    # ... and a pit read as empty whose rim shows a little more (evidence under
    # ``unlike_firm_evidence`` x the median's: fingers' edges over it) when its crop differs
    # by more than ``unlike_firm`` x that percentile (synth_1039_0020: three seeds under a
    # hand's fingers read as an empty pit, rim evidence 0.41, z over 4). Over 453 photos
    # (seeds 1019-1039, their webcam-spoilt copies, the committed samples): hands hiding
    # pits flagged 50 -> 52 of 68, false flags 6 of 354 as before, per pit unchanged; z 3:
    # the same and one pit more named; 6: one hand (docs/vision.md, sixty-third session)
    # (0: off)
    unlike_firm: float = 4.0
    unlike_firm_evidence: float = 0.5
    # ... and whose mean Lab colour differs from the template's by this much (L1 norm of
    # the mean difference, Lab scaled to 0..1): on 1120 renders (29 sets) the 83 pits
    # truly under a hand that the test named shifted by 0.051 or more; the only false
    # hand the shift removes (synth_437_0021: empty pits on a near-black board, lit from
    # the other end, beside two heaps) by 0.012-0.015 (docs/vision.md, twenty-ninth
    # session) (0: off)
    unlike_min_shift: float = 0.03
    # ... each candidate compared with the median of its this many nearest pits read
    # surely empty (whatever their rim), not the whole board's template: a board lit
    # from one end has its far pits softer than the sure ones. The sample games, the
    # singles and seeds 463 and 467 (243 photos): false hands 13 -> 5 (all on game_03,
    # its end column lit low), hand photos flagged 25 of 52 either way, pits under a
    # hand named 56 of 86 either way, pits wrongly named 55 -> 36; 3, 5: the same, 6: 6
    # false hands (docs/vision.md, thirty-first session) (0: the board's template)
    unlike_near: int = 4
    # One occluded pit read as few seeds is a hand too when the board's nearer long edge,
    # at its column or ``hand_edge_reach`` columns from it, shows under this share of the
    # edge's usual contrast (vision.grid.edge_breaks): an arm reaching in over the edge.
    # A pit named alone was no hand before (a seed's shadow, a soft rim). Over 110 hand
    # photos (40 with a hand on every board, seed 503) and 261 read without one: hands
    # flagged 57 -> 68, false flags 5 as before; 0.5: 71, 0.6: 72 but 2 more false flags.
    # Held out (seed 509, a hand on every board): 23 -> 30 of 40 (docs/vision.md,
    # thirty-second session) (0: off)
    hand_edge_break: float = 0.4
    hand_edge_reach: int = 1


@dataclass(frozen=True)
class VisionConfig:
    locate: LocateConfig = field(default_factory=LocateConfig)
    rectify: RectifyConfig = field(default_factory=RectifyConfig)
    grid: GridConfig = field(default_factory=GridConfig)
    count: CountConfig = field(default_factory=CountConfig)
    decode: DecodeConfig = field(default_factory=DecodeConfig)


DEFAULT = VisionConfig()
