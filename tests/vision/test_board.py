"""Stage tests of the top-face lattice fit (vision/board.py) on drawn boards."""

from __future__ import annotations

import numpy as np
import pytest
from drawn import default_corners, draw_scene

from vision.board import fit_board, fit_top_face
from vision.config import DEFAULT
from vision.holes import HOLE_CELL, HOLES, START_COUNTS
from vision.rectify import to_image


def _pit_errors(scene, hmat, grid) -> np.ndarray:
    pts = to_image(grid.centres.reshape(-1, 2), hmat).reshape(4, 8, 2)
    return np.array([np.linalg.norm(pts[HOLE_CELL[n]] - scene.pit_centers[n]) for n in HOLES])


def test_a_side_face_in_the_outline_does_not_shear_the_pits() -> None:
    # the rough quad reaches 12 % of the board's height too far past the South edge
    # (what an outline including the side face looks like at a low camera)
    scene = draw_scene(START_COUNTS, default_corners((960, 540), 4, 0.15, 0.75), size=(960, 540), seed=11)
    rough = scene.corners.copy()
    down = (scene.corners[3] - scene.corners[0]) * 0.12
    rough[2] += down
    rough[3] += down
    corners, hmat, grid, _ = fit_board(scene.image, rough, 2.345)
    assert _pit_errors(scene, hmat, grid).max() < 2.0
    assert np.linalg.norm(corners - scene.corners, axis=1).max() < 3.0
    assert grid.score >= DEFAULT.grid.min_lattice_score


def test_pit_radius_is_measured() -> None:
    scene = draw_scene(START_COUNTS, default_corners((960, 540), 0, 0.0, 0.75), size=(960, 540), seed=12)
    corners, hmat, grid, _ = fit_board(scene.image, scene.corners, 2.345)
    # drawn pits: radius 30 board px with a pitch of 80 board px
    assert grid.radius[0] / DEFAULT.grid.lattice_pitch_px == pytest.approx(30 / 80, rel=0.08)
    # the view puts rows one column pitch apart: rows 76 px apart on the board -> pits 80/76 tall
    assert grid.anisotropy == pytest.approx(80 / 76, rel=0.04)


def test_a_table_without_pits_scores_below_the_board_threshold() -> None:
    rng = np.random.default_rng(3)
    img = np.clip(rng.normal(140, 25, (540, 960, 3)), 0, 255).astype(np.uint8)
    corners = default_corners((960, 540), 0, 0.0, 0.75)
    _, _, grid, _ = fit_board(img, corners, 2.345)
    assert grid.score < DEFAULT.grid.min_lattice_score


def test_a_turned_fit_names_the_same_pits_from_the_other_side() -> None:
    # South on the other long side: pit [r, c] of the turned fit is pit [3 - r, 7 - c]
    scene = draw_scene(START_COUNTS, default_corners((960, 540), 10, 0.1, 0.75), size=(960, 540), seed=13)
    fit = fit_top_face(scene.image, scene.corners, 2.345)
    turned = fit.turned()
    a = to_image(fit.grid.centres.reshape(-1, 2), fit.hmat).reshape(4, 8, 2)
    b = to_image(turned.grid.centres.reshape(-1, 2), turned.hmat).reshape(4, 8, 2)
    assert np.abs(b - a[::-1, ::-1]).max() < 0.01
    # the per-pit rim measures go with their pits
    assert fit.grid.evidence is not None and turned.grid.evidence is not None
    assert np.array_equal(turned.grid.evidence, fit.grid.evidence[::-1, ::-1])
    assert np.array_equal(turned.grid.rim, fit.grid.rim[::-1, ::-1])
    assert np.allclose(turned.corners, np.roll(fit.corners, 2, axis=0))
    corners, _, _, _ = fit_board(scene.image, turned.corners, 2.345, prior=fit)
    assert np.allclose(corners, turned.corners)  # reused, not refitted


def _true_lattice(scene) -> np.ndarray:
    """Homography lattice (col, row + gap) -> image px of a drawn scene's pits."""
    import cv2

    from vision.holes import CANONICAL_ROWS

    true = np.array([[scene.pit_centers[h] for h in row] for row in CANONICAL_ROWS]).reshape(-1, 2)
    gap = 8.0 / 76.0  # drawn board: gap / row pitch
    src = np.stack(np.meshgrid(np.arange(8.0), np.arange(4.0) + np.where(np.arange(4) >= 2, gap, 0.0)),
                   -1).reshape(-1, 2)
    h, _ = cv2.findHomography(src, true, 0)
    return h


@pytest.mark.parametrize("shift", [(1, 0), (-1, 0), (0, 1)])
def test_a_lattice_started_one_pitch_off_ends_on_the_pits(shift: tuple[int, int]) -> None:
    from vision.board import fit_from_lattice

    scene = draw_scene(START_COUNTS, default_corners((960, 540), 8, 0.1, 0.75), size=(960, 540), seed=21)
    off = _true_lattice(scene) @ np.array([[1.0, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1]])
    fit = fit_from_lattice(scene.image, off, 8.0 / 76.0)
    assert fit.grid.score >= 1.0
    assert np.median(_pit_errors(scene, fit.hmat, fit.grid)) < 4.0


def test_a_pattern_going_on_beyond_the_lattice_is_no_board() -> None:
    """Round tiles (or a perforated sheet) over the whole image: every 4 x 8 window
    is a lattice of 'pits', but the pattern does not end at a margin."""
    import cv2

    from vision.board import fit_from_lattice

    img = np.full((540, 960, 3), (150, 160, 170), np.uint8)
    for y in range(20, 540, 60):
        for x in range(20, 960, 60):
            cv2.circle(img, (x, y), 20, (70, 80, 90), -1)
    hlat = np.array([[60.0, 0, 260], [0, 60, 140], [0, 0, 1]])  # lattice on the circles at (260..680, 140..320)
    fit = fit_from_lattice(img, hlat, 0.0)
    assert fit.grid.score < DEFAULT.grid.min_lattice_score
    from vision.errors import BoardNotFound
    from vision.locate import locate_board

    with pytest.raises(BoardNotFound):
        locate_board(img)


def test_a_pattern_cut_by_the_image_edge_is_no_board() -> None:
    """Round tiles from the middle of the photo to its right and bottom edges, plain
    wood to their left (a dark board beside a tiled floor, synth_193_0031): the line
    beyond the lattice's top goes on, the lines beyond its right and bottom lie off
    the image. An edge of the photo is no margin: the pattern may go on past it."""
    import dataclasses

    import cv2

    from vision.board import fit_from_lattice
    from vision.errors import BoardNotFound
    from vision.locate import locate_board

    img = np.full((360, 880, 3), (150, 160, 170), np.uint8)
    for y in range(20, 360, 60):
        for x in range(420, 880, 60):
            cv2.circle(img, (x, y), 20, (70, 80, 90), -1)
    img = np.clip(img + np.random.default_rng(1).normal(0, 3, img.shape), 0, 255).astype(np.uint8)
    hlat = np.array([[60.0, 0, 420], [0, 60, 140], [0, 0, 1]])  # columns 420..840, rows 140..320
    assert fit_from_lattice(img, hlat, 0.0).grid.score == 0.0
    with pytest.raises(BoardNotFound):
        locate_board(img)
    # the edges of the photo taken for margins: the pattern passes for a board
    blind = dataclasses.replace(DEFAULT, grid=dataclasses.replace(DEFAULT.grid, continues_unseen=False))
    assert fit_from_lattice(img, hlat, 0.0, blind).grid.score > 1.0


def test_a_fit_whose_corners_leave_the_image_does_not_crash() -> None:
    """A wild start (corners mostly beyond the image edge) gives a fit with a low
    score, not an OpenCV error on an empty region (seen on a fresh render)."""
    scene = draw_scene(dict(START_COUNTS), default_corners((640, 360), 0, 0.0, 0.7), seed=3)
    corners = np.array([[600.0, 300.0], [2600.0, 300.0], [2600.0, 1300.0], [600.0, 1300.0]])
    fit = fit_top_face(scene.image, corners, DEFAULT.rectify.default_aspect)
    assert fit.corners.shape == (4, 2) and np.isfinite(fit.corners).all()
    assert fit.grid.score < DEFAULT.grid.min_lattice_score


def test_nominal_lattice_puts_the_pits_at_the_margins() -> None:
    # A 4 x 8 board of pitch 50 x 40 px with margins 0.6 pitch from the surface's
    # edges to the outer pit centres: width (2 * 0.6 + 7) * 50 = 410, height
    # (2 * 0.6 + 3) * 40 = 168; pit (col, row) at (30 + 50 col, 24 + 40 row) + origin.
    import cv2

    from vision.board import nominal_lattice

    corners = np.array([[100.0, 50], [510, 50], [510, 218], [100, 218]])
    h = nominal_lattice(corners, 0.6)
    pts = np.array([[0.0, 0], [7, 0], [7, 3], [0, 3], [2, 1]]).reshape(-1, 1, 2)
    got = cv2.perspectiveTransform(pts, h).reshape(-1, 2)
    want = np.array([[130.0, 74], [480, 74], [480, 194], [130, 194], [230, 114]])
    assert np.abs(got - want).max() < 1e-6


def test_a_fit_started_from_the_nominal_lattice_ends_on_the_pits() -> None:
    # the drawn board's margins are 0.875 (columns) and 0.84 (rows) pitches and it
    # has a middle gap of 0.1 row pitch: a start at 0.75 is about 0.1 pitch off
    # (a start a quarter pitch off, at 0.6, is not caught: the comb is the main start)
    from vision.board import fit_from_lattice, nominal_lattice

    scene = draw_scene(START_COUNTS, default_corners((960, 540), 8, 0.1, 0.75), size=(960, 540), seed=21)
    fit = fit_from_lattice(scene.image, nominal_lattice(scene.corners, 0.75), 0.0)
    assert fit.grid.score >= 1.0
    assert np.median(_pit_errors(scene, fit.hmat, fit.grid)) < 4.0


def test_a_weak_fit_is_started_again_from_a_comb_blind_outside_the_corners(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # GridConfig.masked_restart_frac: after the restarts, a fit still under
    # restart_below is fitted once more from a comb that sees only the board (and a
    # margin); the better fit is kept. A clearly good fit is not refitted.
    import dataclasses
    from types import SimpleNamespace

    import vision.board

    calls: list = []

    def fake_once(image, corners, aspect, cfg, lap, comb_min=0.0, outside=None):  # noqa: ANN001, ANN202
        calls.append(outside)
        score = first_score if len(calls) == 1 else (1.5 if outside is not None else 0.4)
        return SimpleNamespace(grid=SimpleNamespace(score=score))

    monkeypatch.setattr(vision.board, "_fit_once", fake_once)
    cfg = dataclasses.replace(DEFAULT, grid=dataclasses.replace(DEFAULT.grid, nominal_start_below=0.0))
    corners = np.array([[0, 0], [400, 0], [400, 150], [0, 150]], np.float64)
    first_score = 0.5
    fit = fit_top_face(np.zeros((200, 450, 3), np.uint8), corners, 3.0, cfg)
    assert fit.grid.score == 1.5
    assert calls[-1] == cfg.grid.masked_restart_frac is not None and calls[-1] == 0.0
    assert calls[:-1] == [None] * (1 + len(cfg.grid.restart_aspects))
    calls.clear()
    off = dataclasses.replace(cfg, grid=dataclasses.replace(cfg.grid, masked_restart_frac=None))
    assert fit_top_face(np.zeros((200, 450, 3), np.uint8), corners, 3.0, off).grid.score == 0.5
    assert None in calls and all(c is None for c in calls)
    calls.clear()
    first_score = 2.0
    assert fit_top_face(np.zeros((200, 450, 3), np.uint8), corners, 3.0, cfg).grid.score == 2.0
    assert calls == [None]


def test_the_comb_sees_no_edges_outside_the_given_rectangle() -> None:
    # vision.grid.fit_grid(inside=...): what lies outside does not move the lattice
    import cv2

    from vision.grid import fit_grid
    from vision.rectify import rectify

    corners = np.asarray(default_corners((960, 540), 0, 0.0, 0.6), np.float64)
    scene = draw_scene(START_COUNTS, corners, size=(960, 540), seed=5, clutter=False)
    w, pad = 400, 48
    view, _ = rectify(scene.image, corners, 3.0, DEFAULT.rectify, width=w, pad=pad)
    h = view.shape[0] - 2 * pad
    busy = view.copy()
    rng = np.random.default_rng(0)
    for _ in range(60):  # rings all round the board
        x, y = int(rng.integers(0, busy.shape[1])), int(rng.integers(0, busy.shape[0]))
        if pad - 6 <= x <= pad + w + 6 and pad - 6 <= y <= pad + h + 6:
            continue
        cv2.circle(busy, (x, y), 9, (20, 20, 20), 2)
    inside = (pad - 2, pad - 2, pad + w + 2, pad + h + 2)
    plain = view.copy()
    plain[:, : pad - 4] = plain[:, pad + w + 4:] = 128
    plain[: pad - 4] = plain[pad + h + 4:] = 128
    a = fit_grid(busy, board_width=w, inside=inside)
    b = fit_grid(plain, board_width=w, inside=inside)
    assert np.abs(a.centres - b.centres).max() < 1.5  # (a blur reaches a few px in)
    # without the rectangle the rings are seen (so the test can fail)
    seen = fit_grid(busy, board_width=w)
    assert np.abs(seen.centres - a.centres).max() > 3.0 or abs(seen.score - a.score) > 0.05


def test_squash_tells_a_tilted_board_from_a_lattice_along_the_diagonals() -> None:
    from vision.rectify import squash

    a = 2.5
    rect = np.array([[0, 0], [a, 0], [a, 1], [0, 1]]) * 200.0
    turn = np.array([[np.cos(0.6), -np.sin(0.6)], [np.sin(0.6), np.cos(0.6)]])
    assert squash(rect @ turn.T + 300, a) == pytest.approx(1.0)  # seen square on, any turn
    assert squash(rect * [1.0, 0.5], a) == pytest.approx(0.5)  # tilted 60 degrees: cos 60
    # sheared by one column pitch (a / 8) per row pitch (1 / 4): x += k y, k = a / 2;
    # derivative [[1, k], [0, 1]], determinant 1, so the ratio is the smaller
    # eigenvalue of its square, ((2 + k^2) - k sqrt(k^2 + 4)) / 2 = 0.307 for k = 1.25
    k = a / 2
    sheared = rect + np.stack([rect[:, 1] * k, np.zeros(4)], 1)
    assert squash(sheared, a) == pytest.approx(((2 + k * k) - k * np.sqrt(k * k + 4)) / 2)
    assert squash(sheared, a) == pytest.approx(0.307, abs=1e-3)


def test_a_lattice_of_half_the_row_pitch_is_fitted_again_from_twice_the_pitch() -> None:
    # GridConfig.paired_rows_max: a lattice with its rows on the near and far rims of the
    # pits of two board rows (seen on renders: a wrong board of 16 pits read as 32) is
    # refitted from rows of twice its pitch, and ends on the board's 32 pits
    from vision.board import fit_from_lattice

    scene = draw_scene(START_COUNTS, default_corners((960, 540), 8, 0.1, 0.75), size=(960, 540), seed=21)
    # rows at -0.2, 0.2 (pit row 0) and 0.8, 1.2 (pit row 1): lattice rows 0, 1, 2.5, 3.5
    half = _true_lattice(scene) @ np.array([[1.0, 0, 0], [0, 0.4, -0.2], [0, 0, 1]])
    unchecked = fit_from_lattice(scene.image, half, 0.5, check_pairs=False)
    assert np.median(_pit_errors(scene, unchecked.hmat, unchecked.grid)) > 10.0
    fit = fit_from_lattice(scene.image, half, 0.5)
    assert fit.grid.score >= 1.0
    assert np.median(_pit_errors(scene, fit.hmat, fit.grid)) < 4.0


def test_a_lattice_of_half_the_column_pitch_is_fitted_again_from_twice_the_pitch() -> None:
    # GridConfig.paired_columns_max: a lattice with its columns on the left and right rims
    # of the pits of four board columns (seen on a render, synth_223_0014: half the board
    # read as 32 pits) is refitted from columns of twice its pitch, and ends on all 32 pits
    from vision.board import fit_from_lattice

    scene = draw_scene(START_COUNTS, default_corners((960, 540), 8, 0.1, 0.75), size=(960, 540), seed=21)
    gap = 8.0 / 76.0  # the drawn board's
    # columns at -0.25, 0.25 (pit column 0), 0.75, 1.25 (pit column 1), ... 3.25
    half = _true_lattice(scene) @ np.array([[0.5, 0, -0.25], [0, 1.0, 0], [0, 0, 1]])
    unchecked = fit_from_lattice(scene.image, half, gap, check_pairs=False)
    assert np.median(_pit_errors(scene, unchecked.hmat, unchecked.grid)) > 10.0
    fit = fit_from_lattice(scene.image, half, gap)
    assert fit.grid.score >= 1.0
    assert np.median(_pit_errors(scene, fit.hmat, fit.grid)) < 4.0
    # the board's own lattice is not taken for a half one
    right = fit_from_lattice(scene.image, _true_lattice(scene), gap)
    assert np.median(_pit_errors(scene, right.hmat, right.grid)) < 4.0
    assert right.grid.score >= 1.0


def test_a_fit_whose_comb_finds_no_lattice_stops_before_the_refit(monkeypatch: pytest.MonkeyPatch) -> None:
    # LocateConfig.first_comb_min: the locate stage's single fits give up after the comb
    # search when the comb lattice scores under it (on a bare table: no lattice at all)
    import vision.board as board_mod

    corners = default_corners((960, 540), 8, 0.1, 0.75)
    scene = draw_scene(START_COUNTS, corners, size=(960, 540), seed=21)
    aspect = DEFAULT.rectify.default_aspect
    refits: list[int] = []
    real = board_mod.fit_from_lattice
    monkeypatch.setattr(board_mod, "fit_from_lattice",
                        lambda *a, **k: (refits.append(1), real(*a, **k))[1])
    full = fit_top_face(scene.image, corners, aspect, restart=False, nominal=False, comb_min=1.6)
    assert full.grid.score >= 1.0 and refits == [1]  # a board's comb scores well above the bar
    stopped = fit_top_face(scene.image, corners, aspect, restart=False, nominal=False, comb_min=1e9)
    assert stopped.grid.score == 0.0 and refits == [1]  # no lattice refit was run
    assert np.array_equal(stopped.corners, np.asarray(corners, np.float64))


def test_a_fit_told_to_end_at_a_weak_comb_makes_no_nominal_start_nor_restarts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # LocateConfig.verify_comb_min: a finalist's quick fit (comb_ends) whose comb lattice
    # scores under comb_min ends there, scoring 0; without comb_ends the nominal start and
    # the restarts are still made after such a comb (and find this drawn board)
    import vision.board as board_mod

    corners = default_corners((960, 540), 8, 0.1, 0.75)
    scene = draw_scene(START_COUNTS, corners, size=(960, 540), seed=21)
    aspect = DEFAULT.rectify.default_aspect
    once: list[int] = []
    real_once = board_mod._fit_once
    monkeypatch.setattr(board_mod, "_fit_once", lambda *a, **k: (once.append(1), real_once(*a, **k))[1])
    ended = fit_top_face(scene.image, corners, aspect, comb_min=1e9, comb_ends=True)
    assert ended.comb_only and ended.grid.score == 0.0 and once == [1]
    once.clear()
    went_on = fit_top_face(scene.image, corners, aspect, comb_min=1e9)
    assert not went_on.comb_only and went_on.grid.score >= 1.0 and len(once) >= 2
    once.clear()
    full = fit_top_face(scene.image, corners, aspect, comb_min=1.6, comb_ends=True)  # (a board's comb: above)
    assert not full.comb_only and full.grid.score >= 1.0


def test_a_busy_floor_beside_the_board_does_not_sink_the_boards_score() -> None:
    # GridConfig.score_norm_margin (synth_577_0025: a pale board on a brick floor scored
    # 0.30, under a lattice one row off onto the bricks). Drawn: the same board on a
    # plain table and on bricks; the score is over the board's own mean gradient where
    # that is lower than the whole view's
    import cv2

    from vision.holes import START_COUNTS

    scene = draw_scene(START_COUNTS, default_corners((960, 540), 0, 0.0, 0.6), size=(960, 540), seed=12,
                       clutter=False, wood=(150, 170, 190))
    bricks = scene.image.copy()
    for y in range(0, 540, 22):
        cv2.line(bricks, (0, y), (960, y), (20, 20, 20), 4)
        for x in range(0 if (y // 22) % 2 == 0 else 30, 960, 60):
            cv2.line(bricks, (x, y), (x, y + 22), (20, 20, 20), 4)
    board = np.zeros((540, 960), np.uint8)
    cv2.fillConvexPoly(board, np.round(scene.corners).astype(np.int32), 255)
    on_bricks = np.where(board[..., None] > 0, scene.image, bricks)

    def score(image, margin):
        from dataclasses import replace

        cfg = replace(DEFAULT, grid=replace(DEFAULT.grid, score_norm_margin=margin))
        return fit_board(image, scene.corners, 2.345, cfg)[2].score

    plain = score(scene.image, 0.6)
    assert plain == pytest.approx(score(scene.image, None))  # a plain table: as before
    assert score(on_bricks, 0.6) > 0.5 * plain
    assert score(on_bricks, None) < 0.3 * plain  # the whole view's mean: the bricks'


def test_lattice_from_points_finds_the_middle_gap_of_pit_centres_seen_in_perspective() -> None:
    # vision.board.lattice_from_points: 32 pit centres made by a known lattice homography
    # with a middle gap of 0.3 rows give back that gap and homography
    import cv2

    from vision.board import _lattice_points, lattice_from_points

    h = np.array([[60.0, 8.0, 200.0], [-5.0, 55.0, 120.0], [0.0004, 0.0009, 1.0]])
    pts = cv2.perspectiveTransform(_lattice_points(0.3).reshape(-1, 1, 2), h).reshape(-1, 2)
    got, gap = lattice_from_points(pts)
    assert abs(gap - 0.3) < 1e-6
    back = cv2.perspectiveTransform(_lattice_points(gap).reshape(-1, 1, 2), got).reshape(-1, 2)
    assert np.abs(back - pts).max() < 1e-3
    with pytest.raises(ValueError, match="no lattice"):
        lattice_from_points(np.zeros((32, 2)))


@pytest.mark.parametrize("true_gap", [0.87, 1.05])
def test_lattice_from_points_finds_a_middle_gap_near_a_whole_row(true_gap: float) -> None:
    # GridConfig.gap_steps: a board whose halves lie most of a row pitch apart (seed 557)
    # gets its own gap, not the widest of the usual ones (0.6) with the rows bent to fit
    import cv2

    from vision.board import _lattice_points, lattice_from_points

    h = np.array([[60.0, 8.0, 200.0], [-5.0, 55.0, 120.0], [0.0004, 0.0009, 1.0]])
    pts = cv2.perspectiveTransform(_lattice_points(true_gap).reshape(-1, 1, 2), h).reshape(-1, 2)
    _got, gap = lattice_from_points(pts)
    assert abs(gap - true_gap) <= 0.015 + 1e-9  # (the steps are 0.03 apart)




def test_the_outline_past_the_rims_step_goes_with_the_fit_and_is_what_locate_reports() -> None:
    # GridConfig.edge_rim_peak_reach: the search goes on from a fit's corners as tuned, and
    # the board it settles on is reported with its outline (TopFace.outline), which a half
    # turn keeps on the same corners
    from dataclasses import replace

    from vision.board import TopFace
    from vision.locate import BoardQuad, _outlined

    scene = draw_scene(START_COUNTS, default_corners((960, 540), 10, 0.1, 0.75), size=(960, 540), seed=13)
    fit = fit_top_face(scene.image, scene.corners, 2.345)
    other = fit.corners + np.array([[-9.0, 0], [9.0, 0], [9.0, 0], [-9.0, 0]])
    outlined = replace(fit, outline=(other, fit.aspect * 1.05))
    shown = outlined.outlined()
    assert isinstance(shown, TopFace) and np.array_equal(shown.corners, other)
    assert shown.aspect == pytest.approx(fit.aspect * 1.05) and shown.outline is None
    assert shown.hmat is fit.hmat and shown.grid is fit.grid  # the same pits
    turned = outlined.turned()
    assert turned.outline is not None and np.allclose(turned.outline[0], np.roll(other, 2, axis=0))
    assert fit.outlined() is fit  # no outline of its own: itself
    quad = _outlined(BoardQuad(fit.corners, fit.grid.score, fit.aspect, "pit_scan", outlined))
    assert np.array_equal(quad.corners, other) and quad.fit.outline is None
    # a quad the search took from other corners than its fit's keeps them
    moved = BoardQuad(fit.corners + 3.0, fit.grid.score, fit.aspect, "pit_scan", outlined)
    assert _outlined(moved) is moved


def test_refits_on_threads_are_the_fits_made_in_turn() -> None:
    # GridConfig.refit_threads (vision.board._fitted): the respaced rows' and a doubled
    # lattice's fits made on two threads come back in order, the same as made in turn; a
    # call that makes fits of its own from inside a thread makes them in turn (no wait on
    # the busy pool); one OpenCV thread means one fitting thread
    import threading
    from dataclasses import replace

    import cv2

    from vision.board import _doubled, _fitted

    gc = DEFAULT.grid
    threads_before = cv2.getNumThreads()
    try:
        cv2.setNumThreads(2)
        names: list[str] = []

        def call(k: int):
            def made() -> int:
                names.append(threading.current_thread().name)
                inner = _fitted([lambda j=j: 10 * k + j for j in range(3)], gc)
                return (k, inner)
            return made

        got = _fitted([call(k) for k in range(6)], gc)
        assert got == [(k, [10 * k, 10 * k + 1, 10 * k + 2]) for k in range(6)]
        assert all(n.startswith("bao-helper") for n in names)
        names.clear()
        assert _fitted([call(k) for k in range(2)], replace(gc, refit_threads=1))[1] == (1, [10, 11, 12])
        assert names == [threading.current_thread().name] * 2
        # a board's lattice of half the row pitch, refitted from twice the pitch: the same fit
        scene = draw_scene(START_COUNTS, default_corners((960, 540), 0, 0.0, 0.6), size=(960, 540), seed=3)
        half = _true_lattice(scene) @ np.array([[1.0, 0, 0], [0, 0.5, 0], [0, 0, 1]])
        one = replace(DEFAULT, grid=replace(gc, refit_threads=1))
        on_two, in_turn = _doubled(scene.image, half, 0.0, DEFAULT, True), _doubled(scene.image, half, 0.0, one, True)
        # (the score to float rounding: OpenCV's own two threads may sum a view's gradients in
        # another order, 5e-7 apart in one run of three on this machine)
        assert on_two.grid.score == pytest.approx(in_turn.grid.score, rel=1e-6)
        assert in_turn.grid.score > 1.0
        assert np.allclose(on_two.corners, in_turn.corners, rtol=0.0, atol=1e-6)
        cv2.setNumThreads(1)
        names.clear()
        _fitted([call(k) for k in range(2)], gc)
        assert names == [threading.current_thread().name] * 2
    finally:
        cv2.setNumThreads(threads_before)


def test_a_process_forked_after_refits_on_threads_makes_its_own() -> None:
    # vision.board._fitted in a child forked after the parent used the pool (a benchmark's
    # worker processes): the child's copy of the pool has no threads, so it makes its own
    import multiprocessing

    import cv2

    from vision.board import _fitted

    threads_before = cv2.getNumThreads()
    try:
        cv2.setNumThreads(2)
        assert _fitted([lambda: 1, lambda: 2], DEFAULT.grid) == [1, 2]  # the parent's pool made
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(1) as pool:
            got = pool.apply_async(_forked_fits).get(timeout=60)
        assert got == [0, 1, 2]
    finally:
        cv2.setNumThreads(threads_before)


def _forked_fits() -> list[int]:
    import cv2

    from vision.board import _fitted

    cv2.setNumThreads(2)
    return _fitted([lambda k=k: k for k in range(3)], DEFAULT.grid)


def _view_lattice(gap: float = 0.3) -> np.ndarray:
    """(4, 8, 2) pit centres of a lattice view: 40 px pitch, 1.6 pitches of border, slightly
    in perspective (what ``vision.board.rim_centres`` gets in the fit's lattice view)."""
    import cv2

    from vision.board import _lattice_points

    h = np.array([[40.0, 0.5, 64.0], [0.3, 39.0, 64.0], [0.0002, 0.0001, 1.0]])
    return cv2.perspectiveTransform(_lattice_points(gap).reshape(-1, 1, 2), h).reshape(4, 8, 2)


def test_pit_centres_wandering_a_little_are_taken_to_the_lattice_through_them() -> None:
    # GridConfig.crop_lattice_snap 0.03: a pit's rim centre wanders by 1-2 % of the pitch with
    # its seeds and light; the lattice through all 32 is where the pits are
    from vision.board import snapped_to_lattice

    true = _view_lattice()
    rng = np.random.default_rng(5)
    noise = rng.normal(0.0, 0.5, true.shape)  # 0.5 px sd: ~1.2 % of the 40 px pitch
    got = snapped_to_lattice(true + noise, DEFAULT.grid)
    before = np.linalg.norm(noise, axis=-1)
    after = np.linalg.norm(got - true, axis=-1)
    # (what is left is the lattice's own error, fitted on 32 noisy points: about a third)
    assert after.max() < 0.55 * before.max()
    assert np.median(after) < 0.5 * np.median(before)


def test_a_pit_truly_off_the_grid_keeps_its_offset_beyond_the_snap() -> None:
    # a hand-carved board's pit 0.2 pitch (8 px) off its row: the centre keeps all but
    # crop_lattice_snap (0.03 x 40 = 1.2 px) of that offset, and the lattice is fitted
    # again without it (crop_snap_outlier), so the other 31 stay where they are
    from vision.board import snapped_to_lattice

    true = _view_lattice(gap=0.0)
    moved = true.copy()
    moved[1, 4] += (0.0, 8.0)
    got = snapped_to_lattice(moved, DEFAULT.grid)
    assert got[1, 4] == pytest.approx(true[1, 4] + (0.0, 8.0 - 1.2), abs=0.05)
    others = np.ones((4, 8), bool)
    others[1, 4] = False
    assert np.abs(got[others] - true[others]).max() < 0.05


def test_the_lattice_snap_off_leaves_the_centres_as_found() -> None:
    import dataclasses

    from vision.board import snapped_to_lattice

    rng = np.random.default_rng(6)
    centres = _view_lattice() + rng.normal(0.0, 0.5, (4, 8, 2))
    off = dataclasses.replace(DEFAULT.grid, crop_lattice_snap=None)
    assert np.array_equal(snapped_to_lattice(centres, off), centres)


def test_batched_homographies_give_each_lattice_its_own_homography() -> None:
    # vision.board.batched_homographies: three lattices (middle gaps 0, 0.3, 0.9) taken by
    # three known homographies to the same image points come back as those homographies
    import cv2

    from vision.board import _lattice_points, batched_homographies

    h_true = np.array([[60.0, 8.0, 200.0], [-5.0, 55.0, 120.0], [0.0004, 0.0009, 1.0]])
    dst = cv2.perspectiveTransform(_lattice_points(0.3).reshape(-1, 1, 2), h_true).reshape(-1, 2)
    srcs = np.stack([_lattice_points(g) for g in (0.0, 0.3, 0.9)])
    got = batched_homographies(srcs, dst)
    assert got.shape == (3, 3, 3)
    assert np.allclose(got[1] / got[1][2, 2], h_true, rtol=1e-6, atol=1e-9)
    for src, h in zip(srcs, got, strict=True):
        # the other two lattices are not the points' own: least squares in the normalised
        # equations leaves a mean reprojection error within 10 % of OpenCV's fit, which
        # refines that error itself
        def mean_err(hom: np.ndarray, src: np.ndarray = src) -> float:
            back = cv2.perspectiveTransform(src.reshape(-1, 1, 2), hom).reshape(-1, 2)
            return float(np.linalg.norm(back - dst, axis=1).mean())

        plain, _ = cv2.findHomography(src, dst, 0)
        assert mean_err(h) <= 1.1 * mean_err(plain) + 1e-4


def test_the_middle_gap_search_picks_the_step_an_exhaustive_opencv_search_picks() -> None:
    # vision.board._gap_fit fits all steps at once and only the best few by OpenCV: on
    # noisy pit centres of lattices seen in perspective (3-5 px: rims under seeds), with
    # some pits left out, it must pick the step that fitting every one of the 41 steps by
    # OpenCV picks (the batched fits' own best alone misses it on 11 of these 60)
    import cv2

    from vision.board import _gap_fit, _lattice_points
    from vision.config import DEFAULT

    steps = DEFAULT.grid.gap_steps
    rng = np.random.default_rng(65)
    for _ in range(60):
        gap = rng.uniform(0.0, 1.1)
        h = np.array([[rng.uniform(40, 70), rng.uniform(-10, 10), 200.0],
                      [rng.uniform(-10, 10), rng.uniform(40, 70), 120.0],
                      [rng.uniform(-8e-4, 8e-4), rng.uniform(-8e-4, 8e-4), 1.0]])
        keep = rng.random(32) > 0.3
        keep[[0, 8, 16, 24]] = True  # (every row: else any gap fits alike)
        pts = cv2.perspectiveTransform(_lattice_points(gap).reshape(-1, 1, 2), h).reshape(-1, 2)
        dst = pts[keep] + rng.normal(0.0, rng.uniform(3.0, 5.0), (int(keep.sum()), 2))

        def err(step: float, keep: np.ndarray = keep, dst: np.ndarray = dst) -> float:
            src = _lattice_points(step)[keep].reshape(-1, 1, 2)
            hg, _ = cv2.findHomography(src, dst, 0)
            return float(np.mean(np.linalg.norm(cv2.perspectiveTransform(src, hg).reshape(-1, 2) - dst, axis=1)))

        exhaustive = min(steps, key=lambda s: (err(s), s))
        fit = _gap_fit(dst, keep, steps)
        assert fit is not None and fit[1] == pytest.approx(exhaustive)
