"""Which pits count as hidden (vision.grid.occluded_cells), from the grid fit's per-pit
rim measures."""

from __future__ import annotations

import numpy as np

from vision.config import DEFAULT
from vision.grid import PitGrid, occluded_cells


def grid(rim: np.ndarray, evidence: np.ndarray | None) -> PitGrid:
    return PitGrid(np.zeros((4, 8, 2)), (40.0, 40.0), rim, 2.0, (14.0, 14.0), 1.0, 32,
                   evidence=evidence)


def test_hidden_by_coherence_or_by_faint_evidence() -> None:
    gc = DEFAULT.grid  # coherence < 0.7, or evidence < 0.1 with coherence < 0.85
    rim = np.ones((4, 8))
    ev = np.ones((4, 8))
    rim[0, 0] = 0.5                  # rim's gradients turned: hidden, not faint
    rim[0, 1], ev[0, 1] = 0.8, 0.05  # little rim left, coherence middling: hidden, faint
    rim[0, 2], ev[0, 2] = 0.95, 0.0  # no evidence but a coherent rim: visible
    rim[0, 3], ev[0, 3] = 0.8, 0.3   # evidence enough: visible
    hidden, faint = occluded_cells(grid(rim, ev), gc)
    assert hidden[0, :4].tolist() == [True, True, False, False]
    assert faint[0, :4].tolist() == [False, True, False, False]
    assert hidden.sum() == 2 and faint.sum() == 1


def test_without_evidence_only_coherence_counts() -> None:
    rim = np.ones((4, 8))
    rim[2, 5], rim[1, 1] = 0.6, 0.8
    hidden, faint = occluded_cells(grid(rim, None))
    assert np.argwhere(hidden).tolist() == [[2, 5]]
    assert not faint.any()


def test_grid_cells_in_row_major_order_are_the_holes_in_order() -> None:
    # recognize hands occluded_cells(...).ravel() to the decode as HOLES-ordered arrays
    from vision.holes import HOLE_CELL, HOLES

    assert [HOLE_CELL[n] for n in HOLES] == [(r, c) for r in range(4) for c in range(8)]


def test_the_nyumba_are_hidden_only_when_their_rim_is_turned() -> None:
    # GridConfig.occluded_evidence_nyumba (off): a square nyumba's rim is no circle, so its
    # rim evidence is weak with nothing over it; synth_467_0003's two empty nyumba (coherence
    # 0.82 / 0.79, evidence -0.08 / -0.14) were read as a hand over the board's middle
    from dataclasses import replace

    from vision.decode import decode
    from vision.holes import HOLE_CELL, HOLES

    rim, ev = np.ones((4, 8)), np.ones((4, 8))
    (ra, ca), (rb, cb) = HOLE_CELL["a5"], HOLE_CELL["A5"]
    rim[ra, ca], ev[ra, ca] = 0.79, -0.14
    rim[rb, cb], ev[rb, cb] = 0.82, -0.08
    rim[0, 0], ev[0, 0] = 0.8, 0.05  # a round pit so: still faint
    hidden, faint = occluded_cells(grid(rim, ev))
    assert np.argwhere(hidden).tolist() == [[0, 0]] and faint[0, 0]
    empty = np.zeros((32, 41))
    empty[:, 0] = 1.0
    assert "hand_over_board" not in decode(empty, hidden.ravel(), faint=faint.ravel()).status
    # with the test on for them (as before), the two read as neighbouring hidden pits: a hand
    on = replace(DEFAULT.grid, occluded_evidence_nyumba=True)
    hidden, faint = occluded_cells(grid(rim, ev), on)
    assert hidden[ra, ca] and hidden[rb, cb]
    assert "hand_over_board" in decode(empty, hidden.ravel(), faint=faint.ravel()).status
    # a nyumba whose rim a hand turns is hidden either way
    rim[ra, ca] = 0.55
    assert occluded_cells(grid(rim, ev))[0][ra, ca]
    assert [HOLES[i] for i in np.flatnonzero(occluded_cells(grid(rim, ev))[0].ravel())] == ["b8", "a5"]


def test_crossed_pits_are_those_beside_a_broken_edge_on_their_side() -> None:
    from vision.grid import crossed_pits

    breaks = np.ones((2, 8))
    breaks[1, 3] = 0.1      # the bottom edge broken at column 3
    breaks[0, 0] = np.nan   # the top edge off the image at column 0: not broken
    got = crossed_pits(breaks, 0.4, reach=1)
    assert got.shape == (4, 8)
    assert not got[:2].any()                                  # the top rows: their edge shows
    assert np.flatnonzero(got[2]).tolist() == [2, 3, 4]       # columns 3 +- 1, both bottom rows
    assert np.array_equal(got[2], got[3])
    assert np.flatnonzero(crossed_pits(breaks, 0.4, reach=0)[3]).tolist() == [3]
    assert not crossed_pits(breaks, 0.05).any()               # under the bar only


def test_edge_breaks_finds_a_strip_lying_across_the_bottom_edge() -> None:
    # a pale board on a dark table, seen straight on (the view is the image): a skin-
    # coloured strip crosses the bottom edge at column 5, as an arm reaching in does
    import cv2

    from vision.grid import edge_breaks

    img = np.full((300, 560, 3), 40, np.uint8)
    x0, y0, x1, y1 = 40, 50, 520, 250  # the playing surface
    img[y0:y1, x0:x1] = (150, 190, 220)
    pitch = (x1 - x0) / 8
    cx = x0 + pitch * (np.arange(8) + 0.5)
    cy = np.array([85.0, 130.0, 170.0, 215.0])
    centres = np.stack(np.meshgrid(cx, cy), axis=-1)
    for x, y in centres.reshape(-1, 2):
        cv2.circle(img, (int(x), int(y)), 16, (90, 120, 150), -1)
    arm = int(cx[5])
    img[200:300, arm - 22:arm + 22] = (120, 150, 200)
    g = PitGrid(centres, (pitch, 42.5), np.ones((4, 8)), 2.0, (16.0, 16.0), 1.0, 32)
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
    out = edge_breaks(img, corners, np.eye(3), g)
    assert out.shape == (2, 8)
    assert np.allclose(out[0], 1.0, atol=0.05)                  # the top edge shows all along
    assert out[1, 5] < 0.2                                      # the strip lies across it
    assert np.all(np.delete(out[1], [4, 5, 6]) > 0.9)           # elsewhere it shows
    # the board running off the image at the bottom: that edge is not read
    cut = edge_breaks(img[:240], corners, np.eye(3), g)
    assert np.isnan(cut[1]).all() and np.allclose(cut[0], 1.0, atol=0.05)
