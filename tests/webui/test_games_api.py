"""The JSON API of the game log with Flask's test client: undo, new game, export and import
of records, reopening a game and its replay, and the store replacing the last moves."""

from __future__ import annotations

import pytest
from live_frames import START, after, post_still


def test_undo_and_new_game(client, recognizer) -> None:
    post_still(client, recognizer, after("A6<*"))
    state = client.post("/api/live/undo").get_json()
    assert state["ply"] == 0 and state["position"] == START.to_json()
    assert client.post("/api/live/undo").status_code == 409
    r = client.post("/api/live/new", json={"south": "Ali", "north": "Juma"})
    assert r.status_code == 201 and r.get_json()["game_id"] == 2
    games = client.get("/api/games").get_json()["games"]
    assert [g["id"] for g in games] == [2, 1]
    assert games[0]["south"] == "Ali"


def test_export_record_and_json_and_import_back(client, recognizer) -> None:
    post_still(client, recognizer, after("A6<*"))
    text = client.get("/api/games/1/export?format=record").get_data(as_text=True)
    assert "South: South" in text and "1: A6<*;" in text
    data = client.get("/api/games/1/export?format=json").get_json()
    assert data["moves"] == ["A6<*"]
    assert data["log"][0]["verdict"]["notation"] == "A6<*"
    assert client.get("/api/games/1/export?format=pdf").status_code == 400

    r = client.post("/api/games/import", data=text, content_type="text/plain")
    assert r.status_code == 201
    new_id = r.get_json()["id"]
    game = client.get(f"/api/games/{new_id}").get_json()
    assert [m["move"] for m in game["moves"]] == ["A6<*"] and game["moves"][0]["source"] == "import"


def test_a_name_with_a_line_break_is_exported_on_one_line_and_imports_back(client) -> None:
    # (the break split the header line: the exported record did not import)
    game_id = client.post("/api/live/new", json={"south": "Ali\n3: A1<;", "north": "Juma"}).get_json()["game_id"]
    text = client.get(f"/api/games/{game_id}/export").get_data(as_text=True)
    assert text.startswith("South: Ali 3: A1<;\nNorth: Juma\n")
    r = client.post("/api/games/import", data=text, content_type="text/plain")
    assert r.status_code == 201 and r.get_json()["south"] == "Ali 3: A1<;"


def test_import_rejects_illegal_records(client) -> None:
    r = client.post("/api/games/import", data="1: A1< a6<*;\n", content_type="text/plain")
    assert r.status_code == 400 and "A1<" in r.get_json()["error"]["message"]
    r = client.post("/api/games/import", data="", content_type="text/plain")
    assert r.status_code == 400
    start = "A:0,0,0,0,6,2,2,0 B:0,0,0,0,0,0,0,0 a:0,0,0,0,6,2,2,² b:0,0,0,0,0,0,0,0 reserve:22,22 nyumba:SN move:S"
    r = client.post("/api/games/import", data=f"Start: {start}\n\n1: A6<*;\n", content_type="text/plain")
    assert r.status_code == 400 and "a: needs 8 whole numbers" in r.get_json()["error"]["message"]
    assert "('²' is not a count)" in r.get_json()["error"]["message"]  # (not "invalid literal for int()")
    assert len(client.get("/api/games").get_json()["games"]) == 1


def test_reopen_game_and_replay_data(client, recognizer) -> None:
    post_still(client, recognizer, after("A6<*"))
    client.post("/api/live/new", json={})
    state = client.post("/api/games/1/open").get_json()
    assert state["game_id"] == 1 and state["ply"] == 1
    replay = client.get("/api/games/1/replay").get_json()
    step = replay["moves"][0]
    assert step["move"] == "A6<*" and step["before"] == START.to_json()
    kinds = [s["kind"] for s in step["trace"]["steps"]]
    assert kinds[0] == "reserve" and kinds.count("drop") == 4  # reserve seed into A6, then A5, A4, A3
    assert client.get("/games/1").status_code == 200
    assert client.get("/games/77").status_code == 404


def test_exported_record_comments_fall_on_the_pair_of_the_move_remarked() -> None:
    # A game starting with North to move: its record's first pair is "... <North's move>",
    # so South's next move opens pair 2, and its remark (the referee's note) goes there;
    # the record reads back, comments and all
    from engine import record as records
    from webui.games import to_record
    from webui.store import GameStore

    db = GameStore("sqlite://:memory:")
    start = after("A6<*")
    game_id = db.create_game(start.to_json(), "S", "N", None)
    north = start.notation(start.legal_moves[0])
    mid = after("A6<*", north)
    south = mid.notation(mid.legal_moves[0])
    rows = [(north, {"notation": north}, mid.to_json()),
            (south, {"notation": south, "note": "accepted though 1 view(s) on the way fitted no legal move"},
             after("A6<*", north, south).to_json())]
    db.append_moves(game_id, rows, "camera", 0)
    record = to_record(db.get(game_id))
    assert record.comments == {2: f"{south}: accepted though 1 view(s) on the way fitted no legal move"}
    text = records.write_text(record)
    assert f"1: ... {north};\n" in text and f"2: {south}; {south}: accepted though" in text
    back, problems = records.read_text(text)
    assert not problems and [m.text for m in back.moves] == [north, south] and back.comments == record.comments


def test_json_export_imports_back(client, recognizer) -> None:
    post_still(client, recognizer, after("A6<*"))
    mid = after("A6<*")
    second = mid.notation(mid.legal_moves[0])
    post_still(client, recognizer, after("A6<*", second))
    exported = client.get("/api/games/1/export?format=json").get_data(as_text=True)
    r = client.post("/api/games/import", data=exported, content_type="application/json")
    assert r.status_code == 201
    game = client.get(f"/api/games/{r.get_json()['id']}").get_json()
    assert [m["move"] for m in game["moves"]] == ["A6<*", second]
    assert game["moves"][-1]["position"] == after("A6<*", second).to_json()


def test_the_last_moves_are_replaced_in_one_transaction() -> None:
    # The referee revising its own reading (webui.verdicts.VerdictMixin._revise): the
    # moves replaced are returned, the new ones follow the moves kept, and a count of
    # moves other than the caller's, or more moves to replace than are logged, writes
    # nothing
    from webui.store import GameStore

    db = GameStore("sqlite://:memory:")
    game_id = db.create_game(after().to_json(), "S", "N", None)
    first = after().notation(after().legal_moves[0])
    played = [first]
    for _ in range(2):
        pos = after(*played)
        played.append(pos.notation(pos.legal_moves[0]))
    db.append_moves(game_id, [(m, {"notation": m}, after(*played[:i + 1]).to_json())
                              for i, m in enumerate(played)], "camera", 0)
    other = after(first).notation(after(first).legal_moves[-1])
    assert other != played[1]
    row = (other, {"notation": other, "note": "revised"}, after(first, other).to_json())
    with pytest.raises(ValueError, match="has 3 moves logged, expected 2"):
        db.replace_moves(game_id, 2, [row], "camera", 2)
    with pytest.raises(ValueError, match="cannot replace 4 of 3"):
        db.replace_moves(game_id, 4, [row], "camera", 3)
    assert [m.notation for m in db.get(game_id).moves] == played
    assert db.replace_moves(game_id, 2, [row], "camera", 3) == played[1:]
    moves = db.get(game_id).moves
    assert [m.notation for m in moves] == [first, other]
    assert moves[1].verdict["note"] == "revised" and moves[1].position == after(first, other).to_json()
