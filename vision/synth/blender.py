"""Build the Blender scene, settle the seeds by rigid-body simulation, render with Cycles.

Needs ``bpy`` (``pip install .[render]``). :func:`render_frame` is the one entry
point: it takes the parameter set of :mod:`vision.synth.params`, the wanted
number of seeds per group (32 holes and the two reserve piles) and optionally
the settled seeds of the previous frame of a game, and returns where every seed
came to rest. Seeds of groups whose count is unchanged stay exactly in place.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vision.holes import HOLES
from vision.synth.hand import hand_capsules
from vision.synth.labels import assign_seeds
from vision.synth.lighting import add_lights, auto_exposure
from vision.synth.meshes import N_VARIANTS, board_mesh, capsule_mesh, seed_meshes, to_matrix
from vision.synth.scene import BoardGeometry, camera_from_params

RESERVES = ("reserve_south", "reserve_north")


@dataclass
class Seed:
    """One seed: the group it lies in, its shape and colour keys and its resting pose."""

    group: str
    variant: int
    scale: tuple[float, float, float]
    rand: float
    matrix: list[list[float]] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"group": self.group, "variant": self.variant, "scale": list(self.scale),
                "rand": self.rand, "matrix": self.matrix}

    @staticmethod
    def from_json(d: dict[str, Any]) -> Seed:
        return Seed(d["group"], int(d["variant"]), tuple(d["scale"]), float(d["rand"]), d["matrix"])


@dataclass
class FrameResult:
    seeds: list[Seed]
    removed: int  # seeds that came to rest between pits or fell off, left out of the image
    render_seconds: float
    sim_seconds: float
    #: per seed (same order as ``seeds``): the share of its camera-facing surface the
    #: camera sees (:func:`seed_visibility`); None for reserve seeds, and for every seed
    #: when not measured (``visibility=False``)
    visibility: list[float | None] = field(default_factory=list)


def _shape_scale(kind: str, rng: np.random.Generator) -> tuple[float, float, float]:
    base = {"komwe": (1.0, 0.96, 0.86), "brown_seed": (1.18, 0.92, 0.72),
            "pebble": (1.15, 0.95, 0.7), "pale_bean": (1.3, 0.88, 0.5),
            "glass_gem": (1.0, 1.0, 0.5)}[kind]
    j = rng.normal(0, 0.06, 3)
    sx, sy, sz = (round(float(b * (1 + x)), 4) for b, x in zip(base, j, strict=True))
    return (sx, sy, sz)


def new_seeds(group: str, n: int, kind: str, rng: np.random.Generator) -> list[Seed]:
    return [Seed(group, int(rng.integers(0, N_VARIANTS)), _shape_scale(kind, rng),
                 round(float(rng.random()), 4)) for _ in range(n)]


def _spawn_points(centre: tuple[float, float], radius: float, z0: float, sr: float, n: int,
                  rng: np.random.Generator) -> np.ndarray:
    """Drop positions for ``n`` seeds of radius ``sr`` over a disc: sunflower layers."""
    per = max(1, int((radius / sr) ** 2 * 0.7))
    pts = []
    for i in range(n):
        layer, k = divmod(i, per)
        rr = radius * math.sqrt((k + 0.5) / per) if per > 1 else 0.0
        a = k * 2.39996 + layer * 1.1 + rng.uniform(0, 0.4)
        pts.append([centre[0] + rr * math.cos(a) + rng.normal(0, 0.15 * sr),
                    centre[1] + rr * math.sin(a) + rng.normal(0, 0.15 * sr),
                    z0 + sr * 1.3 + layer * 2.3 * sr])
    return np.array(pts)


def _group_centre(group: str, geom: BoardGeometry, piles: dict[str, float]) -> tuple[float, float]:
    if group == "reserve_south":
        return (piles["south_x"], -(geom.width / 2 + piles["gap"] + 0.04))
    if group == "reserve_north":
        return (-piles["north_x"], geom.width / 2 + piles["gap"] + 0.04)
    return geom.pit_xy(group)


@contextmanager
def quiet() -> Iterator[None]:
    """Silence Blender's own progress lines (written to file descriptor 1) meanwhile."""
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


def _drop(objs: list[tuple[Seed, Any]], geom: BoardGeometry, piles: dict[str, float],
          seed_r: float, rng: np.random.Generator,
          heights: dict[str, float] | None = None) -> None:
    """Place fresh seeds above their pit (or reserve spot) in random poses, ready to fall;
    ``heights`` gives the top of seeds already resting in a group (drop just above it)."""
    for group in (*HOLES, *RESERVES):
        items = [(s, o) for s, o in objs if s.group == group]
        if not items:
            continue
        if group in RESERVES:
            radius, z0 = 0.6 * math.sqrt(len(items)) * seed_r + seed_r, 0.0
        else:  # big counts drop as a wider, lower mound instead of a tall column
            radius = 0.55 * geom.pit_half_extent(group)
            radius = max(radius, min(0.95 * geom.pit_half_extent(group),
                                     seed_r * math.sqrt(len(items) / 2.5)))
            z0 = geom.top_z
        if heights and group in heights:
            radius, z0 = min(radius, 0.4 * geom.pit_half_extent(group)), heights[group] + seed_r
        pts = _spawn_points(_group_centre(group, geom, piles), radius, z0, seed_r * 1.15,
                            len(items), rng)
        for (s, obj), p in zip(items, pts, strict=True):
            obj.matrix_world = to_matrix(np.eye(4))
            obj.location = tuple(map(float, p))
            obj.rotation_euler = tuple(map(float, rng.uniform(0, 2 * math.pi, 3)))
            obj.scale = tuple(seed_r * c for c in s.scale)


def _settle(bpy: Any, scene: Any, board: Any, table: Any, active: list[Any],
            passive: list[Any], frames: int) -> None:
    """Run the rigid-body simulation for ``frames`` frames (board and table passive)."""
    bpy.ops.rigidbody.world_add()
    rbw = scene.rigidbody_world
    rbw.substeps_per_frame = 12
    rbw.solver_iterations = 10
    rbw.point_cache.frame_start = 1
    rbw.point_cache.frame_end = frames
    scene.frame_start, scene.frame_end = 1, frames
    coll = bpy.data.collections.new("RigidBodyWorld")
    rbw.collection = coll
    for obj in [board, table, *passive, *active]:
        coll.objects.link(obj)
    for obj, typ in ([(board, "PASSIVE"), (table, "PASSIVE")] + [(o, "PASSIVE") for o in passive]
                     + [(o, "ACTIVE") for o in active]):
        bpy.context.view_layer.objects.active = obj
        if obj.rigid_body is None:
            bpy.ops.rigidbody.object_add(type=typ)
        rb = obj.rigid_body
        rb.type = typ
        rb.collision_shape = "MESH" if obj is board else ("BOX" if obj is table else "CONVEX_HULL")
        rb.use_margin = True
        rb.collision_margin = 0.0004
        rb.friction = 0.9 if obj in (board, table) else 0.8
        rb.restitution = 0.05
        if typ == "ACTIVE":
            rb.mass = 0.004
            rb.linear_damping = 0.3
            rb.angular_damping = 0.85
            rb.use_deactivation = True
    for f in range(1, frames + 1):
        scene.frame_set(f)


def render_frame(*args: Any, verbose: bool = False, **kwargs: Any) -> FrameResult:
    """Render one image (see :func:`_render_frame`); Blender's log is hidden unless ``verbose``."""
    if verbose:
        return _render_frame(*args, **kwargs)
    with quiet():
        return _render_frame(*args, **kwargs)


def _render_frame(
    params: dict[str, Any],
    targets: dict[str, int],
    out_png: str | Path,
    *,
    samples: int = 24,
    threads: int = 0,
    keep: list[Seed] | None = None,
    hand: dict[str, Any] | None = None,
    sim_frames: int = 36,
    exact_tries: int = 1,
    render: bool = True,
    visibility: bool = True,
) -> FrameResult:
    """Render one image; returns the settled seeds with the group each one ended in.

    ``targets`` maps each hole and ``reserve_south``/``reserve_north`` to a count.
    Seeds in ``keep`` whose group still has its wanted count are reused in place
    (passive during the simulation); all other groups are dropped afresh, up to
    ``exact_tries`` times until no fresh seed rolls out of its group. ``render`` False
    settles the seeds without rendering; ``visibility`` measures how much of each seed in
    a pit the camera sees (:func:`seed_visibility`, about a second).
    """
    import time

    import bpy

    from vision.synth import materials

    geom = BoardGeometry(**params["geometry"])
    rng = np.random.default_rng(params["physics_seed"] + sum(targets.values()) * 7919
                                + len(keep or []))
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    cyc = scene.cycles
    cyc.device = "CPU"
    cyc.samples = samples
    cyc.use_adaptive_sampling = True
    cyc.adaptive_threshold = 0.03
    cyc.use_denoising = True
    cyc.denoiser = "OPENIMAGEDENOISE"
    cyc.denoising_prefilter = "NONE"
    cyc.denoising_quality = "FAST"
    cyc.max_bounces, cyc.diffuse_bounces, cyc.glossy_bounces = 3, 1, 1
    cyc.transmission_bounces, cyc.transparent_max_bounces = 0, 2
    if params["seeds"]["kind"] == "glass_gem":  # light must pass through a gem or two
        cyc.max_bounces, cyc.transmission_bounces, cyc.glossy_bounces = 8, 6, 2
    cyc.caustics_reflective = cyc.caustics_refractive = False
    cyc.seed = int(params["physics_seed"] % 100000)
    cam_p = params["camera"]
    scene.render.resolution_x, scene.render.resolution_y = cam_p["width"], cam_p["height"]
    scene.render.resolution_percentage = int(params["sensor"].get("render_scale", 100))
    if threads:
        scene.render.threads_mode = "FIXED"
        scene.render.threads = threads
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_mode = "RGB"
    scene.view_settings.view_transform = params["sensor"]["view_transform"]
    scene.view_settings.exposure = params["sensor"]["exposure"]
    scene.render.fps = 24

    # board, table
    board = bpy.data.objects.new("board", board_mesh(bpy, geom))
    board.data.materials.append(materials.wood("wood", params["wood"]))
    scene.collection.objects.link(board)
    tme = bpy.data.meshes.new("table")
    h = 3.0
    tme.from_pydata([(-h, -h, -0.02), (h, -h, -0.02), (h, h, -0.02), (-h, h, -0.02),
                     (-h, -h, 0), (h, -h, 0), (h, h, 0), (-h, h, 0)], [],
                    [(4, 5, 6, 7), (3, 2, 1, 0), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6),
                     (3, 0, 4, 7)])
    table = bpy.data.objects.new("table", tme)
    table.data.materials.append(materials.table("table", params["table"]))
    scene.collection.objects.link(table)

    # camera
    cam = camera_from_params(geom, cam_p)
    cdata = bpy.data.cameras.new("cam")
    cdata.lens = cam.focal_mm
    cdata.sensor_width = cam.sensor_mm
    cdata.sensor_fit = "HORIZONTAL"
    cdata.clip_start = 0.01
    cdata.clip_end = 50
    cobj = bpy.data.objects.new("cam", cdata)
    scene.collection.objects.link(cobj)
    cobj.matrix_world = to_matrix(cam.matrix_world())
    scene.camera = cobj
    add_lights(bpy, scene, params["light"])

    # seeds
    sp = params["seeds"]
    seed_r = sp["diameter"] / 2
    meshes = seed_meshes(bpy, sp["kind"], np.random.default_rng(params["physics_seed"]))
    smat = materials.seed("seed", sp)
    for me in meshes:
        me.materials.append(smat)
    by_group: dict[str, list[Seed]] = {}
    for s in keep or []:
        by_group.setdefault(s.group, []).append(s)
    seeds: list[Seed] = []
    fresh: list[Seed] = []
    for group in (*HOLES, *RESERVES):
        want = int(targets.get(group, 0))
        have = by_group.get(group, [])
        if len(have) == want and all(s.matrix is not None for s in have):
            seeds.extend(have)
        else:
            add = have[:want] + new_seeds(group, max(0, want - len(have)), sp["kind"], rng)
            for s in add:
                s.matrix = None
            fresh.extend(add)
    objs_fixed: list[tuple[Seed, Any]] = []
    objs_new: list[tuple[Seed, Any]] = []
    for s in seeds + fresh:
        obj = bpy.data.objects.new("s", meshes[s.variant])
        obj["seed_rand"] = s.rand
        scene.collection.objects.link(obj)
        (objs_new if s.matrix is None else objs_fixed).append((s, obj))
    for s, obj in objs_fixed:
        obj.matrix_world = to_matrix(np.array(s.matrix))
    # drop the fresh seeds and let them settle; with exact_tries > 1, seeds that
    # ended anywhere but their own group are picked up and dropped again onto it
    # (the well-placed ones stay, as a player would put a stray seed back)
    t_sim = time.monotonic()
    proxy = None
    if objs_new:
        proxy = bpy.data.objects.new("board_proxy", board_mesh(bpy, geom, 0.003))
        scene.collection.objects.link(proxy)
    active, resting = list(objs_new), list(objs_fixed)
    for attempt in range(max(1, exact_tries) if objs_new else 0):
        heights: dict[str, float] = {}
        if attempt:
            for s, _o in resting:
                z = float(np.array(s.matrix)[2, 3])
                heights[s.group] = max(heights.get(s.group, 0.0), z)
        _drop(active, geom, params["reserve_piles"], seed_r, rng, heights)
        _settle(bpy, scene, proxy, table, [o for _, o in active], [o for _, o in resting],
                sim_frames)
        finals = [np.array(o.matrix_world) for _, o in active]
        bpy.ops.rigidbody.world_remove()
        scene.frame_set(1)
        for (s, o), m in zip(active, finals, strict=True):
            o.matrix_world = to_matrix(m)
            s.matrix = [[round(float(v), 6) for v in row] for row in m]
        where_new = assign_seeds(geom, np.array([m[:3, 3] for m in finals]),
                                 np.full(len(finals), seed_r))
        ok = [w == s.group or (s.group in RESERVES and w is None)
              for (s, _o), w in zip(active, where_new, strict=True)]
        if all(ok) or attempt == exact_tries - 1:
            break
        resting += [so for so, good in zip(active, ok, strict=True) if good]
        active = [so for so, good in zip(active, ok, strict=True) if not good]
    if proxy is not None:
        bpy.data.objects.remove(proxy)
    sim_seconds = time.monotonic() - t_sim

    # where did each seed end up?
    everything = objs_fixed + objs_new
    centres = np.array([np.array(s.matrix)[:3, 3] for s, _ in everything]).reshape(-1, 3)
    where = assign_seeds(geom, centres, np.full(len(everything), seed_r))
    kept: list[Seed] = []
    kept_objs: list[Any] = []
    removed = 0
    for (s, obj), w in zip(everything, where, strict=True):
        if s.group in RESERVES and w is None:
            kept.append(s)
            kept_objs.append(obj)
        elif w in HOLES:
            s.group = w
            kept.append(s)
            kept_objs.append(obj)
        else:  # between pits, off the board, or a reserve seed on the board
            bpy.data.objects.remove(obj)
            removed += 1

    if hand is not None:
        skin = materials.plain("skin", hand["skin"], 0.45, subsurface=0.0)
        sleeve = materials.plain("sleeve", hand["sleeve"], 0.85)
        for name, (a, b, r) in hand_capsules(geom, hand):
            obj = capsule_mesh(bpy, name, a, b, r)
            obj.data.materials.append(skin)
            scene.collection.objects.link(obj)
            if name == "forearm":  # sleeve over the far part of the forearm
                t0 = float(hand["sleeve_at"])
                sa = a + (b - a) * t0
                sl = capsule_mesh(bpy, "sleeve", sa, b, r * 1.35)
                sl.data.materials.append(sleeve)
                scene.collection.objects.link(sl)
            if name == "upper_arm":
                obj.data.materials[0] = sleeve

    seen_share: list[float | None] = [None] * len(kept)
    if visibility:
        on_board = [(i, obj) for i, (s, obj) in enumerate(zip(kept, kept_objs, strict=True))
                    if s.group in HOLES]
        seen = seed_visibility(bpy, scene, cobj, [o for _i, o in on_board])
        for (i, _o), v in zip(on_board, seen, strict=True):
            seen_share[i] = v

    t_render = time.monotonic()
    if render:
        scene.render.use_persistent_data = True
        auto_exposure(bpy, scene, params["sensor"], Path(str(out_png) + ".probe.png"))
        cyc.samples = samples
        scene.render.filepath = str(out_png)
        bpy.ops.render.render(write_still=True)
    return FrameResult(kept, removed, time.monotonic() - t_render, sim_seconds, seen_share)


def seed_visibility(bpy: Any, scene: Any, camera: Any, objs: Sequence[Any],
                    step: int = 3) -> list[float]:
    """The share of each seed's camera-facing surface that the camera sees, 0..1.

    A ray is cast from the camera to every ``step``-th vertex of the seed's mesh
    that faces the camera (the mesh is a deformed unit sphere, so its normal is
    taken as the ellipsoid's: the object matrix's inverse transpose applied to
    the vertex); the vertex is seen when the first surface the ray meets is that
    seed's. 0 means no part of the seed shows (buried under others, or under a
    hand); about 1, nothing covers it. Seeds partly outside the picture count as
    seen: only what covers them matters here."""
    bpy.context.view_layer.update()
    depsgraph = bpy.context.evaluated_depsgraph_get()
    mathutils = __import__("mathutils")
    eye = np.array(camera.matrix_world.translation, dtype=float)
    eye_v = mathutils.Vector(eye)
    out: list[float] = []
    for obj in objs:
        m = np.array(obj.matrix_world, dtype=float)
        co = np.zeros(len(obj.data.vertices) * 3, dtype=np.float64)
        obj.data.vertices.foreach_get("co", co)
        local = co.reshape(-1, 3)[::step]
        world = local @ m[:3, :3].T + m[:3, 3]
        normals = local @ np.linalg.inv(m[:3, :3])
        to_eye = eye - world
        facing = np.flatnonzero((normals * to_eye).sum(axis=1) > 0)
        if not len(facing):
            out.append(0.0)
            continue
        hits = 0
        for k in facing:
            d = world[k] - eye
            dist = float(np.linalg.norm(d))
            ok, _loc, _n, _idx, hit, _mx = scene.ray_cast(
                depsgraph, eye_v, mathutils.Vector(d / dist), distance=dist * 1.001 + 1e-5)
            hits += bool(ok) and hit is not None and hit.name == obj.name
        out.append(round(hits / len(facing), 3))
    return out

