"""What the camera gives the referee (engine.observation): a view's count probabilities
and the change map's evidence. Numbers only, no images."""

from __future__ import annotations

import math

import numpy as np
import pytest
from referee_readings import START, board

from engine import Position
from engine.observation import HOLES, Observation, board_vector, change_evidence


def test_start_board_vector_matches_the_rules_start() -> None:
    # 2.1: nyumba 6, holes 6 and 7 of each front row 2.
    assert list(board_vector(Position.start().to_json())) == board(**START)


@pytest.mark.parametrize("bad", [
    {"south": {"front": [[1.0]] * 7, "back": [[1.0]] * 8}, "north": {"front": [[1.0]] * 8, "back": [[1.0]] * 8}},
    {"south": {"front": [[1.0]] * 8}},
    {"south": {"front": [[-1.0]] * 8, "back": [[1.0]] * 8}, "north": {"front": [[1.0]] * 8, "back": [[1.0]] * 8}},
    {"south": {"front": [[0.0]] * 8, "back": [[1.0]] * 8}, "north": {"front": [[1.0]] * 8, "back": [[1.0]] * 8}},
])
def test_bad_probabilities_are_rejected(bad: dict) -> None:
    with pytest.raises(ValueError):
        Observation.from_probabilities(bad)


def test_a_view_scores_a_board_by_its_pits_probabilities() -> None:
    # every pit of the start read surely (0.98), the rest spread: a board's score is the
    # sum of its pits' log-probabilities, its deficit per pit 0 where it matches
    start = Position.start().to_json()
    view = Observation.from_counts(start)
    counts = board_vector(start)
    assert list(view.most_likely()) == list(counts)
    assert view.score(counts) == pytest.approx(32 * math.log(0.98))
    moved = counts.copy()
    moved[HOLES.index("A6")] = 0  # one pit off: 0.02 spread over the 40 other counts
    assert view.score(moved) == pytest.approx(31 * math.log(0.98) + math.log(0.02 / 40))
    deficits = view.pit_scores(moved)
    assert deficits[HOLES.index("A6")] == pytest.approx(math.log(0.98) - math.log(0.02 / 40))
    assert np.count_nonzero(deficits) == 1


def test_the_change_map_weighs_each_pit_by_whether_the_board_changed_it() -> None:
    before = board_vector(Position.start().to_json())
    after = before.copy()
    after[HOLES.index("A6")] = 0
    after[HOLES.index("A7")] += 1
    changed = {"A6": 0.9, "A7": 0.6, "A1": 0.2}  # pits not in the map say nothing
    # A6 and A7 changed (p), A1 did not (1 - p)
    assert change_evidence(before, after, changed) == pytest.approx(math.log(0.9) + math.log(0.6) + math.log(0.8))
    # a board leaving A6 alone pays for the change seen there; probabilities are kept
    # within 0.01..0.99, so one sure map entry cannot rule a board out alone
    assert change_evidence(before, before, {"A6": 1.0}) == pytest.approx(math.log(0.01))


def test_a_change_map_computed_once_weighs_boards_as_the_map_does() -> None:
    # the referee turns a map into log-probabilities once for all its hypotheses
    from engine.observation import change_logs

    before = board_vector(Position.start().to_json())
    after = before.copy()
    after[HOLES.index("A6")] = 0
    changed = {"A6": 0.9, "A1": 0.2}
    logs = change_logs(changed)
    assert logs[0, HOLES.index("A6")] == pytest.approx(math.log(0.9))
    assert logs[1, HOLES.index("A1")] == pytest.approx(math.log(0.8))
    assert not logs[:, HOLES.index("B1")].any()  # left out of the map: says nothing
    assert change_evidence(before, after, changed, logs) == pytest.approx(math.log(0.9) + math.log(0.8))


def test_the_referees_pit_counts_follow_the_holes_order_of_the_position_json() -> None:
    # engine.referee reads each hypothesis's counts from the bare board, not its JSON
    import random

    from engine.referee import _counts

    position, rng = Position.start(), random.Random(3)
    for _ in range(40):
        assert list(_counts(position)) == list(board_vector(position.to_json()))
        if position.is_game_over():
            break
        position.push(rng.choice(position.legal_moves))
