"""Random render parameters: wood, board, seeds, table, light, camera, hand, sensor.

:func:`sample_params` draws one JSON-able parameter set from a NumPy generator,
so an image is reproducible from its ``seed``. Colours are sRGB triples 0..1
(converted to linear light by the renderer).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from vision.holes import HOLES
from vision.synth.scene import PIT_WALLS, BoardGeometry

# name -> (light sRGB, dark sRGB): the two ends of the grain colour ramp
WOODS: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    "pale": ((0.86, 0.72, 0.52), (0.66, 0.49, 0.30)),
    "golden": ((0.78, 0.55, 0.30), (0.52, 0.31, 0.13)),
    "red_mahogany": ((0.62, 0.32, 0.19), (0.38, 0.15, 0.08)),
    "mid_brown": ((0.55, 0.36, 0.21), (0.30, 0.18, 0.09)),
    "walnut": ((0.40, 0.26, 0.16), (0.20, 0.12, 0.07)),
    "dark_stained": ((0.24, 0.15, 0.10), (0.10, 0.06, 0.04)),
    "near_black": ((0.13, 0.10, 0.08), (0.05, 0.04, 0.035)),
}
SEED_KINDS = ("komwe", "brown_seed", "pebble", "pale_bean")
#: kinds drawn only when asked for (``bao render --seed-kinds``): the flat glass
#: gems of many shop-bought mancala sets, for training the single-pit counter
EXTRA_SEED_KINDS = ("glass_gem",)
#: seed diameter as a share of the pit diameter, by default
SEED_SIZE = (0.27, 0.38)
#: how far the board's corners reach towards the image border (0..1, 1 = the border;
#: :func:`vision.synth.scene.fit_camera`), by default
FILL = (0.62, 0.93)
#: the camera's elevation above the table, degrees (90 = straight down)
ELEVATION = (45.0, 90.0)
#: the board's thickness, metres (its side faces show more from a low camera)
THICKNESS = (0.035, 0.08)
TABLES = ("wood_table", "cloth", "concrete", "woven_mat", "painted", "tiles")
LIGHTS = ("sun", "lamp", "window", "coloured", "overcast")
CAMERA_SIDES = {"south": -90.0, "east": 0.0, "north": 90.0, "west": 180.0}
#: the share of boards with a player's hand over them, by default
HAND_SHARE = 0.2


def _jitter(rng: np.random.Generator, rgb: tuple[float, ...], amount: float) -> list[float]:
    scale = 1 + rng.normal(0, amount)
    return [round(float(np.clip(c * scale * (1 + rng.normal(0, amount / 3)), 0.01, 1)), 3)
            for c in rgb]


def _f(x: float, nd: int = 4) -> float:
    return round(float(x), nd)


def sample_geometry(rng: np.random.Generator,
                    thickness: tuple[float, float] | None = None) -> BoardGeometry:
    """A random board: pitch 5.5..9 cm, pit radius 30..44 % of the pitch;
    ``thickness`` (LO, HI) replaces :data:`THICKNESS`."""
    px = rng.uniform(0.055, 0.09)
    py = px * rng.uniform(0.85, 1.05)
    pitch = min(px, py)
    r = pitch * rng.uniform(0.30, 0.43)
    return BoardGeometry(
        pitch_x=_f(px), pitch_y=_f(py),
        middle_gap=_f(rng.choice([0.0, rng.uniform(0.0, 0.03)])),
        margin_x=_f(rng.uniform(1.2, 1.9) * r + 0.006),
        margin_y=_f(rng.uniform(1.15, 1.7) * r + 0.005),
        thickness=_f(rng.uniform(*(thickness or THICKNESS))),
        pit_radius=_f(r),
        pit_depth=_f(r * rng.uniform(0.45, 0.9)),
        square_half=_f(min(r * rng.uniform(0.85, 1.0), pitch * 0.46)),
        bevel=_f(rng.uniform(0.002, 0.009)),
    )


#: the ranges ``bao render --varied-layout`` draws a board's layout from, wider than
#: :func:`sample_geometry`'s: rows pitched 0.8..1.15 times the columns, pits of 26..46 %
#: of the pitch and 0.35..1 of their radius deep, halves up to 6 cm apart, end margins
#: (beyond the pits' cells, ``BoardGeometry.margin_x``) up to 3.6 pit radii + 6 mm, sides
#: up to 2.6 + 5 mm
VARIED_LAYOUT = {"row_pitch": (0.8, 1.15), "radius": (0.26, 0.46), "gap": (0.02, 0.06),
                 "margin_x": (1.2, 3.6), "margin_y": (1.1, 2.6), "depth": (0.35, 1.0)}


def sample_varied_layout(geom: BoardGeometry, rng: np.random.Generator) -> BoardGeometry:
    """``geom`` with its layout drawn again from :data:`VARIED_LAYOUT`: the row pitch
    (from the column pitch), the pits' size and depth, the middle gap (none on half the
    boards) and the margins; the column pitch, thickness, bevel and wall shape stay."""
    v = VARIED_LAYOUT
    px = geom.pitch_x
    py = px * rng.uniform(*v["row_pitch"])
    r = min(px, py) * rng.uniform(*v["radius"])
    gap = rng.uniform(*v["gap"]) if rng.uniform() < 0.5 else 0.0
    return replace(
        geom, pitch_y=_f(py), pit_radius=_f(r), middle_gap=_f(gap),
        margin_x=_f(rng.uniform(*v["margin_x"]) * r + 0.006),
        margin_y=_f(rng.uniform(*v["margin_y"]) * r + 0.005),
        pit_depth=_f(r * rng.uniform(*v["depth"])),
        # (the nyumba as large as a pit or a little larger, never touching its neighbours)
        square_half=_f(min(r * rng.uniform(0.85, 1.1), min(px, py) * 0.47)),
    )


def _check_names(what: str, asked: Sequence[str] | None, known: Sequence[str]) -> None:
    """Raise ``ValueError`` unless ``asked`` is None or names at least one ``what``, all known."""
    if asked is None:
        return
    if not asked:
        raise ValueError(f"{what}s: give at least one")
    bad = [k for k in asked if k not in known]
    if bad:
        raise ValueError(f"unknown {what} {bad[0]!r}; known: {', '.join(known)}")


def check_seed_options(seed_kinds: Sequence[str] | None,
                       seed_size: tuple[float, float] | None) -> None:
    """Raise ``ValueError`` naming a seed kind or size that cannot be rendered."""
    _check_names("seed kind", seed_kinds, SEED_KINDS + EXTRA_SEED_KINDS)
    if seed_size is not None:
        lo, hi = seed_size
        if not 0.1 <= lo <= hi <= 0.6:
            raise ValueError(f"seed size must be two shares of the pit diameter with "
                             f"0.1 <= LO <= HI <= 0.6, got {lo} {hi}")


def check_look(woods: Sequence[str] | None, tables: Sequence[str] | None) -> None:
    """Raise ``ValueError`` naming a wood or a table kind that cannot be rendered."""
    _check_names("wood", woods, tuple(WOODS))
    _check_names("table", tables, TABLES)


def check_fill(fill: tuple[float, float] | None) -> None:
    """Raise ``ValueError`` unless ``fill`` is None or a range LO..HI the camera can frame."""
    if fill is not None:
        lo, hi = fill
        if not 0.2 <= lo <= hi < 1.0:
            raise ValueError(f"fill must be two shares of the frame with 0.2 <= LO <= HI < 1, "
                             f"got {lo} {hi}")


def check_view(elevation: tuple[float, float] | None, thickness: tuple[float, float] | None) -> None:
    """Raise ``ValueError`` unless ``elevation`` (degrees) and ``thickness`` (metres) are
    None or ranges LO..HI that can be rendered."""
    if elevation is not None:
        lo, hi = elevation
        if not 30.0 <= lo <= hi <= 90.0:
            raise ValueError(f"elevation must be two angles in degrees with 30 <= LO <= HI <= 90, "
                             f"got {lo} {hi}")
    if thickness is not None:
        lo, hi = thickness
        if not THICKNESS[0] <= lo <= hi <= 0.2:  # (the deepest pit is 0.035 m)
            raise ValueError(f"thickness must be two lengths in metres with {THICKNESS[0]} <= LO <= HI "
                             f"<= 0.2, got {lo} {hi}")


def check_size(size: tuple[int, int] | None) -> None:
    """Raise ``ValueError`` unless ``size`` is None or an image size (width, height) in
    pixels from 160 to 4096 each."""
    if size is not None and not all(160 <= v <= 4096 for v in size):
        raise ValueError(f"size must be a width and a height in pixels from 160 to 4096, "
                         f"got {size[0]} {size[1]}")


def check_hand_share(share: float | None) -> None:
    """Raise ``ValueError`` unless ``share`` is None or a share of boards 0..1."""
    if share is not None and not 0.0 <= share <= 1.0:
        raise ValueError(f"the share of boards with a hand must be from 0 to 1, got {share}")


def check_pit_walls(pit_walls: tuple[float, float] | None) -> None:
    """Raise ``ValueError`` unless ``pit_walls`` is None or a range LO..HI of
    :attr:`vision.synth.scene.BoardGeometry.pit_wall` within :data:`PIT_WALLS`."""
    if pit_walls is not None:
        lo, hi = pit_walls
        if not PIT_WALLS[0] <= lo <= hi <= PIT_WALLS[1]:
            raise ValueError(f"pit walls must be two shapes with {PIT_WALLS[0]} <= LO <= HI <= "
                             f"{PIT_WALLS[1]} (0.6: a steep wall, a crisp rim; 2: a dimple "
                             f"with no rim), got {lo} {hi}")


def check_turn(turn: tuple[float, float] | None) -> None:
    """Raise ``ValueError`` unless ``turn`` is None or a range LO..HI of degrees 0..90."""
    if turn is not None:
        lo, hi = turn
        if not 0.0 <= lo <= hi <= 90.0:
            raise ValueError(f"turn must be two angles in degrees with 0 <= LO <= HI <= 90, "
                             f"got {lo} {hi}")


def _seed_colour(kind: str, rng: np.random.Generator) -> list[float]:
    if kind == "glass_gem":  # a light tint or nearly clear (each gem's hue is turned in
        h = rng.uniform(0, 1)  # the material): a dark colour seen through a gem is black
        sat, val = rng.choice([rng.uniform(0.0, 0.15), rng.uniform(0.25, 0.75)]), rng.uniform(0.8, 1.0)
        i = int(h * 6) % 6
        f = h * 6 - int(h * 6)
        p, q, t = val * (1 - sat), val * (1 - sat * f), val * (1 - sat * (1 - f))
        return list([(val, t, p), (q, val, p), (p, val, t), (p, q, val), (t, p, val), (val, p, q)][i])
    # every entry is drawn, whichever kind is picked: the draws of earlier versions
    return {
        "komwe": [rng.uniform(0.42, 0.62)] * 3,
        "brown_seed": [rng.uniform(0.35, 0.55), rng.uniform(0.18, 0.28), rng.uniform(0.08, 0.14)],
        "pebble": [rng.uniform(0.45, 0.7), rng.uniform(0.42, 0.62), rng.uniform(0.38, 0.55)],
        "pale_bean": [rng.uniform(0.85, 0.95), rng.uniform(0.8, 0.9), rng.uniform(0.65, 0.8)],
    }[kind]


def sample_params(rng: np.random.Generator, width: int = 1280, height: int = 720,
                  hand_prob: float = HAND_SHARE, seed_kinds: Sequence[str] | None = None,
                  seed_size: tuple[float, float] | None = None,
                  fill: tuple[float, float] | None = None,
                  elevation: tuple[float, float] | None = None,
                  thickness: tuple[float, float] | None = None,
                  turn: tuple[float, float] | None = None,
                  woods: Sequence[str] | None = None,
                  tables: Sequence[str] | None = None,
                  pit_walls: tuple[float, float] | None = None,
                  varied_layout: bool = False) -> dict[str, Any]:
    """One full random parameter set (everything except the seed counts).

    ``seed_kinds`` (any of :data:`SEED_KINDS` and :data:`EXTRA_SEED_KINDS`) are
    drawn from evenly instead of the default mix of the four Bao kinds,
    ``seed_size`` (LO, HI) replaces :data:`SEED_SIZE` and ``fill`` (LO, HI)
    :data:`FILL` (a board small in the frame: a wide camera, or one set high).
    Left as None, the draws are exactly those of earlier versions, so a seed
    renders the same scene; another ``fill`` changes only the camera's distance.
    ``elevation`` (LO, HI degrees) replaces :data:`ELEVATION` and ``thickness`` (LO, HI
    metres) :data:`THICKNESS` (a thick board seen from low shows its side faces): each
    changes only that draw. ``turn`` (LO, HI degrees) turns the camera further round
    from the side it looks from, either way, by an angle drawn from LO..HI (a corner
    view), from a generator of its own, so every other draw stays as it was.
    ``woods`` (names of :data:`WOODS`) and ``tables`` (of :data:`TABLES`) are drawn from
    evenly instead of all of them (a stress set: pale boards on tiled floors, say).
    ``pit_walls`` (LO, HI) draws the pits' wall shape
    (:attr:`vision.synth.scene.BoardGeometry.pit_wall`, 0.6 when not given: a steep
    wall, a crisp rim) from LO..HI, from a generator of its own as ``turn``.
    ``varied_layout`` draws the board's layout again from wider ranges
    (:func:`sample_varied_layout`: wide ends and gaps, other pit sizes), from a generator
    of its own too; the seeds keep their size as a share of the pit.
    """
    check_seed_options(seed_kinds, seed_size)
    check_look(woods, tables)
    check_fill(fill)
    check_view(elevation, thickness)
    check_turn(turn)
    check_pit_walls(pit_walls)
    geom = sample_geometry(rng, thickness)
    wood_name = str(rng.choice(list(woods or WOODS)))
    light_c, dark_c = WOODS[wood_name]
    wood = {
        "kind": wood_name,
        "light": _jitter(rng, light_c, 0.08),
        "dark": _jitter(rng, dark_c, 0.08),
        "grain_scale": _f(rng.uniform(1.5, 6), 2),
        "grain_distortion": _f(rng.uniform(1, 5), 2),
        "streak_scale": _f(rng.uniform(40, 120), 1),
        "roughness": _f(rng.uniform(0.25, 0.7), 2),
        "varnish": _f(rng.choice([0.0, rng.uniform(0.05, 0.3)]), 2),
        "pit_darkening": _f(rng.uniform(0.35, 0.75), 2),
        "bump": _f(rng.uniform(0.05, 0.3), 2),
    }
    if seed_kinds is None:
        kind = str(rng.choice(SEED_KINDS, p=[0.4, 0.2, 0.2, 0.2]))
    else:
        kind = str(rng.choice(list(seed_kinds)))
    seed_d = 2 * geom.pit_radius * rng.uniform(*(seed_size or SEED_SIZE))
    base = _seed_colour(kind, rng)
    if kind == "komwe":  # grey with a faint green or brown cast
        base = [base[0] * rng.uniform(0.92, 1.0), base[1], base[2] * rng.uniform(0.88, 1.0)]
    seeds = {
        "kind": kind,
        "diameter": _f(seed_d),
        "color": [_f(c, 3) for c in base],
        "color_variation": _f(rng.uniform(0.05, 0.3), 2),
        "roughness": _f({"komwe": 0.3, "brown_seed": 0.25, "pebble": 0.7, "pale_bean": 0.45,
                         "glass_gem": 0.08}[kind] * rng.uniform(0.7, 1.3), 2),
    }
    if kind == "glass_gem":  # a set of one colour, or of many (hue spread over the wheel)
        seeds["hue_spread"] = _f(rng.choice([0.0, rng.uniform(0.1, 0.5), 1.0]), 2)
        seeds["transmission"] = _f(rng.uniform(0.6, 0.95), 2)
    table = {
        "kind": str(rng.choice(list(tables or TABLES))),
        "color": _muted(rng),
        "color2": _muted(rng),
        "scale": _f(rng.uniform(2, 12), 2),
    }
    lk = str(rng.choice(LIGHTS, p=[0.25, 0.2, 0.25, 0.12, 0.18]))
    light = {
        "kind": lk,
        "azimuth": _f(rng.uniform(0, 360), 1),
        "elevation": _f(rng.uniform(15, 60), 1),
        "softness": _f(rng.uniform(0, 1), 2),  # 0 harsh .. 1 soft shadows
        "temperature": _f(rng.uniform(2600, 7500), 0),
        "strength": _f(rng.uniform(0.7, 1.4), 2),
        "ambient": _f(rng.uniform(0.05, 0.6), 2),
        "hue_a": [_f(c, 3) for c in rng.uniform(0, 1, 3)],
        "hue_b": [_f(c, 3) for c in rng.uniform(0, 1, 3)],
    }
    side = str(rng.choice(list(CAMERA_SIDES), p=[0.4, 0.2, 0.2, 0.2]))
    azimuth = _f(CAMERA_SIDES[side] + rng.uniform(-20, 20), 2)
    camera = {
        "side": side,
        "azimuth": azimuth,
        "elevation": _f(rng.uniform(*(elevation or ELEVATION)), 2),
        "roll": _f(rng.normal(0, 3), 2),
        "focal_mm": _f(rng.uniform(20, 50), 2),
        "fill": _f(rng.uniform(*(fill or FILL)), 3),
        "target_offset": [_f(rng.normal(0, 0.02)), _f(rng.normal(0, 0.02))],
        "width": int(width),
        "height": int(height),
    }
    sensor = {
        "exposure": _f(rng.normal(0, 0.35), 2),
        "target_brightness": _f(rng.uniform(0.3, 0.52), 3),
        "noise_sigma": _f(rng.uniform(0.5, 5.0), 2),
        "blur_sigma": _f(rng.choice([0.0, rng.uniform(0.3, 1.0)]), 2),
        "vignette": _f(rng.uniform(0, 0.35), 2),
        "jpeg_quality": int(rng.integers(68, 93)),
        "render_scale": 60,
        "view_transform": str(rng.choice(["AgX", "Filmic", "Standard"], p=[0.5, 0.3, 0.2])),
    }
    hand = None
    if rng.random() < hand_prob:
        hand = sample_hand(rng)
    reserve_piles = {"south_x": _f(rng.uniform(0.05, 0.4)),
                     "north_x": _f(rng.uniform(0.05, 0.4)),
                     "gap": _f(rng.uniform(0.03, 0.10))}
    physics_seed = int(rng.integers(0, 2**31 - 1))
    if turn is not None:
        extra = np.random.default_rng([physics_seed, 7])
        way = float(extra.choice([-1, 1]))
        camera["azimuth"] = _f(azimuth + way * extra.uniform(*turn), 2)
    if varied_layout:
        was = geom.pit_radius
        geom = sample_varied_layout(geom, np.random.default_rng([physics_seed, 13]))
        seeds["diameter"] = _f(seed_d * geom.pit_radius / was)
    if pit_walls is not None:
        geom = replace(geom, pit_wall=_f(np.random.default_rng([physics_seed, 11]).uniform(*pit_walls), 3))
    return {"geometry": geom.__dict__.copy(), "wood": wood, "seeds": seeds, "table": table,
            "light": light, "camera": camera, "sensor": sensor, "hand": hand,
            "reserve_piles": reserve_piles, "physics_seed": physics_seed}


def sample_hand(rng: np.random.Generator, pit: str | None = None,
                side: str | None = None) -> dict[str, Any]:
    """A hand reaching from ``side`` (south|north) towards ``pit`` (random when None)."""
    return {
        "side": side or str(rng.choice(["south", "north"])),
        "pit": pit or str(rng.choice(HOLES)),
        "height": _f(rng.uniform(0.03, 0.12)),
        "yaw": _f(rng.normal(0, 20), 1),
        "size": _f(rng.uniform(0.9, 1.15), 3),
        "spread": _f(rng.uniform(0, 1), 2),
        "skin": [_f(c, 3) for c in _skin(rng)],
        "sleeve": [_f(c, 3) for c in rng.uniform(0.05, 0.85, 3)],
        "sleeve_at": _f(rng.uniform(0.35, 0.7), 2),
    }


def _muted(rng: np.random.Generator) -> list[float]:
    """A household colour: mostly greys, browns and faded tints."""
    grey = rng.uniform(0.12, 0.8)
    tint = rng.uniform(-1, 1, 3) * rng.uniform(0.0, 0.18)
    return [_f(np.clip(grey + t, 0.03, 0.95), 3) for t in tint]


def _skin(rng: np.random.Generator) -> np.ndarray:
    t = rng.uniform(0, 1)
    dark = np.array([0.28, 0.17, 0.11])
    light = np.array([0.87, 0.68, 0.56])
    return dark + (light - dark) * t


def _heaped_counts(rng: np.random.Generator, heaps: int) -> dict[str, Any]:
    if heaps > 3:
        raise ValueError(f"at most 3 heaps of 16+ fit in 64 seeds, asked for {heaps}")
    counts = dict.fromkeys(HOLES, 0)
    left = 64
    for k, name in enumerate(rng.choice(HOLES, size=heaps, replace=False)):
        room = left - 16 * (heaps - k - 1)  # leave 16 for each heap still to place
        heap = int(rng.integers(16, min(30, room) + 1))
        counts[str(name)] = heap
        left -= heap
    extra = rng.multinomial(left, rng.dirichlet(np.full(32, rng.uniform(0.15, 1.2))))
    for name, k in zip(HOLES, extra, strict=True):
        counts[name] += int(k)
    return {"counts": counts, "reserves": {"south": 0, "north": 0},
            "nyumba_owned": {"south": bool(counts["A5"] > 0), "north": bool(counts["a5"] > 0)},
            "to_move": str(rng.choice(["south", "north"]))}


def sample_counts(rng: np.random.Generator, heaps: int = 0) -> dict[str, Any]:
    """Random plausible seed counts: 64 seeds between the pits and two reserves.

    A third of the draws hold a heap of 20..30 seeds in one pit. ``heaps`` > 0
    asks for that many heaps of 16..30 seeds instead (all 64 seeds on the board,
    the rest spread as usual): a test set for big heaps, which games rarely hold.
    """
    if heaps > 0:
        return _heaped_counts(rng, heaps)
    mode = rng.random()
    if mode < 0.08:
        counts = dict.fromkeys(HOLES, 0) | {"A5": 6, "A6": 2, "A7": 2, "a5": 6, "a6": 2, "a7": 2}
        return {"counts": counts, "reserves": {"south": 22, "north": 22},
                "nyumba_owned": {"south": True, "north": True}, "to_move": "south"}
    if rng.random() < 0.45:
        rs = rn = 0
    else:
        rs = int(rng.integers(0, 22))
        rn = max(0, rs - int(rng.integers(0, 2)))
    on_board = 64 - rs - rn
    counts = dict.fromkeys(HOLES, 0)
    if rng.random() < 0.35:
        heap = int(rng.integers(20, 31))
        heap = min(heap, on_board)
        counts[str(rng.choice(HOLES))] = heap
        on_board -= heap
    alpha = rng.uniform(0.15, 1.2)
    share = rng.dirichlet(np.full(32, alpha))
    extra = rng.multinomial(on_board, share)
    for name, k in zip(HOLES, extra, strict=True):
        counts[name] += int(k)
    owned = {"south": bool(counts["A5"] > 0 and rng.random() < 0.6),
             "north": bool(counts["a5"] > 0 and rng.random() < 0.6)}
    return {"counts": counts, "reserves": {"south": rs, "north": rn}, "nyumba_owned": owned,
            "to_move": str(rng.choice(["south", "north"]))}
