"""A game reopened after a restart of the server: its first view, read with a pit misread,
gives the camera's change maps their reference all the same."""

from __future__ import annotations

from typing import Any

import numpy as np
from live_frames import post_still

from engine import Position
from engine.observation import HOLES, board_vector

B8 = HOLES.index("b8")


def four_moves() -> tuple[list[str], Position]:
    """Four moves from the start (the first legal one each time) and the position after."""
    pos, played = Position.start(), []
    for _ in range(4):
        move = pos.legal_moves[0]
        played.append(pos.notation(move))
        pos.push(move)
    return played, pos


def with_pits(recognizer: Any) -> Any:
    """The test recognizer, its readings given pit centres (the change maps need them)."""

    def read(image: np.ndarray, south: str = "bottom", profile: Any = None) -> Any:
        rec = recognizer(image, south, profile)
        rec.pit_centers_px = {h: [10.0 + 17 * (i % 8), 10.0 + 17 * (i // 8)] for i, h in enumerate(HOLES)}
        return rec

    return read


def board_changes(recognizer: Any) -> Any:
    """A stand-in for ``vision.motion.pit_changes`` on the test recognizer's frames: a pit
    whose true count differs between the two frames changed (0.9), the others not (0.03)."""

    def changes(before: np.ndarray, after_: np.ndarray, centres: Any, config: Any = None) -> dict[str, float]:
        boards = [board_vector(recognizer.boards[int(im[0, 0, 0]) + 256 * int(im[0, 0, 1]) - 1][0])
                  for im in (before, after_)]
        return {h: 0.9 if boards[0][i] != boards[1][i] else 0.03 for i, h in enumerate(HOLES)}

    return changes


def test_a_reopened_game_goes_on_past_a_pit_misread_on_every_view(make_app, recognizer, monkeypatch) -> None:
    # game_05 reopened at move 8 (rendered): a heap read 4 seeds high on every view, so no
    # view fitted a legal move, for want of a view of the logged board to compare with.
    # Here: 4 moves logged, the server restarted, b8 (empty) read as 4 on every view
    import webui.live

    monkeypatch.setattr(webui.live, "pit_changes", board_changes(recognizer))
    app = make_app(AUTO_CALIBRATE=False, RECOGNIZER=with_pits(recognizer))
    client = app.test_client()
    live = app.extensions["bao_live"]
    played, logged = four_moves()
    assert board_vector(logged.to_json())[B8] == 0
    live.confirm(played)
    live.open_game(live.game_id)  # as after a restart: no view of the logged board seen yet
    state = post_still(client, recognizer, logged, misread={"b8": 4}).get_json()
    # the view is flagged (nothing logged), as b8 says 4 where the log has 0 ...
    assert state["verdict"]["status"] == "unexplained" and state["ply"] == 4
    assert "b8 0→4" in state["verdict"]["message"]
    # ... but taken as the logged board for the change maps: the next view's move is logged,
    # b8 being seen untouched since (before: unexplained, and every view after it)
    nxt = logged.copy()
    move = next(m for m in nxt.legal_moves if board_vector(nxt.play(m)[0].to_json())[B8] == 0)
    nxt.push(move)
    state = post_still(client, recognizer, nxt, misread={"b8": 4}).get_json()
    assert state["verdict"]["status"] == "accepted" and [m["move"] for m in state["moves"]][4:] == [
        logged.notation(move)]


def test_a_first_view_closest_to_a_move_is_not_taken_as_the_logged_board(make_app, recognizer,
                                                                         monkeypatch) -> None:
    # the first view after the restart shows a move made meanwhile, with b8 misread: it
    # fits that move better than no move, so it is no view of the logged board, and the
    # change maps get no reference from it (LiveReferee._as_logged)
    import webui.live

    monkeypatch.setattr(webui.live, "pit_changes", board_changes(recognizer))
    app = make_app(AUTO_CALIBRATE=False, RECOGNIZER=with_pits(recognizer))
    client = app.test_client()
    live = app.extensions["bao_live"]
    played, logged = four_moves()
    live.confirm(played)
    live.open_game(live.game_id)
    nxt = logged.copy()
    move = next(m for m in nxt.legal_moves if board_vector(nxt.play(m)[0].to_json())[B8] == 0)
    nxt.push(move)
    state = post_still(client, recognizer, nxt, misread={"b8": 4}).get_json()
    assert state["verdict"]["status"] == "unexplained" and state["ply"] == 4
    assert f"closest: {logged.notation(move)}" in state["verdict"]["message"]
    assert live._reference is None
