"""Stage tests of the board pipeline on drawn boards with known corners and counts.

The seed counter here is ``drawn.count_drawn_pits`` (counts the drawn light discs),
so these tests exercise locate / rectify / grid / crops / decode, not the
learned counter.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from drawn import (
    DEFAULT_BOARD,
    NARROW_BOARD,
    WIDE_BOARD,
    Board,
    count_drawn_pits,
    default_corners,
    draw_scene,
    spread_counts,
)
from samples import corner_error

from vision.errors import BoardNotFound, ImageUnreadable
from vision.holes import HOLE_CELL, HOLES, START_COUNTS, flatten
from vision.locate import locate_board
from vision.pipeline import fit_board, recognize
from vision.rectify import orient_corners, to_image


@pytest.mark.parametrize(
    ("angle", "tilt", "scale"),
    [(0, 0.0, 0.75), (12, 0.15, 0.7), (35, 0.25, 0.45), (90, 0.0, 0.45), (-60, 0.1, 0.45), (180, 0.3, 0.7)],
)
def test_locate_finds_corners_at_any_rotation(angle: float, tilt: float, scale: float) -> None:
    scene = draw_scene(START_COUNTS, default_corners((640, 360), angle, tilt, scale), seed=2)
    quad = locate_board(scene.image)
    assert corner_error(quad.corners, scene.corners) < 6.0  # coarse; the lattice fit refines


@pytest.mark.parametrize(("angle", "south"), [(0, "bottom"), (180, "top"), (90, "left"), (-90, "right")])
def test_orientation_puts_south_at_the_bottom(angle: float, south: str) -> None:
    # rotating the board by 180 degrees puts South at the top of the image, etc.
    scene = draw_scene(START_COUNTS, default_corners((640, 360), angle, 0.0, 0.45), seed=3)
    corners = orient_corners(locate_board(scene.image).corners, south)
    assert np.linalg.norm(corners - scene.corners, axis=1).max() < 3.0


@pytest.mark.parametrize("board", [DEFAULT_BOARD, NARROW_BOARD, WIDE_BOARD], ids=["default", "narrow", "wide"])
def test_grid_fits_boards_of_other_proportions_from_rough_corners(board: Board) -> None:
    # the fit assumes no margins, pit size or aspect: it must find them
    scene = draw_scene(spread_counts(50, 4), default_corners((960, 540), 5, 0.1, 0.75, board),
                       size=(960, 540), seed=4, board=board)
    rough = scene.corners + np.array([[6, -5], [-5, -6], [-6, 5], [5, 6]])  # 7-8 px off
    corners, hmat, grid, aspect = fit_board(scene.image, rough, 2.345)
    assert np.linalg.norm(corners - scene.corners, axis=1).max() < 3.0
    assert aspect == pytest.approx(board.width / board.height, rel=0.08)
    pts = to_image(grid.centres.reshape(-1, 2), hmat).reshape(4, 8, 2)
    errs = [np.linalg.norm(pts[HOLE_CELL[n]] - scene.pit_centers[n]) for n in HOLES]
    assert max(errs) < 3.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_recognize_reads_a_drawn_board(seed: int) -> None:
    counts = spread_counts(64, seed)
    scene = draw_scene(counts, default_corners((960, 540), 8 * seed, 0.1 * seed, 0.75), size=(960, 540), seed=seed)
    rec = recognize(scene.image, "bottom", counter=count_drawn_pits)
    assert flatten(rec.position) == counts
    assert rec.status == []
    assert set(rec.timings_ms) == {"locate", "rectify", "grid", "count", "decode"}
    assert np.linalg.norm(np.array(rec.board_corners_px) - scene.corners, axis=1).max() < 3.0


def test_a_south_side_along_the_board_is_named_unclear() -> None:
    # RectifyConfig.south_clear_min: a board lying across the photo, read with South at the
    # left: its long sides face top and bottom, so which is South's is a guess and the
    # status says so; named at the bottom (or turned by 30 degrees) it is clear
    from vision.count import flat_counts

    flat = draw_scene(START_COUNTS, default_corners((960, 540), 0, 0.15, 0.75), size=(960, 540), seed=21)
    assert "south_unclear" in recognize(flat.image, south="left", counter=flat_counts).status
    assert "south_unclear" not in recognize(flat.image, south="bottom", counter=flat_counts).status
    turned = draw_scene(START_COUNTS, default_corners((960, 540), 30, 0.15, 0.75), size=(960, 540), seed=21)
    for south in ("bottom", "left"):
        assert "south_unclear" not in recognize(turned.image, south=south, counter=flat_counts).status


def test_json_shape_matches_the_cli_contract() -> None:
    scene = draw_scene(START_COUNTS, default_corners((640, 360), 0, 0.0, 0.75), seed=5)
    out = recognize(scene.image, counter=count_drawn_pits).to_json()
    assert list(out) == ["position", "probabilities", "confidence", "board_corners_px", "status", "timings_ms"]
    assert out["position"]["south"]["front"] == [0, 0, 0, 0, 6, 2, 2, 0]
    assert out["position"]["north"]["front"] == [0, 0, 0, 0, 6, 2, 2, 0]
    assert all(len(p) == 41 for side in out["probabilities"].values() for row in side.values() for p in row)
    assert len(out["board_corners_px"]) == 4


@pytest.mark.parametrize("kind", ["dark", "overexposed"])
def test_exposure_extremes_give_right_answer_or_status(kind: str) -> None:
    counts = spread_counts(40, 7)
    scene = draw_scene(counts, default_corners((640, 360), 10, 0.1, 0.75), seed=7)
    img = scene.image.astype(np.float32)
    img = img * 0.25 if kind == "dark" else np.clip(img * 1.6 + 40, 0, 255)
    img = img.astype(np.uint8)
    try:
        rec = recognize(img, counter=count_drawn_pits)
    except BoardNotFound:
        return  # a clear status is acceptable, a crash or wrong confident board is not
    wrong = [n for n in HOLES if flatten(rec.position)[n] != counts[n]]
    flagged = [s for s in rec.status if s.startswith(("uncertain", "occluded", "total", "hand"))]
    assert not wrong or flagged


def test_blank_table_is_board_not_found() -> None:
    rng = np.random.default_rng(0)
    img = np.clip(rng.normal(150, 20, (360, 640, 3)), 0, 255).astype(np.uint8)
    with pytest.raises(BoardNotFound):
        recognize(img, counter=count_drawn_pits)
    rec = recognize(img, counter=count_drawn_pits, on_missing="status")
    assert rec.status[0] == "board_not_found"
    # the message says what to check (no board runs off this image)
    assert "check that the whole board is in the picture" in rec.status[1]
    assert "run off the image" not in rec.status[1]


def test_plain_rectangle_without_pits_is_not_a_board() -> None:
    img = np.full((360, 640, 3), 180, np.uint8)
    cv2.rectangle(img, (100, 80), (540, 280), (60, 110, 160), -1)
    with pytest.raises(BoardNotFound, match="4x8 pit"):
        locate_board(img)


def _frame_filling_board() -> tuple[np.ndarray, np.ndarray]:
    """A camera close over the board: the board's edges out of the frame (its wood the
    table's colour, so no outline either), all its pits in; and the pits' centres."""
    scene = draw_scene(START_COUNTS, default_corners((960, 540), 4, 0.05, 0.8), size=(960, 540),
                       seed=5, table=(60, 110, 160), clutter=False)
    pits = np.array([scene.pit_centers[n] for n in HOLES])
    pitch = 80 * 0.8 * 960 / DEFAULT_BOARD.width
    x0, y0 = (pits.min(axis=0) - 0.6 * pitch).astype(int)
    x1, y1 = (pits.max(axis=0) + 0.6 * pitch).astype(int)
    img = cv2.resize(scene.image[y0:y1, x0:x1], (640, round(640 * (y1 - y0) / (x1 - x0))))
    return img, (pits - (x0, y0)) * 640 / (x1 - x0)


def test_board_filling_the_frame_is_read_from_its_pits() -> None:
    # The pits alone give the board (LocateConfig.pit_scan_cut_min); with that off, no
    # board is found.
    import dataclasses

    from vision.config import DEFAULT

    img, truth = _frame_filling_board()
    rec = recognize(img, counter=count_drawn_pits)
    got = np.array([rec.pit_centers_px[n] for n in HOLES])
    assert np.abs(got - truth).max() < 4.0
    corners = np.array(rec.board_corners_px)
    assert (corners < 0).any() or (corners[:, 0] > 639).any()  # the surface runs off the image
    assert flatten(rec.position) == START_COUNTS
    off = dataclasses.replace(DEFAULT, locate=dataclasses.replace(DEFAULT.locate, pit_scan_cut_min=0.0))
    with pytest.raises(BoardNotFound):
        recognize(img, cfg=off, counter=count_drawn_pits)


def test_a_board_small_in_the_frame_is_found_on_a_larger_copy() -> None:
    # A board 180 px long in a 1280 x 720 photo (a wide camera set high): its pits are
    # 7 px apart on the pit scan's usual 480 px copy, too small to be seen there. The
    # small rims are scanned at once on a 720 px copy (LocateConfig.small_pit_scan_px);
    # with that off, the scan runs again on larger copies once nothing else is found
    # (LocateConfig.small_board_scan_px), and with both off no board is found.
    import dataclasses

    from vision.config import DEFAULT

    scene = draw_scene(START_COUNTS, default_corners((1280, 720), 80, 0.0, 0.14), size=(1280, 720), seed=3)
    truth = np.array([scene.pit_centers[n] for n in HOLES])
    pitch = float(np.median(np.linalg.norm(np.diff(truth[:8], axis=0), axis=1)))
    assert pitch < 25
    found = locate_board(scene.image)
    assert found.method == "pit_scan_small_pits"
    rec = recognize(scene.image, counter=count_drawn_pits)
    got = np.array([rec.pit_centers_px[n] for n in HOLES])
    assert np.abs(got - truth).max() < 0.2 * pitch
    late = dataclasses.replace(DEFAULT, locate=dataclasses.replace(DEFAULT.locate, small_pit_scan_px=0))
    assert locate_board(scene.image, late).method.endswith("_zoomed")
    off = dataclasses.replace(late, locate=dataclasses.replace(late.locate, small_board_scan_px=()))
    with pytest.raises(BoardNotFound):
        locate_board(scene.image, off)


def test_the_small_pit_scan_looks_at_small_rims_on_a_larger_copy(monkeypatch) -> None:
    # locate._small_pits: one rim scan (no dark discs) on the 720 px copy at the radii
    # small_pit_scan_radii_px, with no refits; not made on a photo no larger than the
    # first scan's copy (480 px), nor when off
    import dataclasses

    import vision.locate
    from vision.config import DEFAULT

    calls: list[tuple[int, tuple[int, ...], int, bool]] = []
    quad = vision.locate.BoardQuad(np.zeros((4, 2)), 1.2, 2.3, "pit_scan")

    def scan(image, cfg, blobs=False):
        lc = cfg.locate
        calls.append((lc.pit_scan_long_side_px, lc.pit_scan_radii_px, lc.pit_scan_refit, blobs))
        return quad

    monkeypatch.setattr(vision.locate, "_pit_scanned", scan)
    found = vision.locate._small_pits(np.zeros((720, 1280, 3), np.uint8), DEFAULT)
    assert calls == [(720, (4, 6), 0, False)]
    assert found is not None and found.method == "pit_scan_small_pits" and found.score == 1.2
    calls.clear()
    square = vision.locate._small_pits(np.zeros((600, 600, 3), np.uint8), DEFAULT)
    assert square is not None and square.method == "pit_scan_small_pits"
    assert calls == [(600, (4, 6), 0, False)]  # the photo's own size: larger than 480
    calls.clear()
    assert vision.locate._small_pits(np.zeros((270, 480, 3), np.uint8), DEFAULT) is None
    off = dataclasses.replace(DEFAULT, locate=dataclasses.replace(DEFAULT.locate, small_pit_scan_px=0))
    assert vision.locate._small_pits(np.zeros((720, 1280, 3), np.uint8), off) is None
    assert calls == []


def test_small_board_scans_rims_on_each_copy_then_dark_discs(monkeypatch) -> None:
    # locate._small_board: the rim scan on the 720 and 960 px copies first, then the
    # dark-disc scan on each (a small board on a tiled floor: the tiles' candidates
    # outnumber its pits); the first fit found is taken. A 640 px photo is scanned
    # once per kind, at its own size (no larger copy is made).
    import dataclasses

    import vision.locate
    from vision.config import DEFAULT

    calls: list[tuple[int, bool]] = []
    quad = vision.locate.BoardQuad(np.zeros((4, 2)), 1.0, 2.3, "pit_scan_blobs")

    def scan(image, cfg, blobs=False):
        calls.append((cfg.locate.pit_scan_long_side_px, blobs))
        return quad if (blobs and cfg.locate.pit_scan_long_side_px == 960) else None

    monkeypatch.setattr(vision.locate, "_pit_scanned", scan)
    found = vision.locate._small_board(np.zeros((720, 1280, 3), np.uint8), DEFAULT)
    assert calls == [(720, False), (960, False), (720, True), (960, True)]
    assert found is not None and found.method == "pit_scan_blobs_zoomed"
    calls.clear()
    assert vision.locate._small_board(np.zeros((360, 640, 3), np.uint8), DEFAULT) is None
    assert calls == [(720, False), (720, True)]
    calls.clear()
    no_blobs = dataclasses.replace(DEFAULT, locate=dataclasses.replace(DEFAULT.locate, pit_scan_blobs=False))
    assert vision.locate._small_board(np.zeros((720, 1280, 3), np.uint8), no_blobs) is None
    assert calls == [(720, False), (960, False)]


def test_pits_are_scanned_before_the_outlines(monkeypatch) -> None:
    # LocateConfig.pit_scan_early: the pit scan runs before any outline is made, and a
    # clear lattice from it ends the search; off (0), the outlines are made and the best
    # one fitted first, found clearly good, and the scan never runs. The same board.
    import dataclasses

    import vision.board
    import vision.locate
    import vision.outlines
    from vision.config import DEFAULT

    scene = draw_scene(START_COUNTS, default_corners((640, 360), 5, 0.05, 0.75), seed=4)
    calls: list[str] = []
    fit, scan, outlines = (vision.board.fit_top_face, vision.locate._pit_scanned,
                           vision.outlines.outline_candidates)
    monkeypatch.setattr(vision.board, "fit_top_face",
                        lambda *a, **k: calls.append("fit") or fit(*a, **k))
    monkeypatch.setattr(vision.locate, "_pit_scanned",
                        lambda *a, **k: calls.append("scan") or scan(*a, **k))
    monkeypatch.setattr(vision.locate, "outline_candidates",
                        lambda *a, **k: calls.append("outlines") or outlines(*a, **k))
    found = locate_board(scene.image)
    assert calls[0] == "scan" and "outlines" not in calls and found.method == "pit_scan"
    calls.clear()
    off = dataclasses.replace(DEFAULT, locate=dataclasses.replace(DEFAULT.locate, pit_scan_early=0.0))
    again = locate_board(scene.image, off)
    assert calls[:2] == ["outlines", "fit"] and "scan" not in calls and again.method != "pit_scan"
    assert np.abs(again.corners - found.corners).max() < 3.0


def test_bad_images_raise_image_unreadable() -> None:
    with pytest.raises(ImageUnreadable):
        recognize(np.zeros((10, 10, 3), np.uint8))
    with pytest.raises(ImageUnreadable):
        recognize(np.zeros((100, 100, 3), np.float32))
    with pytest.raises(ValueError, match="south"):
        scene = draw_scene(START_COUNTS, default_corners((640, 360), 0, 0.0, 0.75), seed=5)
        recognize(scene.image, south="north", counter=count_drawn_pits)


def test_aruco_markers_give_the_corners_when_enabled() -> None:
    import dataclasses

    from vision.config import DEFAULT
    from vision.locate import aruco_corners

    aruco = cv2.aruco
    dictionary = aruco.getPredefinedDictionary(aruco.DICT_4X4_50)
    img = np.full((360, 640, 3), 255, np.uint8)
    centres = [(80, 60), (560, 60), (560, 300), (80, 300)]  # TL, TR, BR, BL
    for k, (x, y) in enumerate(centres):
        marker = aruco.generateImageMarker(dictionary, k, 40)
        img[y - 20 : y + 20, x - 20 : x + 20] = marker[..., None]
    quad = aruco_corners(img)
    assert quad is not None and quad.method == "aruco"
    assert np.abs(quad.corners - np.array(centres)).max() < 1.5
    cfg = dataclasses.replace(DEFAULT, locate=dataclasses.replace(DEFAULT.locate, use_aruco=True))
    assert locate_board(img, cfg).method == "aruco"
    assert aruco_corners(np.full((360, 640, 3), 255, np.uint8)) is None


def test_warm_up_runs_every_stage_once_and_leaves_readings_unchanged() -> None:
    # bao recognize warms up before timing the image: the practice board must be a
    # board (or the warm-up would stop at the locate stage) and nothing may carry over
    from vision.pipeline import _practice_board, warm_up

    practice = recognize(_practice_board(), on_missing="status")
    assert "board_not_found" not in practice.status
    scene = draw_scene(START_COUNTS, default_corners((640, 360), 0, 0.05, 0.8), seed=3)
    before = recognize(scene.image, south="bottom")
    assert warm_up() > 0
    after = recognize(scene.image, south="bottom")
    assert after.position == before.position
    assert after.board_corners_px == before.board_corners_px


