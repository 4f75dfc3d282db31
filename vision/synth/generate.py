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
from vision.synth.params import sample_counts, sample_params
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
) -> dict[str, Any]:
    """The label of one rendered frame, counts taken from the settled seeds."""
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
    label = make_label(image, cam.width, cam.height, pos, project_board(cam, geom), hand_on,
                       hidden, render)
    return validate_label(label)


def render_single(index: int, seed: int, out_dir: Path, samples: int = DEFAULT_SAMPLES,
                  threads: int = 0, name: str | None = None,
                  scale: int | None = None, heaps: int = 0,
                  seed_kinds: Sequence[str] | None = None,
                  seed_size: tuple[float, float] | None = None) -> dict[str, Any]:
    """Render image ``index`` of run ``seed`` into ``out_dir``; returns its label.

    ``scale`` (percent) overrides the parameter set's render resolution;
    ``heaps`` > 0 puts that many heaps of 16..30 seeds on the board
    (:func:`vision.synth.params.sample_counts`); ``seed_kinds`` and
    ``seed_size`` are passed to :func:`vision.synth.params.sample_params`."""
    from vision.synth.blender import render_frame
    from vision.synth.post import finish

    rng = np.random.default_rng([seed, index])
    params = sample_params(rng, seed_kinds=seed_kinds, seed_size=seed_size)
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
    })
    (out_dir / f"{name}.json").write_text(json.dumps(label, indent=1) + "\n")
    return label
