"""Render labelled single images: parameters -> Blender -> label from settled seeds.

``render_single(i, seed, out_dir)`` is reproducible: image ``i`` of a run with
base seed ``seed`` always gets the same parameters, counts and physics.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vision.holes import HOLES, nested
from vision.synth.hand import hand_capsules, occluded_pits, over_board
from vision.synth.labels import make_label, position_json, validate_label
from vision.synth.params import HAND_SHARE, sample_counts, sample_params
from vision.synth.scene import BoardGeometry, camera_from_params, project_board

DEFAULT_SAMPLES = 12


def targets_of(counts: dict[str, int], reserves: dict[str, int]) -> dict[str, int]:
    """Renderer targets: hole counts plus the two reserve piles."""
    return dict(counts) | {"reserve_south": int(reserves["south"]),
                           "reserve_north": int(reserves["north"])}


def label_for_frame(
    image: str,
    params: dict[str, Any],
    seeds: list[Any],
    requested: dict[str, Any],
    removed: int,
    extra: dict[str, Any],
    visibility: Sequence[float | None] | None = None,
) -> dict[str, Any]:
    """The label of one rendered frame, counts taken from the settled seeds.

    ``visibility`` (one per seed, as :attr:`vision.synth.blender.FrameResult.visibility`)
    adds ``render.seed_visibility``: for each pit holding seeds, the share of each
    seed's camera-facing surface that the camera sees, most visible first; and
    ``render.seed_points_px``: where each of those seeds' centres lies in the image."""
    geom = BoardGeometry(**params["geometry"])
    cam = camera_from_params(geom, params["camera"])
    counts = dict.fromkeys(HOLES, 0)
    reserves = {"south": 0, "north": 0}
    for s in seeds:
        if s.group in counts:
            counts[s.group] += 1
        elif s.group == "reserve_south":
            reserves["south"] += 1
        elif s.group == "reserve_north":
            reserves["north"] += 1
    pos = position_json(counts, reserves, requested["nyumba_owned"], requested["to_move"],
                        requested.get("blocked"))
    hand = params.get("hand")
    hidden: list[str] = []
    hand_on = False
    if hand:
        caps = [c for _n, c in hand_capsules(geom, hand)]
        hidden = occluded_pits(cam, geom, caps)
        hand_on = over_board(geom, caps) or bool(hidden)
    req_total = sum(requested["counts"].values()) + sum(requested["reserves"].values())
    actual_total = sum(counts.values()) + sum(reserves.values())
    render = dict(params) | {
        "requested": {"holes": nested(dict(requested["counts"])),
                      "reserves": dict(requested["reserves"])},
        "seeds_requested": int(req_total),
        "seeds_actual": int(actual_total),
        "seeds_removed": int(removed),
        "holes_changed_by_physics": [n for n in HOLES if counts[n] != requested["counts"][n]],
    } | extra
    if visibility is not None and any(v is not None for v in visibility):
        render["seed_visibility"], render["seed_points_px"] = seeds_in_view(seeds, visibility, cam)
    label = make_label(image, cam.width, cam.height, pos, project_board(cam, geom), hand_on,
                       hidden, render)
    return validate_label(label)


def seeds_in_view(seeds: Sequence[Any], visibility: Sequence[float | None],
                  camera: Any) -> tuple[dict[str, list[float]], dict[str, list[list[float]]]]:
    """For the pits holding seeds: ``{pit: [share seen of each seed, most visible
    first]}`` and ``{pit: [[x, y] image pixel of each seed's centre, same order]}``
    (``camera`` a :class:`vision.synth.scene.Camera`; seeds with no figure, e.g. reserve
    seeds, are left out)."""
    if len(seeds) != len(visibility):
        raise ValueError(f"seed visibility: {len(seeds)} seeds but {len(visibility)} figures")
    by_pit: dict[str, list[tuple[float, list[float]]]] = {}
    for s, v in zip(seeds, visibility, strict=True):
        if v is None or s.group not in HOLES:
            continue
        if s.matrix is None:
            raise ValueError(f"seed visibility: a seed in {s.group} has no resting pose")
        x, y = camera.project(np.array(s.matrix, dtype=float)[:3, 3])[0]
        by_pit.setdefault(s.group, []).append((round(float(v), 3),
                                               [round(float(x), 1), round(float(y), 1)]))
    order = {n: sorted(by_pit[n], key=lambda e: -e[0]) for n in HOLES if n in by_pit}
    return ({n: [v for v, _p in e] for n, e in order.items()},
            {n: [p for _v, p in e] for n, e in order.items()})


def render_single(index: int, seed: int, out_dir: Path, samples: int = DEFAULT_SAMPLES,
                  threads: int = 0, name: str | None = None,
                  scale: int | None = None, heaps: int = 0,
                  seed_kinds: Sequence[str] | None = None,
                  seed_size: tuple[float, float] | None = None,
                  fill: tuple[float, float] | None = None,
                  elevation: tuple[float, float] | None = None,
                  thickness: tuple[float, float] | None = None,
                  hand_share: float | None = None,
                  turn: tuple[float, float] | None = None,
                  size: tuple[int, int] | None = None,
                  woods: Sequence[str] | None = None,
                  tables: Sequence[str] | None = None,
                  pit_walls: tuple[float, float] | None = None,
                  varied_layout: bool = False) -> dict[str, Any]:
    """Render image ``index`` of run ``seed`` into ``out_dir``; returns its label.

    ``scale`` (percent) overrides the parameter set's render resolution;
    ``heaps`` > 0 puts that many heaps of 16..30 seeds on the board
    (:func:`vision.synth.params.sample_counts`); ``seed_kinds``,
    ``seed_size``, ``fill``, ``elevation``, ``thickness``, ``turn``, ``woods``, ``tables``,
    ``pit_walls`` and ``varied_layout`` are passed to
    :func:`vision.synth.params.sample_params`, ``hand_share`` as its ``hand_prob``
    (None: :data:`vision.synth.params.HAND_SHARE`); ``size`` (width, height) is the
    image's size in pixels (None: 1280 x 720; ``scale`` is a percentage of it)."""
    from vision.synth.blender import render_frame
    from vision.synth.post import finish

    rng = np.random.default_rng([seed, index])
    width, height = size or (1280, 720)
    params = sample_params(rng, width, height,
                           hand_prob=HAND_SHARE if hand_share is None else hand_share,
                           seed_kinds=seed_kinds, seed_size=seed_size, fill=fill,
                           elevation=elevation, thickness=thickness, turn=turn,
                           woods=woods, tables=tables, pit_walls=pit_walls,
                           varied_layout=varied_layout)
    req = sample_counts(rng, heaps)
    if scale is not None:
        params["sensor"]["render_scale"] = int(scale)
    name = name or f"synth_{seed}_{index:04d}"
    out_dir.mkdir(parents=True, exist_ok=True)
    png = out_dir / f".{name}.png"
    t0 = time.monotonic()
    # one second drop puts back seeds that rolled off a heap (as a player would);
    # whatever still ends elsewhere changes the label
    res = render_frame(params, targets_of(req["counts"], req["reserves"]), png,
                       samples=samples, threads=threads, hand=params.get("hand"),
                       exact_tries=2)
    q = finish(png, out_dir / f"{name}.jpg", params["sensor"], rng,
               (params["camera"]["width"], params["camera"]["height"]))
    png.unlink(missing_ok=True)
    label = label_for_frame(f"{name}.jpg", params, res.seeds, req, res.removed, {
        "seed": seed, "index": index, "samples": samples, "jpeg_quality_used": q,
        "drop_tries": 2,
        "seconds": {"total": round(time.monotonic() - t0, 1),
                    "simulation": round(res.sim_seconds, 1),
                    "render": round(res.render_seconds, 1)},
    }, res.visibility)
    (out_dir / f"{name}.json").write_text(json.dumps(label, indent=1) + "\n")
    return label


def requested_counts(label: dict[str, Any]) -> tuple[dict[str, int], dict[str, int]]:
    """The hole counts and reserves a render asked for (``render.requested``)."""
    req = label["render"]["requested"]
    counts: dict[str, int] = {}
    for side, (front, back) in (("south", ("A", "B")), ("north", ("a", "b"))):
        for row, letter in (("front", front), ("back", back)):
            for i, v in enumerate(req["holes"][side][row]):
                counts[f"{letter}{i + 1}"] = int(v)
    return counts, {s: int(req["reserves"][s]) for s in ("south", "north")}


def add_visibility(label_path: Path) -> str:
    """Add ``render.seed_visibility`` and ``render.seed_points_px`` to the label of a
    single render made before they were recorded.

    The scene's seeds are dropped and settled again (no image is rendered; the
    simulation is deterministic), and the label is rewritten only when every pit ends
    with the count it records. Returns what happened: ``"added"``, ``"had it"``,
    ``"skipped: ..."`` (a game frame, whose seeds depend on the frames before it, or a
    label that does not say what was asked for) or ``"differs: ..."`` (the settled
    counts differ; the label is left as it was)."""
    from vision.count_data import label_counts
    from vision.synth.blender import render_frame

    label = json.loads(Path(label_path).read_text())
    render = label.get("render") or {}
    if "seed_visibility" in render and "seed_points_px" in render:
        return "had it"
    if "frame" in render:
        return "skipped: a game frame (its seeds depend on the frames before it)"
    if "requested" not in render:
        return "skipped: the label does not say what was asked for (render.requested)"
    counts, reserves = requested_counts(label)
    res = render_frame(render, targets_of(counts, reserves), Path(label_path).with_suffix(".tmp.png"),
                       hand=render.get("hand"), exact_tries=int(render.get("drop_tries", 1)),
                       render=False)
    got = dict.fromkeys(HOLES, 0)
    for s in res.seeds:
        if s.group in got:
            got[s.group] += 1
    want = label_counts(label["position"])
    diff = [f"{n} {want[n]}->{got[n]}" for n in HOLES if want[n] != got[n]]
    if diff:
        return "differs: " + ", ".join(diff)
    cam = camera_from_params(BoardGeometry(**render["geometry"]), render["camera"])
    label["render"]["seed_visibility"], label["render"]["seed_points_px"] = seeds_in_view(
        res.seeds, res.visibility, cam)
    Path(label_path).write_text(json.dumps(validate_label(label), indent=1) + "\n")
    return "added"
