"""Tests of the checks that a fitted lattice sits on the pits (vision/lattice_checks.py)."""

from __future__ import annotations

import numpy as np

from vision.config import DEFAULT


def test_a_pattern_going_on_beyond_one_side_strongly_and_another_faintly_is_no_board() -> None:
    """GridConfig.continues_also: a lattice refitted onto a brick floor beside a board
    (synth_431_0027) had the lines beyond it at 0.87, 0.16, 0.38 and 0.32 x its pits'
    evidence (columns -1 and 8, rows -1 and 4): one side going on clearly, two more
    faintly (a brick's joints lie half a brick along from one row to the next). On 311
    boards found in place the second-highest of the four was 0.18 at most."""
    import dataclasses

    from vision.lattice_checks import continues

    def table(col_before: float, col_after: float, row_before: float, row_after: float) -> np.ndarray:
        t = np.zeros((6, 10))
        t[1:5, 1:9] = 1.0
        t[1:5, 0], t[1:5, 9], t[0, 1:9], t[5, 1:9] = col_before, col_after, row_before, row_after
        return t

    bricks = table(0.87, 0.16, 0.38, 0.32)
    assert continues(bricks, DEFAULT.grid)
    before = dataclasses.replace(DEFAULT.grid, continues_also=0.0)
    assert not continues(bricks, before)  # (the rule before: two sides at 0.4 or more)
    # a board with reserve seeds along one end and a faint line along one side: a board
    assert not continues(table(0.44, 0.0, 0.18, 0.02), DEFAULT.grid)
    # two faint sides without a clear one: a board's margins with grain, not a pattern
    assert not continues(table(0.35, 0.0, 0.35, 0.0), DEFAULT.grid)
    # and the older rule still holds: two sides at 0.4 or more
    assert continues(table(0.45, 0.0, 0.41, 0.0), before)


def test_an_inner_row_void_of_pits_is_found_in_the_lattice_table() -> None:
    # vision.lattice_checks.inner_void_row: line_evidence's table is rows -1..4 x columns -1..8;
    # an inner lattice row (1 or 2) whose median is under inner_row_void (0.15) x the
    # lattice's median shows no pits
    from vision.lattice_checks import inner_void_row

    table = np.ones((6, 10))
    assert inner_void_row(table, DEFAULT.grid) is None
    table[3, 1:9] = 0.05  # lattice row 2
    assert inner_void_row(table, DEFAULT.grid) == 2
    table[3, 1:9] = 0.2  # weak, but not void (a row of heaps, say)
    assert inner_void_row(table, DEFAULT.grid) is None
    table[1, 1:9] = 0.0  # an outer row is not an inner one (the slip checks see to those)
    assert inner_void_row(table, DEFAULT.grid) is None
    table[1, 1:9] = 1.0
    table[2:4, 1:9] = 0.05  # both inner rows void: astride a pattern's rows, not one row off
    assert inner_void_row(table, DEFAULT.grid) is None


def _line_table(cols: list[float], rows: list[float] | None = None) -> np.ndarray:
    """A (6, 10) line-evidence table (rows -1..4, columns -1..8) whose column and row
    medians over the lattice are ``cols`` and ``rows`` (pits ~1.0)."""
    rows = rows or [0.05, 1.0, 1.0, 1.0, 1.0, 0.05]
    return np.minimum.outer(np.array(rows), np.array(cols))


def test_a_lattice_one_column_off_is_shifted_back() -> None:
    from vision.lattice_checks import slipped

    cfg = DEFAULT.grid
    board = [0.05] + [1.0] * 8 + [0.05]
    assert slipped(_line_table(board), cfg) == (0, 0)
    # the lattice's last column on the table, the pits' first column beyond its first
    off = [1.0] * 8 + [0.1, 0.05]
    assert slipped(_line_table(off), cfg) == (-1, 0)
    # the same on a woven mat whose dots lift the empty column to 0.22 (synth_109_0012
    # at full size: 1.01 beyond, 0.22 on the table)
    mat = [1.01, 0.89, 0.93, 1.08, 0.91, 0.91, 1.24, 1.24, 0.22, 0.05]
    assert slipped(_line_table(mat), cfg) == (-1, 0)
    # a hand over the last column: nothing beyond the first column either, no shift
    hand = [0.2] + [1.0] * 7 + [0.1, 0.05]
    assert slipped(_line_table(hand), cfg) == (0, 0)
    # a weak last column beside pit-like evidence beyond the first, but not three times
    # as strong: left as it is
    close = [0.8] + [1.0] * 7 + [0.3, 0.05]
    assert slipped(_line_table(close), cfg) == (0, 0)
    # ... yet at GridConfig.edge_doubt_ratio (2) it is a doubt: fit_from_lattice fits the
    # shifted lattice too and keeps the better (synth_317_0019: a row on the board's
    # front face at 0.3, the board's first row beyond the other side at 0.83)
    assert slipped(_line_table(close), cfg, ratio=cfg.edge_doubt_ratio) == (-1, 0)
    front = [0.05] + [1.0] * 8 + [0.05]
    assert slipped(_line_table(front, [0.83, 1.12, 1.3, 0.99, 0.3, -0.1]), cfg) == (0, 0)
    assert slipped(_line_table(front, [0.83, 1.12, 1.3, 0.99, 0.3, -0.1]), cfg, ratio=2.0) == (0, -1)
    # nothing beyond the other side: no doubt either
    assert slipped(_line_table(hand), cfg, ratio=cfg.edge_doubt_ratio) == (0, 0)


def test_void_columns_names_the_columns_without_two_pits() -> None:
    from vision.lattice_checks import void_columns

    table = np.ones((6, 10))
    table[[0, -1]] = 0.05
    table[:, [0, -1]] = 0.05
    assert void_columns(table, DEFAULT.grid).tolist() == []
    table[1:5, 6:8] = 0.01  # lattice columns 5 and 6 show nothing
    assert void_columns(table, DEFAULT.grid).tolist() == [5, 6]
    table[1, 6] = 1.0  # one pit of column 5 shows: still not two
    assert void_columns(table, DEFAULT.grid).tolist() == [5, 6]
    table[2, 6] = 1.0
    assert void_columns(table, DEFAULT.grid).tolist() == [6]


def _lattice_view(colour_over: dict[int, tuple[int, int, int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A lattice view (pitch 40 px) of grainy wood with dark pits; the columns named in
    ``colour_over`` painted over (cells and the wood beside them) in that colour.
    Returns (view, the 32 lattice points, the 21 points between four pits)."""
    import cv2

    rng = np.random.default_rng(3)
    p = 40.0
    xs, ys = 64 + p * np.arange(8), 64 + p * np.arange(4)
    view = np.empty((64 * 2 + 3 * 40, 64 * 2 + 7 * 40, 3), np.float32)
    view[:] = (60, 110, 160)
    view += rng.normal(0, 6, view.shape[:2])[..., None]
    for y in ys:
        for x in xs:
            cv2.circle(view, (int(x), int(y)), 12, (30, 55, 80), -1)
    for c, colour in colour_over.items():
        view[:, int(xs[c] - 0.5 * p):int(xs[c] + 0.5 * p)] = colour
    points = np.array([(x, y) for y in ys for x in xs], float)
    between = np.array([(x + p / 2, y + p / 2) for y in ys[:-1] for x in xs[:-1]], float)
    return np.clip(view, 0, 255).astype(np.uint8), points, between


def test_columns_under_a_sleeve_are_covered_and_wood_or_gaps_are_not() -> None:
    from vision.lattice_checks import covered_columns

    cfg, sleeve = DEFAULT.grid, (150, 60, 90)
    view, pts, between = _lattice_view({4: sleeve, 5: sleeve})
    assert covered_columns(view, pts, between, 40.0, np.array([4, 5]), cfg)
    # the same columns showing plain wood (a lattice of the wrong column pitch lies
    # between the pits there): not covered
    wood, pts, between = _lattice_view({4: (60, 110, 160), 5: (60, 110, 160)})
    assert not covered_columns(wood, pts, between, 40.0, np.array([4, 5]), cfg)
    # painted over, but not neighbours (the wrong pitch's pattern), or reaching the
    # lattice's outer column (one pitch off), or more than an arm covers
    view, pts, between = _lattice_view({2: sleeve, 5: sleeve})
    assert not covered_columns(view, pts, between, 40.0, np.array([2, 5]), cfg)
    view, pts, between = _lattice_view({6: sleeve, 7: sleeve})
    assert not covered_columns(view, pts, between, 40.0, np.array([6, 7]), cfg)
    view, pts, between = _lattice_view({c: sleeve for c in (1, 2, 3, 4)})
    assert not covered_columns(view, pts, between, 40.0, np.array([1, 2, 3, 4]), cfg)


def test_an_end_column_under_a_sleeve_is_covered_but_a_margin_or_the_boards_end_is_not() -> None:
    # GridConfig.covered_ends: an outer line void of pits is taken for an arm over the
    # board's end (vision.lattice_checks.end_covered) when it looks unlike the surface and no
    # straight edge runs down it; a lattice one pitch off the board's end, the real end
    # column hidden by a hand beyond its other end, has its void column on the margin
    # and the table, with the board's end edge across it (synth_379_0002, synth_383_0037)
    import dataclasses

    from vision.lattice_checks import covered_columns, end_covered, void_columns
    from vision.rims import gradients

    cfg, sleeve, wood = DEFAULT.grid, (150, 60, 90), (60, 110, 160)
    table = np.ones((6, 10))
    table[0], table[-1], table[:, 0], table[:, -1] = 0.05, 0.05, 0.05, 0.05
    table[1:5, 1] = 0.0  # column 0 shows no pits
    void = void_columns(table, cfg)
    assert void.tolist() == [0]

    def covered(view: np.ndarray, pts: np.ndarray, between: np.ndarray, c=cfg, t=table, v=void) -> bool:  # noqa: ANN001
        gx, _ = gradients(view, c.gradient_log_offset)
        return end_covered(t, v, view, gx, pts, between, c)

    # a hand over the end column, its edge across the columns at a slant (an edge
    # running straight down the column is taken for the board's end: a limit of the test)
    import cv2

    view, pts, between = _lattice_view({})
    cv2.fillConvexPoly(view, np.array([[0, 0], [94, 0], [78, 247], [0, 247]], np.int32), sleeve)
    assert covered(view, pts, between)
    assert not covered(view, pts, between, dataclasses.replace(cfg, covered_ends=False))
    # the column showing the board's own wood (a lattice line on the margin): not covered
    margin, pts, between = _lattice_view({0: wood})
    assert not covered(margin, pts, between)
    # the board's end across the void column: the table beyond a straight edge
    ended, pts, between = _lattice_view({})
    ended[:, :60] = (150, 150, 150)
    ended[:, 60:84] = wood
    assert not covered(ended, pts, between)
    assert covered(ended, pts, between, dataclasses.replace(cfg, covered_end_edge_max=np.inf))
    # the same end soft (blurred over a few px) beside a darker table of bricks, whose
    # joints lift the view's mean gradient: its strength is split between two px, each
    # under the bar of one px (synth_1061_0008); summed over two (covered_end_edge_px) it
    # is the board's end
    soft, pts, between = _lattice_view({})
    bricks = np.full((soft.shape[0], 60, 3), 110.0)
    for y in range(0, soft.shape[0], 12):
        bricks[y:y + 2, :58] = 10.0
        for x in range(2 + (y // 12 % 2) * 12, 56, 24):
            bricks[y:y + 12, x:x + 2] = 10.0
    soft[:, :60] = bricks.astype(np.uint8)
    soft = cv2.GaussianBlur(soft, (0, 0), 2.0)
    assert not covered(soft, pts, between)
    assert covered(soft, pts, between, dataclasses.replace(cfg, covered_end_edge_px=1, covered_end_edge_max=4.0))
    # a lattice two pitches off the board's end (synth_787_0016: the real end columns
    # under a hand beyond its other end): both void columns on the table, the board's end
    # edge between the second void column and the first with pits. The end column alone
    # shows no edge; the whole void run does (GridConfig.covered_end_edge_run)
    table2 = table.copy()
    table2[1:5, 2] = 0.0
    void2 = void_columns(table2, cfg)
    assert void2.tolist() == [0, 1]
    two_off, pts, between = _lattice_view({})
    two_off[:, :118] = (150, 150, 150)
    two_off[:, 118:128] = wood
    assert not covered(two_off, pts, between, t=table2, v=void2)
    assert covered(two_off, pts, between, dataclasses.replace(cfg, covered_end_edge_run=False), t=table2, v=void2)
    # a void row too: not an arm along the end column
    table[1, 1:9] = 0.0
    assert not covered(view, pts, between)
    # covered_columns takes in an end column only with ``ends``, and never both ends
    view, pts, between = _lattice_view({6: sleeve, 7: sleeve})
    assert covered_columns(view, pts, between, 40.0, np.array([6, 7]), cfg, ends=True)
    assert not covered_columns(view, pts, between, 40.0, np.array([6, 7]), cfg)
    view, pts, between = _lattice_view({c: sleeve for c in range(8)})
    assert not covered_columns(view, pts, between, 40.0, np.arange(8), cfg, ends=True)


def _board_lattice(grain: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A lattice view of the default settings showing only a mid-brown board (``grain``:
    the sd of a noise laid over it). Returns (view, the 32 lattice points, the 21 points
    between four pits, the lattice points as (4, 8, 2))."""
    from vision.board import _lattice_points

    gc = DEFAULT.grid
    p, b = gc.lattice_pitch_px, gc.lattice_border
    nominal = _lattice_points(0.0) * p + b * p
    mids = nominal.reshape(4, 8, 2)
    between = (0.25 * (mids[:-1, :-1] + mids[1:, :-1] + mids[:-1, 1:] + mids[1:, 1:])).reshape(-1, 2)
    size = (int((7 + 2 * b) * p), int((3 + 2 * b) * p))
    wood = np.full((size[1], size[0], 3), (60, 110, 160), np.float32)  # BGR: a mid-brown board
    if grain:
        wood += np.random.default_rng(5).normal(0, grain, wood.shape[:2])[..., None]
    return np.clip(wood, 0, 255).astype(np.uint8), nominal, between, mids


def test_an_outer_row_is_taken_as_under_an_arm_only_in_part_and_unlike_the_wood() -> None:
    # vision.lattice_checks.row_covered: a player's arm over a run of one outer row's pits, while
    # the others show, against a lattice one pitch off (its whole outer row on the margin)
    import cv2

    from vision.lattice_checks import row_covered

    gc = DEFAULT.grid
    wood, nominal, between, mids = _board_lattice()
    arm = wood.copy()
    for c in range(3, 8):  # skin-coloured cells over B4..B8 (row 3, columns 3-7)
        x, y = (int(v) for v in mids[3, c])
        cv2.rectangle(arm, (x - 20, y - 20), (x + 20, y + 20), (120, 170, 235), -1)
    table = np.ones((6, 10))
    table[0, :] = table[5, :] = table[:, 0] = table[:, 9] = 0.0  # nothing beyond the lattice
    table[4, 4:9] = 0.0  # row B: pits 1-3 show, 4-8 void
    assert row_covered(table, arm, nominal, between, gc)
    assert not row_covered(table, wood, nominal, between, gc)  # void cells that look like the wood
    whole = table.copy()
    whole[4, 1:9] = 0.0  # the whole row void: a lattice one pitch off
    assert not row_covered(whole, arm, nominal, between, gc)
    apart = table.copy()
    apart[4, 1:9] = [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0]  # two void runs: no single arm
    assert not row_covered(apart, arm, nominal, between, gc)
    from dataclasses import replace

    assert not row_covered(table, arm, nominal, between, replace(gc, covered_rows=False))


def test_an_inner_row_of_bare_wood_is_bare_and_one_of_heaps_is_not() -> None:
    # vision.lattice_checks.bare_row (GridConfig.halves_apart_bare_unlike): a lattice row on
    # the wood between a board's halves looks like the surface between the pits; a row of
    # seeds heaped over its pits does not
    import cv2

    from vision.lattice_checks import bare_row

    gc = DEFAULT.grid
    view, nominal, between, mids = _board_lattice(grain=6.0)
    for r in (0, 1, 3):  # dark pits on rows 0, 1 and 3; row 2 is bare wood
        for c in range(8):
            x, y = (int(v) for v in mids[r, c])
            cv2.circle(view, (x, y), 12, (30, 55, 80), -1)
    assert bare_row(view, nominal, between, 2, gc)
    assert not bare_row(view, nominal, between, 1, gc)  # a row of pits
    heaps = view.copy()
    for c in range(8):  # grey nuts heaped over row 2's pits
        x, y = (int(v) for v in mids[2, c])
        for dx, dy in ((-6, -5), (6, -4), (0, 6), (-7, 5), (7, 6)):
            cv2.circle(heaps, (x + dx, y + dy), 6, (150, 150, 145), -1)
    assert not bare_row(heaps, nominal, between, 2, gc)
    from dataclasses import replace

    assert not bare_row(view, nominal, between, 2, replace(gc, halves_apart_bare_unlike=None))


def test_an_outer_line_with_no_pits_at_all_is_a_shift_to_try() -> None:
    # vision.lattice_checks.void_side (GridConfig.edge_void_doubt 0.1): synth_1049_0013's
    # lattice, its last column on bare wood (0.0) and the board's first column under a
    # hand (0.04): slipped sees nothing beyond, void_side offers the shift away from the
    # bare column (fit_from_lattice keeps it only if it scores higher)
    from vision.lattice_checks import slipped, void_side

    cfg = DEFAULT.grid
    level = cfg.edge_void_doubt
    bare = [0.04, 0.79, 1.06, 1.06, 0.76, 1.08, 1.11, 1.24, 0.0, 0.01]
    rows = [0.0, 1.0, 0.85, 0.77, 1.16, 0.0]
    assert slipped(_line_table(bare, rows), cfg, ratio=cfg.edge_doubt_ratio) == (0, 0)
    assert void_side(_line_table(bare, rows), level) == (-1, 0)
    assert void_side(_line_table(bare[::-1], rows), level) == (1, 0)  # the first column bare
    assert void_side(_line_table(bare, rows[::-1]), level) == (-1, 0)  # the rows as they are
    # a lattice on the pits: every outer line shows its rims
    assert void_side(_line_table([0.05] + [1.0] * 8 + [0.05]), level) == (0, 0)
    # both outer columns bare (a lattice wider than the board's pits, or none): no side to pick
    assert void_side(_line_table([0.0, 0.0] + [1.0] * 6 + [0.0, 0.0]), level) == (0, 0)
    # a weak outer column (heaps, a faint rim) is no void one
    assert void_side(_line_table([0.05, 0.3] + [1.0] * 7 + [0.05]), level) == (0, 0)
    # and a bare outer row
    assert void_side(_line_table([0.05] + [1.0] * 8 + [0.05], [0.0, 0.05, 1.0, 1.0, 1.0, 0.0]), level) == (0, 1)
