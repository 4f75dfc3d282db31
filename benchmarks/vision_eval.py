"""Accuracy and speed of ``vision.pipeline`` over a folder of labelled images.

Usage::

    python benchmarks/vision_eval.py DIR [--split all|odd|even] [--name TAG]
        [--calibration PROFILE] [--use-reserves] [--limit N] [--out DIR]
        [--blur SIGMA] [--no-soften] [--no-context]

Each ``NAME.jpg`` in DIR has ``NAME.json`` beside it (docs/ARCHITECTURE.md,
"Labelled images"); South's side is taken from the label. ``--split odd``
keeps the images whose sorted index is odd (tune on even, report on odd).
``--use-reserves`` passes the label's ``64 - reserves`` as the known total.
``--blur SIGMA`` blurs each image first (a camera out of focus), and
``--no-soften`` reads without softening blurred photos' pits (``vision.focus``),
so that the two can be compared. ``--no-context`` reads each pit alone, as the
counter reads it, without the board's other pits (``vision.context``).

Prints the summary and writes ``benchmarks/results/vision_eval_<TAG>.json``
(summary) and ``vision_eval_<TAG>_images.csv`` (one row per image).
Pits hidden by a hand (label ``occluded_pits``) are left out of the per-pit
figures; images with a hand are left out of whole-board accuracy and counted
for the hand status instead (all of them, and apart those whose hand hides a pit:
a hand over no pit changes no count). Per count bucket: the share read exactly, the
share whose true count lies in the distribution's 90 % interval (the shortest run of
counts around the mode holding 90 % of it) and that interval's mean width.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import os
import statistics
import sys
import time
from pathlib import Path


def _threads_asked(argv: list[str]) -> str:
    """``--threads N`` read before numpy is imported (its thread count is fixed then)."""
    for i, a in enumerate(argv):
        if a == "--threads" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--threads="):
            return a.split("=", 1)[1]
    return "1"


os.environ.setdefault("OMP_NUM_THREADS", _threads_asked(sys.argv))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.config import DEFAULT  # noqa: E402
from vision.count import flat_counts  # noqa: E402
from vision.count_data import COUNT_BUCKETS, HIDDEN_BELOW, hidden_seeds, image_label, least_seen  # noqa: E402
from vision.errors import BoardNotFound  # noqa: E402
from vision.holes import HOLES, flatten  # noqa: E402
from vision.io import read_image  # noqa: E402
from vision.pipeline import recognize, warm_up  # noqa: E402
from vision.profile import BoardProfile  # noqa: E402

BUCKETS = COUNT_BUCKETS
STAGES = ("locate", "rectify", "grid", "count", "decode")
#: bands of the share in view of a pit's least visible seed (:func:`vision.count_data.least_seen`)
LEAST_SEEN_BANDS = ((0.0, 0.2), (0.2, 0.35), (0.35, 0.5), (0.5, 1.01))
#: bands of the camera's elevation in degrees (90: straight down) for :func:`look_of`
ELEVATION_BANDS = ((0.0, 60.0), (60.0, 75.0), (75.0, 90.01))


def look_of(label: dict) -> dict[str, str]:
    """What a render's label says its photo looks like (``bao render``'s ``render``
    record): the wood, the seeds, the table and the light by kind, and the camera's
    elevation by band (:data:`ELEVATION_BANDS`). Only what the label records: {} for a
    photo or another generator's label without it."""
    render = label.get("render")
    if not isinstance(render, dict):
        return {}
    look = {}
    for aspect in ("wood", "seeds", "table", "light"):
        part = render.get(aspect)
        kind = part.get("kind") if isinstance(part, dict) else None
        if kind:
            look[aspect] = str(kind)
    camera = render.get("camera")
    elevation = camera.get("elevation") if isinstance(camera, dict) else None
    if isinstance(elevation, (int, float)):
        for lo, hi in ELEVATION_BANDS:
            if lo <= elevation < hi:
                look["elevation"] = f"{lo:.0f}-{min(hi, 90.0):.0f}"
    return look


def look_figures(looks: list[dict[str, str]], t: np.ndarray, p: np.ndarray,
                 photo: np.ndarray) -> dict:
    """Per-pit exact by look: for each aspect of :func:`look_of` (wood, seeds, table, light,
    elevation) and each kind of it, the photos and pits scored and their per-pit exact,
    overall and for pits of 0-8 seeds. ``looks``: one per scored photo; ``photo``: each
    scored pit's index into ``looks``. Which looks read worst, so that a change can be
    aimed at them and checked on them."""
    out: dict = {}
    aspects = sorted({a for look in looks for a in look})
    for aspect in aspects:
        kinds: dict = {}
        for kind in sorted({look[aspect] for look in looks if aspect in look}):
            mine = np.array([look.get(aspect) == kind for look in looks], bool)
            m = mine[photo] if len(photo) else np.zeros(0, bool)
            small = m & (t <= 8)
            kinds[kind] = {"photos": int(mine.sum()), "pits": int(m.sum()),
                           "exact": round(float((p[m] == t[m]).mean()), 4) if m.any() else None,
                           "exact_0_8": round(float((p[small] == t[small]).mean()), 4) if small.any() else None}
        out[aspect] = kinds
    return out


def interval90(p: list[float]) -> tuple[int, int]:
    """Shortest run of counts holding at least 90% of the probability."""
    a = np.asarray(p, float)
    a = a / max(a.sum(), 1e-12)
    best = (0, len(a) - 1)
    c = np.concatenate([[0.0], np.cumsum(a)])
    for lo in range(len(a)):
        hi = int(np.searchsorted(c, c[lo] + 0.9 - 1e-9))  # c[hi] >= c[lo] + 0.9
        if hi <= len(a) and hi - 1 - lo < best[1] - best[0]:
            best = (lo, hi - 1)
    return best


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def in_place(label: dict, pit_errs: list[float]) -> bool | None:
    """Whether a found board is the labelled one: the median of ``pit_errs`` (each
    pit's found centre to its labelled centre, px) is under half the labelled pit
    pitch (the median distance between neighbouring pits along a row). A quad on a
    tiled floor beside the board is "found" but reads none of its pits. None when
    the label has no pit centres."""
    truth = label.get("pit_centers_px") or {}
    steps = [float(np.hypot(*(np.array(truth[f"{r}{i + 1}"]) - truth[f"{r}{i}"])))
             for r in "abAB" for i in range(1, 8) if f"{r}{i}" in truth and f"{r}{i + 1}" in truth]
    if not steps or not pit_errs:
        return None
    return float(np.median(pit_errs)) < 0.5 * float(np.median(steps))


def hidden_seed_figures(t: np.ndarray, p: np.ndarray, hidden: np.ndarray,
                        least: np.ndarray | None = None) -> dict | None:
    """How far seeds the camera cannot see explain the misreads (labels that record
    ``seed_visibility`` only; None when no scored pit has it).

    ``pits_all_seen``: the share of pits with every seed in view, the most any single
    photo can read exactly without guessing; the per-pit exact among those pits and among
    the others; ``read_as_seen``: of the pits with hidden seeds, the share read as the
    number of seeds in view. With ``least`` (each pit's least visible seed's share in
    view): ``by_least_seen``, the pits of 1-8 seeds and their per-pit exact in each band
    of that share (:data:`LEAST_SEEN_BANDS`): where every seed shows half of itself or
    more, a misread is the counter's; below a fifth, mostly a guess."""
    known = hidden >= 0
    if not known.any():
        return None
    t, p, h = t[known], p[known], hidden[known]
    seen = h == 0
    out: dict = {"hidden_below": HIDDEN_BELOW, "pits": int(len(t)),
                 "pits_all_seen": round(float(seen.mean()), 4),
                 "exact_all_seen": round(float((p[seen] == t[seen]).mean()), 4) if seen.any() else None,
                 "pits_some_hidden": int((~seen).sum()),
                 "exact_some_hidden": (round(float((p[~seen] == t[~seen]).mean()), 4)
                                       if (~seen).any() else None),
                 "read_as_seen": (round(float((p[~seen] == (t - h)[~seen]).mean()), 4)
                                  if (~seen).any() else None)}
    out["by_bucket"] = {}
    for name, lo, hi in BUCKETS:
        m = (t >= lo) & (t <= hi)
        if m.any():
            ms = m & seen
            out["by_bucket"][name] = {
                "pits_all_seen": round(float(seen[m].mean()), 4),
                "exact_all_seen": round(float((p[ms] == t[ms]).mean()), 4) if ms.any() else None}
    if least is not None:
        lst = np.asarray(least, float)[known]
        few = (t >= 1) & (t <= 8)
        out["by_least_seen"] = {
            f"{lo:.2f}-{min(hi, 1.0):.2f}": {
                "pits_1_8": int(m.sum()),
                "exact": round(float((p[m] == t[m]).mean()), 4) if m.any() else None}
            for lo, hi in LEAST_SEEN_BANDS for m in [few & (lst >= lo) & (lst < hi)]}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--split", choices=("all", "odd", "even"), default="all")
    ap.add_argument("--name", default=None, help="result file tag (default: folder name + split)")
    ap.add_argument("--calibration", metavar="PROFILE")
    ap.add_argument("--use-reserves", action="store_true")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results",
                    help="folder for the result files (default benchmarks/results)")
    ap.add_argument("--min-name", default="", help="only images whose file name sorts at or after this "
                    "(e.g. the renders made after the last tuning)")
    ap.add_argument("--geometry-only", action="store_true",
                    help="locate/rectify/grid only (no seed counter): board found, corners, pit centres")
    ap.add_argument("--threads", type=int, default=1,
                    help="OpenCV and numpy threads (default 1: one core's time; the machine's "
                         "cores for wall time as a user gets it)")
    ap.add_argument("--background", action="store_true",
                    help="the locate stage's helper thread on (LocateConfig.background; never at one thread)")
    ap.add_argument("--blur", type=float, default=0.0, metavar="SIGMA",
                    help="blur each image by a Gaussian of SIGMA px before reading it (a camera out of focus)")
    ap.add_argument("--no-soften", action="store_true",
                    help="read blurred photos as the counter reads them, not softened (CountConfig.blur_temper "
                         "and blur_flag 0; vision.focus)")
    ap.add_argument("--no-context", action="store_true",
                    help="each pit as the counter reads it alone (CountConfig.context off; vision.context)")
    args = ap.parse_args(argv)
    if args.threads < 1:
        ap.error("--threads must be 1 or more")
    cv2.setNumThreads(args.threads)
    # one thread: the locate stage's speculative work on a second core is off too
    cfg = dataclasses.replace(DEFAULT, locate=dataclasses.replace(
        DEFAULT.locate, background=args.background and args.threads > 1))
    if args.blur < 0:
        ap.error("--blur must be 0 or more")
    if args.no_soften:
        cfg = dataclasses.replace(cfg, count=dataclasses.replace(cfg.count, blur_temper=0.0, blur_flag=0.0))
    if args.no_context:
        cfg = dataclasses.replace(cfg, count=dataclasses.replace(cfg.count, context=False))

    folder = Path(args.dir)
    labels = sorted(folder.glob("*.json"))
    labels = [p for p in labels if image_label(p) is not None]  # (not a game.json)
    if args.min_name:
        labels = [p for p in labels if p.name >= args.min_name]
    if args.split != "all":
        labels = [p for i, p in enumerate(labels) if (i % 2 == 1) == (args.split == "odd")]
    if args.limit:
        labels = labels[: args.limit]
    if not labels:
        print(f"no labelled images in {folder}", file=sys.stderr)
        return 2
    profile = BoardProfile.load(args.calibration) if args.calibration else None
    tag = args.name or f"{folder.name}_{args.split}"
    warm_up(cfg)  # the process's one-time set-up, not the first image's time

    rows, pit_true, pit_pred = [], [], []
    pit_conf: list[float] = []  # the reading's confidence of each scored pit
    pit_hidden: list[int] = []  # seeds the camera cannot see in each scored pit (-1: not known)
    pit_least: list[float] = []  # the share in view of each scored pit's least visible seed
    pit_inside: list[bool] = []  # each scored pit's true count in its 90 % interval?
    pit_width: list[int] = []  # ... and that interval's width, in counts
    looks: list[dict[str, str]] = []  # each photo without a hand whose pits are scored: its look
    pit_photo: list[int] = []  # ... and each scored pit's photo in it (-1: a photo with a hand)
    boards_all_flagged = 0  # clean boards whose every misread pit is listed as uncertain
    timings: dict[str, list[float]] = {s: [] for s in (*STAGES, "total")}
    found = boards_exact = boards_scored = 0
    placed: list[bool] = []  # found boards checked against their labelled pits: in place?
    off_place: list[str] = []
    hand_imgs = hand_flagged = clean_imgs = false_hand = 0
    hiding_imgs = hiding_flagged = 0  # hands that hide a pit (label occluded_pits), flagged
    blurred_flagged = 0  # readings whose status says image_blurred
    corner_errs: list[float] = []
    cpu_ms: list[float] = []
    pit_errs: list[float] = []
    counter = flat_counts if args.geometry_only else None
    for lp in labels:
        label = json.loads(lp.read_text())
        img = read_image(folder / label["image"])
        if args.blur > 0:
            img = cv2.GaussianBlur(img, (0, 0), args.blur)
        truth = {n: int(v) for n, v in flatten(label["position"]).items()}
        hidden = set(label.get("occluded_pits") or [])
        unseen = hidden_seeds(label)
        faintest = least_seen(label)
        has_hand = bool(label.get("hand_over_board"))
        expected = None
        if args.use_reserves:
            pos = label["position"]
            expected = 64 - int(pos["south"].get("reserve", 0)) - int(pos["north"].get("reserve", 0))
        t0 = time.perf_counter()
        c0 = time.process_time()
        try:
            rec = recognize(img, south=label["south_side"], profile=profile, expected_total=expected,
                            counter=counter, cfg=cfg)
        except BoardNotFound as exc:
            rows.append({"image": label["image"], "found": 0, "error": str(exc)})
            if label.get("pit_centers_px"):
                placed.append(False)  # not found: not in place either
            continue
        total_ms = 1000 * (time.perf_counter() - t0)
        cpu_ms.append(1000 * (time.process_time() - c0))
        found += 1
        for s in STAGES:
            timings[s].append(rec.timings_ms.get(s, 0.0))
        timings["total"].append(total_ms)
        cerr = float(np.linalg.norm(np.array(rec.board_corners_px) - np.array(label["corners_px"]), axis=1).mean())
        corner_errs.append(cerr)
        perr = [float(np.hypot(*(np.array(rec.pit_centers_px[n]) - label["pit_centers_px"][n])))
                for n in HOLES if n in label.get("pit_centers_px", {})]
        pit_errs.extend(perr)
        placed_here = in_place(label, perr)
        if placed_here is not None:
            placed.append(placed_here)
            if not placed_here:
                off_place.append(label["image"])
        pred = {n: int(v) for n, v in flatten(rec.position).items()}
        probs = flatten(rec.probabilities)
        conf = flatten(rec.confidence)
        wrong = []
        unflagged = 0
        if not has_hand:
            looks.append(look_of(label))
        for n in HOLES:
            if n in hidden:
                continue
            pit_true.append(truth[n])
            pit_pred.append(pred[n])
            pit_photo.append(-1 if has_hand else len(looks) - 1)
            pit_conf.append(float(conf[n]))
            pit_hidden.append(-1 if unseen is None else unseen[n])
            pit_least.append(1.0 if faintest is None else faintest[n])
            if truth[n] != pred[n]:
                wrong.append(f"{n}:{truth[n]}->{pred[n]}")
                unflagged += float(conf[n]) >= cfg.decode.uncertain_below
            lo, hi = interval90(probs[n])
            pit_inside.append(lo <= truth[n] <= hi)
            pit_width.append(hi - lo + 1)
        flagged_hand = "hand_over_board" in rec.status
        blurred_flagged += "image_blurred" in rec.status
        if has_hand:
            hand_imgs += 1
            hand_flagged += flagged_hand
            if hidden:  # a hand over no pit changes no count; one hiding pits must be told
                hiding_imgs += 1
                hiding_flagged += flagged_hand
        else:
            clean_imgs += 1
            false_hand += flagged_hand
            boards_scored += 1
            boards_exact += not wrong
            boards_all_flagged += not unflagged
        rows.append({
            "image": label["image"], "found": 1, "corner_err_px": round(cerr, 2),
            "in_place": "" if placed_here is None else int(placed_here),
            "pit_err_px_median": round(float(np.median(perr)), 2) if perr else None,
            "wrong": " ".join(wrong), "n_wrong": len(wrong), "hand": int(has_hand),
            "status": " ".join(rec.status), "total_ms": round(total_ms, 1),
            **{f"{s}_ms": rec.timings_ms.get(s, 0.0) for s in STAGES},
        })

    if args.geometry_only:  # counts were not read: no per-pit or whole-board figures
        pit_true, pit_pred, boards_scored, pit_conf, pit_hidden, pit_least = [], [], 0, [], [], []
        pit_inside, pit_width, pit_photo, looks = [], [], [], []
    t, p = np.array(pit_true, int), np.array(pit_pred, int)
    photo = np.array(pit_photo, int)
    inside, width = np.array(pit_inside, bool), np.array(pit_width, float)
    wide = inside[t >= 16]  # heaps of 16+: the true count in the 90 % interval?
    by_bucket = {}
    for name, lo, hi in BUCKETS:
        m = (t >= lo) & (t <= hi)
        # is the distribution honest where it is not exact? the share of pits whose true
        # count lies in the shortest run of counts holding 90 % of it, and that run's width
        by_bucket[name] = {"pits": int(m.sum()),
                           "exact": round(float((p[m] == t[m]).mean()), 4) if m.any() else None,
                           "in_90pct_interval": round(float(inside[m].mean()), 4) if m.any() else None,
                           "interval_width_mean": round(float(width[m].mean()), 2) if m.any() else None}
    small = t <= 8
    c = np.array(pit_conf, float)
    ok = p == t
    unsure = c < cfg.decode.uncertain_below
    # does the reading know when it is unsure? the share read exactly per band of
    # confidence (a calibrated confidence c is right a share c of the time)
    confidence = {
        "bands": [{"confidence": f"{lo:.2f}-{hi:.2f}", "pits": int(m.sum()),
                   "exact": round(float(ok[m].mean()), 4) if m.any() else None,
                   "mean_confidence": round(float(c[m].mean()), 4) if m.any() else None}
                  for lo, hi in ((0, 0.4), (0.4, 0.6), (0.6, 0.8), (0.8, 0.9), (0.9, 0.97), (0.97, 1.01))
                  for m in [(c >= lo) & (c < hi)]],
        "uncertain_below": cfg.decode.uncertain_below,
        # of the misread pits, the share listed as uncertain_pits (the page marks them)
        "misread_listed_uncertain": round(float(unsure[~ok].mean()), 4) if (~ok).any() else None,
        # of the pits listed as uncertain, the share misread
        "uncertain_misread": round(float((~ok[unsure]).mean()), 4) if unsure.any() else None,
        "pits_listed_uncertain": round(float(unsure.mean()), 4),
        # clean boards read exactly or whose every misread pit is listed as uncertain
        "boards_every_error_listed": (round(boards_all_flagged / boards_scored, 4)
                                      if boards_scored else None),
    } if len(c) else None
    summary = {
        "dir": str(folder), "split": args.split, "images": len(labels),
        "calibration": args.calibration, "use_reserves": args.use_reserves,
        "board_found_rate": round(found / len(labels), 4),
        # found where the labelled board is (:func:`in_place`), of the images whose labels
        # have pit centres (one not found is not in place); and found boards elsewhere
        "board_in_place_rate": round(float(np.mean(placed)), 4) if placed else None,
        "boards_off_place": off_place,
        "corner_err_px_mean": round(float(np.mean(corner_errs)), 2) if corner_errs else None,
        "corner_err_px_p95": round(pct(corner_errs, 95), 2) if corner_errs else None,
        "pit_center_err_px_median": round(pct(pit_errs, 50), 2) if pit_errs else None,
        "pit_center_err_px_p95": round(pct(pit_errs, 95), 2) if pit_errs else None,
        "geometry_only": args.geometry_only,
        "pits_scored": int(len(t)) if not args.geometry_only else 0,
        "per_pit_exact": round(float((p == t).mean()), 4) if len(t) else None,
        "per_pit_exact_0_8": round(float((p[small] == t[small]).mean()), 4) if small.any() else None,
        "per_pit_by_bucket": by_bucket,
        "mae": round(float(np.abs(p - t).mean()), 4) if len(t) else None,
        "whole_board_exact": round(boards_exact / boards_scored, 4) if boards_scored else None,
        "boards_scored": boards_scored,
        "pits_16plus_in_90pct_interval": round(float(np.mean(wide)), 4) if len(wide) else None,
        "pits_16plus": len(wide),
        "confidence": confidence,
        # photos without a hand, by what they look like (renders' labels only)
        "by_look": look_figures(looks, t[photo >= 0], p[photo >= 0], photo[photo >= 0]),
        "hidden_seeds": hidden_seed_figures(t, p, np.array(pit_hidden, int), np.array(pit_least, float)),
        "hand_images": hand_imgs, "hand_flagged": hand_flagged,
        "hand_hiding_pits_images": hiding_imgs, "hand_hiding_pits_flagged": hiding_flagged,
        "clean_images": clean_imgs, "false_hand_flags": false_hand,
        "blur_px": args.blur, "softened": not args.no_soften, "context": not args.no_context, "image_blurred_flagged": blurred_flagged,
        "timing_ms": {s: {"median": round(pct(v, 50), 1), "p95": round(pct(v, 95), 1)}
                      for s, v in timings.items()},
        "cpu_ms_per_image": {"median": round(pct(cpu_ms, 50), 1), "p95": round(pct(cpu_ms, 95), 1)},
        "machine": (f"{os.cpu_count()} cpu, cv2 threads {args.threads}, OMP threads "
                    f"{os.environ.get('OMP_NUM_THREADS')}, locate helper thread "
                    f"{'on' if cfg.locate.background else 'off'}, load average {os.getloadavg()[0]:.1f}"),
    }
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    (out / f"vision_eval_{tag}.json").write_text(json.dumps(summary, indent=1) + "\n")
    keys = sorted({k for r in rows for k in r}, key=lambda k: (k != "image", k))
    with open(out / f"vision_eval_{tag}_images.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    print(json.dumps(summary, indent=1))
    bad = sorted((r for r in rows if r.get("n_wrong") or not r["found"]), key=lambda r: -r.get("n_wrong", 99))
    for r in ([] if args.geometry_only else bad[:15]):
        print(f"  {r['image']}: {r.get('error') or r['wrong']}  [{r.get('status', '')}]")
    if timings["total"]:
        print(f"median total {statistics.median(timings['total']):.1f} ms per image")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
