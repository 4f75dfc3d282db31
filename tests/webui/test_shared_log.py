"""Several servers sharing one game log: a game is live in one of them only, and a live game
changed or deleted by another program is resynced, never a server error."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from live_frames import post_still

from engine import Position
from webui.store import LIVE_LEASE_S, GameChanged, GameGone, GameLiveElsewhere, GameStore


@pytest.fixture
def other_process() -> Iterator[int]:
    """The pid of another process running on this machine (a second server, as far as
    the game log can tell)."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        yield proc.pid
    finally:
        proc.kill()
        proc.wait()


def held_by(store: GameStore, game_id: int, pid: int, host: str | None = None, seen: float | None = None) -> None:
    """The live-games row another server would have written for ``game_id``."""
    store._conn.execute(
        "INSERT OR REPLACE INTO live (game_id, holder, host, pid, seen) VALUES (?, 'other', ?, ?, ?)",
        (game_id, host or socket.gethostname(), pid, time.time() if seen is None else seen))


def first_move(position: Position) -> Position:
    """The position after the first legal move."""
    after = position.copy()
    after.push(after.legal_moves[0])
    return after


def test_a_game_live_in_another_running_server_is_neither_claimed_nor_deleted(tmp_path, other_process) -> None:
    store = GameStore(f"sqlite:///{tmp_path / 'g.sqlite'}")
    game = store.create_game(Position.start().to_json())
    held_by(store, game, other_process)
    with pytest.raises(GameLiveElsewhere, match=rf"game {game} is live in the server of process {other_process}"):
        store.claim(game, "me")
    with pytest.raises(GameLiveElsewhere, match="before deleting it"):
        store.delete_game(game, holder="me")
    assert store.get(game).id == game  # not deleted
    assert store.latest_unfinished("me") is None  # not resumed by a server starting
    assert store.latest_unfinished() == game  # (nobody asking: any game)


def test_a_game_held_by_a_process_that_stopped_is_free(tmp_path) -> None:
    store = GameStore(f"sqlite:///{tmp_path / 'g.sqlite'}")
    game = store.create_game(Position.start().to_json())
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()  # (its pid now names no process: a server that crashed or was stopped)
    held_by(store, game, proc.pid)
    assert game not in store.live_in_others("me")
    store.claim(game, "me")
    assert store.latest_unfinished("me") == game


def test_a_holder_on_another_host_counts_while_it_shows_life(tmp_path) -> None:
    store = GameStore(f"sqlite:///{tmp_path / 'g.sqlite'}")
    game = store.create_game(Position.start().to_json())
    held_by(store, game, 4242, host="other-host.invalid", seen=time.time() - 10)
    assert "other-host.invalid" in (store.live_in_others("me").get(game, ""))
    held_by(store, game, 4242, host="other-host.invalid", seen=time.time() - LIVE_LEASE_S - 5)
    assert game not in store.live_in_others("me")


def test_the_log_says_when_a_game_changed_under_its_writer(tmp_path) -> None:
    store = GameStore(f"sqlite:///{tmp_path / 'g.sqlite'}")
    game = store.create_game(Position.start().to_json())
    start = Position.start()
    row = (start.notation(start.legal_moves[0]), {}, first_move(start).to_json())
    store.append_moves(game, [row], "camera", 0)
    with pytest.raises(GameChanged, match="has 1 moves logged, expected 0"):
        store.append_moves(game, [row], "camera", 0)
    store.delete_game(game)
    with pytest.raises(GameGone, match=f"game {game} is no longer in the game log"):
        store.append_moves(game, [row], "camera", 1)
    with pytest.raises(GameGone):
        store.undo_last(game)
    with pytest.raises(KeyError):  # (what the callers of get() catch)
        store.get(game)


# -- two servers on one log (as two apps in this process) ----------------------------------
def two_servers(make_app: Any) -> tuple[Any, Any]:
    a = make_app(AUTO_CALIBRATE=False)
    b = make_app(AUTO_CALIBRATE=False)
    return a, b


def test_the_live_game_deleted_by_another_server_leaves_no_game_live_and_no_error(make_app, recognizer) -> None:
    a, b = two_servers(make_app)
    ca, cb = a.test_client(), b.test_client()
    game = ca.post("/api/live/new", json={}).get_json()["game_id"]
    start = Position.start()
    assert post_still(ca, recognizer, start).status_code == 200
    one = first_move(start)
    assert post_still(ca, recognizer, one).get_json()["ply"] == 1
    cb.post("/api/live/new", json={})  # b makes another game live, then deletes a's
    assert cb.delete(f"/api/games/{game}").status_code == 200

    state = ca.get("/api/live")
    assert state.status_code == 200
    body = state.get_json()
    assert body["game_id"] is None and body["moves"] == []
    assert f"game {game} is no longer in the game log" in body["problem"]
    # a view is read, not refereed, and the players' requests are refused by name
    two = first_move(one)
    view = post_still(ca, recognizer, two)
    assert view.status_code == 200 and view.get_json()["problem"].startswith("no game is live")
    for url, body in (("/api/live/undo", {}), ("/api/live/correct", {"counts": {"A1": 3}}),
                      ("/api/live/confirm", {"moves": ["A6<*"]})):
        answer = ca.post(url, json=body)
        assert answer.status_code == 409, url
        assert "no game is live" in answer.get_json()["error"]["message"]
    # and a new game goes on as usual
    new = ca.post("/api/live/new", json={}).get_json()["game_id"]
    assert post_still(ca, recognizer, start).status_code == 200
    assert post_still(ca, recognizer, one).get_json()["ply"] == 1
    assert [m.ply for m in a.extensions["bao_store"].get(new).moves] == [1]


def test_moves_logged_by_another_program_are_taken_up_not_overwritten(make_app, recognizer) -> None:
    a = make_app(AUTO_CALIBRATE=False)
    ca = a.test_client()
    store, live = a.extensions["bao_store"], a.extensions["bao_live"]
    game = ca.post("/api/live/new", json={}).get_json()["game_id"]
    start = Position.start()
    post_still(ca, recognizer, start)
    # another program (a scribe's tool sharing the log) logs the first move
    move = start.legal_moves[0]
    one = first_move(start)
    store.append_moves(game, [(start.notation(move), {"note": "scribe"}, one.to_json())], "players", 0)
    # this server's next view shows the move after it: it would log both from the start,
    # finds the log changed, logs nothing, and takes up the log's move
    two = first_move(one)
    result = post_still(ca, recognizer, two).get_json()
    assert [(m.ply, m.source) for m in store.get(game).moves] == [(1, "players")]
    assert live.ply == 1 and live.position.to_json() == one.to_json()
    assert f"game {game} was changed in the game log by another program" in result["problem"]
    assert result["verdict"]["status"] == "game_changed"
    # the view after is refereed from the log's position: one move, logged as second
    result = post_still(ca, recognizer, two).get_json()
    assert [(m.ply, m.source) for m in store.get(game).moves] == [(1, "players"), (2, "camera")]
    assert result["ply"] == len(result["moves"]) == 2


def test_a_server_starting_does_not_take_a_game_live_in_another_one(make_app, other_process) -> None:
    a = make_app(AUTO_CALIBRATE=False)
    store = a.extensions["bao_store"]
    game = a.extensions["bao_live"].game_id
    held_by(store, game, other_process)  # as if a's process were another one, still running
    b = make_app(AUTO_CALIBRATE=False)
    assert b.extensions["bao_live"].game_id not in (None, game)
    cb = b.test_client()
    refused = cb.post(f"/api/games/{game}/open")
    assert refused.status_code == 409
    assert f"process {other_process}" in refused.get_json()["error"]["message"]
    refused = cb.delete(f"/api/games/{game}")
    assert refused.status_code == 409 and "live in the server" in refused.get_json()["error"]["message"]


def test_a_restarted_server_takes_up_its_own_game(make_app) -> None:
    # the first server's process stopped (its row names a pid that no longer runs): the
    # game is resumed, as after any restart
    a = make_app(AUTO_CALIBRATE=False)
    store = a.extensions["bao_store"]
    game = a.extensions["bao_live"].game_id
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    held_by(store, game, proc.pid)
    b = make_app(AUTO_CALIBRATE=False)
    assert b.extensions["bao_live"].game_id == game
    assert os.getpid() != proc.pid


def test_the_page_shows_moves_another_program_logged_or_took_back(make_app) -> None:
    a = make_app(AUTO_CALIBRATE=False)
    ca = a.test_client()
    store = a.extensions["bao_store"]
    game = ca.post("/api/live/new", json={}).get_json()["game_id"]
    start = Position.start()
    store.append_moves(game, [(start.notation(start.legal_moves[0]), {}, first_move(start).to_json())], "players", 0)
    state = ca.get("/api/live").get_json()
    assert state["game_id"] == game and state["ply"] == 1 and len(state["moves"]) == 1
    assert state["position"] == first_move(start).to_json()
    assert "changed in the game log by another program" in state["problem"]
    store.undo_last(game)
    state = ca.get("/api/live").get_json()
    assert state["ply"] == 0 and state["moves"] == [] and state["position"] == start.to_json()


def test_the_games_list_says_which_games_are_live_and_where(make_app, other_process) -> None:
    a = make_app(AUTO_CALIBRATE=False)
    store = a.extensions["bao_store"]
    here = a.extensions["bao_live"].game_id
    there = store.create_game(Position.start().to_json(), "Asha", "Baraka")
    idle = store.create_game(Position.start().to_json())
    held_by(store, there, other_process)
    games = {g["id"]: g["live"] for g in a.test_client().get("/api/games").get_json()["games"]}
    assert games == {here: "here", there: f"the server of process {other_process} on this machine", idle: None}
    page = a.test_client().get("/games").get_data(as_text=True)
    assert f"live in the server of process {other_process}" in page and "live here" in page
    # "Continue live" is offered for the idle game only
    assert page.count('class="reopen"') == 1 and f'data-id="{idle}"' in page


def test_without_process_checks_a_holder_here_counts_while_it_shows_life(tmp_path, monkeypatch) -> None:
    # (Windows: os.kill(pid, 0) would send the other server a Ctrl-C, so it is not used)
    import webui.store

    monkeypatch.setattr(webui.store, "PID_CHECK", False)
    store = GameStore(f"sqlite:///{tmp_path / 'g.sqlite'}")
    game = store.create_game(Position.start().to_json())
    held_by(store, game, 4242, seen=time.time() - 10)
    assert "process 4242 on this machine (last seen 10 s ago)" in (store.live_in_others("me").get(game, ""))
    held_by(store, game, 4242, seen=time.time() - LIVE_LEASE_S - 5)
    assert game not in store.live_in_others("me")
