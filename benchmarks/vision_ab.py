"""Time two checkouts of the vision pipeline on the same images, interleaved.

Runs on this machine drift by ~5 % from one minute to the next, more than many
speed changes are worth. Here two worker processes (one per checkout, each
warmed up) get every image in turn, alternating which goes first, so drift
hits both alike.

    git worktree add /tmp/before <commit>
    python3 benchmarks/vision_ab.py /tmp/before . /tmp/r71 /tmp/r67 --name r71_r67

prints and writes ``benchmarks/results/vision_ab_NAME.json``: per checkout the
boards found and the median time over its own found boards, then over the
boards both found (median, mean, and the median per-image difference); the
file also keeps each image's two times (``per_image_ms``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics as st
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's vision package for choosing the images

WORKER = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import cv2
cv2.setNumThreads(int(sys.argv[2]))
from vision.pipeline import recognize, warm_up
warm_up()
print("ready", flush=True)
for line in sys.stdin:
    path, south = line.rstrip("\n").rsplit(" ", 1)
    img = cv2.imread(path)
    if img is None:
        print(json.dumps(None), flush=True)
        continue
    r = recognize(img, south, on_missing="status")
    print(json.dumps(sum(r.timings_ms.values()) if r.position else None), flush=True)
"""


def _images(folders: list[Path]) -> list[tuple[Path, str]]:
    """(image, South's side) of each labelled image, chosen as benchmarks/vision_eval.py
    chooses them (:func:`vision.count_data.image_label`)."""
    from vision.count_data import image_label

    out = []
    for folder in folders:
        for path in sorted(folder.glob("*.json")):
            label = image_label(path)
            if label is not None:
                out.append((path.with_name(label["image"]), str(label.get("south_side", "bottom"))))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", type=Path, help="first checkout (its root folder)")
    ap.add_argument("b", type=Path, help="second checkout")
    ap.add_argument("folders", type=Path, nargs="+", help="folders of labelled renders")
    ap.add_argument("--threads", type=int, default=1, help="OpenCV and OpenMP threads per worker")
    ap.add_argument("--name", default="ab", help="results file suffix")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = ap.parse_args(argv)
    for root in (args.a, args.b):
        if not (root / "vision" / "pipeline.py").is_file():
            ap.error(f"{root} is not a checkout of this project (no vision/pipeline.py)")
    images = _images(args.folders)
    if not images:
        ap.error("no labelled images in " + ", ".join(map(str, args.folders)))
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    workers = [subprocess.Popen([sys.executable, "-c", WORKER, str(root.resolve()), str(args.threads)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd="/")
               for root in (args.a, args.b)]
    try:
        for w in workers:
            assert w.stdin is not None and w.stdout is not None
            if not w.stdout.readline().startswith("ready"):
                raise SystemExit("a worker did not start (see its error above)")
        times: list[list[float | None]] = [[], []]
        for i, (path, south) in enumerate(images):
            for k in ((0, 1) if i % 2 == 0 else (1, 0)):
                w = workers[k]
                assert w.stdin is not None and w.stdout is not None
                w.stdin.write(f"{path} {south}\n")
                w.stdin.flush()
                times[k].append(json.loads(w.stdout.readline()))
    finally:
        for w in workers:
            if w.stdin is not None:
                w.stdin.close()
            w.wait()
    both = [(a, b) for a, b in zip(*times, strict=True) if a is not None and b is not None]
    result = {
        "a": str(args.a), "b": str(args.b), "folders": [str(f) for f in args.folders],
        "threads": args.threads, "images": len(images),
        "found": [sum(t is not None for t in ts) for ts in times],
        "median_ms_own_found": [round(st.median([t for t in ts if t is not None]), 1) if any(
            t is not None for t in ts) else None for ts in times],
        "both_found": len(both),
    }
    if both:
        result.update({
            "median_ms_both_found": [round(st.median(a for a, _ in both), 1), round(st.median(b for _, b in both), 1)],
            "mean_ms_both_found": [round(st.mean(a for a, _ in both), 1), round(st.mean(b for _, b in both), 1)],
            "median_diff_ms_b_minus_a": round(st.median(b - a for a, b in both), 1),
        })
    print(json.dumps(result, indent=1))
    result["per_image_ms"] = [[p.name, None if a is None else round(a, 1), None if b is None else round(b, 1)]
                              for (p, _), a, b in zip(images, *times, strict=True)]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"vision_ab_{args.name}.json").write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
