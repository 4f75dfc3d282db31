"""Decode stage: pure numbers, totals worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from vision.decode import decode
from vision.holes import HOLES, START_COUNTS


def peaked(counts: dict[str, int], p: float = 0.9) -> np.ndarray:
    probs = np.full((32, 41), (1 - p) / 40)
    for i, n in enumerate(HOLES):
        probs[i, counts.get(n, 0)] = p
    return probs


def heap_reading(mode: int, sd: float) -> np.ndarray:
    """A heap's widened reading: a Gaussian over 0..40 around ``mode``."""
    p = np.exp(-0.5 * ((np.arange(41) - mode) / sd) ** 2)
    return p / p.sum()


def test_clear_start_position_is_decoded_as_is() -> None:
    counts = {"A5": 6, "A6": 2, "A7": 2, "a5": 6, "a6": 2, "a7": 2}  # 20 on the board
    dec = decode(peaked(counts))
    assert dec.counts["A5"] == 6 and dec.total == 20
    assert dec.status == []


def test_start_position_wins_over_a_close_misreading() -> None:
    # Rule 2.1: the start. a6 reads 1 (0.8) rather than 2 (0.15), A5 7 (0.5) rather than 6
    # (0.4): the reading (a6 = 1, A5 = 7) has 20 seeds, a legal total, and is 1.9 nats
    # likelier than the start (ln(0.8 / 0.15) + ln(0.5 / 0.4)), well within
    # DecodeConfig.start_within: the start is taken.
    import dataclasses

    from vision.config import DEFAULT

    probs = peaked(START_COUNTS)
    i, j = HOLES.index("a6"), HOLES.index("A5")
    probs[i] = 0.05 / 39
    probs[i, 1], probs[i, 2] = 0.8, 0.15
    probs[j] = 0.1 / 39
    probs[j, 7], probs[j, 6] = 0.5, 0.4
    dec = decode(probs)
    assert dec.counts == START_COUNTS
    assert dec.confidence["a6"] == pytest.approx(0.15)
    assert "uncertain_pits:a6,A5" in dec.status
    off = dataclasses.replace(DEFAULT.decode, start_within=0.0)
    read = decode(probs, cfg=off).counts
    assert (read["a6"], read["A5"]) == (1, 7)


def test_a_start_short_of_seeds_is_no_implausible_total() -> None:
    # a6 and A6 both read 1 surely (0.9): 18 seeds, below the legal 20. Forcing 20 by the
    # least sure pits would be reported as total_implausible; the start costs
    # 2 x ln(0.9 / 0.05) = 5.8 nats and is taken, with no such status.
    probs = peaked(START_COUNTS)
    for hole in ("a6", "A6"):
        i = HOLES.index(hole)
        probs[i] = 0.05 / 39
        probs[i, 1], probs[i, 2] = 0.9, 0.05
    dec = decode(probs)
    assert dec.counts == START_COUNTS
    assert not any(s.startswith("total_implausible") for s in dec.status)


def test_a_position_one_move_from_the_start_is_not_taken_for_it() -> None:
    # South's first move A7>*: the reserve seed makes A7 three (no capture: its opposite
    # a2 is empty), sown clockwise into A8, B8, B7. Four pits differ from the start; read
    # at 0.9 each, the start is 4 x ln(0.9 / 0.0025) = 23.5 nats less likely: kept.
    after = START_COUNTS | {"A7": 0, "A8": 1, "B8": 1, "B7": 1}
    dec = decode(peaked(after))
    assert dec.counts == after
    assert dec.total == 21


def test_total_above_64_is_pulled_back_by_the_least_sure_pit() -> None:
    # 31 pits sure at 2 (62 seeds); B8 says 4 (0.5) or 2 (0.45): 66 is impossible,
    # so the joint optimum is 64 with B8 = 2.
    counts = dict.fromkeys(HOLES, 2)
    probs = peaked(counts, 0.95)
    i = HOLES.index("B8")
    probs[i] = 0.05 / 39
    probs[i, 4], probs[i, 2] = 0.5, 0.45
    dec = decode(probs)
    assert dec.counts["B8"] == 2 and dec.total == 64
    assert not any(s.startswith("total_implausible") for s in dec.status)


def test_far_too_many_seeds_is_flagged_with_the_implied_total() -> None:
    counts = dict.fromkeys(HOLES, 3)  # 96 seeds, all confident: cannot be a Bao position
    dec = decode(peaked(counts, 0.97))
    assert "total_implausible:96" in dec.status


def test_expected_total_is_enforced() -> None:
    counts = dict.fromkeys(HOLES, 2)  # 64
    probs = peaked(counts, 0.9)
    i = HOLES.index("a1")
    probs[i] = 0.01 / 39
    probs[i, 1], probs[i, 2] = 0.5, 0.49  # a1 leans to 1 -> 63; mtaji says 64
    assert decode(probs).counts["a1"] == 1  # 63 is a legal kunamua total
    assert decode(probs, expected_total=64).counts["a1"] == 2


def test_occluded_pits_get_zero_confidence_and_a_hand_status() -> None:
    occ = np.zeros(32, bool)
    occ[[HOLES.index(n) for n in ("A1", "A2", "A3")]] = True
    dec = decode(peaked({"A5": 6, "a5": 6, "A6": 4, "a6": 4}), occ)
    assert dec.confidence["A2"] == 0.0
    assert "hand_over_board" in dec.status
    assert "occluded_pits:A1,A2,A3" in dec.status


def test_one_hidden_rim_with_no_seed_in_sight_is_a_hand_but_a_heap_is_not() -> None:
    # an empty pit shows its rim: hidden and read as empty, something covers it
    occ = np.zeros(32, bool)
    occ[HOLES.index("B3")] = True
    covered = decode(peaked({"A5": 6, "a5": 6, "A6": 4, "a6": 4}), occ)
    assert "hand_over_board" in covered.status
    assert "occluded_pits:B3" in covered.status
    # a heap of 22 hides its own rim: no hand, and not covered either. Its reading (widened
    # as a heap's is: here a Gaussian of sd 3, 0.13 at 22) is spread upwards, half of it
    # over 13..40 (DecodeConfig.occluded_heap_from 0.6 x 22: seeds hide seeds), and is
    # uncertain; fewer than 13 seeds stay as unlikely as read
    probs = peaked({"A5": 6, "a5": 6})
    probs[HOLES.index("B3")] = heap_reading(22, 3.0)
    heap = decode(probs, occ)
    assert "hand_over_board" not in heap.status
    assert not any(s.startswith("occluded_pits") for s in heap.status)
    assert "B3" in next(s for s in heap.status if s.startswith("uncertain_pits:")).split(":")[1].split(",")
    assert heap.counts["B3"] == 22 and heap.confidence["B3"] == pytest.approx(0.5 * 0.1330 + 0.5 / 28, abs=1e-3)
    spread = heap.probabilities["B3"]
    assert spread[12] < 1e-3 and spread[0] < 1e-6 and spread[40] == pytest.approx(0.5 / 28, abs=1e-4)


def test_neighbouring_hidden_heaps_are_no_hand() -> None:
    # DecodeConfig.hand_heap_from: two neighbouring pits with hidden rims, read as 6
    # and 7 seeds, are heaps hiding their own rims (no hand); read as 1 and 2, a hand
    occ = np.zeros(32, bool)
    occ[[HOLES.index(n) for n in ("A3", "B2")]] = True
    heaps = decode(peaked({"A3": 6, "B2": 7, "A5": 6, "a5": 6}), occ)
    assert heaps.counts["A3"] == 6 and heaps.counts["B2"] == 7
    assert "uncertain_pits:A3,B2" in heaps.status  # (half spread upwards: occluded_heap_flatten)
    assert "hand_over_board" not in heaps.status
    assert not any(s.startswith("occluded_pits") for s in heaps.status)
    few = decode(peaked({"A3": 1, "B2": 2, "A5": 6, "a5": 6}), occ)
    assert "hand_over_board" in few.status
    # one heap beside one pit of a few seeds is one pit, no cluster
    mixed = decode(peaked({"A3": 6, "B2": 2, "A5": 6, "a5": 6}), occ)
    assert "hand_over_board" not in mixed.status


def test_bad_shape_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="probabilities"):
        decode(np.ones((32, 10)))


def test_a_faint_rim_alone_is_no_hand_but_two_together_are() -> None:
    # ``faint``: pits found hidden only by a weak rim (an empty pit whose rim is soft on
    # one side passes that test too). One such pit read as empty is listed as occluded
    # but is no hand; two neighbouring ones read as empty are (the cluster rule).
    counts = {"A5": 6, "a5": 6, "A6": 4, "a6": 4}
    occ = np.zeros(32, bool)
    occ[HOLES.index("B3")] = True
    one = decode(peaked(counts), occ, faint=occ.copy())
    assert "occluded_pits:B3" in one.status and one.confidence["B3"] == 0.0
    assert "hand_over_board" not in one.status
    assert "hand_over_board" in decode(peaked(counts), occ).status  # the same pit, rim turned
    occ[HOLES.index("B4")] = True
    two = decode(peaked(counts), occ, faint=occ.copy())
    assert "hand_over_board" in two.status


def test_status_pits_reads_the_pits_a_status_entry_names() -> None:
    from vision.decode import status_pits

    status = ["hand_over_board", "occluded_pits:b2,a2", "uncertain_pits:A5", "total_implausible:70"]
    assert status_pits(status, "occluded_pits") == ["b2", "a2"]
    assert status_pits(status, "uncertain_pits") == ["A5"]
    assert status_pits(status, "occluded") == []  # the whole key, not a prefix of it
    assert status_pits([], "occluded_pits") == []


def test_one_hidden_pit_beside_a_crossed_edge_is_a_hand() -> None:
    # DecodeConfig.hand_edge_break: B5 hidden and read as 2 seeds is no hand alone (a
    # seed's shadow can turn a rim); with something across the board's edge beside it
    # (``crossed``: vision.grid.crossed_pits) it is an arm reaching in
    occ = np.zeros(32, bool)
    occ[HOLES.index("B5")] = True
    counts = {"B5": 2, "A5": 6, "a5": 6}
    alone = decode(peaked(counts), occ)
    assert "hand_over_board" not in alone.status and "occluded_pits:B5" in alone.status
    crossed = np.zeros(32, bool)
    crossed[HOLES.index("B5")] = True
    assert "hand_over_board" in decode(peaked(counts), occ, crossed=crossed).status
    # the edge crossed beside another pit, or beside a heap hiding its own rim: no hand
    elsewhere = np.zeros(32, bool)
    elsewhere[HOLES.index("B1")] = True
    assert "hand_over_board" not in decode(peaked(counts), occ, crossed=elsewhere).status
    heap = {"B5": 12, "A5": 6, "a5": 6}
    assert "hand_over_board" not in decode(peaked(heap), occ, crossed=crossed).status


def test_a_heap_hiding_its_own_rim_is_not_emptied_to_meet_the_total() -> None:
    # synth_613_0033: a7 holds a heap of 13 that hides its rim; A8's heap (12) was read
    # far too high, so the free reading held more than the 64 seeds of mtaji, and the
    # decode emptied a7. Here A8 is read around 25 (sd 3), a7 around 13 (sd 2.5), 39 more
    # seeds elsewhere, read surely: 77, 13 too many.
    # Spread as a covered pit's (half its distribution over 0..40: 0.012 at 0 against
    # 0.092 at 13), a7 was the cheapest to empty: all 13 came off it (2.0 nats). A heap
    # hiding its own rim holds about as many seeds as are read or more: half of it is now
    # spread from 0.6 x 13 up only (DecodeConfig.occluded_heap_from), so a7 keeps 7 and A8
    # gives the other 7 (a7 at 0: 1.1e-7 against 0.019 at 7, 12 nats more).
    import dataclasses

    from vision.config import DEFAULT

    counts = {"A1": 6, "A2": 6, "A3": 6, "B1": 6, "B2": 6, "b1": 6, "b2": 3}  # 39
    probs = peaked(counts, 0.98)
    probs[HOLES.index("A8")] = heap_reading(25, 3.0)
    probs[HOLES.index("a7")] = heap_reading(13, 2.5)
    occ = np.zeros(32, bool)
    occ[HOLES.index("a7")] = True
    dec = decode(probs, occ, expected_total=64)
    assert dec.total == 64 and (dec.counts["a7"], dec.counts["A8"]) == (7, 18)
    assert not any(s.startswith("occluded_pits") for s in dec.status)
    assert "total_implausible:77" in dec.status  # the free reading's 77 seeds, said
    # as it was decoded before: the heap emptied
    before = dataclasses.replace(DEFAULT.decode, occluded_heap_from=0.0)
    assert (decode(probs, occ, expected_total=64, cfg=before).counts["a7"], dec.total) == (0, 64)


def test_a_heap_gets_a_thin_upper_tail_and_keeps_its_reading() -> None:
    # Seeds hidden by seeds: a heap of 10 read as 6 (half on 6, the rest on 4-8, as the
    # counter reads such heaps) must not put 10 out of reach (over 5 nats below 6, the
    # referee's limit for one pit). With the tail (5 % of a pit read as 4 or more blurred
    # upwards, sd 0.5 x its mean) it is within reach, 6 stays the reading, and no mass
    # moves below the lowest count read
    from dataclasses import replace

    from vision.config import DEFAULT
    from vision.decode import heap_tail

    reading = np.zeros(41)
    reading[[4, 5, 6, 7, 8]] = 0.05, 0.2, 0.5, 0.2, 0.05
    tailed = heap_tail(reading[None], 0.05, 4.0, 0.5)[0]
    assert tailed.sum() == pytest.approx(1.0)
    assert tailed[:4].sum() == 0.0 and tailed[4] < reading[4] and tailed[6] < reading[6]
    assert np.log(tailed[6] / tailed[10]) < 5.0 and reading[10] == 0.0
    small = np.zeros(41)
    small[[2, 3]] = 0.5, 0.5  # mean 2.5: no heap, untouched
    assert np.array_equal(heap_tail(small[None], 0.05, 4.0, 0.5)[0], small)
    probs = peaked({"A5": 6, "A6": 2, "A7": 2, "a5": 6, "a6": 2, "a7": 2, "A1": 3})
    probs[HOLES.index("A1")] = reading
    assert DEFAULT.decode.heap_tail == 0.05
    dec = decode(probs)
    assert dec.counts["A1"] == 6
    p = np.asarray(dec.probabilities["A1"])
    assert np.log(p[6] / p[10]) < 5.0
    plain = np.asarray(decode(probs, cfg=replace(DEFAULT.decode, heap_tail=0.0)).probabilities["A1"])
    assert np.log(plain[6] / max(plain[10], 1e-12)) > 5.0  # without the tail
