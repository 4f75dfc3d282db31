"""Find the board with several settings of the search, image by image, on labelled renders.

A change to the board search is judged on every labelled set at hand, and on photos
of bare tables (no board: any board found is a false one). Each variant is the
shipped settings with some fields replaced; every image is read with every variant
in worker processes (one thread each), so a machine with many cores checks a
thousand renders in minutes:

    python3 benchmarks/locate_variants.py /tmp/r431 /tmp/r421 --bare /tmp/bare \\
        --variant old:grid.continues_also=0,grid.covered_ends=False --variant new: \\
        --procs 16 --name s28_ends

prints, per set and variant, the boards found, found in place (mean corner error
under 30 px), those whose pits lie in place too (:func:`pit_offset` under half a pit
pitch, as vision_eval's ``in_place``: an outline can be right with a lattice row on
the wood between the board's halves), and the median time (a time taken with many
workers at once is no measure of the pipeline's speed; use vision_ab.py for that);
then each image whose result differs between variants. Writes
``benchmarks/results/locate_variants_NAME.json`` with each image's result under each
variant.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from collections import defaultdict
from multiprocessing import Pool
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

IN_PLACE_PX = 30.0


def pit_offset(found: np.ndarray, truth: np.ndarray) -> float:
    """How far the found pits lie from the labelled ones, in labelled pit pitches (the
    median distance between row neighbours): the median over the 32 pits of each found
    centre's distance to its labelled one, at the best of the lattice's four readings
    (rows and columns each either way; which side is South is not the locate stage's to
    say). Under 0.5, the pits are in place. ``found``, ``truth``: (4, 8, 2) px, a
    lattice's rows and columns and the label's (:data:`vision.holes.HOLES` order)."""
    pitch = float(np.median(np.linalg.norm(np.diff(truth, axis=1), axis=2)))
    return min(float(np.median(np.linalg.norm(found[::r, ::c] - truth, axis=2)))
               for r in (1, -1) for c in (1, -1)) / pitch


def parse_variant(text: str) -> tuple[str, dict[str, dict[str, object]]]:
    """``name:section.field=value,...`` (``name:`` alone: the shipped settings) ->
    (name, {section: {field: value}}); values are Python literals (0.3, False, (4, 6))."""
    import ast

    name, sep, spec = text.partition(":")
    if not name or not sep or not name.replace("_", "").replace("-", "").isalnum():
        raise argparse.ArgumentTypeError(f"variant {text!r}: give a name (letters, digits) and a colon first")
    changes: dict[str, dict[str, object]] = defaultdict(dict)
    items, depth, start = [], 0, 0
    for i, ch in enumerate(spec + ","):  # (commas inside brackets belong to a value)
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            items.append(spec[start:i].strip())
            start = i + 1
    for item in filter(None, items):
        key, eq, value = item.partition("=")
        section, dot, field = key.partition(".")
        if not eq or not dot:
            raise argparse.ArgumentTypeError(f"variant {text!r}: {item!r} is not section.field=value")
        try:
            changes[section][field] = ast.literal_eval(value)
        except (ValueError, SyntaxError) as e:
            raise argparse.ArgumentTypeError(f"variant {text!r}: {value!r} is not a Python literal") from e
    return name, dict(changes)


def build_config(changes: dict[str, dict[str, object]]):  # noqa: ANN201
    from vision.config import DEFAULT

    cfg = DEFAULT
    for section, fields in changes.items():
        part = getattr(cfg, section, None)
        if part is None or not dataclasses.is_dataclass(part):
            raise SystemExit(f"no settings section {section!r} (one of: "
                             f"{', '.join(f.name for f in dataclasses.fields(cfg))})")
        known = {f.name for f in dataclasses.fields(part)}
        for field in fields:
            if field not in known:
                raise SystemExit(f"no setting {section}.{field}")
        cfg = dataclasses.replace(cfg, **{section: dataclasses.replace(part, **fields)})
    return cfg


_CONFIGS: dict[str, object] = {}


def _init(variants: dict[str, dict[str, dict[str, object]]]) -> None:
    import cv2

    cv2.setNumThreads(1)
    for name, changes in variants.items():
        _CONFIGS[name] = build_config(changes)


def _job(arg: tuple[str, str]) -> dict:
    from vision.errors import BoardNotFound
    from vision.holes import HOLES
    from vision.io import read_image
    from vision.locate import locate_board
    from vision.rectify import to_image

    path, name = arg
    img = read_image(path)
    t = time.perf_counter()
    try:
        q = locate_board(img, _CONFIGS[name])  # type: ignore[arg-type]
        corners, method, score = np.asarray(q.corners, float), q.method, float(q.score)
        pits = None if q.fit is None else to_image(q.fit.grid.centres.reshape(-1, 2), q.fit.hmat).reshape(4, 8, 2)
    except BoardNotFound:
        corners, method, score, pits = None, "none", None, None
    ms = 1000.0 * (time.perf_counter() - t)
    err = off = None
    label = Path(path).with_suffix(".json")
    if corners is not None and label.exists():
        lab = json.loads(label.read_text())
        truth = np.array(lab["corners_px"], float)
        err = float(min(np.mean(np.linalg.norm(np.roll(corners, k, 0) - truth, axis=1)) for k in range(4)))
        if pits is not None and set(lab.get("pit_centers_px") or ()) >= set(HOLES):
            off = pit_offset(pits, np.array([lab["pit_centers_px"][n] for n in HOLES], float).reshape(4, 8, 2))
    return {"image": path, "variant": name, "ms": round(ms, 1), "method": method,
            "score": None if score is None else round(score, 3),
            "corner_error_px": None if err is None else round(err, 2),
            "pit_offset": None if off is None else round(off, 3)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="*", help="folders of labelled renders (image + .json)")
    ap.add_argument("--bare", nargs="*", default=[], help="folders of photos with no board")
    ap.add_argument("--variant", action="append", type=parse_variant, required=True,
                    help="name:section.field=value,... (name: alone for the shipped settings); twice or more")
    ap.add_argument("--procs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--name", required=True)
    args = ap.parse_args(argv)
    variants = dict(args.variant)
    _init(variants)  # (fails here, before any work, on a wrong setting)
    files: list[tuple[str, str]] = []
    for kind, dirs in (("bare", args.bare), ("set", args.dirs)):
        for d in dirs:
            found = sorted(str(p) for p in Path(d).glob("*.jpg")) + sorted(str(p) for p in Path(d).glob("*.png"))
            if not found:
                raise SystemExit(f"{d}: no .jpg or .png images")
            files += [(f, kind) for f in found]
    bare = {f for f, kind in files if kind == "bare"}
    jobs = [(f, v) for f, _ in files for v in variants]  # (bare tables first: the slowest)
    with Pool(args.procs, initializer=_init, initargs=(variants,)) as pool:
        results = list(pool.imap_unordered(_job, jobs, chunksize=1))
    by_image: dict[str, dict[str, dict]] = defaultdict(dict)
    for r in results:
        by_image[r["image"]][r["variant"]] = r
    summary: dict[str, dict[str, dict]] = defaultdict(dict)
    groups: dict[str, list[str]] = defaultdict(list)
    for img in by_image:
        groups["bare tables" if img in bare else str(Path(img).parent)].append(img)
    for group, imgs in sorted(groups.items()):
        for v in variants:
            rs = [by_image[i][v] for i in imgs]
            found = sum(r["method"] != "none" for r in rs)
            placed = sum(r["corner_error_px"] is not None and r["corner_error_px"] < IN_PLACE_PX for r in rs)
            pits = sum(r["corner_error_px"] is not None and r["corner_error_px"] < IN_PLACE_PX
                       and r.get("pit_offset") is not None and r["pit_offset"] < 0.5 for r in rs)
            summary[group][v] = {"images": len(rs), "found": found, "in_place": placed, "pits_in_place": pits,
                                 "median_ms": float(np.median([r["ms"] for r in rs]))}
            what = (f"false boards {found}" if group == "bare tables"
                    else f"found {found} in place {placed} (pits too {pits})")
            print(f"{group:>24} {v:>8}: {len(rs)} images, {what}, median {summary[group][v]['median_ms']:.0f} ms")
    totals = {v: {k: sum(summary[g][v][k] for g in summary if g != "bare tables")
                  for k in ("images", "found", "in_place", "pits_in_place")}
              for v in variants}
    for v, t in totals.items():
        print(f"{'all sets':>24} {v:>8}: {t['images']} images, found {t['found']} in place {t['in_place']}"
              f" (pits too {t['pits_in_place']})")
    differing = []
    for img in sorted(by_image):
        rs = by_image[img]
        keys = {v: (r["method"], None if r["corner_error_px"] is None else round(r["corner_error_px"]),
                    None if r.get("pit_offset") is None else r["pit_offset"] < 0.5) for v, r in rs.items()}
        if len(set(keys.values())) > 1:
            differing.append(img)
            print(img, " | ".join(f"{v}: {m} {'-' if e is None else f'{e} px'}{' pits off' if ok is False else ''}"
                                  for v, (m, e, ok) in keys.items()))
    out = ROOT / "benchmarks" / "results" / f"locate_variants_{args.name}.json"
    out.write_text(json.dumps({"variants": {v: c for v, c in variants.items()}, "summary": summary,
                               "totals": totals, "differing": differing,
                               "per_image": {i: {v: {k: x for k, x in r.items() if k not in ("image", "variant")}
                                                 for v, r in rs.items()} for i, rs in sorted(by_image.items())}}))
    print("wrote", out.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
