"""``bao render`` and ``bao render-game``: photoreal labelled images (needs ``.[render]``).

Both are reproducible for a given ``--seed``: image ``i`` of ``bao render --seed S``
is always the same scene, so a run can be continued with ``--start``.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from typing import Any

from webui.cli import CommandError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "render", help="render labelled single images of random positions (Blender)",
        description="Render N labelled board images (NAME.jpg + NAME.json) into DIR.")
    p.add_argument("--count", type=int, required=True, help="number of images")
    p.add_argument("--out", type=Path, required=True, help="output directory")
    p.add_argument("--seed", type=int, default=0, help="base random seed (default 0)")
    p.add_argument("--start", type=int, default=0, help="index of the first image (default 0)")
    p.add_argument("--samples", type=int, default=12, help="Cycles samples per pixel (default 12)")
    p.add_argument("--threads", type=int, default=0, help="render threads (0 = all cores)")
    p.add_argument("--heaps", type=int, default=0, choices=range(0, 4), metavar="{0..3}",
                   help="heaps of 16..30 seeds on every board (default 0: a third of "
                        "the boards hold one heap of 20..30)")
    p.add_argument("--scale", type=int, default=None,
                   help="render at this percentage of the image size, then scale up "
                        "(default: the parameter set's, 60)")
    p.add_argument("--seed-kinds", default=None, metavar="KIND,...",
                   help="draw the seeds from these kinds only, evenly (komwe, brown_seed, "
                        "pebble, pale_bean, glass_gem; default: the four Bao kinds, "
                        "komwe twice as often)")
    p.add_argument("--woods", default=None, metavar="WOOD,...",
                   help="draw the board's wood from these only, evenly (pale, golden, "
                        "red_mahogany, mid_brown, walnut, dark_stained, near_black; "
                        "default: all of them)")
    p.add_argument("--tables", default=None, metavar="TABLE,...",
                   help="draw the table under the board from these only, evenly (wood_table, "
                        "cloth, concrete, woven_mat, painted, tiles; default: all of them)")
    ranges = (
        ("--seed-size", "seed diameter as a share of the pit diameter, drawn from LO..HI "
                        "(default 0.27 0.38)"),
        ("--fill", "how far the board's corners reach towards the image border (1 = the "
                   "border), drawn from LO..HI (default 0.62 0.93; lower: a board small in "
                   "the frame)"),
        ("--elevation", "the camera's elevation in degrees (90 = straight down), drawn "
                        "from LO..HI (default 45 90)"),
        ("--thickness", "the board's thickness in metres, drawn from LO..HI (default 0.035 "
                        "0.08; with a low camera: side faces in view)"),
        ("--turn", "turn the camera further round from the side it looks from, either way, "
                   "by LO..HI degrees (a corner view; default: within 20 of a side)"),
        ("--pit-walls", "the pits' wall shape, drawn from LO..HI: the floor lies depth x (1 - "
                        "r^2)^W below the top face (default 0.6: a steep wall, a crisp rim; 1: "
                        "a paraboloid; 2: a dimple with no rim; 0.3..3)"),
    )
    for option, text in ranges:
        p.add_argument(option, type=float, nargs=2, default=None, metavar=("LO", "HI"), help=text)
    p.add_argument("--varied-layout", action="store_true",
                   help="draw each board's layout from wider ranges than the usual boards': "
                        "end margins up to 3.6 pit radii (+6 mm) beyond the pits' cells, halves up to "
                        "6 cm apart, "
                        "pits of 26-46 %% of the pitch, rows pitched 0.8-1.15 times the "
                        "columns")
    p.add_argument("--hand-share", type=float, default=None, metavar="SHARE",
                   help="the share of boards with a player's hand over them, 0..1 (default "
                        "0.2; 1: a hand on every board)")
    p.add_argument("--size", type=int, nargs=2, default=None, metavar=("W", "H"),
                   help="the image's width and height in pixels (default 1280 720; a "
                        "webcam's 640 480, say)")
    p.set_defaults(func=_render)

    v = subparsers.add_parser(
        "render-visibility", help="add seed visibility to labels of earlier renders (Blender)",
        description="Add render.seed_visibility (how much of each seed in a pit the camera "
                    "sees) to the labels of single renders made before it was recorded. Each "
                    "scene's seeds are settled again without rendering; a label is rewritten "
                    "only when the settled counts match it.")
    v.add_argument("labels", nargs="+", type=Path, metavar="PATH",
                   help="label files, or folders of them")
    v.set_defaults(func=_render_visibility)

    g = subparsers.add_parser(
        "render-game", help="render a labelled game sequence played by the engine (Blender)",
        description="Play a game with the engine and render it frame by frame into DIR "
                    "(frame_NNN.jpg/.json and game.json).")
    g.add_argument("--out", type=Path, required=True, help="output directory for this game")
    g.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    g.add_argument("--moves", type=int, default=16, help="moves to play (default 16)")
    g.add_argument("--hand-every", type=int, default=3,
                   help="a hand-over-board frame before every K-th move (default 3; 0 = none)")
    g.add_argument("--player", choices=("random", "ai"), default="random",
                   help="how moves are chosen (default random legal moves)")
    g.add_argument("--samples", type=int, default=12, help="Cycles samples per pixel (default 12)")
    g.add_argument("--threads", type=int, default=0, help="render threads (0 = all cores)")
    g.add_argument("--scale", type=int, default=None,
                   help="render at this percentage of 1280x720, then scale up (default 60)")
    g.set_defaults(func=_render_game)


def _need_bpy() -> None:
    if importlib.util.find_spec("bpy") is None:
        raise CommandError("rendering needs Blender's Python module: pip install '.[render]' "
                           "(bpy 4.2, Python 3.11)")


def progress(done: int, total: int, started: float, note: str = "") -> None:
    """One-line progress bar on stderr: bar, count, elapsed and remaining time."""
    width = 30
    filled = int(width * done / max(total, 1))
    el = time.monotonic() - started
    eta = el / done * (total - done) if done else 0.0
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} "
                     f"{el:6.0f}s elapsed, ~{eta:5.0f}s left {note[:40]:<40}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def _positive(value: int, what: str) -> None:
    if value <= 0:
        raise CommandError(f"{what} must be positive, got {value}")


def _threads(value: int) -> None:
    if value < 0:
        raise CommandError(f"--threads must be >= 0 (0: all cores), got {value}")


def _scale(value: int | None) -> None:
    if value is not None and not 10 <= value <= 100:
        raise CommandError(f"--scale must be a percentage from 10 to 100, got {value}")


def _pair(values: list[float] | None) -> tuple[float, float] | None:
    """An option's two numbers (``nargs=2``) as a (LO, HI) range, or None when not given."""
    return None if values is None else (values[0], values[1])


def _render(args: argparse.Namespace) -> int:
    _positive(args.count, "--count")
    _positive(args.samples, "--samples")
    _threads(args.threads)
    _scale(args.scale)
    if args.start < 0:
        raise CommandError(f"--start must be >= 0, got {args.start}")
    kinds, woods, tables = ([k.strip() for k in value.split(",") if k.strip()] if value is not None else None
                            for value in (args.seed_kinds, args.woods, args.tables))
    seed_size, fill = _pair(args.seed_size), _pair(args.fill)
    elevation, thickness = _pair(args.elevation), _pair(args.thickness)
    turn, pit_walls = _pair(args.turn), _pair(args.pit_walls)
    image_size = None if args.size is None else (args.size[0], args.size[1])
    from vision.synth.params import (
        check_fill,
        check_hand_share,
        check_look,
        check_pit_walls,
        check_seed_options,
        check_size,
        check_turn,
        check_view,
    )

    checks = (("--seed-kinds/--seed-size", lambda: check_seed_options(kinds, seed_size)),
              ("--woods/--tables", lambda: check_look(woods, tables)),
              ("--fill", lambda: check_fill(fill)),
              ("--elevation/--thickness", lambda: check_view(elevation, thickness)),
              ("--hand-share", lambda: check_hand_share(args.hand_share)),
              ("--turn", lambda: check_turn(turn)),
              ("--pit-walls", lambda: check_pit_walls(pit_walls)),
              ("--size", lambda: check_size(image_size)))
    for options, check in checks:
        try:
            check()
        except ValueError as exc:
            raise CommandError(f"{options}: {exc}") from None
    _need_bpy()
    from vision.synth.generate import render_single

    started = time.monotonic()
    progress(0, args.count, started)
    for k in range(args.count):
        label = render_single(args.start + k, args.seed, args.out, samples=args.samples,
                              threads=args.threads, scale=args.scale, heaps=args.heaps,
                              seed_kinds=kinds, seed_size=seed_size, fill=fill,
                              elevation=elevation, thickness=thickness,
                              hand_share=args.hand_share, turn=turn, size=image_size,
                              woods=woods, tables=tables, pit_walls=pit_walls,
                              varied_layout=args.varied_layout)
        progress(k + 1, args.count, started, label["image"])
    return 0


def _render_visibility(args: argparse.Namespace) -> int:
    from vision.count_data import image_label

    paths: list[Path] = []
    for p in args.labels:
        if p.is_dir():
            paths += [q for q in sorted(p.glob("*.json")) if image_label(q) is not None]
        elif p.is_file() and image_label(p) is not None:
            paths.append(p)
        else:
            raise CommandError(f"{p}: not a label file (NAME.json beside its image) or a folder")
    if not paths:
        raise CommandError("no labelled images in " + ", ".join(map(str, args.labels)))
    _need_bpy()
    from vision.synth.generate import add_visibility

    started = time.monotonic()
    differs = 0
    for k, p in enumerate(paths):
        what = add_visibility(p)
        differs += what.startswith("differs")
        if what != "added":
            sys.stderr.write(f"\r{p}: {what}\n")
        progress(k + 1, len(paths), started, p.name)
    return 1 if differs else 0


def _render_game(args: argparse.Namespace) -> int:
    _positive(args.moves, "--moves")
    _positive(args.samples, "--samples")
    _scale(args.scale)
    if args.hand_every < 0:
        raise CommandError(f"--hand-every must be >= 0, got {args.hand_every}")
    _threads(args.threads)
    _need_bpy()
    from vision.synth.game import plan_game, render_game

    plan = plan_game(args.seed, args.moves, args.hand_every, args.player)
    if args.scale is not None:
        plan.params["sensor"]["render_scale"] = args.scale
    started = time.monotonic()
    total = len(plan.frames)
    progress(0, total, started)
    for done, name in render_game(plan, args.out, samples=args.samples, threads=args.threads):
        progress(done, total, started, name)
    return 0
