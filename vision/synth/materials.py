"""Procedural Cycles materials (wood, seeds, table, skin, cloth). Needs ``bpy``.

Only imported by :mod:`vision.synth.blender`, itself imported only when rendering.
"""

from __future__ import annotations

from typing import Any

import bpy


def linear(rgb: list[float] | tuple[float, ...]) -> tuple[float, float, float, float]:
    """sRGB 0..1 -> linear RGBA for Blender colour sockets."""
    out = []
    for c in rgb[:3]:
        c = max(0.0, min(1.0, float(c)))
        out.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    return (out[0], out[1], out[2], 1.0)


class _Tree:
    """Small helper to build node trees in fewer lines."""

    def __init__(self, name: str) -> None:
        self.mat = bpy.data.materials.new(name)
        self.mat.use_nodes = True
        self.nodes = self.mat.node_tree.nodes
        self.links = self.mat.node_tree.links
        self.nodes.clear()
        self.out = self.nodes.new("ShaderNodeOutputMaterial")
        self.bsdf = self.nodes.new("ShaderNodeBsdfPrincipled")
        self.link(self.bsdf, "BSDF", self.out, "Surface")

    def new(self, kind: str, **inputs: Any) -> Any:
        node = self.nodes.new(kind)
        for key, value in inputs.items():
            if hasattr(node, key) and not isinstance(getattr(node, key), bpy.types.bpy_struct):
                setattr(node, key, value)
            else:
                node.inputs[key].default_value = value
        return node

    def link(self, a: Any, out: str | int, b: Any, inp: str | int) -> None:
        self.links.new(a.outputs[out], b.inputs[inp])

    def math(self, op: str, a: Any, b: Any, out: str | int = 0) -> Any:
        node = self.nodes.new("ShaderNodeMath")
        node.operation = op
        for i, v in enumerate((a, b)):
            if isinstance(v, int | float):
                node.inputs[i].default_value = float(v)
            else:
                self.links.new(v.outputs[out], node.inputs[i])
        return node

    def coords(self, kind: str = "Object", scale: tuple[float, float, float] = (1, 1, 1)) -> Any:
        tc = self.nodes.new("ShaderNodeTexCoord")
        mp = self.nodes.new("ShaderNodeMapping")
        mp.inputs["Scale"].default_value = scale
        self.link(tc, kind, mp, "Vector")
        return mp


def wood(name: str, w: dict[str, Any], cavity: bool = True) -> Any:
    """Grained wood: distorted bands along x, fine streaks, optional pit darkening."""
    t = _Tree(name)
    mp = t.coords("Object", (1.0, 1.0, 1.0))
    wave = t.new("ShaderNodeTexWave", wave_type="BANDS", bands_direction="Y")
    wave.inputs["Scale"].default_value = w["grain_scale"]
    wave.inputs["Distortion"].default_value = w["grain_distortion"]
    wave.inputs["Detail"].default_value = 3.0
    wave.inputs["Detail Scale"].default_value = 1.5
    t.link(mp, 0, wave, "Vector")
    mp2 = t.coords("Object", (2.0, w["streak_scale"], w["streak_scale"]))
    streak = t.new("ShaderNodeTexNoise")
    streak.inputs["Scale"].default_value = 1.0
    streak.inputs["Detail"].default_value = 8.0
    t.link(mp2, 0, streak, "Vector")
    mix = t.math("MULTIPLY_ADD", wave, 0.35)
    t.links.new(streak.outputs["Fac"], mix.inputs[2])
    mix2 = t.math("MULTIPLY_ADD", mix, 1.1)
    mix2.inputs[2].default_value = -0.2
    ramp = t.nodes.new("ShaderNodeValToRGB")
    ramp.color_ramp.elements[0].position = 0.25
    ramp.color_ramp.elements[0].color = linear(w["dark"])
    ramp.color_ramp.elements[1].position = 0.75
    ramp.color_ramp.elements[1].color = linear(w["light"])
    t.link(mix2, 0, ramp, "Fac")
    color = ramp
    if cavity and w["pit_darkening"] > 0:
        attr = t.new("ShaderNodeAttribute", attribute_name="cavity")
        dark = t.math("MULTIPLY", attr, w["pit_darkening"], out="Fac")
        inv = t.math("SUBTRACT", 1.0, dark)
        mul = t.nodes.new("ShaderNodeMix")
        mul.data_type = "RGBA"
        mul.blend_type = "MULTIPLY"
        mul.inputs["Factor"].default_value = 1.0
        t.link(ramp, "Color", mul, "A")
        t.links.new(inv.outputs[0], mul.inputs["B"])
        color = mul
        t.link(color, "Result", t.bsdf, "Base Color")
    else:
        t.link(ramp, "Color", t.bsdf, "Base Color")
    rough = t.math("MULTIPLY_ADD", mix2, 0.25)
    rough.inputs[2].default_value = w["roughness"] - 0.12
    t.link(rough, 0, t.bsdf, "Roughness")
    bump = t.new("ShaderNodeBump")
    bump.inputs["Strength"].default_value = w["bump"]
    bump.inputs["Distance"].default_value = 0.0004
    t.link(mix2, 0, bump, "Height")
    t.link(bump, "Normal", t.bsdf, "Normal")
    t.bsdf.inputs["Coat Weight"].default_value = w["varnish"]
    t.bsdf.inputs["Coat Roughness"].default_value = 0.15
    return t.mat


def seed(name: str, s: dict[str, Any]) -> Any:
    """Seed material; per-seed colour variation from the object property ``seed_rand``."""
    t = _Tree(name)
    rnd = t.new("ShaderNodeAttribute", attribute_type="OBJECT", attribute_name="seed_rand")
    if s["kind"] == "glass_gem":  # clear coloured glass, the hue spread across the set
        return _glass(t, rnd, s)
    var = float(s["color_variation"])
    fac = t.math("MULTIPLY_ADD", rnd, 2 * var, out="Fac")
    fac.inputs[2].default_value = 1.0 - var
    mp = t.coords("Object", (1, 1, 1))
    noise = t.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = {"pebble": 120.0, "komwe": 300.0}.get(s["kind"], 200.0)
    noise.inputs["Detail"].default_value = 6.0
    t.link(mp, 0, noise, "Vector")
    speck = t.math("MULTIPLY_ADD", noise, 0.5 if s["kind"] == "pebble" else 0.25, out="Fac")
    speck.inputs[2].default_value = 0.85 if s["kind"] == "pebble" else 0.9
    both = t.math("MULTIPLY", fac, speck)
    base = t.new("ShaderNodeRGB")
    base.outputs[0].default_value = linear(s["color"])
    mul = t.nodes.new("ShaderNodeMix")
    mul.data_type = "RGBA"
    mul.blend_type = "MULTIPLY"
    mul.inputs["Factor"].default_value = 1.0
    t.link(base, 0, mul, "A")
    t.links.new(both.outputs[0], mul.inputs["B"])
    if s["kind"] == "pebble":  # hue shift between pebbles
        hue = t.nodes.new("ShaderNodeHueSaturation")
        t.links.new(rnd.outputs["Fac"], hue.inputs["Hue"])
        hue.inputs["Saturation"].default_value = 0.8
        t.link(mul, "Result", hue, "Color")
        h2 = t.math("MULTIPLY_ADD", rnd, 0.16)
        h2.inputs[2].default_value = 0.42
        t.link(h2, 0, hue, "Hue")
        t.link(hue, "Color", t.bsdf, "Base Color")
    else:
        t.link(mul, "Result", t.bsdf, "Base Color")
    t.bsdf.inputs["Roughness"].default_value = s["roughness"]
    if s["kind"] in ("komwe", "brown_seed"):
        t.bsdf.inputs["Coat Weight"].default_value = 0.35
        t.bsdf.inputs["Coat Roughness"].default_value = 0.2
    bump = t.new("ShaderNodeBump")
    bump.inputs["Strength"].default_value = 0.25 if s["kind"] == "pebble" else 0.06
    bump.inputs["Distance"].default_value = 0.0005
    t.link(noise, "Fac", bump, "Height")
    t.link(bump, "Normal", t.bsdf, "Normal")
    return t.mat


def _glass(t: _Tree, rnd: Any, s: dict[str, Any]) -> Any:
    """Glass gem: transmissive, nearly smooth; each gem's hue turned by ``seed_rand``."""
    base = t.new("ShaderNodeRGB")
    base.outputs[0].default_value = linear(s["color"])
    hue = t.nodes.new("ShaderNodeHueSaturation")
    h = t.math("MULTIPLY_ADD", rnd, float(s.get("hue_spread", 0.0)), out="Fac")
    h.inputs[2].default_value = 0.5 - float(s.get("hue_spread", 0.0)) / 2
    t.link(h, 0, hue, "Hue")
    t.link(base, 0, hue, "Color")
    t.link(hue, "Color", t.bsdf, "Base Color")
    t.bsdf.inputs["Transmission Weight"].default_value = float(s.get("transmission", 0.92))
    t.bsdf.inputs["IOR"].default_value = 1.52
    t.bsdf.inputs["Roughness"].default_value = s["roughness"]
    return t.mat


def table(name: str, tb: dict[str, Any]) -> Any:
    """Table top: wood, cloth, concrete, woven mat, painted board or tiles."""
    kind = tb["kind"]
    if kind == "wood_table":
        c1, c2 = tb["color"], tb["color2"]
        light = [max(a, b) for a, b in zip(c1, c2, strict=True)]
        return wood(name, {"light": light, "dark": [v * 0.6 for v in light],
                           "grain_scale": 2.0, "grain_distortion": 6.0, "streak_scale": 25.0,
                           "roughness": 0.5, "varnish": 0.1, "pit_darkening": 0.0, "bump": 0.1},
                    cavity=False)
    t = _Tree(name)
    sc = float(tb["scale"])
    c1 = t.new("ShaderNodeRGB")
    c1.outputs[0].default_value = linear(tb["color"])
    c2 = t.new("ShaderNodeRGB")
    c2.outputs[0].default_value = linear(tb["color2"])
    mix = t.nodes.new("ShaderNodeMix")
    mix.data_type = "RGBA"
    t.link(c1, 0, mix, "A")
    t.link(c2, 0, mix, "B")
    mp = t.coords("Object", (sc, sc, sc))
    if kind == "cloth":
        tex = t.new("ShaderNodeTexChecker")
        tex.inputs["Scale"].default_value = 1.0
        t.link(mp, 0, tex, "Vector")
        t.link(tex, "Fac", mix, "Factor")
        rough, bump_src, bump_k = 0.95, t.new("ShaderNodeTexNoise"), 0.3
        bump_src.inputs["Scale"].default_value = 600.0
    elif kind == "concrete":
        tex = t.new("ShaderNodeTexNoise")
        tex.inputs["Scale"].default_value = 3.0
        tex.inputs["Detail"].default_value = 10.0
        t.link(mp, 0, tex, "Vector")
        t.link(tex, "Fac", mix, "Factor")
        c2.outputs[0].default_value = linear([v * 0.7 for v in tb["color"]])
        rough, bump_src, bump_k = 0.85, tex, 0.4
    elif kind == "woven_mat":
        wa = t.new("ShaderNodeTexWave", wave_type="BANDS", bands_direction="X")
        wb = t.new("ShaderNodeTexWave", wave_type="BANDS", bands_direction="Y")
        for wv in (wa, wb):
            wv.inputs["Scale"].default_value = 12.0
            t.link(mp, 0, wv, "Vector")
        tex = t.math("MULTIPLY", wa, wb, out="Fac")
        t.link(tex, 0, mix, "Factor")
        c1.outputs[0].default_value = linear([0.75, 0.6, 0.38])
        c2.outputs[0].default_value = linear([0.5, 0.36, 0.2])
        rough, bump_src, bump_k = 0.8, tex, 0.6
    elif kind == "tiles":
        tex = t.new("ShaderNodeTexBrick")
        tex.inputs["Scale"].default_value = 0.6
        tex.inputs["Mortar Size"].default_value = 0.02
        t.link(mp, 0, tex, "Vector")
        t.link(c1, 0, tex, "Color1")
        t.link(c2, 0, tex, "Color2")
        t.link(tex, "Color", t.bsdf, "Base Color")
        rough, bump_src, bump_k = 0.35, tex, 0.3
    else:  # painted
        tex = t.new("ShaderNodeTexNoise")
        tex.inputs["Scale"].default_value = 40.0
        t.link(mp, 0, tex, "Vector")
        mix.inputs["Factor"].default_value = 0.05
        rough, bump_src, bump_k = 0.45, tex, 0.05
    if kind != "tiles":
        t.link(mix, "Result", t.bsdf, "Base Color")
    t.bsdf.inputs["Roughness"].default_value = rough
    if bump_src is not None:
        if not bump_src.inputs[0].is_linked and bump_src.bl_idname.startswith("ShaderNodeTex"):
            t.link(mp, 0, bump_src, "Vector")
        bump = t.new("ShaderNodeBump")
        bump.inputs["Strength"].default_value = bump_k
        bump.inputs["Distance"].default_value = 0.001
        t.links.new(bump_src.outputs[0], bump.inputs["Height"])
        t.link(bump, "Normal", t.bsdf, "Normal")
    return t.mat


def plain(name: str, rgb: list[float], roughness: float, subsurface: float = 0.0) -> Any:
    """Uniform material (skin with a little subsurface scattering, sleeves)."""
    t = _Tree(name)
    t.bsdf.inputs["Base Color"].default_value = linear(rgb)
    t.bsdf.inputs["Roughness"].default_value = roughness
    if subsurface > 0:
        t.bsdf.inputs["Subsurface Weight"].default_value = subsurface
        t.bsdf.inputs["Subsurface Radius"].default_value = (0.004, 0.002, 0.001)
        t.bsdf.inputs["Subsurface Scale"].default_value = 1.0
    return t.mat
