"""Render a whole game as labelled frames from one fixed camera.

:func:`plan_game` plays legal moves with the engine (random, or the engine's
search) and lists the frames: the start, a settled frame after every move and,
before every K-th move, a frame with the mover's hand over the pit they are
about to sow from (``settled`` false, the board still as after the last move).
:func:`render_game` renders them; seeds that did not move stay exactly in place
between frames (only pits whose count changed are dropped again), and a
simulation that lets a seed roll into the wrong pit is repeated.

Output (docs/ARCHITECTURE.md): ``frame_NNN.jpg/.json`` and ``game.json`` =
``{"start", "moves", "frames": [{"file", "after_move", "settled"}]}``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vision.synth.labels import counts_from_position
from vision.synth.params import CAMERA_SIDES, sample_hand, sample_params


@dataclass
class FramePlan:
    file: str
    after_move: int
    settled: bool
    hand: dict[str, Any] | None = None


@dataclass
class GamePlan:
    seed: int
    params: dict[str, Any]
    moves: list[str]
    positions: list[dict[str, Any]]  # position JSON after 0, 1, ... moves
    frames: list[FramePlan] = field(default_factory=list)

    @property
    def start(self) -> dict[str, Any]:
        return self.positions[0]


def _play(seed: int, moves: int, player: str) -> tuple[list[str], list[dict[str, Any]],
                                                       list[tuple[str, str]]]:
    from engine import Position

    rng = np.random.default_rng([seed, 1])
    pos = Position.start()
    names: list[str] = []
    positions = [pos.to_json()]
    starts: list[tuple[str, str]] = []  # (side to move, hole sown from) per move
    for k in range(moves):
        if pos.is_game_over():
            break
        legal = pos.legal_moves
        if player == "ai":
            from engine.search import best_move

            move = best_move(pos, time_limit=None, node_limit=3000, seed=seed + k).move
        else:
            move = legal[int(rng.integers(len(legal)))]
        starts.append((pos.to_move, move.hole))
        names.append(pos.notation(move))
        pos.push(move)
        positions.append(pos.to_json())
    return names, positions, starts


def plan_game(seed: int, moves: int = 16, hand_every: int = 3, player: str = "random") -> GamePlan:
    """Play ``moves`` moves (fewer if the game ends) and list the frames to render."""
    if player not in ("random", "ai"):
        raise ValueError(f"player must be 'random' or 'ai', got {player!r}")
    names, positions, starts = _play(seed, moves, player)
    rng = np.random.default_rng([seed, 2])
    params = sample_params(rng, hand_prob=0.0)
    side = str(rng.choice(list(CAMERA_SIDES), p=[0.55, 0.15, 0.15, 0.15]))
    # a tidy board: seeds a bit smaller than usual and pits deep enough that a
    # dropped seed rarely rolls into the wrong pit
    geom = params["geometry"]
    geom["pit_depth"] = round(geom["pit_radius"] * float(rng.uniform(0.7, 0.9)), 4)
    params["seeds"]["diameter"] = round(2 * geom["pit_radius"] * float(rng.uniform(0.29, 0.35)), 4)
    params["camera"] |= {
        "side": side,
        "azimuth": round(CAMERA_SIDES[side] + float(rng.uniform(-12, 12)), 2),
        "elevation": round(float(rng.uniform(55, 85)), 2),
        "fill": round(float(rng.uniform(0.7, 0.88)), 3),
    }
    plan = GamePlan(seed, params, names, positions)
    plan.frames.append(FramePlan("frame_000.jpg", 0, True))
    for k in range(1, len(names) + 1):
        if hand_every and k % hand_every == 0:
            mover, hole = starts[k - 1]
            hand = sample_hand(rng, pit=hole, side=mover)
            plan.frames.append(FramePlan(f"frame_{len(plan.frames):03d}.jpg", k - 1, False, hand))
        plan.frames.append(FramePlan(f"frame_{len(plan.frames):03d}.jpg", k, True))
    return plan


def game_json(plan: GamePlan, upto: int | None = None) -> dict[str, Any]:
    """``game.json`` content listing the first ``upto`` frames (all by default)."""
    frames = plan.frames if upto is None else plan.frames[:upto]
    return {"start": plan.start, "moves": plan.moves,
            "frames": [{"file": f.file, "after_move": f.after_move, "settled": f.settled}
                       for f in frames]}


def render_game(plan: GamePlan, out_dir: Path, samples: int = 12, threads: int = 0,
                tries: int = 4) -> Iterator[tuple[int, str]]:
    """Render every planned frame into ``out_dir``; yields (frames done, file name).

    Resumes after the last frame found in ``out_dir`` when its seed state
    (``.seeds.json``) is there.
    """
    from vision.synth.blender import Seed, render_frame
    from vision.synth.generate import label_for_frame, targets_of
    from vision.synth.post import finish

    out_dir.mkdir(parents=True, exist_ok=True)
    state_path = out_dir / ".seeds.json"
    seeds: list[Any] | None = None
    first = 0
    if state_path.exists():
        st = json.loads(state_path.read_text())
        if st.get("seed") == plan.seed and st.get("moves") == plan.moves:
            seeds = [Seed.from_json(d) for d in st["seeds"]]
            first = int(st["done"])
    for i in range(first, len(plan.frames)):
        fr = plan.frames[i]
        pos = plan.positions[fr.after_move]
        req = {"counts": counts_from_position(pos),
               "reserves": {s: pos[s]["reserve"] for s in ("south", "north")},
               "nyumba_owned": {s: pos[s]["nyumba_owned"] for s in ("south", "north")},
               "to_move": pos["to_move"], "blocked": pos["blocked"]}
        params = plan.params | {"hand": fr.hand}
        rng = np.random.default_rng([plan.seed, 3, i])
        png = out_dir / f".{fr.file}.png"
        t0 = time.monotonic()
        res = render_frame(params, targets_of(req["counts"], req["reserves"]), png,
                           samples=samples, threads=threads, keep=seeds, hand=fr.hand,
                           exact_tries=tries)
        seeds = res.seeds
        q = finish(png, out_dir / fr.file, params["sensor"], rng,
               (params["camera"]["width"], params["camera"]["height"]))
        png.unlink(missing_ok=True)
        label = label_for_frame(fr.file, params, seeds, req, res.removed, {
            "seed": plan.seed, "frame": i, "after_move": fr.after_move,
            "settled": fr.settled, "samples": samples, "jpeg_quality_used": q,
            "drop_tries": tries,
            "seconds": {"total": round(time.monotonic() - t0, 1),
                        "simulation": round(res.sim_seconds, 1),
                        "render": round(res.render_seconds, 1)},
        }, res.visibility)
        (out_dir / fr.file.replace(".jpg", ".json")).write_text(json.dumps(label, indent=1) + "\n")
        (out_dir / "game.json").write_text(json.dumps(game_json(plan, i + 1), indent=1) + "\n")
        state_path.write_text(json.dumps({"seed": plan.seed, "moves": plan.moves, "done": i + 1,
                                          "seeds": [s.to_json() for s in seeds]}))
        yield i + 1, fr.file
