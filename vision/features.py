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
_U8 = {k: v.astype(np.uint8) for k, v in _M.items() if k != "radius"}
_LEVEL_MASKS = []
for _n in (SIZE, (SIZE + 1) // 2, (SIZE + 3) // 4):
    _LEVEL_MASKS.append(tuple(
        cv2.resize(_U8[k], (_n, _n), interpolation=cv2.INTER_NEAREST) > 0 for k in ("pit", "corner")))
_RADIAL_EDGES = (0.0, 0.1, 0.2, 0.28, 0.36, 0.44)
_RINGS = [((_M["radius"] >= a) & (_M["radius"] < b)).astype(np.uint8)
          for a, b in zip(_RADIAL_EDGES[:-1], _RADIAL_EDGES[1:], strict=True)]


def prepare(crop_bgr: np.ndarray) -> np.ndarray:
    """Resize a BGR uint8 crop to SIZE x SIZE and return float32 Lab (L 0..1, a/b ~ -0.5..0.5)."""
    h, w = crop_bgr.shape[:2]
    interp = cv2.INTER_AREA if min(h, w) > SIZE else cv2.INTER_LINEAR
    img = cv2.resize(crop_bgr, (SIZE, SIZE), interpolation=interp)
    lab = np.asarray(cv2.cvtColor(img.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab), np.float32)
    lab[..., 0] /= 100.0
    lab[..., 1:] /= 100.0
    return lab


def _stats(lab: np.ndarray, key: str) -> list[float]:
    mean, std = cv2.meanStdDev(lab, mask=_U8[key])
    return [*mean.ravel().tolist(), *std.ravel().tolist()]


def _hist(values: np.ndarray, lo: float, hi: float, bins: int = 8) -> list[float]:
    """Share of ``values`` in ``bins`` equal bins over [lo, hi] (outside values go to the end bins)."""
    idx = np.clip(((values - lo) * (bins / (hi - lo))).astype(np.int64), 0, bins - 1)
    return (np.bincount(idx, minlength=bins) / values.size).tolist()


def _grad(img: np.ndarray) -> np.ndarray:
    gx = cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=3)
    return np.sqrt(gx * gx + gy * gy)


def scale_space(lum: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Scale-normalised -LoG of ``lum`` at every sigma in SIGMAS, with the pit mask.

    Sigmas of 3 px and more are computed on a half- or quarter-size pyramid
    level (at sigma / 2 or / 4), which is what makes 32 pits cost a few ms.
    Returns one (response, pit mask) pair per sigma, at that level's size.
    """
    levels = [lum, cv2.pyrDown(lum)]
    levels.append(cv2.pyrDown(levels[1]))
    out = []
    for s in SIGMAS:
        lev = 0 if s < 3.0 else 1 if s < 6.5 else 2
        sl = s / (2**lev)
        g = cv2.GaussianBlur(levels[lev], (0, 0), sl, borderType=cv2.BORDER_REFLECT)
        out.append((-(sl * sl) * cv2.Laplacian(g, cv2.CV_32F, ksize=1), _LEVEL_MASKS[lev][0]))
    return out


_K3 = np.ones((3, 3), np.uint8)


def blob_features(space: list[tuple[np.ndarray, np.ndarray]], sign: float,
                  levels=PEAK_LEVELS) -> list[float]:
    """Per scale: log(1 + number of 3x3 maxima inside the pit above each level), mean positive response."""
    counts: list[float] = []
    means: list[float] = []
    for resp, mask in space:
        r = resp * sign if sign < 0 else resp
        vals = r[(r >= cv2.dilate(r, _K3)) & mask]
        counts.extend(float(np.log1p(np.count_nonzero(vals > t))) for t in levels)
        means.append(float(np.maximum(r[mask], 0).mean()))
    return counts + means


def base_features(lab: np.ndarray) -> np.ndarray:
    """The look-free feature vector of one prepared crop (see module doc)."""
    m = _M
    lum = lab[..., 0]
    feats: list[float] = []
    for key in ("inner", "pit", "rim", "corner"):
        feats.extend(_stats(lab, key))
    wood = np.median(lab[m["corner"]], axis=0)
    floor = np.median(lab[m["rim"]], axis=0)
    feats.extend((lab[m["inner"]].mean(axis=0) - wood).tolist())
    # Contrast normalisation: robust spread of luminance over the whole crop.
    flat = lum.ravel()
    k_lo, k_hi = int(0.02 * (flat.size - 1)), int(0.98 * (flat.size - 1))
    part = np.partition(flat, (k_lo, k_hi))
    lo, hi = float(part[k_lo]), float(part[k_hi])
    spread = float(max(hi - lo, 0.02))
    feats.extend([spread, float(lo), float(hi)])
    ln = (lum - float(np.median(lum[m["pit"]]))) / spread
    chroma = np.sqrt(lab[..., 1] ** 2 + lab[..., 2] ** 2)
    # Gradients at three pyramid levels.
    img, cimg = ln, chroma / spread
    for pit, cor in _LEVEL_MASKS:
        g = _grad(img)
        gp = g[pit]
        feats.extend([float(gp.mean()), float(g[cor].mean()), np.count_nonzero(gp > 0.5) / gp.size,
                      np.count_nonzero(gp > 1.0) / gp.size, float(_grad(cimg)[pit].mean())])
        img, cimg = np.asarray(cv2.pyrDown(img)), np.asarray(cv2.pyrDown(cimg))
    # Scale space, both polarities.
    space = scale_space(ln)
    for sign in (1.0, -1.0):
        feats.extend(blob_features(space, sign))
    # Histograms: normalised luminance, and colour distance to the wood and to the rim.
    feats.extend(_hist(ln[m["pit"]], -1.5, 1.5))
    pit_lab = lab[m["pit"]]
    for ref in (wood, floor):
        dist = np.sqrt(((pit_lab - ref) ** 2).sum(axis=1)) / spread
        feats.extend(_hist(dist, 0.0, 2.0))
    # Radial profiles of luminance and local texture.
    tex = np.abs(ln - cv2.GaussianBlur(ln, (0, 0), 2.0))
    for ring in _RINGS:
        mean, std = cv2.meanStdDev(ln, mask=ring)
        feats.extend([float(mean[0, 0]), float(std[0, 0]), float(cv2.mean(tex, mask=ring)[0])])
    feats.extend(seed_map_features(lab))
    return np.asarray(feats, np.float32)


def seed_map_features(lab: np.ndarray) -> list[float]:
    """Counting cues on the 'seediness' map: colour distance from the pit's median colour.

    For few seeds the pit floor dominates, so the median is the floor colour
    and seeds stand out as blobs of any colour. Returns distance statistics,
    blob counts of the map over the scale space with thresholds relative to
    its strongest blob, and connected components / distance-transform peaks of
    its Otsu mask (number of parts, area in units of the typical part).
    """
    m = _M
    pit = m["pit"]
    med = np.median(lab[pit], axis=0)
    d = np.sqrt(((lab - med) ** 2).sum(axis=2)).astype(np.float32)
    dp = d[pit]
    qs = np.partition(dp, (dp.size // 2, int(dp.size * 0.9), int(dp.size * 0.99)))
    p50, p90, p99 = (float(qs[k]) for k in (dp.size // 2, int(dp.size * 0.9), int(dp.size * 0.99)))
    feats = [float(dp.mean()), p50, p90, p99]
    feats.extend(np.count_nonzero(dp > t) / dp.size for t in (0.05, 0.1, 0.2, 0.3))
    # Blobs of the map across scales, thresholds relative to the strongest one.
    space = scale_space(d)
    peak_vals = []
    strongest = 0.03  # below this the map holds no blob worth counting
    for resp, mask in space:
        v = resp[(resp >= cv2.dilate(resp, _K3)) & mask]
        peak_vals.append(v)
        if v.size:
            strongest = max(strongest, float(v.max()))
    best, best_peak = 0, -1.0
    for i, v in enumerate(peak_vals):
        for rel in (0.3, 0.5, 0.7):
            feats.append(float(np.log1p(np.count_nonzero(v > rel * strongest))))
        top = float(v.max()) if v.size else 0.0
        if top > best_peak:
            best, best_peak = i, top
    feats.extend([float(np.log(SIGMAS[best])), float(np.log(strongest + 1e-3))])
    # Blob counts at the scale of the strongest blob (and its neighbours), as plain numbers.
    for j in (best - 1, best, best + 1):
        v = peak_vals[min(max(j, 0), len(peak_vals) - 1)]
        feats.extend(min(40.0, float(np.count_nonzero(v > rel * strongest)))
                     for rel in (0.25, 0.4, 0.55))
    # Otsu mask of the map inside the pit: parts, their sizes, distance-transform peaks.
    scale = max(p99, 1e-3)
    d8 = np.clip(d / scale * 255.0, 0, 255).astype(np.uint8)
    thr, _ = cv2.threshold(d8[pit], 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = ((d8 > thr) & pit).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _K3)
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    areas = np.sort(stats[1:, cv2.CC_STAT_AREA][stats[1:, cv2.CC_STAT_AREA] >= 4])
    pit_area = float(pit.sum())
    if areas.size:
        typical = float(np.median(areas))
        feats.extend([float(np.log1p(areas.size)), float(areas.sum()) / pit_area,
                      typical / pit_area, float(np.log1p(areas.sum() / typical)),
                      min(float(areas[-1]) / typical, 40.0),
                      float(np.log1p(areas.sum() / areas[0]))])
    else:
        feats.extend([0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    dt = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    peaks = dt[(dt >= cv2.dilate(dt, _K3)) & (dt >= 1.5)]
    dmax = float(dt.max())
    feats.extend([dmax / SIZE, float(np.log1p(peaks.size)),
                  float(np.log1p(np.count_nonzero(peaks >= 0.5 * dmax))) if dmax > 0 else 0.0,
                  float(thr) / 255.0 * scale, p99 / (p50 + 0.02)])
    return feats


N_BASE = int(base_features(np.zeros((SIZE, SIZE, 3), np.float32)).size)
N_LOOK = 20


TEMPLATE = 24  # side of the empty-pit template (Lab) kept in a seed look
PIT_MASK_T = cv2.resize(_U8["pit"], (TEMPLATE, TEMPLATE), interpolation=cv2.INTER_NEAREST) > 0


def small_lab(lab: np.ndarray) -> np.ndarray:
    """The crop's Lab image at TEMPLATE x TEMPLATE (compared with the empty-pit template)."""
    return cv2.resize(lab, (TEMPLATE, TEMPLATE), interpolation=cv2.INTER_AREA)


def template_features(lab: np.ndarray, template: np.ndarray, seed_diam: float) -> list[float]:
    """Difference from the calibrated empty pit: changed area in units of one seed, etc."""
    diff = np.sqrt(((small_lab(lab) - template) ** 2).sum(axis=2))[PIT_MASK_T]
    one_seed = max(np.pi * (seed_diam * TEMPLATE / SIZE / 2) ** 2, 0.5)
    out = [float(diff.mean())]
    for t in (0.05, 0.1, 0.2):
        n = np.count_nonzero(diff > t) / one_seed
        out.extend([float(np.log1p(n)), min(n, 40.0)])
    return out


def look_features(lab: np.ndarray, seed_lab: np.ndarray, floor_lab: np.ndarray,
                  seed_diam: float, template: np.ndarray | None = None) -> np.ndarray:
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
        *(template_features(lab, template, seed_diam) if template is not None else [0.0] * 7),
        1.0 if template is not None else 0.0,
    ], np.float32)
