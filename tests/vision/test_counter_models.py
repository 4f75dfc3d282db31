"""benchmarks/counter_models.py: candidate counter networks compared on crop files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from drawn_pit import drawn_pit
from samples import load_benchmark

from vision.cnn import BROAD_MODEL_PATH, MODEL_PATH
from vision.count import count_pits


@pytest.fixture(scope="module")
def crops_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    counts = [0, 1, 3, 5, 2, 0]
    path = tmp_path_factory.mktemp("crops") / "crops.npz"
    np.savez(path, crops=np.stack([drawn_pit(n, rng_seed=k) for k, n in enumerate(counts)]),
             y=np.array(counts))
    return path


def test_count_pit_mode_reads_as_bao_count_pit_does(crops_file: Path) -> None:
    # the shipped second network given as the candidate: the same distributions as
    # count_pits(..., 8 views, broad=True), which bao count-pit runs
    mod = load_benchmark("counter_models")
    crops = np.load(crops_file)["crops"]
    got = mod.read_as_count_pit(BROAD_MODEL_PATH, crops)
    want = np.stack([r.probabilities for r in count_pits(list(crops), None, 8, broad=True)])
    np.testing.assert_allclose(got, want, atol=1e-9)
    # ... and another candidate (the board network in its place) reads otherwise
    assert np.abs(mod.read_as_count_pit(MODEL_PATH, crops) - want).max() > 1e-4


def test_results_name_the_mode_and_spoiling(crops_file: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    mod = load_benchmark("counter_models")
    out = tmp_path / "cm.json"
    assert mod.main(["--as", "count-pit", "--degrade", "webcam", "--models", str(BROAD_MODEL_PATH),
                     "--crops", str(crops_file), "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["as"] == "count-pit" and res["degrade"] == "webcam"
    row = res["sets"][str(crops_file)][str(BROAD_MODEL_PATH)]
    assert row["pits"] == 6 and 0.0 <= row["exact"] <= 1.0
    with pytest.raises(SystemExit):
        mod.main(["--degrade", "fog", "--models", str(MODEL_PATH), "--crops", str(crops_file),
                  "--out", str(out)])
    assert "invalid choice: 'fog'" in capsys.readouterr().err
