"""`bao moves`, `bao play`, `bao record check` (webui/commands/rules.py)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Position
from webui.cli import main

START_MOVES = ["A6<*", "A6>*", "A7<*", "A7>*"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_moves_start(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "moves", "start")
    assert status == 0
    assert out.splitlines() == START_MOVES
    status, out, _ = run(capsys, "moves", "start", "--json")
    assert json.loads(out) == START_MOVES


def test_moves_from_file_stdin_and_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    after, _ = Position.start().play("A6<")
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(after.to_json()))
    expected = ["a5<", "a5>", "a6<", "a6>"]
    assert run(capsys, "moves", str(path))[1].splitlines() == expected
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(after.to_json())))
    assert run(capsys, "moves", "-")[1].splitlines() == expected
    assert run(capsys, "moves", after.to_text())[1].splitlines() == expected


def test_play_prints_the_resulting_position(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "play", "start", "A6<", "a6<")
    assert status == 0 and err == ""
    expected = Position.start()
    expected.push("A6<")
    expected.push("a6<")
    assert json.loads(out) == expected.to_json()


def test_play_trace(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "play", "start", "A6<", "--trace")
    lines = out.splitlines()
    assert lines[0] == (
        "A6<*: reserve 1; drop A6 1; pickup A6 3; drop A5 1; drop A4 1; drop A3 1 "
        "-> last seed fell in an empty hole"
    )
    assert json.loads(lines[1])["to_move"] == "north"


@pytest.mark.parametrize(
    ("moves", "needle"),
    [
        (["A6<", "B3<"], "move 2 of 2 'B3<'"),
        (["A9<"], "move 1 of 1 'A9<': invalid move"),
        (["A6"], "ambiguous move 'A6'"),
        (["A5<"], "illegal move 'A5<'"),
    ],
)
def test_play_bad_move(capsys: pytest.CaptureFixture[str], moves: list[str], needle: str) -> None:
    status, out, err = run(capsys, "play", "start", *moves)
    assert status == 2
    assert out == ""
    assert err.startswith("bao: error: ") and needle in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("{not json", "not JSON"),
        ('{"south": 1}', "missing: north, to_move"),
        (json.dumps({**Position.start().to_json(), "to_move": "up"}), "to_move"),
        (
            json.dumps(
                {
                    **Position.start().to_json(),
                    "south": {
                        "front": [-1] + [0] * 7,
                        "back": [0] * 8,
                        "reserve": 0,
                        "nyumba_owned": False,
                    },
                }
            ),
            "cannot be negative",
        ),
        (
            json.dumps(
                {
                    **Position.start().to_json(),
                    "south": {
                        "front": [30] * 8,
                        "back": [0] * 8,
                        "reserve": 0,
                        "nyumba_owned": False,
                    },
                }
            ),
            "more than 64",
        ),
    ],
)
def test_bad_position_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, needle: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    for argv in (["moves", str(path)], ["play", str(path), "A6<"]):
        status, out, err = run(capsys, *argv)
        assert status == 2 and out == ""
        assert needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "moves", "no-such-file.json")
    assert status == 2 and "no position file" in err


def test_record_check(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    good = tmp_path / "game.txt"
    good.write_text("Event: test\n\n1: A6<* a6<;\n2: A4>;\n")
    status, out, _ = run(capsys, "record", "check", str(good))
    assert status == 0
    assert "3 moves replayed" in out and "result: not finished, north to move" in out
    status, out, _ = run(capsys, "record", "check", str(good), "--json")
    assert json.loads(out)["moves"] == ["A6<*", "a6<", "A4>"]

    bad = tmp_path / "bad.txt"
    bad.write_text("Event: test\n\n1: A6<* a6<;\n2: A5<* a5<;\n")
    status, out, err = run(capsys, "record", "check", str(bad))
    assert status == 2 and out == ""
    assert "line 4: illegal move 'A5<*'" in err


def test_bao_command_subprocess() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "webui.cli", "moves", "start"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout.splitlines() == START_MOVES
    bad = subprocess.run(
        [sys.executable, "-m", "webui.cli", "play", "start", "Q1<"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("bao: error: move 1 of 1 'Q1<'")
    # a CommandError of a command module (under -m, this module is __main__, whose
    # CommandError is another class: a traceback and exit status 1 before)
    bad = subprocess.run(
        [sys.executable, "-m", "webui.cli", "render", "--count", "0", "--out", "x"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2
    assert bad.stderr == "bao: error: --count must be positive, got 0\n"


def test_binary_and_bad_record_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    binary = tmp_path / "photo.json"
    binary.write_bytes(bytes(range(128, 256)))
    status, out, err = run(capsys, "moves", str(binary))
    assert status == 2 and out == "" and "photo.json: not a text file" in err
    status, out, err = run(capsys, "record", "check", str(binary))
    assert status == 2 and "not a text file" in err
    bad_start = tmp_path / "game.json"
    bad_start.write_text(json.dumps({"start": {"south": 3}, "moves": []}))
    status, out, err = run(capsys, "record", "check", str(bad_start))
    assert status == 2 and "game.json: invalid position" in err
    status, out, err = run(capsys, "record", "check", str(tmp_path / "missing.txt"))
    assert status == 2 and "missing.txt" in err


def test_json_nested_too_deeply_is_named_bad_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # thousands of brackets made Python's JSON parser raise RecursionError: a traceback
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000)
    record = tmp_path / "record.json"
    record.write_text('{"moves":' * 200_000)
    for argv, path in ((["moves", str(deep)], deep), (["play", str(deep), "A6<"], deep),
                       (["record", "check", str(record)], record)):
        status, out, err = run(capsys, *argv)
        assert status == 2 and out == ""
        assert err.startswith(f"bao: error: {path}: ") and "nested too deeply" in err
        assert err.count("\n") == 1
