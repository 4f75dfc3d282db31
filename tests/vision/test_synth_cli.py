"""``bao render`` / ``bao render-game`` argument errors (no rendering)."""

from __future__ import annotations

import pytest

from webui.cli import main


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["render", "--count", "0", "--out", "x"], "--count must be positive"),
        (["render", "--count", "2", "--out", "x", "--samples", "0"], "--samples must be positive"),
        (["render", "--count", "2", "--out", "x", "--start", "-1"], "--start must be >= 0"),
        (["render", "--count", "2", "--out", "x", "--scale", "5"], "--scale must be"),
        (["render", "--count", "2", "--out", "x", "--seed-kinds", "komwe,marble"],
         "unknown seed kind 'marble'"),
        (["render", "--count", "2", "--out", "x", "--seed-size", "0.4", "0.2"], "LO <= HI"),
        (["render", "--count", "2", "--out", "x", "--woods", "pale,oak"],
         "--woods/--tables: unknown wood 'oak'"),
        (["render", "--count", "2", "--out", "x", "--tables", "tiles,grass"],
         "--woods/--tables: unknown table 'grass'"),
        (["render", "--count", "2", "--out", "x", "--woods", ","], "woods: give at least one"),
        (["render", "--count", "2", "--out", "x", "--fill", "0.5", "1.2"], "--fill: fill must be"),
        (["render", "--count", "2", "--out", "x", "--elevation", "10", "50"],
         "--elevation/--thickness: elevation must be"),
        (["render", "--count", "2", "--out", "x", "--thickness", "0.1", "0.05"],
         "--elevation/--thickness: thickness must be"),
        (["render", "--count", "2", "--out", "x", "--hand-share", "1.5"],
         "--hand-share: the share of boards with a hand must be from 0 to 1"),
        (["render", "--count", "2", "--out", "x", "--turn", "30", "100"],
         "--turn: turn must be two angles"),
        (["render", "--count", "2", "--out", "x", "--pit-walls", "0.6", "5"],
         "--pit-walls: pit walls must be two shapes with 0.3 <= LO <= HI <= 3.0"),
        (["render", "--count", "2", "--out", "x", "--size", "640", "100"],
         "--size: size must be a width and a height in pixels"),
        (["render-game", "--out", "x", "--moves", "0"], "--moves must be positive"),
        (["render-game", "--out", "x", "--hand-every", "-2"], "--hand-every must be >= 0"),
        (["render", "--count", "1", "--out", "x", "--threads", "-1"], "--threads must be >= 0"),
        (["render-game", "--out", "x", "--threads", "-2"], "--threads must be >= 0"),
        (["render-visibility", "no/such/folder"], "no/such/folder: not a label file"),
    ],
)
def test_bad_arguments_are_named(argv: list[str], message: str,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("bao: error: ") and message in err


def test_unknown_player_is_refused() -> None:
    from vision.synth.game import plan_game

    with pytest.raises(ValueError, match="player"):
        plan_game(1, 3, 1, "genius")


def test_render_visibility_needs_labelled_images(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "game.json").write_text('{"moves": []}')  # JSON, but no image's label
    assert main(["render-visibility", str(tmp_path)]) == 2
    assert "no labelled images in" in capsys.readouterr().err


def test_render_passes_the_scene_options_on(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    # each option reaches the renderer as its keyword (render_single stands in: no Blender)
    import vision.synth.generate as generate
    from webui.commands import render

    calls: list[dict] = []

    def fake(index: int, seed: int, out, **kw: object) -> dict:
        calls.append({"index": index, "seed": seed, **kw})
        return {"image": f"synth_{seed}_{index:04d}.jpg"}

    monkeypatch.setattr(render, "_need_bpy", lambda: None)
    monkeypatch.setattr(generate, "render_single", fake)
    argv = ["render", "--count", "2", "--start", "3", "--seed", "7", "--out", str(tmp_path),
            "--varied-layout", "--pit-walls", "1", "2", "--turn", "10", "20"]
    assert main(argv) == 0
    assert [c["index"] for c in calls] == [3, 4] and {c["seed"] for c in calls} == {7}
    assert all(c["varied_layout"] is True and c["pit_walls"] == (1.0, 2.0) and c["turn"] == (10.0, 20.0)
               for c in calls)
    calls.clear()
    assert main(["render", "--count", "1", "--out", str(tmp_path)]) == 0
    assert calls[0]["varied_layout"] is False and calls[0]["pit_walls"] is None
