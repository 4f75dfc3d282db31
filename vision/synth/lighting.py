"""The rendered scene's light: sun, lamp, window or overcast sky with their colours, and a
camera's metering of the exposure. Needs ``bpy`` (``pip install .[render]``)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from vision.synth.meshes import to_matrix


def blackbody(kelvin: float) -> list[float]:
    """Approximate sRGB colour of a black body (Tanner Helland's fit), 0..1."""
    t = kelvin / 100.0
    r = 1.0 if t <= 66 else min(1.0, 1.2929 * (t - 60) ** -0.1332)
    g = (0.3901 * math.log(t) - 0.6318) if t <= 66 else 1.1299 * (t - 60) ** -0.0755
    b = 1.0 if t >= 66 else (0.0 if t <= 19 else 0.5432 * math.log(t - 10) - 1.1962)
    return [max(0.0, min(1.0, c)) for c in (r, g, b)]


def add_lights(bpy: Any, scene: Any, lp: dict[str, Any]) -> None:
    """The scene's world (sky) and lights for the light parameters ``lp`` of
    :mod:`vision.synth.params` (kind, direction, colour temperatures, softness)."""
    from vision.synth.materials import linear

    world = bpy.data.worlds.new("world")
    scene.world = world
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    kind = lp["kind"]
    col = blackbody(lp["temperature"])
    az, el = math.radians(lp["azimuth"]), math.radians(lp["elevation"])
    direction = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
    k = float(lp["strength"])
    amb = float(lp["ambient"])

    def add(name: str, ltype: str, loc: np.ndarray, energy: float, color: list[float],
            size: float = 0.0) -> Any:
        data = bpy.data.lights.new(name, ltype)
        data.energy = energy
        data.color = linear(color)[:3]
        if ltype == "SUN":
            data.angle = size
        elif ltype == "AREA":
            data.shape = "RECTANGLE"
            data.size, data.size_y = size, size * 1.4
        else:
            data.shadow_soft_size = size
        obj = bpy.data.objects.new(name, data)
        scene.collection.objects.link(obj)
        obj.location = tuple(map(float, loc))
        # aim -z at the origin
        fwd = -loc / max(np.linalg.norm(loc), 1e-9)
        right = np.cross(fwd, [0, 0, 1.0])
        right = right / np.linalg.norm(right) if np.linalg.norm(right) > 1e-6 else np.array([1, 0, 0])
        up = np.cross(right, fwd)
        mw = np.eye(4)
        mw[:3, :3] = np.stack([right, up, -fwd], axis=1)
        mw[:3, 3] = loc
        obj.matrix_world = to_matrix(mw)
        return obj

    sky = [0.6, 0.7, 0.9]
    if kind == "sun":
        add("sun", "SUN", direction * 10, 3.5 * k, col, math.radians(0.5 + 12 * lp["softness"]))
        bg_col, bg_k = sky, 0.4 + amb
    elif kind == "lamp":
        loc = direction * (0.6 + 0.8 * lp["softness"])
        add("lamp", "POINT", loc, 60 * k * (1 + float(np.linalg.norm(loc)) ** 2),
            blackbody(min(lp["temperature"], 4000)), 0.02 + 0.2 * lp["softness"])
        bg_col, bg_k = blackbody(3500), 0.05 + 0.3 * amb
    elif kind == "window":
        loc = np.array([direction[0], direction[1], 0.0])
        loc = loc / max(np.linalg.norm(loc), 1e-9) * 2.0 + np.array([0, 0, 0.4 + direction[2]])
        add("window", "AREA", loc, 900 * k, blackbody(max(lp["temperature"], 5500)),
            0.6 + 1.2 * lp["softness"])
        bg_col, bg_k = [0.9, 0.9, 0.92], 0.1 + 0.4 * amb
    elif kind == "coloured":
        add("key", "POINT", direction * 1.0, 120 * k, [0.3 + 0.7 * c for c in lp["hue_a"]],
            0.05 + 0.2 * lp["softness"])
        d2 = np.array([-direction[0], -direction[1], direction[2]])
        add("fill", "POINT", d2 * 1.2, 70 * k, [0.2 + 0.8 * c for c in lp["hue_b"]], 0.2)
        bg_col, bg_k = [0.3 + 0.7 * c for c in lp["hue_b"]], 0.05 + 0.2 * amb
    else:  # overcast: sky light only, soft, with a faint broad top light
        add("top", "AREA", np.array([0.3, -0.2, 2.5]), 300 * k, [1, 1, 1], 2.5)
        bg_col, bg_k = [0.85, 0.87, 0.9], 0.8 + amb
    bg.inputs["Color"].default_value = linear(bg_col)
    bg.inputs["Strength"].default_value = bg_k


def auto_exposure(bpy: Any, scene: Any, sensor: dict[str, Any], probe: Path) -> None:
    """Meter like a camera: a tiny noisy render, then shift the exposure towards the
    wanted mean brightness (``sensor['target_brightness']``, display values 0..1)."""
    import cv2

    cyc = scene.cycles
    keep = (cyc.samples, cyc.use_denoising, scene.render.resolution_percentage)
    cyc.samples, cyc.use_denoising, scene.render.resolution_percentage = 4, False, 12
    for _ in range(2):
        scene.render.filepath = str(probe)
        bpy.ops.render.render(write_still=True)
        img = cv2.imread(str(probe), cv2.IMREAD_GRAYSCALE)
        if img is None:
            raise OSError(f"cannot read the metering render {probe}")
        mean = max(float(img.mean()) / 255.0, 0.01)
        step = float(np.clip(2.2 * math.log2(sensor["target_brightness"] / mean), -4, 4))
        scene.view_settings.exposure += step
        if abs(step) < 0.25:
            break
    probe.unlink(missing_ok=True)
    cyc.samples, cyc.use_denoising, scene.render.resolution_percentage = keep
