"""``bao recognize`` and ``bao calibrate``: output contract and error cases (exit 2)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from drawn import blob_counter, default_corners, draw_scene, png_claiming

import vision.pipeline
from vision.holes import START_COUNTS
from webui.cli import main


@pytest.fixture
def blob_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vision.pipeline, "_default_counter",
                        lambda crops, look, views, nyumba_views, recheck=None: [blob_counter(c) for c in crops])


@pytest.fixture
def start_jpg(tmp_path):
    scene = draw_scene(START_COUNTS, default_corners((960, 540), 4, 0.1, 0.75), size=(960, 540), seed=11)
    path = tmp_path / "start.jpg"
    cv2.imwrite(str(path), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    return path


def test_recognize_json(blob_count, start_jpg, capsys) -> None:
    assert main(["recognize", str(start_jpg), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["position"]["south"]["front"] == [0, 0, 0, 0, 6, 2, 2, 0]
    assert out["position"]["north"]["back"] == [0] * 8
    assert set(out["timings_ms"]) == {"locate", "rectify", "grid", "count", "decode"}


def test_recognize_text(blob_count, start_jpg, capsys) -> None:
    assert main(["recognize", str(start_jpg)]) == 0
    text = capsys.readouterr().out
    assert "total on board 20" in text


def test_missing_file_exits_2(tmp_path, capsys) -> None:
    assert main(["recognize", str(tmp_path / "nope.jpg")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_non_image_exits_2(tmp_path, capsys) -> None:
    p = tmp_path / "notes.jpg"
    p.write_text("not a picture")
    assert main(["recognize", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bao: error:") and "not an image" in err
    assert main(["recognize", str(tmp_path)]) == 2  # a directory


def test_image_without_board_exits_2(tmp_path, capsys) -> None:
    p = tmp_path / "table.png"
    rng = np.random.default_rng(1)
    cv2.imwrite(str(p), np.clip(rng.normal(140, 25, (360, 640, 3)), 0, 255).astype(np.uint8))
    assert main(["recognize", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"bao: error: {p}: no Bao board found")
    assert main(["calibrate", str(p), "--south", "bottom"]) == 2
    err = capsys.readouterr().err
    assert "no Bao board found" in err and "--corners" in err


def test_bad_profile_exits_2(tmp_path, start_jpg, capsys) -> None:
    prof = tmp_path / "p.json"
    prof.write_text('{"image_size": [960, 540]}')
    assert main(["recognize", str(start_jpg), "--calibration", str(prof)]) == 2
    assert "corners_px" in capsys.readouterr().err


def test_json_nested_too_deeply_is_named_bad_input(tmp_path, start_jpg, capsys) -> None:
    # a profile or position thousands of brackets deep (before: a RecursionError traceback)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000)
    assert main(["recognize", str(start_jpg), "--calibration", str(deep)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"bao: error: {deep}: ") and "nested too deeply" in err
    deep.write_text('{"south":' * 200_000)
    assert main(["calibrate", str(start_jpg), "--south", "bottom", "--position", str(deep)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bao: error: --position:") and f"{deep}: not JSON" in err
    assert "nested too deeply" in err


def test_a_profile_or_position_that_is_no_utf8_text_is_named(tmp_path, start_jpg, capsys) -> None:
    # (before: "'utf-8' codec can't decode byte 0xff ...", naming no file)
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe{}")
    assert main(["recognize", str(start_jpg), "--calibration", str(binary)]) == 2
    assert capsys.readouterr().err == f"bao: error: {binary}: not a profile: not UTF-8 text (a profile is JSON)\n"
    assert main(["calibrate", str(start_jpg), "--south", "bottom", "--position", str(binary)]) == 2
    assert f"{binary}: not UTF-8 text" in capsys.readouterr().err


def test_calibrate_then_recognize_with_profile(blob_count, start_jpg, tmp_path, capsys) -> None:
    out = tmp_path / "prof.json"
    assert main(["calibrate", str(start_jpg), "--south", "bottom", "--out", str(out)]) == 0
    prof = json.loads(out.read_text())
    assert prof["south_side"] == "bottom" and prof["seed_look"] is not None
    assert main(["recognize", str(start_jpg), "--calibration", str(out), "--json"]) == 0
    res = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert res["position"]["north"]["front"] == [0, 0, 0, 0, 6, 2, 2, 0]
    assert res["timings_ms"]["locate"] < 5  # corners come from the profile


def test_calibrate_rejects_bad_corners(start_jpg, capsys) -> None:
    assert main(["calibrate", str(start_jpg), "--south", "top", "--corners", "1,2;3"]) == 2
    assert "--corners" in capsys.readouterr().err


def test_image_too_small_for_a_board_exits_2_naming_the_file(tmp_path, capsys) -> None:
    p = tmp_path / "strip.png"
    cv2.imwrite(str(p), np.zeros((1, 600, 3), np.uint8))
    for argv in (["recognize", str(p)], ["calibrate", str(p), "--south", "bottom"]):
        assert main(argv) == 2
        assert capsys.readouterr().err.startswith(f"bao: error: {p}: image too small to hold a board: 600x1")


@pytest.mark.parametrize("shape", [(60000, 40), (40, 60000)])
def test_image_too_thin_for_a_board_exits_2_naming_the_file(tmp_path, capsys, shape) -> None:
    # the board search's copies (long side 480 px) of such an image have no short side
    # left: an OpenCV error from cv2.resize before
    p = tmp_path / "thin.png"
    cv2.imwrite(str(p), np.zeros((*shape, 3), np.uint8))
    for argv in (["recognize", str(p)], ["calibrate", str(p), "--south", "bottom"]):
        assert main(argv) == 2
        assert capsys.readouterr().err.startswith(
            f"bao: error: {p}: image too thin to hold a board: {shape[1]}x{shape[0]} (its long side more than 15")


def test_an_image_claiming_too_many_pixels_exits_2_naming_the_file(tmp_path, capsys) -> None:
    # OpenCV raises cv2.error, not None, for a header past its 2**30 pixels (a traceback before)
    p = tmp_path / "huge.png"
    p.write_bytes(png_claiming(100_000, 100_000))
    for argv in (["recognize", str(p)], ["count-pit", str(p)], ["calibrate", str(p), "--south", "bottom"]):
        assert main(argv) == 2
        assert capsys.readouterr().err.startswith(f"bao: error: {p}: an image OpenCV cannot decode")


def test_count_pit_reads_a_crop_smaller_than_a_board_could_be(tmp_path, capsys) -> None:
    # a webcam's crop of one pit may be small; only a board needs 32 px
    p = tmp_path / "pit.png"
    cv2.imwrite(str(p), np.full((24, 24, 3), 90, np.uint8))
    assert main(["count-pit", str(p), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["probabilities"]) == 41 and 0 <= out["count"] <= 40


def test_recognize_debug_writes_the_photo_with_the_counts_drawn(blob_count, start_jpg, tmp_path, capsys) -> None:
    out = tmp_path / "read.png"
    assert main(["recognize", str(start_jpg), "--json", "--debug", str(out)]) == 0
    res = json.loads(capsys.readouterr().out)
    drawn = cv2.imread(str(out))
    photo = cv2.imread(str(start_jpg))
    assert drawn.shape == photo.shape
    # the counts are drawn at the pit centres the reading found: the nyumba's 6 changes its pixels
    x, y = (int(v) for v in vision.pipeline.recognize(photo).pit_centers_px["A5"])
    assert res["position"]["south"]["front"][4] == 6
    assert np.abs(drawn[y - 10:y + 10, x - 12:x + 12].astype(int)
                  - photo[y - 10:y + 10, x - 12:x + 12].astype(int)).sum() > 0


def test_recognize_debug_path_checked_before_reading(start_jpg, tmp_path, capsys) -> None:
    assert main(["recognize", str(start_jpg), "--debug", str(tmp_path / "no" / "x.png")]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert main(["recognize", str(start_jpg), "--debug", str(tmp_path / "x.txt")]) == 2
    assert ".png or .jpg" in capsys.readouterr().err


def test_calibrate_from_the_position_a_photo_shows(tmp_path, capsys) -> None:
    # --position: a mid-game photo with its position (here the label of a committed game
    # frame, which read_position_arg takes as it takes a position file); the photo's own
    # counts teach the look, and a position that cannot is refused by name
    from samples import GAMES

    frame = GAMES / "game_01" / "frame_010.jpg"
    label = json.loads(frame.with_suffix(".json").read_text())
    out = tmp_path / "mid.json"
    argv = ["calibrate", str(frame), "--south", label["south_side"], "--out", str(out)]
    assert main([*argv, "--position", str(frame.with_suffix(".json"))]) == 0
    prof = json.loads(out.read_text())
    off = [np.hypot(*np.subtract(prof["pit_centers_px"][n], label["pit_centers_px"][n])) for n in label["pit_centers_px"]]
    assert prof["south_side"] == label["south_side"] and max(off) < 8.0
    capsys.readouterr()
    assert main([*argv, "--position", "nonsense"]) == 2
    assert capsys.readouterr().err.startswith("bao: error: --position: not a position (invalid position text")
    full = {side: {"front": [2] * 8, "back": [2] * 8, "reserve": 0, "nyumba_owned": False}
            for side in ("south", "north")} | {"to_move": "south"}
    assert main([*argv, "--position", json.dumps(full)]) == 2
    assert "needs an empty pit and a pit of 1 to 8 seeds" in capsys.readouterr().err
