"""Blender meshes of the rendered scene: the board (a heightfield with its pits carved),
the seed shapes and the capsules of a hand. Needs ``bpy`` (``pip install .[render]``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from vision.synth.scene import BoardGeometry

N_VARIANTS = 6  # seed shapes made for each render (each seed takes one)
GRID_STEP = 0.0015  # board heightfield resolution (m)


def to_matrix(m: np.ndarray) -> Any:
    """A 4x4 numpy matrix as Blender's ``mathutils.Matrix`` (an object's ``matrix_world``)."""
    from mathutils import Matrix

    return Matrix([list(map(float, row)) for row in m])


def board_mesh(bpy: Any, geom: BoardGeometry, step: float = GRID_STEP) -> Any:
    """Closed board mesh: heightfield top (pits carved) and vertical sides."""
    nx = int(geom.length / step) + 1
    ny = int(geom.width / step) + 1
    xs = np.linspace(-geom.length / 2, geom.length / 2, nx)
    ys = np.linspace(-geom.width / 2, geom.width / 2, ny)
    gx, gy = np.meshgrid(xs, ys)
    gz = geom.surface_height(gx, gy)
    verts = np.stack([gx, gy, gz], axis=-1).reshape(-1, 3)
    # the top sheet plus a bottom ring (sides) so the board is closed
    idx = np.arange(nx * ny).reshape(ny, nx)
    quads = np.stack([idx[:-1, :-1], idx[:-1, 1:], idx[1:, 1:], idx[1:, :-1]], -1).reshape(-1, 4)
    ring = np.concatenate([idx[0, :], idx[1:, -1], idx[-1, -2::-1], idx[-2:0:-1, 0]])
    bottom = verts[ring].copy()
    bottom[:, 2] = 0.0
    base = len(verts)
    verts = np.concatenate([verts, bottom])
    m = len(ring)
    side = np.stack([ring, np.roll(ring, -1), base + (np.arange(m) + 1) % m, base + np.arange(m)],
                    -1)[:, ::-1]
    quads = np.concatenate([quads, side])
    me = bpy.data.meshes.new("board")
    me.vertices.add(len(verts))
    me.vertices.foreach_set("co", verts.astype(np.float32).ravel())
    me.loops.add(quads.size)
    me.loops.foreach_set("vertex_index", quads.astype(np.int32).ravel())
    me.polygons.add(len(quads))
    me.polygons.foreach_set("loop_start", np.arange(0, quads.size, 4, dtype=np.int32))
    me.polygons.foreach_set("loop_total", np.full(len(quads), 4, dtype=np.int32))
    me.update(calc_edges=True)
    smooth = np.ones(len(quads), dtype=bool)
    smooth[-m:] = False
    me.polygons.foreach_set("use_smooth", smooth)
    cav = np.sqrt(np.clip((geom.top_z - verts[:, 2]) / geom.pit_depth, 0, 1)).astype(np.float32)
    cav[base:] = 0.0
    attr = me.attributes.new("cavity", "FLOAT", "POINT")
    attr.data.foreach_set("value", cav)
    # flat bottom
    me.validate()
    return me


def seed_meshes(bpy: Any, kind: str, rng: np.random.Generator) -> list[Any]:
    """Unit-radius seed shapes: icospheres with low-frequency bumps (more for pebbles)."""
    bm_mod = __import__("bmesh")
    out = []
    amp = {"pebble": 0.12, "komwe": 0.03, "brown_seed": 0.02, "pale_bean": 0.02,
           "glass_gem": 0.01}[kind]
    for v in range(N_VARIANTS):
        me = bpy.data.meshes.new(f"seed{v}")
        bm = bm_mod.new()
        bm_mod.ops.create_icosphere(bm, subdivisions=3, radius=1.0)
        bm.to_mesh(me)
        bm.free()
        co = np.zeros(len(me.vertices) * 3, dtype=np.float32)
        me.vertices.foreach_get("co", co)
        p = co.reshape(-1, 3)
        k = rng.normal(0, 1, (4, 3))
        bumps = sum(np.sin(p @ k[i] * 1.7 + i) for i in range(4)) / 4
        p *= (1 + amp * bumps)[:, None]
        if kind == "pale_bean":  # kidney dent on one side
            p[:, 1] -= 0.12 * np.exp(-((p[:, 0] / 0.35) ** 2)) * (p[:, 1] > 0)
        if kind == "glass_gem":  # a flat underside: the bottom third pressed flat
            p[:, 2] = np.maximum(p[:, 2], -0.55)
        me.vertices.foreach_set("co", p.ravel())
        me.polygons.foreach_set("use_smooth", np.ones(len(me.polygons), dtype=bool))
        me.update()
        out.append(me)
    return out


def capsule_mesh(bpy: Any, name: str, a: np.ndarray, b: np.ndarray, r: float) -> Any:
    """A capsule mesh object between ``a`` and ``b`` (world coordinates)."""
    seg, ring = 24, 12
    verts, faces = [], []
    half = float(np.linalg.norm(b - a)) / 2
    for i in range(ring * 2 + 1):
        th = math.pi * i / (ring * 2)  # 0..pi
        z = math.cos(th) * r + (half if i <= ring else -half)
        rr = math.sin(th) * r
        for j in range(seg):
            ph = 2 * math.pi * j / seg
            verts.append((rr * math.cos(ph), rr * math.sin(ph), z))
    n_rows = ring * 2 + 1
    for i in range(n_rows - 1):
        for j in range(seg):
            faces.append((i * seg + j, i * seg + (j + 1) % seg,
                          (i + 1) * seg + (j + 1) % seg, (i + 1) * seg + j))
    me = bpy.data.meshes.new(name)
    me.from_pydata(verts, [], faces)
    me.polygons.foreach_set("use_smooth", np.ones(len(me.polygons), dtype=bool))
    me.update()
    me.validate()
    obj = bpy.data.objects.new(name, me)
    axis = (b - a) / max(np.linalg.norm(b - a), 1e-9)
    zaxis = np.array([0.0, 0.0, 1.0])
    v = np.cross(zaxis, axis)
    c = float(zaxis @ axis)
    if np.linalg.norm(v) < 1e-9:
        rot = np.eye(3) if c > 0 else np.diag([1.0, -1.0, -1.0])
    else:
        vx = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
        rot = np.eye(3) + vx + vx @ vx * (1 / (1 + c))
    mw = np.eye(4)
    mw[:3, :3] = rot
    mw[:3, 3] = (a + b) / 2
    obj.matrix_world = to_matrix(mw)
    return obj
