"""Stage tests of the outline-free pit scan (vision/pit_scan.py) on drawn boards."""

from __future__ import annotations

import numpy as np
import pytest
from drawn import default_corners, draw_scene
from samples import SINGLES

from vision.config import DEFAULT
from vision.holes import HOLES, START_COUNTS


def _lattice_error(hlat: np.ndarray, scene) -> float:
    """Median distance of the lattice points to the drawn pit centres (either half turn)."""
    import cv2

    from vision.holes import CANONICAL_ROWS

    true = np.array([[scene.pit_centers[h] for h in row] for row in CANONICAL_ROWS])
    grid = np.stack(np.meshgrid(np.arange(8.0), np.arange(4.0)), -1).reshape(-1, 1, 2)
    pts = cv2.perspectiveTransform(grid, hlat).reshape(4, 8, 2)
    # rows 2 and 3 of the drawn board sit a small gap further down: half a pit radius at most
    return min(float(np.median(np.linalg.norm(pts - true, axis=-1))),
               float(np.median(np.linalg.norm(pts[::-1, ::-1] - true, axis=-1))))


@pytest.mark.parametrize("angle", [0.0, 35.0, 90.0])
def test_pit_scan_finds_the_lattice_from_the_pits_alone(angle: float) -> None:
    from vision.pit_scan import pit_lattices

    scene = draw_scene(START_COUNTS, default_corners((960, 540), angle, 0.15, 0.7), size=(960, 540), seed=5)
    lattices = pit_lattices(scene.image)
    assert lattices, "no lattice found"
    n, hlat = lattices[0]
    assert n >= 24
    assert _lattice_error(hlat, scene) < 6.0


def test_the_pit_window_is_the_8_by_4_block_holding_most_candidates() -> None:
    from vision.pit_scan import _best_window

    # a full 8 x 4 block at a = 2..9, b = -1..2, and a stray column at a = 11
    block = {(a, b): 0 for a in range(2, 10) for b in range(-1, 3)}
    stray = {(11, b): 0 for b in range(-1, 3)}
    assert _best_window(block | stray) == (32, 2, -1, True)
    # turned: 4 along u, 8 along v
    turned = {(b, a): 0 for a, b in block}
    assert _best_window(turned) == (32, -1, 2, False)
    # two candidates only, 9 apart along u: no 8-wide window holds both; of the windows
    # holding one, the first (smallest a0, then b0, eight along u first)
    assert _best_window({(0, 0): 0, (9, 0): 1}) == (1, -7, -3, True)


def test_a_grown_lattice_is_completed_across_a_hand_and_off_centre_candidates() -> None:
    import cv2

    from vision.pit_scan import _extend, _grow

    # 8 x 4 pits seen in perspective (the far columns closer together); a hand hides
    # columns 3 and 4 of rows 0-2, and the candidates of column 2 next to it sit 0.2
    # pitch off their pits' centres, towards the hand (rims half covered)
    h = np.array([[40.0, 3.0, 100.0], [2.0, 36.0, 80.0], [0.03, 0.002, 1.0]])
    lattice = [(a, b) for a in range(8) for b in range(4) if not (a in (3, 4) and b < 3)]
    pts = cv2.perspectiveTransform(np.array(lattice, np.float64).reshape(-1, 1, 2), h).reshape(-1, 2)
    step = np.linalg.norm(pts[1] - pts[0])
    for i, (a, b) in enumerate(lattice):
        if a == 2 and b < 3:
            pts[i] += (0.2 * step, 0.0)
    # two stray candidates on the table: reserve seeds 2.5 pitches beside each end
    middle = pts[:, 1].mean()
    pts = np.concatenate([pts, [[pts[:, 0].max() + 2.5 * step, middle + 0.5 * step],
                                [pts[:, 0].min() - 2.5 * step, middle]]])
    truth = {key: i for i, key in enumerate(lattice)}
    seed = lattice.index((0, 0))
    u, v = pts[lattice.index((1, 0))] - pts[seed], pts[lattice.index((0, 1))] - pts[seed]
    grown = _grow(pts, seed, u, v, 0.3)
    # the step-by-step growth bends at the off-centre column: columns beyond the gap
    # get the wrong coordinates
    assert sum(lattice[i] == key for key, i in grown.items()) < len(lattice)
    done = _extend(pts, grown, 0.3)
    # every candidate on its own lattice point (translated as the growth started), none of the strays
    shift = next(key for key, i in done.items() if i == seed)
    assert {(a - shift[0], b - shift[1]): i for (a, b), i in done.items()} == truth


def _side_lit_scene_on_bricks() -> tuple[np.ndarray, object]:
    """Bowls shaded one way across (lit from the lower right: a faint rim on their
    lit side) on a board lying on a brick pavement (mortar junctions: a lattice of dark
    spots of their own)."""
    import cv2
    from drawn import DEFAULT_BOARD, Scene, cell_centre

    from vision.holes import HOLES

    b = DEFAULT_BOARD
    bw, bh = b.width, b.height
    canvas = np.empty((bh, bw, 3), np.float32)
    canvas[:] = (70, 110, 150)
    yy, xx = np.mgrid[0:bh, 0:bw].astype(np.float32)
    for name in HOLES:
        cx, cy = cell_centre(name, b)
        t = np.clip(((xx - cx) + (yy - cy)) / (np.sqrt(2) * b.radius), -1, 1)
        canvas *= np.where(np.hypot(xx - cx, yy - cy) < b.radius, 0.45 + 0.55 * (0.5 + 0.5 * t), 1.0)[..., None]
        # the crease where the bowl meets the top face: faint, but all the way round
        cv2.circle(canvas, (int(round(cx)), int(round(cy))), b.radius, (56, 88, 120), 2)
    canvas = cv2.GaussianBlur(canvas, (0, 0), 1.5)
    w, h = 960, 540
    scene = np.full((h, w, 3), (200, 200, 205), np.float32)
    for y in range(0, h, 28):
        cv2.line(scene, (0, y), (w, y), (70, 70, 75), 3)
        for x in range(0 if (y // 28) % 2 else 30, w, 60):
            cv2.line(scene, (x, y), (x, y + 28), (70, 70, 75), 3)
    scene += np.random.default_rng(0).normal(0, 3, (h, w, 1)).astype(np.float32)
    dst = default_corners((w, h), 15.0, 0.1, 0.7)
    hmat = cv2.getPerspectiveTransform(np.float32([[0, 0], [bw, 0], [bw, bh], [0, bh]]), np.float32(dst))
    warped = cv2.warpPerspective(canvas, hmat, (w, h))
    mask = cv2.warpPerspective(np.full((bh, bw), 255, np.uint8), hmat, (w, h)) > 127
    scene[mask] = warped[mask]
    centres = {n: tuple(cv2.perspectiveTransform(np.float32([[cell_centre(n, b)]]), hmat)[0, 0]) for n in HOLES}
    return np.clip(scene, 0, 255).astype(np.uint8), Scene(None, dst, centres, {})


def test_side_lit_bowls_on_bricks_are_found_as_dark_blobs() -> None:
    from vision.pit_scan import pit_lattices

    image, scene = _side_lit_scene_on_bricks()
    rims = pit_lattices(image)
    # the rims show on one side of each bowl only: not all 32 pits are candidates
    assert not rims or rims[0][0] < 32
    blobs = pit_lattices(image, blobs=True)
    assert blobs and blobs[0][0] == 32
    # a blob's centre leans to the bowl's dark side: a start for the fit, which
    # refits the lattice on the rims (pitch here ~65 px)
    assert _lattice_error(blobs[0][1], scene) < 20.0


def test_a_pattern_of_dark_discs_going_on_past_the_window_is_no_lattice() -> None:
    # a dotted cloth: dark discs on a lattice with no end inside the image
    import dataclasses

    import cv2

    from vision.pit_scan import pit_lattices

    w, h = 960, 540
    cloth = np.full((h, w, 3), 190, np.uint8)
    for y in range(20, h, 44):
        for x in range(20, w, 48):
            cv2.circle(cloth, (x, y), 13, (80, 85, 90), -1)
    cloth = cv2.GaussianBlur(cloth, (0, 0), 1.5)
    full = [n for n, _ in pit_lattices(cloth, dataclasses.replace(DEFAULT.locate, pit_scan_max_ring=0), blobs=True)]
    kept = [n for n, _ in pit_lattices(cloth, blobs=True)]
    assert full and max(full) >= 28  # without the test: full 8 x 4 windows of discs
    assert kept == []


def test_the_pit_scan_finds_a_tilted_board_with_a_hand_over_two_columns() -> None:
    import dataclasses

    import cv2

    from vision.pit_scan import pit_lattices

    # a steep view (far edge 0.7 of the near one), turned 20 degrees; a hand covers
    # columns 3 and 4 of rows 0-2 and reaches 0.45 pitch into columns 2 and 5, so
    # those rims show only their outer halves (LocateConfig.pit_scan_extend)
    scene = draw_scene(START_COUNTS, default_corners((960, 540), 20.0, 0.3, 0.7), size=(960, 540), seed=5)
    img = scene.image.copy()
    pc = {n: np.array(xy, np.float64) for n, xy in scene.pit_centers.items()}
    rows = [HOLES[i * 8:(i + 1) * 8] for i in range(4)]
    for r in range(3):
        c2, c3, c4, c5 = (pc[rows[r][c]] for c in (2, 3, 4, 5))
        left, right = c2 + 0.05 * (c3 - c2), c5 - 0.05 * (c5 - c4)
        down = pc[rows[r + 1][2]] - c2
        cv2.fillConvexPoly(img, np.array([left - down / 2, right - down / 2, right + down / 2, left + down / 2],
                                         np.int32), (120, 160, 200))
    off = dataclasses.replace(DEFAULT.locate, pit_scan_extend=False)
    assert pit_lattices(img, off) == []  # grown step by step: no window of 16 on one homography
    lattices = pit_lattices(img)
    assert lattices, "no lattice found"
    assert _lattice_error(lattices[0][1], scene) < 6.0


def test_lattice_directions_of_candidates_all_closer_than_a_pit_are_none_without_a_warning() -> None:
    # vision.pit_scan._directions: ten candidates within 2 px of each other (a speck seen
    # at several radii) have no neighbour a pit's width away; no directions, and no
    # numpy warning about the median of nothing on the way
    import warnings

    from vision.pit_scan import _directions

    pts = np.random.default_rng(0).uniform(0, 2, (10, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _directions(pts, 8.0) is None
    # a lattice's candidates give its two steps
    grid = np.array([(20.0 * i, 15.0 * j) for i in range(6) for j in range(4)])
    u, v = _directions(grid, 8.0)
    steps = sorted([np.abs(u).max(), np.abs(v).max()])
    assert abs(steps[0] - 15.0) < 1.0 and abs(steps[1] - 20.0) < 1.0


@pytest.mark.parametrize(("cut", "side"), [("left", "left"), ("bottom", "bottom")])
def test_a_board_running_off_the_image_is_named_as_such(cut: str, side: str) -> None:
    # a webcam set up with part of the board out of the frame: no board can be read
    # (pits off the image cannot be counted), and the message says what to do about it
    from vision.errors import BoardNotFound
    from vision.locate import locate_board
    from vision.pit_scan import off_image

    scene = draw_scene(START_COUNTS, default_corners((960, 540), 0.0, 0.0, 0.8), size=(960, 540), seed=4)
    h, w = scene.image.shape[:2]
    # the left two and a half columns, or the lower one and a half rows, cut away
    image = scene.image[:, 3 * w // 10:] if cut == "left" else scene.image[: h * 3 // 5]
    found = off_image(image)
    assert found is not None
    sides, pits = found
    assert sides == [side]
    assert 12 <= pits <= 32 - 8
    with pytest.raises(BoardNotFound, match=f"run off the image at the {side} edge"):
        locate_board(image)


def test_a_board_wholly_in_view_and_patterns_are_not_said_to_run_off_the_image() -> None:
    import cv2

    from vision.pit_scan import off_image

    scene = draw_scene(START_COUNTS, default_corners((960, 540), 20.0, 0.1, 0.75), size=(960, 540), seed=4)
    assert off_image(scene.image) is None
    # round tiles running off the right and bottom edges: the pattern goes on past any
    # 8 x 4 window inside the image (test_a_pattern_cut_by_the_image_edge_is_no_board)
    tiles = np.full((360, 880, 3), (150, 160, 170), np.uint8)
    for y in range(20, 360, 60):
        for x in range(420, 880, 60):
            cv2.circle(tiles, (x, y), 20, (70, 80, 90), -1)
    assert off_image(tiles) is None
    # a chequered floor filling the image: a block of 'pits' cut on every side
    floor = np.kron((np.indices((6, 10)).sum(axis=0) % 2) * 60 + 120, np.ones((96, 96))).astype(np.uint8)
    floor = cv2.cvtColor(floor[:540, :960], cv2.COLOR_GRAY2BGR)
    for y in range(48, 540, 96):
        for x in range(48, 960, 96):
            cv2.circle(floor, (x, y), 30, (60, 60, 60), -1)
    assert off_image(floor) is None
    # large round tiles, 6 x 3 to the image, the outer ones at its borders: nothing goes
    # on past them inside the image, but a board is not cut on three or four sides
    few = np.full((480, 960, 3), (150, 160, 170), np.uint8)
    for y in range(60, 480, 150):
        for x in range(60, 960, 150):
            cv2.circle(few, (x, y), 40, (70, 80, 90), -1)
    few = np.clip(few + np.random.default_rng(2).normal(0, 3, few.shape), 0, 255).astype(np.uint8)
    assert off_image(few) is None


def test_pits_cut_away_by_the_image_border_do_not_count_against_the_block() -> None:
    # sample single synth_1_0009 with its left quarter cut away: 31 of the 32 pits still
    # in the image, but the pit lattice's 8 x 4 window holds the cut column too, and
    # its cells beyond the border have no candidates. Counted against the block, those
    # made it too sparse to be a board at all (nothing named).

    import cv2

    from vision.pit_scan import off_image

    image = cv2.imread(str(SINGLES / "synth_1_0009.jpg"))
    found = off_image(image[:, image.shape[1] // 4:])
    assert found is not None and found[0] == ["left"]


def test_a_window_with_a_void_row_and_the_fourth_row_beside_it_is_a_board_with_its_halves_apart() -> None:
    # LocateConfig.pit_scan_halves_apart (vision.pit_scan._apart_block): a board whose
    # halves lie a row pitch apart grows one lattice across the void row; any 8 x 4 window
    # of it leaves a row of pits just outside (8 candidates around it, over
    # pit_scan_max_ring). The 8 x 5 block with the void row in its middle is taken, its
    # homography fitted on all four rows; tiles going on past the block, a middle row
    # that is not void or a weak row of a half still make no lattice
    from dataclasses import replace

    import cv2

    from vision.pit_scan import _window_lattice

    cfg = DEFAULT.locate
    step = 30.0

    def lattice(rows, flip=False, drop=(), extra=()):
        keys = [(a, b) for b in rows for a in range(8) if (a, b) not in drop] + list(extra)
        if flip:  # eight along the lattice's second axis
            keys = [(b, a) for a, b in keys]
        pts = np.array([(40.0 + step * a, 50.0 + step * b) for a, b in keys])
        u, v = np.array([step, 0.0]), np.array([0.0, step])
        return _window_lattice(pts, {k: i for i, k in enumerate(keys)}, u, v, 1.0, cfg)

    got = lattice((0, 1, 3, 4))
    assert got is not None and got[0] == 32
    corners = cv2.perspectiveTransform(np.array([[[0.0, 0]], [[7, 1]], [[0, 2]], [[7, 4]]]), got[1]).reshape(-1, 2)
    # lattice rows 0-1 the first half, row 2 the void row, rows 3-4 the second half
    assert np.allclose(corners, [(40, 50), (250, 80), (40, 110), (250, 170)], atol=1e-6)
    seed_between = lattice((0, 1, 3, 4), extra=((3, 2),))  # one candidate in the void row
    assert seed_between is not None and seed_between[0] >= 32
    flipped = lattice((0, 1, 3, 4), flip=True)
    assert flipped is not None and flipped[0] == 32
    assert lattice((0, 1, 3, 4), drop=((2, 4), (5, 4), (6, 4))) is not None  # a row of 5: a half still
    # not a board with its halves apart
    off = replace(cfg, pit_scan_halves_apart=False)
    pts = np.array([(40.0 + step * a, 50.0 + step * b) for b in (0, 1, 3, 4) for a in range(8)])
    keys = {(a, b): i for i, (a, b) in enumerate((a, b) for b in (0, 1, 3, 4) for a in range(8))}
    assert _window_lattice(pts, keys, np.array([step, 0.0]), np.array([0.0, step]), 1.0, off) is None
    assert _window_lattice(pts, keys, np.array([step, 0.0]), np.array([0.0, step]), 1.0, cfg, apart=False) is None
    # the second half a third of a row nearer: no homography holds four rows of it
    near = np.array([(x, y - (step / 3 if y > 100 else 0.0)) for x, y in pts])
    assert _window_lattice(near, keys, np.array([step, 0.0]), np.array([0.0, step]), 1.0, cfg) is None
    assert lattice(range(6)) is None  # tiles: the middle row is no void
    two_in_void = ((0, 1, 2, 3, 4), tuple((a, 2) for a in range(6)))  # the middle row holds 2
    assert lattice(*two_in_void) is None
    # a fourth row of 3 is no half: with 4 candidates on the row before the window too, no
    # lattice; without them, the window's ring (3) passes as it always did
    weak = tuple((a, 4) for a in range(5))
    assert lattice((0, 1, 3, 4), drop=weak, extra=((0, -1), (2, -1), (4, -1), (6, -1))) is None
    assert lattice((0, 1, 3, 4), drop=weak)[0] == 24
    # the middle gaps tried are the board fit's (GridConfig.gap_steps), as given: with gaps
    # of at most half a row, the halves a row apart fit no gap of 0.8 rows or more
    assert _window_lattice(pts, keys, np.array([step, 0.0]), np.array([0.0, step]), 1.0, cfg,
                           gap_steps=(0.0, 0.25, 0.5)) is None


@pytest.mark.parametrize("maps", ["_rim_maps", "_blob_maps"])
def test_the_scan_maps_made_on_two_threads_are_the_maps_made_in_turn(maps: str) -> None:
    import dataclasses

    import cv2

    from vision import pit_scan

    scene = draw_scene(START_COUNTS, default_corners((960, 540), 20.0, 0.15, 0.7), size=(960, 540), seed=7)
    make = getattr(pit_scan, maps)
    in_turn, _ = make(scene.image, dataclasses.replace(DEFAULT.locate, pit_scan_threads=1), 1.0)
    threads = cv2.getNumThreads()
    cv2.setNumThreads(2)  # (a machine with one core: the split is still made and checked)
    try:
        shared, _ = make(scene.image, dataclasses.replace(DEFAULT.locate, pit_scan_threads=2), 1.0)
    finally:
        cv2.setNumThreads(threads)
    assert [(r, st) for r, st, _ in shared] == [(r, st) for r, st, _ in in_turn] == [
        (float(r), st) for r, st in pit_scan._steps(DEFAULT.locate)]
    for (_, _, a), (_, _, b) in zip(shared, in_turn, strict=True):
        assert a.shape == b.shape and np.array_equal(a, b)


def test_work_shared_between_two_threads_keeps_each_items_place_and_splits_by_cost() -> None:
    import threading

    import cv2

    from vision import pit_scan

    seen: dict[int, str] = {}

    def square(x: int) -> int:
        seen[x] = threading.current_thread().name
        return x * x

    threads = cv2.getNumThreads()
    cv2.setNumThreads(2)
    try:
        out = pit_scan._shared(square, [1, 2, 3, 4, 5], [8.0, 1.0, 1.0, 1.0, 1.0], DEFAULT.locate)
    finally:
        cv2.setNumThreads(threads)
    assert out == [1, 4, 9, 16, 25]
    # the costly first item alone on one thread, the four cheap ones on the other
    assert len({seen[2], seen[3], seen[4], seen[5]}) == 1 and seen[1] != seen[2]
