"""``bao count-pit IMAGE [--json]``: output forms and error cases."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from drawn_pit import drawn_pit

from vision.count import count_pit
from webui.cli import main


def test_prints_most_likely_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "pit.png"
    crop = drawn_pit(3)
    cv2.imwrite(str(path), crop)
    assert main(["count-pit", str(path)]) == 0
    assert capsys.readouterr().out.strip() == str(count_pit(crop, views=8, broad=True).count)


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "pit.jpg"
    cv2.imwrite(str(path), drawn_pit(5), [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert main(["count-pit", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"count", "probabilities", "confidence"}
    assert out["count"] == count_pit(cv2.imread(str(path)), views=8, broad=True).count
    assert out["probabilities"].index(max(out["probabilities"])) == out["count"]
    assert len(out["probabilities"]) == 41
    assert sum(out["probabilities"]) == pytest.approx(1.0, abs=1e-4)
    assert 0.0 <= out["confidence"] <= 1.0


def test_views_option_is_passed_to_the_counter(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "pit.png"
    crop = drawn_pit(4, rng_seed=7)
    cv2.imwrite(str(path), crop)
    for views in (1, 8):
        assert main(["count-pit", str(path), "--json", "--views", str(views)]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["probabilities"] == pytest.approx(
            count_pit(crop, views=views, broad=True).probabilities.tolist(), abs=1e-6)


def test_networks_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Both networks by default; --networks board reads as bao recognize does (one network).
    path = tmp_path / "pit.png"
    crop = drawn_pit(3, rng_seed=9)
    cv2.imwrite(str(path), crop)
    got = {}
    for arg in ([], ["--networks", "board"], ["--networks", "both"]):
        assert main(["count-pit", str(path), "--json", *arg]) == 0
        got[tuple(arg)] = json.loads(capsys.readouterr().out)["probabilities"]
    assert got[()] == got[("--networks", "both")]
    assert got[("--networks", "board")] == pytest.approx(
        count_pit(crop, views=8).probabilities.tolist(), abs=1e-6)
    assert got[()] != pytest.approx(got[("--networks", "board")], abs=1e-4)
    with pytest.raises(SystemExit) as exc:
        main(["count-pit", str(path), "--networks", "all"])
    assert exc.value.code == 2 and "--networks" in capsys.readouterr().err


def test_views_out_of_range_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "pit.png"
    cv2.imwrite(str(path), drawn_pit(1))
    with pytest.raises(SystemExit) as exc:
        main(["count-pit", str(path), "--views", "9"])
    assert exc.value.code == 2
    assert "--views" in capsys.readouterr().err


def test_non_image_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "notes.png"
    path.write_text("not an image")
    assert main(["count-pit", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bao: error:") and "notes.png" in err


@pytest.mark.parametrize(("size", "words"), [((5, 40), "too small: 40x5"), ((10, 300), "300x10 is no crop of one pit")])
def test_a_crop_too_small_or_far_from_square_exits_2_naming_the_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], size: tuple[int, int], words: str) -> None:
    path = tmp_path / "strip.png"
    cv2.imwrite(str(path), np.full((*size, 3), 120, np.uint8))
    assert main(["count-pit", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"bao: error: {path}: pit crop") and words in err


def test_a_webcam_frame_with_the_pit_in_the_middle_is_read_from_its_centred_square(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pit = drawn_pit(4)
    n = pit.shape[0]
    frame = np.full((n, n * 16 // 9, 3), 90, np.uint8)  # a 16:9 frame, the pit centred
    x0 = (frame.shape[1] - n) // 2
    frame[:, x0:x0 + n] = pit
    path = tmp_path / "frame.png"
    cv2.imwrite(str(path), frame)
    assert main(["count-pit", str(path)]) == 0
    assert capsys.readouterr().out.strip() == str(count_pit(pit, views=8, broad=True).count)


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["count-pit", str(tmp_path / "nope.jpg")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_a_reader_that_stops_early_ends_the_command_quietly(tmp_path: Path) -> None:
    # bao count-pit PIT --json | head -c 1: the pipe closes before the count is written;
    # no "bao: error: [Errno 32] Broken pipe" and no traceback, status 141 (128 + SIGPIPE)
    import subprocess
    import sys

    path = tmp_path / "pit.png"
    cv2.imwrite(str(path), drawn_pit(2))
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from webui.cli import main; "
                             "sys.exit(main(sys.argv[1:]))", "count-pit", str(path), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader goes away before the command has printed anything
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert err == ""
