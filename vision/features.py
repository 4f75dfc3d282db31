"""Scale-free image features of one pit crop, input of the learned counter.

Every crop is resized to ``SIZE`` x ``SIZE`` pixels; the pit is assumed to be
centred and to fill most of the crop (see docs/vision.md). Because seeds may be
anywhere from a tenth to a third of the pit diameter, nothing here assumes one
seed size: blob responses are measured over a scale space (scale-normalised
Laplacian of Gaussian, as in ``skimage.feature.blob_log``) and the learned
model (:mod:`vision.count`) decides which scales hold the seeds.

Feature groups (all floats, fixed order, :data:`N_BASE` of them):

* colour statistics (CIE Lab) of the pit centre, the pit, its rim and the
  crop corners (board wood);
* gradient energy at three pyramid levels, luminance and chroma;
* for 9 blob scales and both polarities (bright and dark blobs): the number of
  scale-space maxima above three strengths inside the pit and the mean
  response;
* histograms of luminance and of colour distance to the wood;
* radial profiles of luminance and texture.

With a :class:`~vision.count.SeedLook` from calibration, :func:`look_features`
adds the seed-coloured area in units of one seed and the blob counts at the
known seed scale (:data:`N_LOOK` more values).
Arrays are ``[row, col]``.
"""

from __future__ import annotations

import cv2
import numpy as np

SIZE = 96
SIGMAS = tuple(1.3 * 1.33**k for k in range(9))  # 1.3 .. 12.0 px at SIZE
PEAK_LEVELS = (0.04, 0.08, 0.16)
R_INNER, R_PIT, R_RIM = 0.25, 0.40, 0.49  # radii as fractions of SIZE


def _masks() -> dict[str, np.ndarray]:
    yy, xx = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32)
    c = (SIZE - 1) / 2
    r = np.sqrt((xx - c) ** 2 + (yy - c) ** 2) / SIZE
    return {
        "inner": r < R_INNER,
        "pit": r < R_PIT,
        "rim": (r >= R_PIT) & (r < R_RIM),
        "corner": r >= R_RIM + 0.02,
        "radius": r,
    }


_M = _masks()
_RADIAL_EDGES = (0.0, 0.1, 0.2, 0.28, 0.36, 0.44)


def prepare(crop_bgr: np.ndarray) -> np.ndarray:
    """Resize a BGR uint8 crop to SIZE x SIZE and return float32 Lab (L 0..1, a/b ~ -0.5..0.5)."""
    h, w = crop_bgr.shape[:2]
    interp = cv2.INTER_AREA if min(h, w) > SIZE else cv2.INTER_LINEAR
    img = cv2.resize(crop_bgr, (SIZE, SIZE), interpolation=interp)
    lab = cv2.cvtColor(img.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    lab[..., 0] /= 100.0
    lab[..., 1:] /= 100.0
    return lab


def _stats(lab: np.ndarray, mask: np.ndarray) -> list[float]:
    px = lab[mask]
    return [*px.mean(axis=0).tolist(), *px.std(axis=0).tolist()]


def _grad(img: np.ndarray) -> np.ndarray:
    gx = cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=3)
    return np.sqrt(gx * gx + gy * gy)


def scale_space(lum: np.ndarray) -> np.ndarray:
    """Scale-normalised -LoG of ``lum`` at every sigma in SIGMAS: (len(SIGMAS), SIZE, SIZE)."""
    out = np.empty((len(SIGMAS), SIZE, SIZE), np.float32)
    for i, s in enumerate(SIGMAS):
        g = cv2.GaussianBlur(lum, (0, 0), s, borderType=cv2.BORDER_REFLECT)
        out[i] = -(s * s) * cv2.Laplacian(g, cv2.CV_32F, ksize=1)
    return out


def peak_counts(resp: np.ndarray, mask: np.ndarray, levels=PEAK_LEVELS) -> list[float]:
    """Number of 3x3x3 scale-space maxima of ``resp`` inside ``mask`` above each level, per scale."""
    k = np.ones((3, 3), np.uint8)
    dil = np.stack([cv2.dilate(r, k) for r in resp])
    across = dil.copy()
    across[1:] = np.maximum(across[1:], dil[:-1])
    across[:-1] = np.maximum(across[:-1], dil[1:])
    is_max = (resp >= across) & mask[None]
    out: list[float] = []
    for i in range(resp.shape[0]):
        vals = resp[i][is_max[i]]
        out.extend(float(np.log1p((vals > t).sum())) for t in levels)
    return out


def base_features(lab: np.ndarray) -> np.ndarray:
    """The look-free feature vector of one prepared crop (see module doc)."""
    m = _M
    lum = lab[..., 0]
    feats: list[float] = []
    for key in ("inner", "pit", "rim", "corner"):
        feats.extend(_stats(lab, m[key]))
    wood = np.median(lab[m["corner"]], axis=0)
    floor = np.median(lab[m["rim"]], axis=0)
    feats.extend((lab[m["inner"]].mean(axis=0) - wood).tolist())
    # Contrast normalisation: robust spread of luminance over the whole crop.
    lo, hi = np.percentile(lum, (2, 98))
    spread = float(max(hi - lo, 0.02))
    feats.extend([spread, float(lo), float(hi)])
    ln = (lum - float(np.median(lum[m["pit"]]))) / spread
    chroma = np.sqrt(lab[..., 1] ** 2 + lab[..., 2] ** 2)
    # Gradients at three pyramid levels.
    img, cimg = ln, chroma / spread
    for level in range(3):
        n = img.shape[0]
        pit = cv2.resize(m["pit"].astype(np.uint8), (n, n), interpolation=cv2.INTER_NEAREST) > 0
        cor = cv2.resize(m["corner"].astype(np.uint8), (n, n), interpolation=cv2.INTER_NEAREST) > 0
        g = _grad(img)
        gc = _grad(cimg)
        feats.extend([float(g[pit].mean()), float(g[cor].mean()), float((g[pit] > 0.5).mean()),
                      float((g[pit] > 1.0).mean()), float(gc[pit].mean())])
        img, cimg = cv2.pyrDown(img), cv2.pyrDown(cimg)
    # Scale space, both polarities.
    resp = scale_space(ln)
    for sign in (1.0, -1.0):
        r = resp * sign
        feats.extend(peak_counts(r, m["pit"]))
        feats.extend(np.clip(r, 0, None)[:, m["pit"]].mean(axis=1).tolist())
    # Histograms: normalised luminance, and colour distance to the wood and to the rim.
    hist_l = np.histogram(np.clip(ln[m["pit"]], -1.5, 1.5), bins=8, range=(-1.5, 1.5))[0]
    feats.extend((hist_l / m["pit"].sum()).tolist())
    for ref in (wood, floor):
        dist = np.sqrt(((lab - ref) ** 2).sum(axis=2))[m["pit"]] / spread
        hist_d = np.histogram(np.clip(dist, 0, 1.99), bins=8, range=(0, 2))[0]
        feats.extend((hist_d / dist.size).tolist())
    # Radial profiles of luminance and local texture.
    tex = np.abs(ln - cv2.GaussianBlur(ln, (0, 0), 2.0))
    rad = m["radius"]
    for a, b in zip(_RADIAL_EDGES[:-1], _RADIAL_EDGES[1:], strict=True):
        ring = (rad >= a) & (rad < b)
        feats.extend([float(ln[ring].mean()), float(ln[ring].std()), float(tex[ring].mean())])
    return np.asarray(feats, np.float32)


N_BASE = int(base_features(np.zeros((SIZE, SIZE, 3), np.float32)).size)
N_LOOK = 12


def look_features(lab: np.ndarray, seed_lab: np.ndarray, floor_lab: np.ndarray,
                  seed_diam: float) -> np.ndarray:
    """Features that use a calibrated seed look (colour of seeds and floor, seed diameter in px at SIZE).

    Returns N_LOOK values; the first is 1.0 (flag "look given").
    """
    m = _M
    pit = m["pit"]
    d_seed = np.sqrt(((lab - seed_lab) ** 2).sum(axis=2))
    d_floor = np.sqrt(((lab - floor_lab) ** 2).sum(axis=2))
    sep = float(np.sqrt(((seed_lab - floor_lab) ** 2).sum()))
    seedish = (d_seed < d_floor)[pit]
    soft = np.clip((d_floor - d_seed) / max(sep, 1e-3) + 0.5, 0, 1)[pit]
    area_px = float(pit.sum())
    one_seed = max(np.pi * (seed_diam / 2) ** 2, 1.0)
    n_hard = seedish.sum() / one_seed
    n_soft = soft.sum() / one_seed
    frac = float(seedish.mean())
    # Blob peaks at the seed scale (sigma = r / sqrt 2) on the seed-likeness map.
    s = float(np.clip(seed_diam / 2 / np.sqrt(2), SIGMAS[0], SIGMAS[-1]))
    like = np.clip((d_floor - d_seed) / max(sep, 1e-3), -1.5, 1.5).astype(np.float32)
    g = cv2.GaussianBlur(like, (0, 0), s, borderType=cv2.BORDER_REFLECT)
    resp = -(s * s) * cv2.Laplacian(g, cv2.CV_32F, ksize=1)
    dil = cv2.dilate(resp, np.ones((3, 3), np.uint8))
    peaks = resp[(resp >= dil) & pit]
    return np.asarray([
        1.0,
        float(np.log(seed_diam / SIZE)),
        float(np.log1p(n_hard)),
        float(np.log1p(n_soft)),
        frac,
        float(np.log(one_seed / area_px)),
        float(np.log1p((peaks > 0.1).sum())),
        float(np.log1p((peaks > 0.2).sum())),
        float(np.log1p((peaks > 0.35).sum())),
        sep,
        float(d_floor[pit].mean() / max(sep, 1e-3)),
        float(d_seed[pit].mean() / max(sep, 1e-3)),
    ], np.float32)
