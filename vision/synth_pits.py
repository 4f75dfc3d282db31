"""Fast procedural generator of single-pit crops with known seed counts.

Training and test data for the pit counter (:mod:`vision.count`). Each crop is
a square BGR ``uint8`` image of one pit, the pit filling most of it, drawn with
wide randomisation so that the counter does not learn one board:

* wood from pale to near-black with grain; round (elliptic under perspective)
  or rounded-square pits with a shaded bowl, most with a crisp rim, some a dimple
  whose wall runs into the wood with no edge;
* seeds of many looks (grey nuts, glossy brown seeds, pebbles, pale beans,
  glass gems, random colours), 9-45 % of the pit diameter, stacked by a
  sphere-packing deposition into heaps that hide each other;
* coloured, directional light with shadows; tilted cameras (0-50 degrees);
* webcam effects: low resolution, blur, noise, JPEG.

A *style* (:class:`PitStyle`) holds everything that is fixed for one board and
one camera; :func:`render_pit` draws one pit of a style with a given count, so
calibration crops (counts 6, 2, 2, 0) and test crops can share a look.

Run ``python -m vision.synth_pits OUT_DIR -n 50`` to write example crops.
Coordinates: image arrays are ``[row, col]``; points are ``(x, y)``.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

WORK = 128  # drawing resolution (pixels per crop side)

SEED_KINDS = ("nut", "brown", "pebble", "bean", "glass", "random")
KIND_WEIGHTS = (0.22, 0.22, 0.18, 0.18, 0.1, 0.1)


@dataclass(frozen=True)
class PitStyle:
    """What one board under one light and camera looks like (drawing parameters)."""

    wood_bgr: tuple[float, float, float]
    grain_amp: float
    grain_period: float
    grain_angle: float
    floor_dark: float
    bowl_depth: float
    square: bool
    kind: str
    seed_bgr: tuple[float, float, float]
    seed_var: float
    multicolour: bool
    seed_ratio: float  # seed diameter / pit diameter
    aspect: float
    irregular: float
    gloss: float
    mottle: float
    light_angle: float
    light_elev: float
    tint: tuple[float, float, float]
    exposure: float
    gradient: float
    tilt_deg: float
    pit_frac: float  # pit diameter / crop side
    out_size: int
    blur: float
    noise: float
    jpeg: int
    outline: float
    rectified: bool  # crop cut from a homography-rectified view: round pit, seeds stretched
    rim_soft: float = 0.0  # 0: the bowl meets the wood at a crisp rim; up to 1: it fades in over that share of the radius


def _u(rng: np.random.Generator, a: float, b: float) -> float:
    return float(rng.uniform(a, b))


def random_style(rng: np.random.Generator) -> PitStyle:
    """Draw a random board/light/camera style."""
    # Wood: pale -> near black, warm hues.
    v = _u(rng, 0.08, 0.85)
    warm = _u(rng, 0.55, 0.95)
    wood = (v * warm * _u(rng, 0.55, 0.9), v * _u(rng, 0.75, 0.95), v)
    kind = str(rng.choice(SEED_KINDS, p=KIND_WEIGHTS))
    multicolour = False
    seed: tuple[float, ...]
    aspect, irregular, gloss, mottle, outline = 1.0, 0.0, 0.2, 0.0, 0.0
    if kind == "nut":  # grey komwe nuts
        g = _u(rng, 0.35, 0.75)
        seed = (g * _u(rng, 0.9, 1.1), g, g * _u(rng, 0.9, 1.15))
        aspect, irregular, gloss, mottle = _u(rng, 1.0, 1.25), _u(rng, 0.0, 0.12), _u(rng, 0.0, 0.3), _u(rng, 0.1, 0.35)
    elif kind == "brown":
        b = _u(rng, 0.2, 0.6)
        seed = (b * 0.45, b * 0.7, b)
        aspect, gloss, mottle = _u(rng, 1.0, 1.4), _u(rng, 0.3, 0.9), _u(rng, 0.0, 0.15)
    elif kind == "pebble":
        g = _u(rng, 0.25, 0.85)
        seed = (g * _u(rng, 0.8, 1.1), g * _u(rng, 0.85, 1.05), g * _u(rng, 0.85, 1.15))
        aspect, irregular, gloss, mottle = _u(rng, 1.0, 1.5), _u(rng, 0.05, 0.25), _u(rng, 0.0, 0.4), _u(rng, 0.1, 0.4)
    elif kind == "bean":
        p = _u(rng, 0.7, 0.97)
        seed = (p * _u(rng, 0.75, 0.95), p * _u(rng, 0.88, 1.0), p)
        aspect, gloss, mottle = _u(rng, 1.25, 1.8), _u(rng, 0.1, 0.5), _u(rng, 0.0, 0.1)
    elif kind == "glass":
        seed = tuple(float(c) for c in rng.uniform(0.15, 0.95, 3))
        multicolour = bool(rng.random() < 0.6)
        aspect, gloss = _u(rng, 1.0, 1.15), _u(rng, 0.6, 1.0)
    else:
        seed = tuple(float(c) for c in rng.uniform(0.05, 0.95, 3))
        multicolour = bool(rng.random() < 0.3)
        aspect, irregular, gloss, mottle = _u(rng, 1.0, 1.6), _u(rng, 0.0, 0.2), _u(rng, 0.0, 0.9), _u(rng, 0.0, 0.3)
    if rng.random() < 0.35:
        outline = _u(rng, 0.2, 0.7)
    light = rng.choice(4)
    tint: tuple[float, ...]
    if light == 0:  # neutral
        tint = (1.0, 1.0, 1.0)
    elif light == 1:  # warm lamp
        tint = (_u(rng, 0.55, 0.85), _u(rng, 0.8, 0.95), 1.0)
    elif light == 2:  # cool window
        tint = (1.0, _u(rng, 0.9, 1.0), _u(rng, 0.75, 0.95))
    else:  # coloured
        tint = tuple(float(c) for c in rng.uniform(0.5, 1.0, 3))
    seed_ratio = _u(rng, 0.25, 0.45) if rng.random() < 0.5 \
        else float(np.exp(rng.uniform(math.log(0.09), math.log(0.45))))
    pit_frac = _u(rng, 0.62, 0.97)
    # A camera that cannot resolve a seed (under ~5 px) teaches nothing: raise the resolution.
    out_size = max(int(rng.integers(28, 161)), int(math.ceil(5.0 / (seed_ratio * pit_frac))))
    return PitStyle(
        wood_bgr=tuple(float(c) for c in wood),  # type: ignore[arg-type]
        grain_amp=_u(rng, 0.0, 0.25),
        grain_period=_u(rng, 3.0, 18.0),
        grain_angle=_u(rng, 0, math.pi),
        floor_dark=_u(rng, 0.45, 1.0),
        bowl_depth=_u(rng, 0.15, 0.45),
        square=bool(rng.random() < 0.2),
        kind=kind,
        seed_bgr=tuple(float(c) for c in seed),  # type: ignore[arg-type]
        seed_var=_u(rng, 0.02, 0.15),
        multicolour=multicolour,
        seed_ratio=seed_ratio,
        aspect=aspect,
        irregular=irregular,
        gloss=gloss,
        mottle=mottle,
        light_angle=_u(rng, 0, 2 * math.pi),
        light_elev=_u(rng, 0.3, 1.0),
        tint=tint,  # type: ignore[arg-type]
        exposure=float(np.exp(rng.uniform(math.log(0.45), math.log(1.7)))),
        gradient=_u(rng, 0.0, 0.35),
        tilt_deg=_u(rng, 0.0, 50.0),
        pit_frac=pit_frac,
        out_size=out_size,
        blur=_u(rng, 0.0, 1.3) if rng.random() < 0.7 else 0.0,
        noise=_u(rng, 0.0, 0.045) if rng.random() < 0.7 else 0.0,
        jpeg=int(rng.integers(35, 96)),
        outline=outline,
        rectified=bool(rng.random() < 0.45),
        # drawn last, so the draws before are those of earlier versions
        rim_soft=_u(rng, 0.35, 1.0) if rng.random() < 0.3 else 0.0,
    )


def _lowfreq(rng: np.random.Generator, n: int, cells: int) -> np.ndarray:
    small = rng.standard_normal((cells, cells)).astype(np.float32)
    return cv2.resize(small, (n, n), interpolation=cv2.INTER_CUBIC)


def _wood(style: PitStyle, rng: np.random.Generator, n: int) -> np.ndarray:
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    a = style.grain_angle + _u(rng, -0.1, 0.1)
    u = xx * math.cos(a) + yy * math.sin(a)
    warp = _lowfreq(rng, n, 5) * 3.0
    grain = np.sin(2 * math.pi * (u + warp) / style.grain_period) * style.grain_amp
    grain += _lowfreq(rng, n, 24) * style.grain_amp * 0.4
    shade = 1.0 + grain + _lowfreq(rng, n, 4) * 0.06
    return shade[..., None] * np.array(style.wood_bgr, np.float32)[None, None, :]


def _pit_geometry(style: PitStyle, rng: np.random.Generator, n: int):
    frac = style.pit_frac * _u(rng, 0.95, 1.05)
    r = 0.5 * frac * n
    cx = n / 2 + _u(rng, -0.05, 0.05) * n
    cy = n / 2 + _u(rng, -0.05, 0.05) * n
    q = math.cos(math.radians(style.tilt_deg)) * _u(rng, 0.97, 1.03)
    q = min(q, 1.0)
    if style.rectified:
        q = 1.0
    rot = _u(rng, -0.3, 0.3) if rng.random() < 0.5 else 0.0
    return cx, cy, r, q, rot


def _pit_coords(n: int, cx: float, cy: float, r: float, q: float, rot: float):
    """Ground-plane coordinates (units of pit radius) of every pixel."""
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    dx, dy = xx - cx, yy - cy
    c, s = math.cos(rot), math.sin(rot)
    gx = (c * dx + s * dy) / r
    gy = (-s * dx + c * dy) / (r * q)
    return gx, gy


def _draw_pit(img: np.ndarray, style: PitStyle, rng: np.random.Generator, geom) -> None:
    n = img.shape[0]
    cx, cy, r, q, rot = geom
    gx, gy = _pit_coords(n, cx, cy, r, q, rot)
    if style.square:
        k = 6.0
        rad = (np.abs(gx) ** k + np.abs(gy) ** k) ** (1 / k)
    else:
        rad = np.sqrt(gx * gx + gy * gy)
    inside = np.clip((1.0 - rad) * r * 0.8 + 0.5, 0.0, 1.0)  # anti-aliased edge
    if style.rim_soft > 0:  # a dimple: its shading fades into the wood towards the rim
        w = np.clip((1.0 - rad) / style.rim_soft, 0.0, 1.0)
        inside = inside * w * w * (3.0 - 2.0 * w)
    # Bowl: a spherical cap, from shallow to a hemisphere (k = 1); normals point at its centre.
    k = min(1.0, style.bowl_depth * 2.2)
    nz = np.sqrt(np.clip(1.0 - (k * rad) ** 2, 0.01, None))
    nx, ny = -k * gx, -k * gy
    lx = math.cos(style.light_angle) * math.cos(style.light_elev * math.pi / 2)
    ly = math.sin(style.light_angle) * math.cos(style.light_elev * math.pi / 2)
    lz = math.sin(style.light_elev * math.pi / 2)
    norm = np.sqrt(nx * nx + ny * ny + nz * nz)
    lam = (nx * lx + ny * ly + nz * lz) / norm
    # The rim shades the wall nearest the light: follow the ray up to the rim plane.
    depth = (nz - math.sqrt(max(1.0 - k * k, 0.0))) / max(k, 1e-3) * 0.8
    lxy = math.hypot(lx, ly)
    reach = depth * lxy / max(lz, 0.05)
    ex, ey = gx + reach * lx / max(lxy, 1e-6), gy + reach * ly / max(lxy, 1e-6)
    lit = np.clip((1.0 - np.sqrt(ex * ex + ey * ey)) * 6.0 + 0.5, 0.0, 1.0)
    ambient = _u(rng, 0.2, 0.5)
    occl = 1.0 - _u(rng, 0.0, 0.4) * np.clip(rad, 0, 1) ** 4
    shade = (ambient + (1 - ambient) * np.clip(lam, 0, 1) * lit) * occl * style.floor_dark
    shade *= 1.0 + _lowfreq(rng, n, 6) * 0.05
    factor = 1.0 + inside * (shade - 1.0)
    # Rim highlight / dark edge line.
    ring = np.exp(-(((rad - 1.0) * r) ** 2) / 1.5)
    factor = factor + ring * _u(rng, -0.25, 0.25) * (1.0 - style.rim_soft)
    img *= factor[..., None]
    if rng.random() < 0.5:  # varnish: a specular spot where the bowl mirrors the light
        hx, hy, hz = lx, ly, lz + 1.0
        hn = math.sqrt(hx * hx + hy * hy + hz * hz)
        cos_h = np.clip((nx * hx + ny * hy + nz * hz) / (norm * hn), 0, 1)
        spec = inside * lit * cos_h ** _u(rng, 20, 300) * _u(rng, 0.2, 0.9)
        img += spec[..., None]


def _seed_sprite(style: PitStyle, rng: np.random.Generator, diam: float, base: np.ndarray,
                 light: tuple[float, float, float], q: float):
    """Return (colour patch, alpha patch) of one seed of about ``diam`` pixels."""
    a = diam / 2 * math.sqrt(style.aspect) * _u(rng, 0.9, 1.1)
    b = diam / 2 / math.sqrt(style.aspect) * _u(rng, 0.9, 1.1)
    theta = _u(rng, 0, math.pi)
    half = int(math.ceil(max(a, b))) + 2
    yy, xx = np.mgrid[-half:half + 1, -half:half + 1].astype(np.float32)
    c, s = math.cos(theta), math.sin(theta)
    u = (c * xx + s * yy) / a
    v = (-s * xx + c * yy) / b
    e = np.sqrt(u * u + v * v) + 1e-6
    if style.irregular > 0:
        ang = np.arctan2(v, u)
        wob = np.ones_like(e)
        for k in (2, 3, 5):
            wob += style.irregular * _u(rng, -1, 1) / k * np.cos(k * ang + _u(rng, 0, 6.3))
        e = e / wob
    alpha = np.clip((1.0 - e) * min(a, b) + 0.5, 0.0, 1.0)
    nz = np.sqrt(np.clip(1.0 - e * e, 0.0, 1.0))
    nxv = xx / max(a, 1e-3) * 0.9
    nyv = yy / max(a, 1e-3) * 0.9
    lx, ly, lz = light
    lam = np.clip((nxv * lx + nyv * ly + nz * lz) / np.sqrt(nxv ** 2 + nyv ** 2 + nz ** 2 + 1e-6), 0, 1)
    shade = 0.3 + 0.75 * lam
    if style.outline > 0:
        shade *= 1.0 - style.outline * np.clip((e - 0.75) / 0.25, 0, 1)
    col = shade[..., None] * base[None, None, :]
    if style.mottle > 0:
        m = rng.standard_normal((max(2, half // 2), max(2, half // 2))).astype(np.float32)
        m = np.asarray(cv2.resize(m, (2 * half + 1, 2 * half + 1), interpolation=cv2.INTER_LINEAR))
        col *= (1.0 + style.mottle * 0.5 * m)[..., None]
    if style.kind == "glass":
        col = col * 0.7 + base[None, None, :] * 0.4 * (1.0 - e[..., None])
    if style.gloss > 0:
        hx, hy = -lx * 0.45 * a, -ly * 0.45 * b
        hx, hy = lx * 0.45 * a, ly * 0.45 * b
        spec = np.exp(-((xx - hx) ** 2 + (yy - hy) ** 2) / max(0.6, (0.18 * diam) ** 2))
        col += (style.gloss * spec)[..., None]
    if abs(q - 1.0) > 0.001:  # squash (tilted camera) or stretch (rectified view)
        h2 = max(3, int(round((2 * half + 1) * q)) | 1)
        col = cv2.resize(col, (2 * half + 1, h2), interpolation=cv2.INTER_AREA)
        alpha = cv2.resize(alpha, (2 * half + 1, h2), interpolation=cv2.INTER_AREA)
    return col.astype(np.float32), alpha.astype(np.float32)


def _paste(img: np.ndarray, patch: np.ndarray | float, alpha: np.ndarray, x: float, y: float) -> None:
    h, w = alpha.shape
    x0, y0 = int(round(x - w / 2)), int(round(y - h / 2))
    n = img.shape[0]
    xa, ya = max(0, x0), max(0, y0)
    xb, yb = min(n, x0 + w), min(n, y0 + h)
    if xa >= xb or ya >= yb:
        return
    a = alpha[ya - y0:yb - y0, xa - x0:xb - x0, None]
    if isinstance(patch, np.ndarray) and patch.ndim == 3:
        p = patch[ya - y0:yb - y0, xa - x0:xb - x0]
        img[ya:yb, xa:xb] = img[ya:yb, xa:xb] * (1 - a) + p * a
    else:  # shadow: multiplicative darkening by patch value
        img[ya:yb, xa:xb] *= 1 - a * patch


def _heap(count: int, rng: np.random.Generator, seed_r: float, depth: float):
    """Deposit ``count`` spheres of radius ``seed_r`` (pit radius 1) into a bowl.

    Returns an array (count, 3) of ground-plane x, y and height z.
    """
    pts = np.zeros((count, 3), np.float32)
    lim = max(0.05, 1.0 - seed_r * 0.5)  # big heaps may lean on the rim
    spread = _u(rng, 0.6, 1.0)
    for i in range(count):
        k = 7
        ang = rng.uniform(0, 2 * math.pi, k)
        # A heap that no longer fits spreads over the rim (angle of repose, roughly).
        reach = min(1.5, max(lim * spread, 1.1 * seed_r * math.sqrt(i)))
        rr = reach * np.sqrt(rng.uniform(0, 1, k))
        cxs, cys = rr * np.cos(ang), rr * np.sin(ang)
        z = depth * (np.minimum(cxs ** 2 + cys ** 2, 1.0) - 1.0) + seed_r
        if i:
            d2 = (cxs[:, None] - pts[None, :i, 0]) ** 2 + (cys[:, None] - pts[None, :i, 1]) ** 2
            lift = pts[None, :i, 2] + np.sqrt(np.clip((2 * seed_r) ** 2 - d2, 0, None))
            lift = np.where(d2 < (2 * seed_r) ** 2, lift, -9.0)
            z = np.maximum(z, lift.max(axis=1))
        j = int(np.argmin(z + rng.uniform(0, seed_r * 0.3, k)))
        pts[i] = (cxs[j], cys[j], z[j])
    return pts


def render_pit(style: PitStyle, count: int, rng: np.random.Generator) -> np.ndarray:
    """Draw one pit of ``style`` holding ``count`` seeds; returns a BGR uint8 crop."""
    return render_pit_with_points(style, count, rng)[0]


def render_pit_with_points(style: PitStyle, count: int,
                           rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """:func:`render_pit`, and where each seed's centre was drawn in the crop: an
    (count, 2) float32 array of pixel (x, y), buried seeds included (the same draws, so
    the crop is the one :func:`render_pit` gives for the same generator state)."""
    if not 0 <= count <= 40:
        raise ValueError(f"count must be 0..40, got {count}")
    n = WORK
    img = _wood(style, rng, n)
    geom = _pit_geometry(style, rng, n)
    cx, cy, r, q, rot = geom
    # Neighbouring pits peeking in at the crop edge.
    if rng.random() < 0.3:
        for _ in range(int(rng.integers(1, 3))):
            ang = _u(rng, 0, 2 * math.pi)
            dist = r * _u(rng, 2.1, 2.6)
            ox, oy = cx + dist * math.cos(ang), cy + dist * math.sin(ang) * q
            cv2.ellipse(img, (int(ox), int(oy)), (int(r), int(r * q)), 0, 0, 360,
                        tuple(float(c) * style.floor_dark * 0.7 for c in style.wood_bgr), -1,
                        cv2.LINE_AA)
    _draw_pit(img, style, rng, geom)
    lx = math.cos(style.light_angle) * math.cos(style.light_elev * math.pi / 2)
    ly = math.sin(style.light_angle) * math.cos(style.light_elev * math.pi / 2)
    lz = math.sin(style.light_elev * math.pi / 2)
    diam = style.seed_ratio * 2 * r * _u(rng, 0.93, 1.07)
    seed_r = diam / (2 * r)
    centres = np.zeros((count, 2), np.float32)
    if count:
        pts = _heap(count, rng, seed_r, style.bowl_depth)
        tilt = math.radians(style.tilt_deg)
        # In a rectified view the board plane is undistorted but everything above
        # it is stretched away from the camera by 1 / cos(tilt).
        stretch = 1.0 / math.cos(tilt) if style.rectified else 1.0
        # Draw far-to-near: depth towards the camera grows with y and z.
        order = np.argsort(pts[:, 2] * math.cos(tilt) + pts[:, 1] * math.sin(tilt))
        base_all = np.array(style.seed_bgr, np.float32)
        palette = rng.uniform(0.1, 0.95, (4, 3)).astype(np.float32)
        c, s = math.cos(rot), math.sin(rot)
        for i in order:
            gx, gy, gz = (float(v) for v in pts[i])
            zpix = (gz + style.bowl_depth * 0.3) * r
            x = cx + (c * gx - s * gy * q) * r
            y = cy + (s * gx + c * gy * q) * r - zpix * math.sin(tilt) * stretch
            grow = 1.0 + 0.08 * max(0.0, gz)
            base = palette[int(rng.integers(4))].copy() if style.multicolour else base_all.copy()
            base *= 1.0 + rng.normal(0, style.seed_var, 3).astype(np.float32)
            base = np.clip(base * (0.85 + 0.25 * min(1.0, max(0.0, gz + 0.3))), 0, 1.2)
            # Contact shadow cast away from the light.
            sh_r = int(diam * 0.65 * grow) + 2
            yy, xx = np.mgrid[-sh_r:sh_r + 1, -sh_r:sh_r + 1].astype(np.float32)
            sig = diam * 0.45
            shadow = np.exp(-(xx ** 2 + (yy / max(q, 0.3)) ** 2) / (2 * sig * sig)).astype(np.float32)
            off = diam * 0.3 * (1.0 - lz)
            _paste(img, 0.55, shadow, x - lx * off, y - ly * off * q + diam * 0.1)
            squash = stretch if style.rectified else max(q, 0.75)
            col, alpha = _seed_sprite(style, rng, diam * grow, base, (lx, ly, lz), squash)
            _paste(img, col, alpha, x, y)
            centres[i] = (x, y)
    # Light: tint, exposure, gradient, vignette.
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) / n - 0.5
    ga = _u(rng, 0, 2 * math.pi)
    grad = 1.0 + style.gradient * 2 * (xx * math.cos(ga) + yy * math.sin(ga))
    img *= (grad * style.exposure)[..., None] * np.array(style.tint, np.float32)[None, None, :]
    img = np.clip(img * 255.0, 0, 255).astype(np.uint8)
    # Camera: resolution, blur, noise, JPEG.
    size = max(20, int(style.out_size * _u(rng, 0.9, 1.1)))
    out = cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA)
    if style.blur > 0.25:
        out = cv2.GaussianBlur(out, (0, 0), style.blur * size / 80.0 + 0.3)
    if style.noise > 0:
        noisy = out.astype(np.float32) + np.asarray(rng.normal(0, style.noise * 255, out.shape), np.float32)
        out = np.clip(noisy, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, style.jpeg])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    k = size / n  # canvas -> crop (pixel centres on integers)
    return (out if decoded is None else decoded), ((centres + 0.5) * k - 0.5).astype(np.float32)


def main(argv: list[str] | None = None) -> int:
    """Write example crops ``NNNN_cCOUNT.png`` to a folder."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("-n", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    for i in range(args.n):
        style = random_style(rng)
        count = int(rng.integers(0, 41))
        crop = render_pit(style, count, rng)
        cv2.imwrite(str(args.out / f"{i:04d}_c{count}_{style.kind}.png"), crop)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
