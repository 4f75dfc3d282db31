"""Game records (engine/record.py): appendix text format, JSON, lenient reading, replay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import BaoError, Position
from engine.record import (
    GameRecord,
    RecordMove,
    from_json,
    read_record,
    read_text,
    replay,
    to_json,
    write_text,
)

GAME = """\
Event: club evening
South: Ali
North: Juma

1: A6<* a6<; North captures at once
2: A4>;
"""


def test_read_appendix_format() -> None:
    record, errors = read_text(GAME)
    assert errors == []
    assert record.headers == {"Event": "club evening", "South": "Ali", "North": "Juma"}
    assert [m.text for m in record.moves] == ["A6<*", "a6<", "A4>"]
    assert [m.line for m in record.moves] == [5, 5, 6]
    assert record.comments == {1: "North captures at once"}
    assert record.start is None


def test_write_then_read_round_trip() -> None:
    record, _ = read_text(GAME)
    assert write_text(record) == GAME
    again, errors = read_text(write_text(record))
    assert errors == [] and to_json(again) == to_json(record)


def test_line_breaks_in_headers_and_comments_are_written_as_spaces() -> None:
    # a name typed with a line break (or a JSON record's header holding one) split its
    # line: the rest read as a move pair or an unreadable line, and the record as bad
    record = GameRecord(headers={"South": "Ali\n3: A1<;", "North": "Ju\r\nma", "Event": "a\u2028b"},
                        moves=[RecordMove("A6<*")], comments={1: "first\nmove"})
    text = write_text(record)
    assert text.splitlines()[:3] == ["South: Ali 3: A1<;", "North: Ju ma", "Event: a b"]
    again, errors = read_text(text)
    assert errors == []
    assert again.headers == {"South": "Ali 3: A1<;", "North": "Ju ma", "Event": "a b"}
    assert [m.text for m in again.moves] == ["A6<*"] and again.comments == {1: "first move"}
    assert write_text(again) == text


def test_json_round_trip() -> None:
    record, _ = read_text(GAME)
    obj = to_json(record)
    assert obj["moves"] == ["A6<*", "a6<", "A4>"]
    assert to_json(from_json(json.dumps(obj))) == obj


def test_architecture_game_file_reads_as_a_record() -> None:
    game = {"start": Position.start().to_json(), "moves": ["A6<*", "a6<"], "frames": []}
    record = from_json(game)
    assert replay(record).final.to_move == "south"


def test_start_header_and_north_first() -> None:
    start, _ = Position.start().play("A6<")
    record = GameRecord.from_game(start, ["a6<", "A4>"])
    text = write_text(record)
    assert text.splitlines()[0] == f"Start: {start.to_text()}"
    assert "1: ... a6<;" in text and "2: A4>;" in text
    back, errors = read_text(text)
    assert errors == []
    assert replay(back).error is None


def test_lenient_reader_collects_errors() -> None:
    text = "Event: x\n1: A6<* a6<;\n3: A4>;\nthis is not a record line\n4: A1 A2 A3;\n"
    record, errors = read_text(text)
    assert [(e.line, e.message.split(",")[0]) for e in errors] == [
        (3, "move pair numbered 3"),
        (4, "cannot read line 'this is not a record line'"),
        (5, "expected 'N: SOUTH NORTH;'"),
    ]
    assert [m.text for m in record.moves] == ["A6<*", "a6<", "A4>"]


def test_replay_reports_the_first_bad_move_with_its_line() -> None:
    record, _ = read_text("1: A6<* a6<;\n2: A7>*;\n3: A1<;\n")
    result = replay(record)
    assert result.error is not None
    assert result.error.line == 2
    assert str(result.error).startswith("line 2: illegal move 'A7>*'")
    assert len(result.positions) == 3  # start and after each good move
    unreadable, _ = read_text("1: A6<* a6<;\n2: Q4>;\n")
    assert str(replay(unreadable).error).startswith("line 2: invalid move 'Q4>'")


def test_replay_golden_game_result() -> None:
    golden = json.loads((Path(__file__).parents[1] / "data/engine/golden_game.json").read_text())
    record = GameRecord.from_game(Position.start(), [p["played"] for p in golden["plies"]])
    result = replay(read_text(write_text(record))[0])
    assert result.error is None
    assert result.final.to_text() == golden["final"]
    assert result.outcome.to_json() == golden["outcome"]


def test_read_record_files(tmp_path: Path) -> None:
    text_file = tmp_path / "g.txt"
    text_file.write_text(GAME)
    json_file = tmp_path / "g.json"
    json_file.write_text(json.dumps(to_json(read_text(GAME)[0])))
    assert to_json(read_record(text_file)[0]) == to_json(read_record(json_file)[0])
    bad = tmp_path / "bad.json"
    bad.write_text('{"moves": [1, 2]}')
    with pytest.raises(BaoError, match="list of move texts"):
        read_record(bad)


def test_record_move_defaults() -> None:
    assert RecordMove("A6<*").line == 0
