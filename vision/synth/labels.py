"""Labels of rendered images: seed -> pit assignment, label assembly and validation.

The label form is fixed by docs/ARCHITECTURE.md ("Labelled images"); the
counts come from where each simulated seed came to rest, never from what was
asked for, so a seed that rolled into a neighbouring pit changes the label.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from vision.holes import HOLES, nested
from vision.synth.scene import BoardGeometry, BoardProjection

SIDES = ("south", "north")
SOUTH_SIDES = ("bottom", "top", "left", "right")


def assign_seeds(
    geometry: BoardGeometry, centers: np.ndarray, radii: np.ndarray
) -> list[str | None]:
    """The pit each seed lies in, ``"board"`` for a seed resting on the flat top
    between pits, or ``None`` for a seed off the board (on the table).

    A seed is in a pit when its centre is over the pit (grown by 30 % of the
    seed radius, for seeds leaning on the rim) or, for a seed raised on a heap,
    when its centre is within one seed radius beyond the rim.
    """
    centers = np.atleast_2d(np.asarray(centers, dtype=float))
    radii = np.broadcast_to(np.asarray(radii, dtype=float), (len(centers),))
    out: list[str | None] = [None] * len(centers)
    on_board = (
        (np.abs(centers[:, 0]) <= geometry.length / 2)
        & (np.abs(centers[:, 1]) <= geometry.width / 2)
        & (centers[:, 2] > geometry.top_z - geometry.pit_depth - 0.5 * radii)
    )
    raised = centers[:, 2] > geometry.top_z + 1.2 * radii
    xy = centers[:, :2]
    for i in np.flatnonzero(on_board):
        out[i] = "board"
    for name in HOLES:
        near = geometry.in_pit(name, xy, 0.3 * radii)
        heap = geometry.in_pit(name, xy, 1.0 * radii) & raised
        for i in np.flatnonzero((near | heap) & on_board):
            if out[i] == "board":
                out[i] = name
    return out


def count_by_pit(assignment: list[str | None]) -> dict[str, int]:
    """Seeds per hole from :func:`assign_seeds` (holes with none get 0)."""
    counts = dict.fromkeys(HOLES, 0)
    for a in assignment:
        if a in counts:
            counts[a] += 1
    return counts


def position_json(
    counts: dict[str, int],
    reserves: dict[str, int],
    nyumba_owned: dict[str, bool],
    to_move: str,
    blocked: str | None,
) -> dict[str, Any]:
    """Position JSON (ARCHITECTURE.md form) from per-hole counts and side facts."""
    rows = nested({n: int(counts[n]) for n in HOLES})
    return {
        side: {
            "front": rows[side]["front"],
            "back": rows[side]["back"],
            "reserve": int(reserves[side]),
            "nyumba_owned": bool(nyumba_owned[side]),
        }
        for side in SIDES
    } | {"to_move": to_move, "blocked": blocked}


def counts_from_position(pos: dict[str, Any]) -> dict[str, int]:
    """{hole: count} from position JSON."""
    out: dict[str, int] = {}
    for side, (f, b) in {"south": ("A", "B"), "north": ("a", "b")}.items():
        for i in range(8):
            out[f"{f}{i + 1}"] = int(pos[side]["front"][i])
            out[f"{b}{i + 1}"] = int(pos[side]["back"][i])
    return out


def make_label(
    image: str,
    width: int,
    height: int,
    position: dict[str, Any],
    projection: BoardProjection,
    hand_over_board: bool,
    occluded_pits: list[str],
    render: dict[str, Any],
) -> dict[str, Any]:
    """Assemble one label in the ARCHITECTURE.md form."""
    return {
        "image": image,
        "width": int(width),
        "height": int(height),
        "position": position,
        "corners_px": projection.corners_px,
        "pit_centers_px": projection.pit_centers_px,
        "south_side": projection.south_side,
        "hand_over_board": bool(hand_over_board),
        "occluded_pits": sorted(occluded_pits, key=HOLES.index),
        "render": render,
    }


def _point(p: Any) -> bool:
    return (
        isinstance(p, list)
        and len(p) == 2
        and all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
                for v in p)
    )


def label_errors(label: Any) -> list[str]:
    """Everything wrong with ``label`` against the label schema (empty list = valid)."""
    if not isinstance(label, dict):
        return [f"label must be an object, got {type(label).__name__}"]
    errs: list[str] = []
    need = {"image": str, "width": int, "height": int, "position": dict, "corners_px": list,
            "pit_centers_px": dict, "south_side": str, "hand_over_board": bool,
            "occluded_pits": list, "render": dict}
    for key, typ in need.items():
        if key not in label:
            errs.append(f"missing key {key!r}")
        elif not isinstance(label[key], typ) or (typ is int and isinstance(label[key], bool)):
            errs.append(f"{key} must be {typ.__name__}, got {type(label[key]).__name__}")
    if errs:
        return errs
    pos = label["position"]
    for side in SIDES:
        s = pos.get(side)
        if not isinstance(s, dict):
            errs.append(f"position.{side} missing")
            continue
        for row in ("front", "back"):
            vals = s.get(row)
            if not (isinstance(vals, list) and len(vals) == 8
                    and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                            for v in vals)):
                errs.append(f"position.{side}.{row} must be 8 non-negative ints, got {vals!r}")
        r = s.get("reserve")
        if not (isinstance(r, int) and not isinstance(r, bool) and r >= 0):
            errs.append(f"position.{side}.reserve must be a non-negative int, got {r!r}")
        if not isinstance(s.get("nyumba_owned"), bool):
            errs.append(f"position.{side}.nyumba_owned must be a bool")
    if pos.get("to_move") not in SIDES:
        errs.append(f"position.to_move must be south|north, got {pos.get('to_move')!r}")
    if "blocked" not in pos or not (pos["blocked"] is None or pos["blocked"] in HOLES):
        errs.append(f"position.blocked must be null or a hole name, got {pos.get('blocked')!r}")
    corners = label["corners_px"]
    if len(corners) != 4 or not all(_point(p) for p in corners):
        errs.append("corners_px must be 4 [x, y] pairs")
    pits = label["pit_centers_px"]
    if set(pits) != set(HOLES):
        errs.append(f"pit_centers_px must name the 32 holes, got {sorted(pits)}")
    elif not all(_point(p) for p in pits.values()):
        errs.append("pit_centers_px values must be [x, y] pairs")
    if label["south_side"] not in SOUTH_SIDES:
        errs.append(f"south_side must be one of {SOUTH_SIDES}, got {label['south_side']!r}")
    bad = [p for p in label["occluded_pits"] if p not in HOLES]
    if bad:
        errs.append(f"occluded_pits has unknown holes {bad}")
    if label["occluded_pits"] and not label["hand_over_board"]:
        errs.append("occluded_pits given but hand_over_board is false")
    if label["width"] <= 0 or label["height"] <= 0:
        errs.append("width and height must be positive")
    return errs


def validate_label(label: Any) -> dict[str, Any]:
    """Return ``label`` if it matches the schema, else raise ``ValueError`` naming every fault."""
    errs = label_errors(label)
    if errs:
        raise ValueError("invalid label: " + "; ".join(errs))
    return label


def load_label(path: str | Path) -> dict[str, Any]:
    """Read and validate a label file."""
    p = Path(path)
    try:
        obj = json.loads(p.read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"{p}: not JSON: {exc}") from exc
    try:
        return validate_label(obj)
    except ValueError as exc:
        raise ValueError(f"{p}: {exc}") from exc


def game_errors(game: Any, frame_names: set[str] | None = None) -> list[str]:
    """Everything wrong with a sequence's ``game.json`` object."""
    if not isinstance(game, dict):
        return ["game.json must be an object"]
    errs: list[str] = []
    for key, typ in (("start", dict), ("moves", list), ("frames", list)):
        if not isinstance(game.get(key), typ):
            errs.append(f"game.{key} must be {typ.__name__}")
    if errs:
        return errs
    if not all(isinstance(m, str) and m for m in game["moves"]):
        errs.append("game.moves must be non-empty strings")
    last = 0
    for i, fr in enumerate(game["frames"]):
        if not (isinstance(fr, dict) and isinstance(fr.get("file"), str)
                and isinstance(fr.get("after_move"), int) and isinstance(fr.get("settled"), bool)):
            errs.append(f"frame {i} must be {{file, after_move, settled}}")
            continue
        if not 0 <= fr["after_move"] <= len(game["moves"]):
            errs.append(f"frame {i} after_move {fr['after_move']} out of range")
        if fr["after_move"] < last:
            errs.append(f"frame {i} after_move goes backwards")
        last = fr["after_move"]
        if frame_names is not None and fr["file"] not in frame_names:
            errs.append(f"frame {i} file {fr['file']} missing")
    return errs
