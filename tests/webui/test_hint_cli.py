"""``bao hint`` and ``bao match`` (webui/commands/hint.py)."""

from __future__ import annotations

import io
import json

import pytest

from engine import Position
from webui.cli import main

# South to move wins at once with A3> (worked out in tests/engine/test_search.py).
WIN_IN_1 = {
    "south": {"front": [1, 0, 2, 0, 1, 0, 0, 0], "back": [0] * 8, "reserve": 0,
              "nyumba_owned": False},
    "north": {"front": [0, 0, 0, 2, 0, 0, 0, 1], "back": [1, 1, 0, 0, 0, 0, 0, 0], "reserve": 0,
              "nyumba_owned": False},
    "to_move": "south",
    "blocked": None,
}  # fmt: skip


def test_hint_json_has_exactly_the_documented_keys(capsys):
    assert main(["hint", "start", "--time", "0.2", "--top", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["move", "evaluation", "pv", "alternatives", "nodes", "time_s"]
    start = Position.start()
    legal = {start.notation(m) for m in start.legal_moves}
    assert data["move"] in legal  # full notation, e.g. "A6<*"
    assert data["pv"][0] == data["move"]
    assert len(data["alternatives"]) == 2
    for alt in data["alternatives"]:
        assert list(alt) == ["move", "evaluation"]
        assert alt["move"] in legal and alt["move"] != data["move"]
        assert alt["evaluation"] <= data["evaluation"]
    assert isinstance(data["nodes"], int) and data["nodes"] > 0
    assert 0 < data["time_s"] <= 0.3


def test_hint_reads_a_file_and_reports_a_proven_win(tmp_path, capsys):
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(WIN_IN_1))
    assert main(["hint", str(path), "--time", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "South to move: A3>" in out
    assert "South wins in 1" in out


def test_hint_reads_standard_input(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(WIN_IN_1)))
    assert main(["hint", "-", "--time", "0.3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["move"] == "A3>"
    assert data["evaluation"] > 9000  # a proven win scores WIN_SCORE minus the plies


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["hint", "no-such-file.json"], "no such file"),
        (["hint", "start", "--time", "0"], "--time must be positive"),
        # (inf searched for ever; here --nodes would end it, were it not refused)
        (["hint", "start", "--time", "inf", "--nodes", "1000"], "--time must be positive and finite, got inf"),
        (["hint", "start", "--top", "-1"], "--top must be >= 0"),
        # (too large for the search's int64 node count: an OverflowError traceback before)
        (["hint", "start", "--time", "0.05", "--nodes", str(10**29)], "--nodes must be at most 9223372036854775807"),
        (["match", "--south", "ai:n" + "9" * 23, "--north", "random", "--games", "1"],
         "player 'ai:n99999999999999999999999': at most 9223372036854775807 nodes a move"),
        (["match", "--south", "wizard", "--north", "random", "--games", "2"], "unknown player"),
        (["match", "--south", "random", "--north", "random", "--games", "0"], "--games"),
    ],
)
def test_bad_input_is_a_one_line_error(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("bao: error:") and message in err


def test_a_position_file_that_is_no_utf8_text_is_named(tmp_path, capsys):
    # (before: "'utf-8' codec can't decode byte 0xff ...", naming no file)
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe{}")
    assert main(["hint", str(binary)]) == 2
    assert capsys.readouterr().err == f"bao: error: position from {binary} is not JSON: not UTF-8 text\n"


def test_hint_on_a_finished_game_is_an_error(tmp_path, capsys):
    over = json.loads(json.dumps(WIN_IN_1))
    over["north"]["front"] = [0] * 8  # North's front row is empty: the game is over (1.1)
    path = tmp_path / "over.json"
    path.write_text(json.dumps(over))
    assert main(["hint", str(path)]) == 2
    assert "game is over" in capsys.readouterr().err


def test_match_prints_the_score_with_an_interval(capsys):
    argv = ["match", "--south", "greedy", "--north", "random", "--games", "4", "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 4
    assert data["a_wins"] + data["b_wins"] + data["unfinished"] == 4
    lo, hi = data["ci95"]
    assert 0.0 <= lo <= data["a_score"] <= hi <= 1.0


def test_match_text_output_alternates_sides(capsys):
    assert main(["match", "--south", "ai:n300", "--north", "random", "--games", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("game 1: ai:n300 (S) vs random (N)")
    assert out[1].startswith("game 2: random (S) vs ai:n300 (N)")
    assert "95% CI" in out[-1]


def test_match_accepts_white_and_black_as_first_and_second_mover(capsys):
    # South moves first in Bao (2.1.1), so --white names South and --black North.
    assert main(["match", "--white", "greedy", "--black", "random", "--games", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("game 1: greedy (S) vs random (N)")


def test_json_nested_too_deeply_is_named_bad_input(tmp_path, capsys):
    # (before: a RecursionError traceback from the JSON parser)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000)
    for argv in (["hint", str(deep)],
                 ["match", "--south", f"ai:0.01@{deep}", "--north", "random", "--games", "1"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("bao: error:") and str(deep) in err and "nested too deeply" in err
