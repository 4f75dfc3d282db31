"""Tests of the locate stage's search (vision/locate.py): which fits it tries, in what order, and when it stops."""

from __future__ import annotations

import numpy as np
import pytest
from drawn import default_corners, draw_scene

from vision.config import DEFAULT
from vision.holes import START_COUNTS


def test_a_board_the_colour_of_the_table_is_found_from_its_pits() -> None:
    from vision.locate import locate_board

    wood = (60, 110, 160)
    scene = draw_scene(START_COUNTS, default_corners((960, 540), 20, 0.1, 0.7), size=(960, 540), seed=9,
                       table=wood, wood=wood, clutter=False)
    quad = locate_board(scene.image)
    err = min(float(np.linalg.norm(np.roll(quad.corners, r, axis=0) - scene.corners, axis=1).mean()) for r in (0, 2))
    assert err < 15.0


def test_locate_gives_the_same_board_with_and_without_the_helper_thread() -> None:
    # the board the colour of the table takes the slow path (outline ranking, pit scan),
    # which LocateConfig.background starts early on a second thread
    import dataclasses

    from vision.locate import locate_board

    wood = (60, 110, 160)
    scene = draw_scene(START_COUNTS, default_corners((960, 540), 20, 0.1, 0.7), size=(960, 540), seed=9,
                       table=wood, wood=wood, clutter=False)
    results = []
    for background in (False, True):
        cfg = dataclasses.replace(DEFAULT, locate=dataclasses.replace(DEFAULT.locate, background=background))
        results.append(locate_board(scene.image, cfg))
    assert results[0].method == results[1].method
    assert np.array_equal(results[0].corners, results[1].corners)


def test_deferred_work_runs_once_and_only_when_asked_without_the_helper_thread() -> None:
    from vision.locate import _Later

    calls = []

    def work(x: int) -> int:
        calls.append(x)
        return 2 * x

    lazy = _Later(False, work, 3)
    assert calls == []
    assert lazy.result() == 6 and lazy.result() == 6
    assert calls == [3]
    eager = _Later(True, work, 5)
    assert eager.result() == 10
    assert calls == [3, 5]


def test_a_lattice_with_pits_outside_the_image_is_no_board() -> None:
    # a bare brick pavement once gave a "board" whose fourth row of pits lay below the
    # image: pits that cannot be seen cannot be read
    import cv2

    from vision.errors import BoardNotFound
    from vision.locate import locate_board

    w, h = 960, 540
    wall = np.full((h, w, 3), 200, np.float32)
    for y in range(0, h, 28):
        cv2.line(wall, (0, y), (w, y), (70, 70, 75), 3)
        for x in range(0 if (y // 28) % 2 else 30, w, 60):
            cv2.line(wall, (x, y), (x, y + 28), (70, 70, 75), 3)
    wall = np.clip(wall + np.random.default_rng(1).normal(0, 3, (h, w, 1)), 0, 255).astype(np.uint8)
    with pytest.raises(BoardNotFound):
        locate_board(wall)


def test_the_next_outlines_are_fitted_when_no_finalist_nor_the_pits_fit() -> None:
    # LocateConfig.more_finalists: a pavement's outlines can push the board's out of the
    # finalists; when none of them fits and the pit scan found nothing, the next
    # outlines get the fit too, and only then (the pit scan is off here: it would find
    # this drawn board)
    import dataclasses

    from vision.errors import BoardNotFound
    from vision.locate import _verified

    cfg = dataclasses.replace(DEFAULT, locate=dataclasses.replace(DEFAULT.locate, pit_scan=False))

    corners = default_corners((960, 540), 0, 0.0, 0.5)
    scene = draw_scene(START_COUNTS, corners, size=(960, 540), seed=3, clutter=False)
    # finalists on the bare table in two corners of the image, far from the board
    left = np.array([[10, 10], [230, 10], [230, 100], [10, 100]], np.float64)
    right = left + (720, 430)
    finalists = [(1.0, left, "tiles"), (0.9, right, "tiles")]
    asked: list[int] = []

    def more() -> list:
        asked.append(1)
        return [(0.5, np.asarray(corners, np.float64), "colour")]

    with pytest.raises(BoardNotFound):
        _verified(scene.image, finalists, 1.0, cfg)
    found = _verified(scene.image, finalists, 1.0, cfg, more=more)
    assert asked == [1] and found.method == "colour"
    assert np.abs(found.corners - np.asarray(corners)).max() < 15
    # a finalist that fits clearly ends the search before the next outlines
    asked.clear()
    first = _verified(scene.image, [(1.0, np.asarray(corners, np.float64), "colour")] + finalists,
                      1.0, cfg, more=more)
    assert asked == [] and first.score >= cfg.locate.verify_enough


def test_the_next_outlines_also_replace_a_weak_fit_when_they_fit_better(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # LocateConfig.more_below: a weak best fit (0.3 <= score < 1.0) no longer ends the
    # search; the next outlines are fitted and one scoring higher (and at least
    # verify_other_min) replaces it; none higher leaves the weak fit
    import dataclasses
    from types import SimpleNamespace

    import vision.board
    from vision.locate import _verified

    scores = {"weak": 0.6, "better": 1.4, "worse": 0.5}

    def fake_fit(image, quad, aspect, cfg, **kw):  # noqa: ANN001, ANN003, ANN202
        name = next(n for n, q in quads.items() if np.array_equal(q, quad))
        return SimpleNamespace(grid=SimpleNamespace(score=scores[name]), corners=quad, aspect=3.0)

    monkeypatch.setattr(vision.board, "fit_top_face", fake_fit)
    box = np.array([[0, 0], [400, 0], [400, 150], [0, 150]], np.float64)
    quads = {"weak": box, "better": box + 10, "worse": box + 20}
    cfg = dataclasses.replace(DEFAULT, locate=dataclasses.replace(DEFAULT.locate, pit_scan=False))
    image = np.zeros((300, 500, 3), np.uint8)
    finalists = [(1.0, quads["weak"], "weak")]
    found = _verified(image, finalists, 1.0, cfg, more=lambda: [(0.5, quads["better"], "better")])
    assert found.method == "better" and found.score == pytest.approx(1.4)
    kept = _verified(image, finalists, 1.0, cfg, more=lambda: [(0.5, quads["worse"], "worse")])
    assert kept.method == "weak"
    off = dataclasses.replace(cfg, locate=dataclasses.replace(cfg.locate, more_below=0.0))
    assert _verified(image, finalists, 1.0, off,
                     more=lambda: [(0.5, quads["better"], "better")]).method == "weak"


def test_a_weak_fit_that_slid_off_the_best_ranked_outline_needs_what_the_others_need(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # LocateConfig.slid_fit_agree: the best-ranked outline's fit needs only
    # min_lattice_score while it lies on that outline; a weak fit (under verify_other_min)
    # whose playing surface slid more than slid_fit_agree x the outline's longest side off
    # it needs verify_other_min, as any other finalist's (seen: a lattice on floor tiles
    # beside its outline, 0.35, slid 0.50)
    import dataclasses
    from types import SimpleNamespace

    import vision.board
    from vision.errors import BoardNotFound
    from vision.locate import _verified

    box = np.array([[100, 100], [500, 100], [500, 250], [100, 250]], np.float64)  # longest side 400
    fitted = {"corners": box, "score": 0.4}

    def fake_fit(image, quad, aspect, cfg, **kw):  # noqa: ANN001, ANN003, ANN202
        return SimpleNamespace(grid=SimpleNamespace(score=fitted["score"]), corners=fitted["corners"], aspect=3.0)

    monkeypatch.setattr(vision.board, "fit_top_face", fake_fit)
    cfg = dataclasses.replace(DEFAULT, locate=dataclasses.replace(DEFAULT.locate, pit_scan=False))
    image = np.zeros((400, 700, 3), np.uint8)
    finalists = [(1.0, box, "kmeans")]
    assert cfg.locate.slid_fit_agree == pytest.approx(0.3)
    # on its outline, or slid by 0.25 x 400 px: taken at 0.4
    assert _verified(image, finalists, 1.0, cfg).score == pytest.approx(0.4)
    fitted["corners"] = box + (100, 0)
    assert _verified(image, finalists, 1.0, cfg).method == "kmeans"
    # slid by 0.35 x 400 px: not at 0.4, nor at 0.69; at 0.7 it is
    fitted["corners"] = box + (140, 0)
    with pytest.raises(BoardNotFound):
        _verified(image, finalists, 1.0, cfg)
    fitted["score"] = 0.69
    with pytest.raises(BoardNotFound):
        _verified(image, finalists, 1.0, cfg)
    fitted["score"] = 0.7
    assert _verified(image, finalists, 1.0, cfg).score == pytest.approx(0.7)
    # off: the slid fit is taken at 0.4 again
    fitted["score"] = 0.4
    off = dataclasses.replace(cfg, locate=dataclasses.replace(cfg.locate, slid_fit_agree=None))
    assert _verified(image, finalists, 1.0, off).score == pytest.approx(0.4)


def test_a_weak_pit_scan_lattice_is_fitted_again_as_a_top_face(monkeypatch: pytest.MonkeyPatch) -> None:
    # LocateConfig.pit_scan_refit: a scan lattice whose fit scores under
    # pit_scan_min_score is fitted again by fit_top_face from that fit's corners (the
    # first pit_scan_refit lattices only); the better fit counts
    import dataclasses
    from types import SimpleNamespace

    import vision.board
    import vision.pit_scan
    from vision.locate import _pit_scanned

    corners = np.array([[100, 100], [500, 100], [500, 250], [100, 250]], np.float64)
    refits: list = []

    def weak(image, hlat, gap, cfg, lap=None):  # noqa: ANN001, ANN202
        return SimpleNamespace(grid=SimpleNamespace(score=0.1), corners=corners, aspect=3.0)

    def strong(image, quad, aspect, cfg, **kw):  # noqa: ANN001, ANN003, ANN202
        refits.append(quad)  # (under pit_scan_early: the next weak lattice is refitted too)
        return SimpleNamespace(grid=SimpleNamespace(score=0.8), corners=quad, aspect=aspect)

    monkeypatch.setattr(vision.board, "fit_from_lattice", weak)
    monkeypatch.setattr(vision.board, "fit_top_face", strong)
    monkeypatch.setattr(vision.pit_scan, "pit_lattices", lambda *a, **k: [(30, np.eye(3)), (28, np.eye(3))])
    image = np.zeros((400, 640, 3), np.uint8)
    found = _pit_scanned(image, DEFAULT)
    assert found is not None and found.score == pytest.approx(0.8) and found.method == "pit_scan"
    assert len(refits) == DEFAULT.locate.pit_scan_refit == 2
    assert np.array_equal(refits[0], corners)
    refits.clear()
    off = dataclasses.replace(DEFAULT, locate=dataclasses.replace(DEFAULT.locate, pit_scan_refit=0))
    assert _pit_scanned(image, off) is None and refits == []


def test_a_weak_scan_lattice_is_not_refitted_once_an_earlier_one_fits_clearly(monkeypatch) -> None:  # noqa: ANN001
    # the refit costs 150-350 ms; a fit at pit_scan_early or better ends the search anyway
    from types import SimpleNamespace

    import vision.board
    import vision.pit_scan
    from vision.locate import _pit_scanned

    corners = np.array([[100, 100], [500, 100], [500, 250], [100, 250]], np.float64)
    scores = iter([])
    refits: list = []

    def first_fits(image, hlat, gap, cfg, lap=None):  # noqa: ANN001, ANN202
        return SimpleNamespace(grid=SimpleNamespace(score=next(scores)), corners=corners, aspect=3.0)

    def refit(image, quad, aspect, cfg, **kw):  # noqa: ANN001, ANN003, ANN202
        refits.append(quad)
        return SimpleNamespace(grid=SimpleNamespace(score=0.8), corners=quad, aspect=aspect)

    monkeypatch.setattr(vision.board, "fit_from_lattice", first_fits)
    monkeypatch.setattr(vision.board, "fit_top_face", refit)
    monkeypatch.setattr(vision.pit_scan, "pit_lattices", lambda *a, **k: [(30, np.eye(3)), (28, np.eye(3))])
    image = np.zeros((400, 640, 3), np.uint8)
    early = DEFAULT.locate.pit_scan_early
    scores = iter([early + 0.2, 0.1])  # a clear first lattice, a weak second one
    found = _pit_scanned(image, DEFAULT)
    assert found is not None and found.score == pytest.approx(early + 0.2)
    assert refits == []
    scores = iter([early - 0.2, 0.1])  # the first not clear: both are refitted (neither refit is better)
    found = _pit_scanned(image, DEFAULT)
    assert found is not None and found.score == pytest.approx(early - 0.2)
    assert len(refits) == 2


def test_a_fair_scan_fit_is_refitted_and_kept_only_when_the_refit_is_clear(monkeypatch) -> None:  # noqa: ANN001
    # LocateConfig.pit_scan_refit_below / pit_scan_refit_keep: a scan fit under 1.0 is
    # fitted again as an outline would be. A fit under pit_scan_min_score (0.5) takes
    # any better refit; a fair one (0.5-1.0) only a refit of 1.5 or more: a fit half a
    # pitch off (0.51) refitted onto the board scored 2.29 (synth_421_0017), a fit
    # beside a hand refitted a row too large 1.07 (synth_421_0030)
    import dataclasses
    from types import SimpleNamespace

    import vision.board
    import vision.pit_scan
    from vision.locate import _pit_scanned

    corners = np.array([[100, 100], [500, 100], [500, 250], [100, 250]], np.float64)
    moved = corners + 20.0
    first = [0.0]
    again = [0.0]

    def lattice_fit(image, hlat, gap, cfg, lap=None):  # noqa: ANN001, ANN202
        return SimpleNamespace(grid=SimpleNamespace(score=first[0]), corners=corners, aspect=2.5)

    def refit(image, quad, aspect, cfg, **kw):  # noqa: ANN001, ANN003, ANN202
        return SimpleNamespace(grid=SimpleNamespace(score=again[0]), corners=moved, aspect=aspect)

    monkeypatch.setattr(vision.board, "fit_from_lattice", lattice_fit)
    monkeypatch.setattr(vision.board, "fit_top_face", refit)
    monkeypatch.setattr(vision.pit_scan, "pit_lattices", lambda *a, **k: [(30, np.eye(3))])
    image = np.zeros((400, 640, 3), np.uint8)

    def scanned(a: float, b: float, cfg=DEFAULT):  # noqa: ANN001, ANN202
        first[0], again[0] = a, b
        return _pit_scanned(image, cfg)

    fixed = scanned(0.51, 2.29)
    assert fixed is not None and fixed.score == pytest.approx(2.29) and np.array_equal(fixed.corners, moved)
    kept = scanned(0.79, 1.07)
    assert kept is not None and kept.score == pytest.approx(0.79) and np.array_equal(kept.corners, corners)
    weak = scanned(0.3, 0.6)  # under pit_scan_min_score: any better refit, as before
    assert weak is not None and weak.score == pytest.approx(0.6)
    clear = scanned(1.1, 2.0)  # at 1.0 or more: not refitted
    assert clear is not None and clear.score == pytest.approx(1.1)
    old = dataclasses.replace(DEFAULT, locate=dataclasses.replace(DEFAULT.locate, pit_scan_refit_below=0.5))
    before = scanned(0.51, 2.29, old)  # the bar before the twenty-seventh session
    assert before is not None and before.score == pytest.approx(0.51)


def test_the_small_rims_are_scanned_before_the_first_scans_refits(monkeypatch) -> None:  # noqa: ANN001
    # LocateConfig.small_pits_before_refits: the first scan's lattices are fitted, the
    # small rims (locate._small_pits, ~60 ms) are scanned, and only then are the weak
    # fits refitted (150-350 ms each: 0.4-1.3 s spent so on five small boards of seed 433
    # that the small rims then found). The lattices and their first fits are made once.
    import dataclasses
    from types import SimpleNamespace

    import vision.board
    import vision.locate
    import vision.pit_scan
    from vision.locate import BoardQuad, locate_board

    corners = np.array([[100, 100], [500, 100], [500, 250], [100, 250]], np.float64)
    calls: list[str] = []
    small: list[BoardQuad | None] = [BoardQuad(corners + 3.0, 1.3, 2.5, "pit_scan_small_pits")]

    def lattices(*a, **k):  # noqa: ANN002, ANN003, ANN202
        calls.append("lattices")
        return [(30, np.eye(3)), (28, np.eye(3))]

    def first_fit(image, hlat, gap, cfg, lap=None):  # noqa: ANN001, ANN202
        calls.append("fit")
        return SimpleNamespace(grid=SimpleNamespace(score=0.3), corners=corners, aspect=2.5)

    def refit(image, quad, aspect, cfg, **kw):  # noqa: ANN001, ANN003, ANN202
        calls.append("refit")
        return SimpleNamespace(grid=SimpleNamespace(score=0.8), corners=quad, aspect=aspect)

    def small_pits(image, cfg):  # noqa: ANN001, ANN202
        calls.append("small")
        return small[0]

    monkeypatch.setattr(vision.pit_scan, "pit_lattices", lattices)
    monkeypatch.setattr(vision.board, "fit_from_lattice", first_fit)
    monkeypatch.setattr(vision.board, "fit_top_face", refit)
    monkeypatch.setattr(vision.locate, "_small_pits", small_pits)
    monkeypatch.setattr(vision.locate, "outline_candidates", lambda img, cfg: ([], img, 1.0))
    image = np.zeros((400, 640, 3), np.uint8)
    found = locate_board(image)
    assert found.method == "pit_scan_small_pits" and calls == ["lattices", "fit", "fit", "small"]
    # the small rims find nothing: the weak fits are refitted now, from the same
    # lattices and fits, and the better refit is what the search falls back on
    calls.clear()
    small[0] = None
    found = locate_board(image)
    assert calls == ["lattices", "fit", "fit", "small", "refit", "refit"]
    assert found.method == "pit_scan" and found.score == pytest.approx(0.8)
    # off: the refits first, as before the twenty-eighth session
    calls.clear()
    small[0] = BoardQuad(corners + 3.0, 1.3, 2.5, "pit_scan_small_pits")
    off = dataclasses.replace(DEFAULT, locate=dataclasses.replace(DEFAULT.locate, small_pits_before_refits=False))
    assert locate_board(image, off).method == "pit_scan_small_pits"
    assert calls == ["lattices", "fit", "refit", "fit", "refit", "small"]


def test_a_clear_scan_fit_ends_the_scan_before_the_later_lattices(monkeypatch) -> None:  # noqa: ANN001
    # LocateConfig.pit_scan_enough: each later lattice costs a fit (~30 ms)
    import dataclasses
    from types import SimpleNamespace

    import vision.board
    import vision.pit_scan
    from vision.locate import _pit_scanned

    corners = np.array([[100, 100], [500, 100], [500, 250], [100, 250]], np.float64)
    scores: list[float] = []
    fitted: list[float] = []

    def fits(image, hlat, gap, cfg, lap=None):  # noqa: ANN001, ANN202
        fitted.append(scores[len(fitted)])
        return SimpleNamespace(grid=SimpleNamespace(score=fitted[-1]), corners=corners, aspect=3.0)

    monkeypatch.setattr(vision.board, "fit_from_lattice", fits)
    monkeypatch.setattr(vision.pit_scan, "pit_lattices",
                        lambda *a, **k: [(30, np.eye(3)), (28, np.eye(3)), (26, np.eye(3))])
    image = np.zeros((400, 640, 3), np.uint8)
    enough = DEFAULT.locate.pit_scan_enough
    assert enough > DEFAULT.locate.pit_scan_early
    scores[:] = [enough + 0.1, enough + 1.0, 0.6]
    found = _pit_scanned(image, DEFAULT)
    assert found is not None and found.score == pytest.approx(enough + 0.1)
    assert len(fitted) == 1
    # a first fit under the bar: the later lattices are fitted and the best is kept
    fitted.clear()
    scores[:] = [enough - 0.1, enough + 1.0, 0.6]
    found = _pit_scanned(image, DEFAULT)
    assert found is not None and found.score == pytest.approx(enough + 1.0)
    assert len(fitted) == 2
    # with the bar off, every lattice is fitted
    fitted.clear()
    scores[:] = [enough + 0.1, enough + 1.0, 0.6]
    off = dataclasses.replace(DEFAULT, locate=dataclasses.replace(DEFAULT.locate, pit_scan_enough=0.0))
    found = _pit_scanned(image, off)
    assert found is not None and found.score == pytest.approx(enough + 1.0)
    assert len(fitted) == 3


def test_a_pit_scan_fit_stretched_like_no_board_seen_from_45_degrees_is_not_taken(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # LocateConfig.pit_scan_min_squash: a lattice run along the pits' diagonals (a board
    # seen from 45 degrees or higher squashes 0.6 or more)
    import dataclasses
    from types import SimpleNamespace

    import vision.board
    import vision.pit_scan
    from vision.locate import _pit_scanned

    a = 2.5
    square = np.array([[100, 100], [100 + 200 * a, 100], [100 + 200 * a, 300], [100, 300]], np.float64)
    sheared = square + np.stack([(square[:, 1] - 100) * a / 2, np.zeros(4)], 1)  # one pit per row
    fits = iter([sheared, square])
    monkeypatch.setattr(vision.board, "fit_from_lattice", lambda *a_, **k: SimpleNamespace(
        grid=SimpleNamespace(score=2.0), corners=next(fits), aspect=a))
    monkeypatch.setattr(vision.pit_scan, "pit_lattices", lambda *a_, **k: [(32, np.eye(3)), (30, np.eye(3))])
    found = _pit_scanned(np.zeros((600, 1000, 3), np.uint8), DEFAULT)
    assert found is not None and np.array_equal(found.corners, square)  # the sheared one passed over
    fits = iter([sheared, square])
    loose = dataclasses.replace(DEFAULT, locate=dataclasses.replace(DEFAULT.locate, pit_scan_min_squash=0.0))
    assert np.array_equal(_pit_scanned(np.zeros((600, 1000, 3), np.uint8), loose).corners, sheared)


def test_outline_agreement_is_the_worst_corner_over_the_longest_side() -> None:
    from vision.locate import outline_agreement

    quad = np.array([[100, 100], [500, 100], [500, 300], [100, 300]], np.float64)
    assert outline_agreement(quad, quad) == 0.0
    # any start corner and direction
    assert outline_agreement(quad[::-1], np.roll(quad, 1, axis=0)) == 0.0
    moved = quad.copy()
    moved[2] += (30, 40)  # one corner 50 px off, longest side 400 px
    assert outline_agreement(moved, quad) == pytest.approx(50 / 400)


def test_two_starts_that_agree_end_the_search_with_the_better_fit() -> None:
    # LocateConfig.agree_within: an outline's fit and a pit scan's fit on the same board
    # (every corner within 0.04 x the longest side) end the search, the higher-scoring
    # taken; apart, too weak, or switched off, they do not
    import dataclasses

    from vision.config import DEFAULT
    from vision.locate import BoardQuad, _agreeing

    image = np.zeros((600, 1000, 3), np.uint8)
    quad = np.array([[100, 100], [900, 100], [900, 450], [100, 450]], np.float64)
    found = BoardQuad(quad, 0.7, 2.3, "edges")
    near = BoardQuad(quad + (20, -10), 0.8, 2.3, "pit_scan")  # 22 px of 800: 0.028
    far = BoardQuad(quad + (40, 0), 0.9, 2.3, "pit_scan")  # 40 px: 0.05
    lc = DEFAULT.locate
    assert _agreeing(found, [None, near], image, lc) is near  # the better score
    assert _agreeing(BoardQuad(quad, 0.85, 2.3, "edges"), [near], image, lc).method == "edges"
    assert _agreeing(found, [far], image, lc) is None
    assert _agreeing(found, [BoardQuad(near.corners, 0.45, 2.3, "pit_scan")], image, lc) is None
    assert _agreeing(BoardQuad(quad, 0.45, 2.3, "edges"), [near], image, lc) is None
    assert _agreeing(found, [], image, lc) is None
    # a playing surface running off the image needs pit_scan_cut_min (1.0) from both
    off = BoardQuad(quad + (0, 200), 0.9, 2.3, "edges")
    assert _agreeing(off, [BoardQuad(off.corners, 0.95, 2.3, "pit_scan")], image, lc) is None
    assert _agreeing(found, [near], image, dataclasses.replace(lc, agree_within=None)) is None


def test_last_chance_takes_a_weaker_lattice_only_where_its_outline_ends() -> None:
    # LocateConfig.last_chance_*: when nothing else fits, a finalist other than the
    # best-ranked is taken below verify_other_min if its fitted playing surface ends at
    # its own outline's corners (seen: a board on bricks, 4th of the finalists, 0.53)
    import dataclasses

    from vision.errors import BoardNotFound
    from vision.locate import _verified

    def cfg_with(**kw):  # noqa: ANN003, ANN202
        return dataclasses.replace(DEFAULT, locate=dataclasses.replace(
            DEFAULT.locate, pit_scan=False, verify_other_min=99.0, **kw))

    corners = np.asarray(default_corners((960, 540), 0, 0.0, 0.5), np.float64)
    scene = draw_scene(START_COUNTS, corners, size=(960, 540), seed=3, clutter=False)
    left = np.array([[10, 10], [230, 10], [230, 100], [10, 100]], np.float64)
    found = _verified(scene.image, [(1.0, left, "tiles"), (0.9, corners, "colour")], 1.0, cfg_with())
    assert found.method == "colour"
    assert np.abs(found.corners - corners).max() < 15
    with pytest.raises(BoardNotFound):  # off
        _verified(scene.image, [(1.0, left, "tiles"), (0.9, corners, "colour")], 1.0,
                  cfg_with(last_chance_min=0.0))
    # an outline 1.25 x the board: its corners lie ~0.11 x its longest side from the
    # fitted surface's (the fit itself still finds the board)
    centre = corners.mean(axis=0)
    loose = centre + 1.25 * (corners - centre)
    with pytest.raises(BoardNotFound):
        _verified(scene.image, [(1.0, left, "tiles"), (0.9, loose, "colour")], 1.0,
                  cfg_with(last_chance_agree=0.1))
    wide = _verified(scene.image, [(1.0, left, "tiles"), (0.9, loose, "colour")], 1.0,
                     cfg_with(last_chance_agree=0.12))
    assert np.abs(wide.corners - corners).max() < 15


def test_the_first_fit_goes_to_the_best_ranked_of_the_strongest_outlines(monkeypatch: pytest.MonkeyPatch) -> None:
    # LocateConfig.first_ranked: the strongest few outlines are ranked by the quick lattice
    # search and the best of them is fitted first (a table's outline can be the strongest);
    # the pit scan, which otherwise runs before the outlines, is left for the last resort
    import dataclasses

    import vision.board as board_mod
    import vision.locate as locate_mod
    from vision.rectify import order_clockwise

    corners = default_corners((960, 540), 0, 0.0, 0.5)
    scene = draw_scene(START_COUNTS, corners, size=(960, 540), seed=3, clutter=False)
    table = np.array([[10, 10], [330, 10], [330, 130], [10, 130]], np.float64)
    outlines = [(100.0, table / 2, "tiles"), (50.0, np.asarray(corners, np.float64) / 2, "colour")]
    monkeypatch.setattr(locate_mod, "outline_candidates", lambda image, cfg: (outlines, image[::2, ::2], 0.5))
    fitted: list[np.ndarray] = []
    real = board_mod.fit_top_face
    monkeypatch.setattr(board_mod, "fit_top_face",
                        lambda image, q, *a, **k: (fitted.append(np.asarray(q)), real(image, q, *a, **k))[1])
    for first_ranked, first_fitted in ((2, corners), (0, table)):
        cfg = dataclasses.replace(DEFAULT, locate=dataclasses.replace(
            DEFAULT.locate, first_ranked=first_ranked, pit_scan_early=0.0))
        fitted.clear()
        quad = locate_mod.locate_board(scene.image, cfg)
        assert quad.method == "colour"
        first = order_clockwise(fitted[0])
        assert min(np.abs(np.roll(first, r, axis=0) - np.asarray(first_fitted)).max() for r in range(4)) < 1.0
        if first_ranked:
            assert len(fitted) == 1  # the board's fit was clearly good: the search ended
    assert len(fitted) > 1  # the strongest outline first: its fit failed, the search went on


def test_no_rim_lattice_runs_the_dark_disc_scan_before_the_outlines(monkeypatch: pytest.MonkeyPatch) -> None:
    # LocateConfig.blobs_early: the rims give no lattice (neither on the 480 px copy
    # nor, small_pit_scan_px, the small rims on the photo's own 640 px), so the
    # dark-disc scan (the last resort) is made at once; a clear fit from it ends the
    # search before any outline is made. A weaker one waits for the outlines, and is
    # not made twice.
    import dataclasses

    import vision.locate
    from vision.errors import BoardNotFound
    from vision.locate import BoardQuad, locate_board

    image = np.full((360, 640, 3), 128, np.uint8)
    corners = np.array([[100.0, 100.0], [500.0, 100.0], [500.0, 300.0], [100.0, 300.0]])
    calls: list[str] = []
    blob_score = [1.2]

    def scanned(img, cfg, blobs=False, memo=None, refit=True):  # noqa: ANN001, ANN202
        calls.append("blobs" if blobs else f"rims{cfg.locate.pit_scan_long_side_px}")
        return BoardQuad(corners, blob_score[0], 2.0, "pit_scan_blobs") if blobs else None

    def outlines(img, cfg):  # noqa: ANN001, ANN202
        calls.append("outlines")
        return [], img, 1.0  # no board-shaped outline

    monkeypatch.setattr(vision.locate, "_pit_scanned", scanned)
    monkeypatch.setattr(vision.locate, "outline_candidates", outlines)
    found = locate_board(image)
    # (the first scan's refits, small_pits_before_refits, after the small rims)
    assert found.method == "pit_scan_blobs" and calls == ["rims480", "rims640", "rims480", "blobs"]
    # a weak dark-disc fit: the outlines are looked at first, then it is taken as before
    calls.clear()
    blob_score[0] = 0.6
    assert locate_board(image).score == 0.6
    assert calls == ["rims480", "rims640", "rims480", "blobs", "outlines"]
    # off: the dark-disc scan only after the outlines
    calls.clear()
    late = dataclasses.replace(DEFAULT, locate=dataclasses.replace(DEFAULT.locate, blobs_early=0.0))
    blob_score[0] = 1.2
    assert locate_board(image, late).method == "pit_scan_blobs"
    assert calls == ["rims480", "rims640", "rims480", "outlines", "blobs"]
    # and with no fit from either, no board
    monkeypatch.setattr(vision.locate, "_pit_scanned", lambda img, cfg, blobs=False, memo=None, refit=True: None)
    with pytest.raises(BoardNotFound):
        locate_board(image)


@pytest.mark.parametrize("margin", [80.0, 140.0])
def test_board_ends_past_the_lattice_view_are_searched_on_a_wider_view(margin: float) -> None:
    # GridConfig.edge_unseen_ratio / edge_view_border (synth_557_0021, wide margins: its
    # ends 1.9 pitches past the outer pits' centres, the lattice view keeping 1.6; no step
    # in view beyond the rims, so a speck of noise was the end, 100 px off). Drawn: ends
    # (margin + half a pitch) 1.83 and 2.83 pitches past the outer pit centres
    from dataclasses import replace

    from drawn import Board

    from vision.locate import locate_board

    board = Board(pitch_x=60, pitch_y=58, margin_x=margin, margin_y=20, gap=0, radius=23)
    x0, y0 = (1100 - board.width) / 2, (640 - board.height) / 2
    corners = np.array([[x0 + 20, y0 + 10], [x0 + board.width - 20, y0 + 10],
                        [x0 + board.width, y0 + board.height], [x0, y0 + board.height]])
    scene = draw_scene({"A1": 2, "a3": 5}, corners, size=(1100, 640), seed=3, board=board)

    def error(cfg) -> float:
        found = np.asarray(locate_board(scene.image, cfg=cfg).corners, float)
        return min(float(np.linalg.norm(np.roll(c, k, 0) - corners, axis=1).mean())
                   for c in (found, found[::-1]) for k in range(4))

    assert error(DEFAULT) < 3.0
    # without the wider view the ends are taken at the outer pits' rims
    assert error(replace(DEFAULT, grid=replace(DEFAULT.grid, edge_unseen_ratio=None))) > 30.0
