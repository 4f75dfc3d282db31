"""Tests of the playing surface's edges beyond the outer pits (vision/surface.py)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.config import DEFAULT
from vision.grid import PitGrid


def _profile(steps: dict[int, float], n: int = 260) -> np.ndarray:
    """A gradient profile across the lattice view: a little noise-free floor and a
    three-pixel step of each height at each position."""
    prof = np.full(n, 0.01)
    for x, h in steps.items():
        prof[x - 1 : x + 2] = np.maximum(prof[x - 1 : x + 2], [0.5 * h, h, 0.5 * h])
    return prof


def test_opposite_margins_held_alike_take_the_top_face_edge_before_a_shadow() -> None:
    # GridConfig.surface_symmetry: rims at 52 and 200 (pitch 40). Below the pits a shadow
    # (or the side face) at margin 30 steps four times as strongly as the top face's own
    # edge at margin 6, so the innermost strong step on that side is the shadow; the
    # other side's edge is at margin 6 too, and the weak step there is taken instead
    from dataclasses import replace

    from vision.surface import _edge_pair

    gc = DEFAULT.grid
    prof = _profile({22: 1.0, 46: 0.25, 52: 0.2, 200: 0.2, 206: 0.8})
    assert _edge_pair(prof, 52.0, 200.0, 40.0, replace(gc, surface_symmetry=None)) == (22.0, 206.0)
    lo, hi = _edge_pair(prof, 52.0, 200.0, 40.0, gc)
    assert abs(lo - 46.0) < 0.6 and hi == 206.0
    # a lattice too weak to be a board yet keeps its first choice (alike=False)
    assert _edge_pair(prof, 52.0, 200.0, 40.0, gc, alike=False) == (22.0, 206.0)
    # margins alike (30 and 30): both steps stay, however strong a weaker step inside is
    alike = _profile({22: 1.0, 40: 0.3, 230: 1.0})
    assert _edge_pair(alike, 52.0, 200.0, 40.0, gc) == (22.0, 230.0)
    # the same on the far side: a table's edge at margin 28 beyond a weak edge at 7
    far = _profile({45: 0.9, 207: 0.3, 228: 1.0})
    lo, hi = _edge_pair(far, 52.0, 200.0, 40.0, gc)
    assert lo == 45.0 and abs(hi - 207.0) < 0.6
    # margins 22 and 46, with no step at margin 22 beyond the far rim, but a weak step
    # on each side at margin 9: that pair; with no such pair either, the first choice
    paired = _profile({30: 1.0, 43: 0.3, 209: 0.3, 246: 1.0})
    assert _edge_pair(paired, 52.0, 200.0, 40.0, replace(gc, surface_symmetry=None)) == (30.0, 246.0)
    lo, hi = _edge_pair(paired, 52.0, 200.0, 40.0, gc)
    assert abs(lo - 43.0) < 0.6 and abs(hi - 209.0) < 0.6
    lone = _profile({30: 1.0, 246: 1.0})
    assert _edge_pair(lone, 52.0, 200.0, 40.0, gc) == (30.0, 246.0)
    # GridConfig.surface_pair_wider (synth_317_0002, a near-black board: the rims' outer
    # shoulder at margin 6 on one side, the top face's edges at margins 33 and 26): no
    # step at margin 6 beyond the far rim, no pair within 0.12 pitch (4.8 px), but one
    # within 0.2 (8 px): that pair. Margins 22 and 46 (``lone``) still differ too much
    slant = _profile({19: 0.44, 46: 0.42, 226: 1.0})
    assert _edge_pair(slant, 52.0, 200.0, 40.0, replace(gc, surface_pair_wider=0.12)) == (46.0, 226.0)
    lo, hi = _edge_pair(slant, 52.0, 200.0, 40.0, gc)
    assert abs(lo - 19.0) < 0.6 and hi == 226.0


def test_a_narrow_margin_beside_pits_under_a_hand_takes_the_other_sides_margin() -> None:
    # GridConfig.surface_covered_evidence (synth_1063_0017: a hand over the board's right
    # end). The left end's edge is at margin 30; on the right the hand's fingers step at
    # margin 6, and the left side, much wider, took its weak step at margin 6 too (the
    # rims' bevel): both ends wrong by 24 px. With the right end's pits hidden
    # (``covered``), the right side takes the left's margin instead: a step there, else
    # the margin itself
    from dataclasses import replace

    from vision.surface import _edge_pair

    gc = DEFAULT.grid
    prof = _profile({22: 1.0, 46: 0.25, 206: 0.8})
    lo, hi = _edge_pair(prof, 52.0, 200.0, 40.0, gc)
    assert abs(lo - 46.0) < 0.6 and hi == 206.0  # (held alike the usual way)
    assert _edge_pair(prof, 52.0, 200.0, 40.0, gc, covered=(False, True)) == (22.0, 230.0)
    stepped = _profile({22: 1.0, 46: 0.25, 206: 0.8, 232: 0.2})
    assert _edge_pair(stepped, 52.0, 200.0, 40.0, gc, covered=(False, True)) == (22.0, 232.0)
    # the wider side covered, or both, or the rule off: held alike the usual way
    for covered, c in (((True, False), gc), ((True, True), gc), ((False, True), replace(gc, surface_symmetry=None))):
        got = _edge_pair(prof, 52.0, 200.0, 40.0, c, covered=covered)
        assert got == _edge_pair(prof, 52.0, 200.0, 40.0, c)


def test_covered_sides_are_those_with_two_outer_pits_showing_no_rim() -> None:
    from dataclasses import replace

    from vision.surface import covered_sides

    gc = DEFAULT.grid
    ev = np.ones((4, 8))
    grid = PitGrid(np.zeros((4, 8, 2)), (40.0, 40.0), np.ones((4, 8)), 1.0, (12.0, 12.0), 1.0, 32, evidence=ev)
    assert covered_sides(grid, gc) == ((False, False), (False, False))
    ev[1, 7] = ev[2, 7] = 0.05  # a hand over the right end column's middle pits
    ev[0, 3] = 0.0  # one heap in the top row: one pit is not a hand
    assert covered_sides(grid, gc) == ((False, False), (False, True))
    ev[0, 4] = 0.1
    assert covered_sides(grid, gc) == ((True, False), (False, True))
    assert covered_sides(grid, replace(gc, surface_covered_evidence=None)) == ((False, False), (False, False))
    assert covered_sides(replace(grid, evidence=None), gc) == ((False, False), (False, False))

def test_a_board_end_is_searched_past_the_slope_of_the_pits_own_rims() -> None:
    # GridConfig.edge_past_rim_slope (synth_487_0002, synth_569_0029: the ends taken at the
    # outer pits' rims, 44-78 px off): rims at 52 and 200 (pitch 40). A bevel carries the
    # rims' step out past where the search starts (0.12 pitch beyond them), falling away
    # from the rims; the board's ends are at 20 and 232, weaker than that slope's start
    from vision.surface import _edge_pair

    gc = DEFAULT.grid
    prof = _profile({20: 0.5, 232: 0.5})
    prof[42:53] = np.maximum(prof[42:53], np.linspace(0.1, 1.0, 11))  # rising to the rim at 52
    prof[200:211] = np.maximum(prof[200:211], np.linspace(1.0, 0.1, 11))  # falling from the rim at 200
    assert _edge_pair(prof, 52.0, 200.0, 40.0, gc, past_slope=False) == (46.0, 205.0)
    assert _edge_pair(prof, 52.0, 200.0, 40.0, gc, past_slope=True) == (20.0, 232.0)
    # a narrow margin's edge between the rims and the search's start, with a valley
    # between it and the rims (synth_463_0036's top edge): no slope, as before
    narrow = _profile({20: 0.5, 232: 0.5})
    narrow[45:54] = np.maximum(narrow[45:54], [0.2, 0.5, 0.8, 0.9, 0.3, 0.1, 0.5, 1.0, 0.5])
    narrow[199:208] = np.maximum(narrow[199:208], [0.5, 1.0, 0.5, 0.1, 0.3, 0.9, 0.8, 0.5, 0.2])
    assert (_edge_pair(narrow, 52.0, 200.0, 40.0, gc, past_slope=True)
            == _edge_pair(narrow, 52.0, 200.0, 40.0, gc, past_slope=False))


def test_an_unknown_edge_past_rim_slope_setting_is_refused_by_name() -> None:
    from dataclasses import replace

    for ok in ("ends", "both", ""):
        assert replace(DEFAULT.grid, edge_past_rim_slope=ok).edge_past_rim_slope == ok
    with pytest.raises(ValueError, match="edge_past_rim_slope.*'end'"):
        replace(DEFAULT.grid, edge_past_rim_slope="end")  # type: ignore[arg-type]


def test_a_board_end_is_searched_past_the_outer_step_of_the_pits_own_rims() -> None:
    # GridConfig.edge_rim_peak_reach (synth_691_0005, synth_701_0020, synth_709_0007: an end
    # taken at the outer pits' rims, 21-78 px off): rims at 52 and 200 (pitch 40). A bevel
    # round each pit makes a second, weaker step just past where the search starts (0.12
    # pitch beyond the rims), the profile rising into it from the rims' side; the board's
    # ends are at 20 and 232, beyond a flat margin
    from dataclasses import replace

    from vision.surface import _edge_pair

    gc = DEFAULT.grid
    prof = _profile({20: 0.5, 45: 0.6, 52: 1.0, 200: 1.0, 206: 0.6, 232: 0.5})
    assert _edge_pair(prof, 52.0, 200.0, 40.0, gc, past_slope=True) == (20.0, 232.0)
    off = replace(gc, edge_rim_peak_reach=None)
    assert _edge_pair(prof, 52.0, 200.0, 40.0, off, past_slope=True) == (45.0, 206.0)
    # the long sides keep the step (past_slope False: their margins are narrow)
    assert _edge_pair(prof, 52.0, 200.0, 40.0, gc, past_slope=False) == (45.0, 206.0)
    # a step there much stronger than the rims' own (edge_rim_peak_ratio) is a narrow
    # end's edge against the table, and stays
    narrow = _profile({20: 0.5, 45: 2.0, 52: 1.0, 200: 1.0, 206: 2.0, 232: 0.5})
    assert _edge_pair(narrow, 52.0, 200.0, 40.0, gc, past_slope=True) == (45.0, 206.0)
    # and with nothing strong beyond the step, the step stands
    alone = _profile({45: 0.6, 52: 1.0, 200: 1.0, 206: 0.6})
    assert _edge_pair(alone, 52.0, 200.0, 40.0, gc, past_slope=True) == (45.0, 206.0)


def test_a_board_end_is_searched_past_both_steps_of_a_wide_rim_slope() -> None:
    # GridConfig.edge_rim_peak_bumps (synth_1003_0008: deep bowls 0.42 pitch wide at 54
    # degrees, one end taken at the rims, 66 px off at 1920 x 1080; synth_859_0000, 40 px).
    # Past the rims the profile shows two steps within the reach, with no valley between
    # them (GridConfig.edge_rim_peak_dip; a bevel, then the rims' shadow): both are the
    # rims' own, and the end lies beyond. The profile read back from that photo's lattice
    # view, outwards from where the search starts, with the end's step at 37
    from vision.surface import _innermost_peak

    prof = np.full(46, 3.0)
    prof[:9] = [57, 54, 54, 43, 43, 55, 51, 28, 8]
    prof[34:40] = [10, 11, 30, 70, 41, 8]
    inner = np.array([51.0, 44, 71, 64, 41, 40])  # in to the rims from just before index 0
    gc = DEFAULT.grid
    reach = int(round(gc.edge_rim_peak_reach * 40))  # pitch 40 px: 6 px
    end = _innermost_peak(prof, gc.edge_strength, inner, rim_reach=reach, rim_level=106.0,
                          rim_bumps=gc.edge_rim_peak_bumps, rim_dip=gc.edge_rim_peak_dip)
    assert end is not None and abs(end - 37.0) < 0.5
    # one step passed, as before: the second is taken for the end
    rim = _innermost_peak(prof, gc.edge_strength, inner, rim_reach=reach, rim_level=106.0, rim_bumps=1)
    assert rim is not None and abs(rim - 5.0) < 0.5
    # a valley between them (synth_863_0010: a speck, then the board's narrow end at 5-6):
    # the second step is a step of its own, the end, and stays
    narrow = np.full(46, 5.0)
    narrow[:9] = [13, 12, 12, 15, 8, 55, 55, 47, 15]
    narrow[9:28] = [14, 21, 30, 28, 22, 17, 16, 22, 40, 44, 40, 28, 33, 29, 29, 20, 26, 57, 37]
    got = _innermost_peak(narrow, gc.edge_strength, np.array([14.0, 16, 21, 22, 19, 28]),
                          rim_reach=reach, rim_level=106.9, rim_bumps=gc.edge_rim_peak_bumps,
                          rim_dip=gc.edge_rim_peak_dip)
    assert got is not None and 5.0 <= got <= 6.0
    # a dip to three quarters of the lower step is no valley (synth_1003_0003 read at 1280 x
    # 720: steps 74 and 89 over a dip to 55, the end at 36, taken at the rims before)
    crests = np.full(50, 2.0)
    crests[:9] = [74, 55, 65, 89, 76, 36, 11, 4, 4]
    crests[33:39] = [3, 18, 85, 154, 97, 41]
    end = _innermost_peak(crests, gc.edge_strength, np.array([72.0, 60, 61, 70, 99, 105]), rim_reach=reach,
                          rim_level=157.0, rim_bumps=gc.edge_rim_peak_bumps, rim_dip=gc.edge_rim_peak_dip)
    assert end is not None and abs(end - 36.0) < 0.5


def test_a_side_rising_only_at_its_ends_shows_no_step_of_its_own() -> None:
    # GridConfig.edge_unseen_foot (synth_889_0007: ends 1.63 pitches past the outer pits'
    # centres, just past the 1.6-pitch view). Rims at 52 and 200 (pitch 40, the search
    # from 47 and 205 outwards); the view's 3 border px do not count. A side whose profile
    # only rises towards its ends, over the fixed border (the foot of a step beyond the
    # view) or towards the rims (their outer slope), shows no step: both sides flat, the
    # ends are searched on the wider view. A peak inside a side is a step
    from dataclasses import replace

    from vision.surface import _sides_unseen

    gc = DEFAULT.grid
    off = replace(gc, edge_unseen_foot=False, edge_unseen_near=None)  # (near: the test below)
    prof = _profile({52: 1.0, 100: 0.8, 150: 0.8, 200: 1.0})
    assert _sides_unseen(prof, 52.0, 200.0, 40.0, gc) and _sides_unseen(prof, 52.0, 200.0, 40.0, off)
    foot = prof.copy()
    foot[-9:] = np.linspace(0.02, 0.4, 9)  # rising to the view's last pixel (0.12 x 1.0 is the level)
    slope = prof.copy()
    slope[38:51] = np.linspace(0.02, 0.5, 13)  # rising on into the rims, past the search's start
    for side in (foot, slope):
        assert _sides_unseen(side, 52.0, 200.0, 40.0, gc)
        assert not _sides_unseen(side, 52.0, 200.0, 40.0, off)
    # (the other side flat, a step this near the border sends the axis to the wider view
    # by edge_unseen_near: left off here, to see the step itself)
    feet_only = replace(gc, edge_unseen_near=None)
    step = prof.copy()
    step[-12:-5] = [0.05, 0.2, 0.35, 0.4, 0.3, 0.15, 0.05]  # a peak 8 px inside the view's end
    assert not _sides_unseen(step, 52.0, 200.0, 40.0, feet_only)
    # a peak on the last px counted, falling off into the border (synth_881_0009): a step
    # (the view's last sample carries no gradient)
    edge = prof.copy()
    edge[-6:] = [0.05, 0.21, 0.45, 0.36, 0.09, 0.0]
    assert not _sides_unseen(edge, 52.0, 200.0, 40.0, feet_only)
    inner = prof.copy()
    inner[20:23] = [0.1, 0.3, 0.1]  # a step halfway across the margin
    assert not _sides_unseen(inner, 52.0, 200.0, 40.0, gc)


def test_one_flat_side_with_the_others_step_at_the_view_border_is_an_end_past_the_view() -> None:
    # GridConfig.edge_unseen_near (synth_911_0021: ends 1.57 pitches past the outer pits'
    # centres, the lattice a little off centre): one end's step 4 px inside the view's
    # border, the other side flat, its end just past the view. Ends alike, the axis is
    # searched on the wider view. A flat side with the other's step well inside the view
    # stays as it was: a side face in shade, a hand, the image's border
    from dataclasses import replace

    from vision.surface import _sides_unseen

    gc = DEFAULT.grid
    near = _profile({4: 0.9, 52: 1.0, 100: 0.8, 150: 0.8, 200: 1.0})
    assert _sides_unseen(near, 52.0, 200.0, 40.0, gc)
    assert not _sides_unseen(near, 52.0, 200.0, 40.0, replace(gc, edge_unseen_near=None))
    far_in = _profile({30: 0.9, 52: 1.0, 100: 0.8, 150: 0.8, 200: 1.0})  # 30 px, 0.75 pitch in
    assert not _sides_unseen(far_in, 52.0, 200.0, 40.0, gc)
    # the flat side's own border px (left out as the start of an edge past the view) step
    # half as strongly or more: both ends are at the border, in view (synth_881_0009)
    both = near.copy()
    both[-3:-1] = [0.3, 0.6]
    assert not _sides_unseen(both, 52.0, 200.0, 40.0, gc)


def _drawn_view(wood_bgr: tuple[int, int, int], floor_bgr: tuple[int, int, int]) -> np.ndarray:
    """A lattice view (pitch 40, 1.5 pitches round the pits, no middle gap) of a board on
    a brick floor: the top face from x 26 to 373 and y 40 to 199 (its long sides 6 px past
    the pits' rims, radius 14), two darker grain lines across it, the pits darker with a
    light rim; the floor's mortar lines, black, at y 16-20 and 219-223 (margins alike,
    30 px); a little noise."""
    import cv2

    view = np.empty((240, 400, 3), np.uint8)
    view[:] = floor_bgr
    view[16:21] = view[219:224] = (30, 30, 30)
    cv2.rectangle(view, (26, 40), (373, 199), wood_bgr, -1)
    for y in (95, 150):
        view[y : y + 3, 26:374] = np.clip(np.array(wood_bgr) - 15, 0, 255)
    for y in 60 + 40 * np.arange(4):
        for x in 60 + 40 * np.arange(8):
            cv2.circle(view, (int(x), int(y)), 14, tuple(int(c) for c in np.array(wood_bgr) * 2 // 3), -1)
            cv2.circle(view, (int(x), int(y)), 14, tuple(int(c) for c in np.clip(np.array(wood_bgr) + 30, 0, 255)), 1)
    noise = np.random.default_rng(0).normal(0, 2, view.shape).round()
    return np.clip(view + noise, 0, 255).astype(np.uint8)


def _drawn_grid() -> PitGrid:
    xs, ys = 60 + 40 * np.arange(8), 60 + 40 * np.arange(4)
    centres = np.stack(np.meshgrid(xs, ys), axis=-1).astype(np.float64)
    return PitGrid(centres, (40.0, 40.0), np.ones((4, 8)), 2.0, (14.0, 14.0), 1.0, 32)


def test_a_long_side_is_held_to_where_the_wood_of_the_top_face_ends() -> None:
    # GridConfig.edge_wood_ratio (synth_1_0013, synth_877_0010: the long sides taken at a
    # brick floor's mortar lines, 47-50 px off). Orange wood on a lilac-grey floor of about
    # its brightness: in grey the wood's edge steps an eighth as strongly as the black
    # mortar lines 24 px beyond it on either side, so the innermost strong step is the
    # mortar, on both sides alike. The wood's colour ends at its edge: the long sides are
    # taken there. The ends (the view's columns) have no mortar beyond them
    from dataclasses import replace

    from vision.surface import surface_edges

    gc = DEFAULT.grid
    view = _drawn_view((60, 110, 190), (150, 140, 145))
    grid = _drawn_grid()
    edges = surface_edges(view, grid, 0.0, gc)
    assert edges is not None
    (left, top), (right, bottom) = edges[0], edges[2]
    assert abs(top - 40) <= 1.5 and abs(bottom - 199) <= 1.5
    assert abs(left - 26) <= 1.5 and abs(right - 373) <= 1.5
    off = surface_edges(view, grid, 0.0, replace(gc, edge_wood_ratio=None))
    assert off is not None
    assert abs(off[0][1] - 20.5) <= 1 and abs(off[2][1] - 218.5) <= 1  # the mortar lines' inner edges
    # a floor of the wood's own colour shows no end of the wood: the steps stand
    same = surface_edges(_drawn_view((60, 110, 190), (60, 110, 190)), grid, 0.0, gc)
    assert same is not None and abs(same[0][1] - 20.5) <= 1 and abs(same[2][1] - 218.5) <= 1
    # a grey view has no colour to follow
    grey = view.mean(axis=2).astype(np.uint8)
    flat = surface_edges(grey, grid, 0.0, gc)
    assert flat is not None and abs(flat[0][1] - 20.5) <= 1


def test_the_wood_rule_moves_an_edge_only_inwards_past_a_whole_run_of_other_colour() -> None:
    # vision.surface._edge_pair with a distance-from-the-wood profile (in the wood's
    # spreads; edge_wood_ratio 5, a run of 0.35 pitch = 14 px). Rims at 52 and 200 (pitch
    # 40); strong steps (mortar) at margins 30 on either side, weak ones (the wood's
    # edges) at margins 6
    from dataclasses import replace

    from vision.surface import _edge_pair

    gc = DEFAULT.grid
    prof = _profile({22: 1.0, 46: 0.12, 206: 0.12, 230: 1.0})
    wood = np.zeros(260)
    wood[:46] = wood[207:] = 12.0  # not wood from the weak steps out
    assert _edge_pair(prof, 52.0, 200.0, 40.0, gc) == (22.0, 230.0)  # (no wood profile)
    assert _edge_pair(prof, 52.0, 200.0, 40.0, gc, wood=wood) == (46.0, 206.0)
    assert _edge_pair(prof, 52.0, 200.0, 40.0, replace(gc, edge_wood_ratio=None), wood=wood) == (22.0, 230.0)
    # a darker grain line 8 px wide inside the margin is no end of the wood (under a run)
    grain = np.zeros(260)
    grain[36:44] = grain[212:220] = 12.0
    assert _edge_pair(prof, 52.0, 200.0, 40.0, gc, wood=grain) == (22.0, 230.0)
    # the wood running on past the strong steps (a side face in light): no move outwards
    inner = _profile({46: 1.0, 206: 1.0, 22: 0.3, 230: 0.3})
    far = np.zeros(260)
    far[:10] = far[250:] = 12.0
    assert _edge_pair(inner, 52.0, 200.0, 40.0, gc, wood=far) == (46.0, 206.0)
    # no step where the wood ends (within 0.1 pitch): the edge stays
    bare = _profile({22: 1.0, 230: 1.0})
    assert _edge_pair(bare, 52.0, 200.0, 40.0, gc, wood=wood) == (22.0, 230.0)
    # one side moved, the other's margin left wide (a thick board's side face, wood-coloured
    # to the floor): the moved side stays, and the wide side takes a step at its margin
    one = np.zeros(260)
    one[:46] = 12.0
    side = _profile({22: 1.0, 46: 0.12, 206: 0.3, 230: 1.0})
    assert _edge_pair(side, 52.0, 200.0, 40.0, gc, wood=one) == (46.0, 206.0)
    assert _edge_pair(bare, 52.0, 200.0, 40.0, gc, wood=one) == (22.0, 230.0)
    # a thick board's front face and its shadow, 5.4 spreads from the top face
    # (synth_1069_0008): past the wood at 5 spreads; under 6, before, they were wood
    near = np.where(wood > 0, 5.4, 0.0)
    assert _edge_pair(prof, 52.0, 200.0, 40.0, gc, wood=near) == (46.0, 206.0)
    assert _edge_pair(prof, 52.0, 200.0, 40.0, replace(gc, edge_wood_ratio=6.0), wood=near) == (22.0, 230.0)


def test_a_long_side_still_far_wider_than_the_other_moves_in_to_its_margin() -> None:
    # GridConfig.edge_wider_max (synth_1051_0002: a thick board seen from 45 degrees, its
    # front face in shade the top's own colour; synth_1077_0011: a near-black board's
    # shadow on bricks). Rims at 52 and 200 (pitch 40): the far side's edge at margin 6,
    # the near side's only step at margin 30 (the face's foot, the shadow's edge), none at
    # margin 6 beyond it and no pair of steps alike: the margins held alike keep 6 and 30.
    # More than 0.35 pitch (14 px) wider, the wide side takes the narrow one's margin
    from dataclasses import replace

    from vision.surface import _edge_pair

    gc = replace(DEFAULT.grid, edge_wider_max=0.35)
    prof = _profile({46: 1.0, 230: 1.0})
    assert _edge_pair(prof, 52.0, 200.0, 40.0, replace(gc, edge_wider_max=None), hold=True) == (46.0, 230.0)
    assert _edge_pair(prof, 52.0, 200.0, 40.0, gc, hold=True) == (46.0, 206.0)
    # the same with the sides swapped
    swapped = _profile({22: 1.0, 206: 1.0})
    assert _edge_pair(swapped, 52.0, 200.0, 40.0, gc, hold=True) == (46.0, 206.0)
    # not on an axis not held (the ends), nor for a lattice too weak to hold
    # its margins alike
    assert _edge_pair(prof, 52.0, 200.0, 40.0, gc) == (46.0, 230.0)
    assert _edge_pair(prof, 52.0, 200.0, 40.0, gc, alike=False, hold=True) == (46.0, 230.0)
    # margins 12 and 24 (0.3 pitch apart, margins a board may show seen at a slant): kept
    near = _profile({40: 1.0, 224: 1.0})
    assert _edge_pair(near, 52.0, 200.0, 40.0, gc, hold=True) == (40.0, 224.0)
    # margins 12 and 30 (0.45 pitch apart): the wide one to 12
    assert _edge_pair(_profile({40: 1.0, 230: 1.0}), 52.0, 200.0, 40.0, gc, hold=True) == (40.0, 212.0)


def test_an_edge_with_a_bevel_line_just_inside_it_is_taken_at_its_outer_line() -> None:
    # GridConfig.edge_double_reach (synth_1071_0016: a pale board whose far long side shows
    # a bevel's line 3 px inside the edge; the inner line was taken, the margins then looked
    # unlike, and the near side was moved in onto the outer pits' rims, 25 px off)
    from vision.surface import _innermost_peak

    prof = np.array([2.0, 3, 4, 20, 64, 53, 55, 102, 60, 14, 5, 4, 3, 2])
    assert _innermost_peak(prof, 0.5) == pytest.approx(4.0, abs=0.5)  # the bevel's line
    assert _innermost_peak(prof, 0.5, double_reach=4, double_dip=0.3) == pytest.approx(7.0, abs=0.5)
    # ... not past a deep valley (a step of its own: the table's edge, a shadow) ...
    apart = prof.copy()
    apart[5:7] = 10.0
    assert _innermost_peak(apart, 0.5, double_reach=4, double_dip=0.3) == pytest.approx(4.0, abs=0.5)
    # ... nor farther than the reach
    assert _innermost_peak(prof, 0.5, double_reach=2, double_dip=0.3) == pytest.approx(4.0, abs=0.5)
