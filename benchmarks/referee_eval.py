"""Referee on the rendered game sequences: moves logged correctly, alarms, human help, latency.

Each game of ``sample_images/games/<game>/`` is replayed as a virtual camera
(every frame repeated at ``--fps`` for ``--settled-hold`` seconds, hand frames
for ``--moving-hold``; the frames' ``settled`` labels are NOT given to the
referee) through the same loop the web page uses: settle detector -> vision ->
move inference -> game log. Like players on the calibration page, the
referee first gets a board profile from the first frame (the start
position); ``--no-calibrate`` reads without one. When the referee stops for the players
(unexplained or ambiguous), a simulated player confirms the true move(s) and
the event is counted.

Figures per game and in total:

- moves logged correctly / total (a move counts when the log holds exactly
  the game's move at that ply),
- false "illegal" alarms (``unexplained`` verdicts: every move in the
  sequences is legal, so each is false),
- moves needing a human (confirmed by the simulated player; it answers a question,
  "unexplained" or "ambiguous", only if the next view leaves it open, as players
  keep playing while the page asks and the referee keeps its readings for the later
  views to decide; a question left open at the game's last view is answered then),
- wrong moves accepted (the simulated player takes them back and confirms
  the true move; those moves then count as needing a human, not as correct),
- time from the board settling (the settled view is taken) to the verdict:
  vision + inference, median / 95th percentile / max, in ms.

With ``--no-players`` nobody answers or takes back a move, as with ``bao referee``:
the figures are then the moves the referee logs by itself (a wrong one stays in the
log and is counted under wrong accepted; one of several moves, or orders of moves,
leaving the very same position, which it logs with a note as no view on the way showed
them apart, is counted apart).

``--moved-at K --moved DX DY DEG``: from the frames after move K on, the picture is shifted
by (DX, DY) px and turned by DEG degrees about its centre, as when the board is pushed
along the table or the camera knocked after the calibration (the profile, from the first
frame, no longer says where the board is).

``--light-at K --light GAMMA RED BLUE``: from the frames after move K on, the light
changed: every level raised to GAMMA (under 1 brighter), then the red and blue channels
multiplied by RED and BLUE (a lamp switched on, a cloud, the webcam's exposure).

``--resized-at K --resized W H``: from the frames after move K on, the pictures are W x H
px (another resolution, or camera): the middle of each frame cut to W:H where that is
another shape, then scaled.

``--covered-at K --covered PIT GREY PITCHES``: from the frames after move K on, a disc of
that grey (0-255), PITCHES pit pitches across, lies over the pit PIT (a cup, an arm
resting on the board).

``--resume-at K`` plays a game reopened after a restart of the server: its first K moves
are in the log already (confirmed, not counted), the referee starts at the view after
move K, and only the moves after K are counted. ``--auto-calibrate`` gives the referee no
profile from the first frame: it calibrates itself on its first settled view, as ``bao
serve`` and ``bao referee`` do.

Usage::

    python3 benchmarks/referee_eval.py [--games sample_images/games] [--mode video|stills] [--no-players]
                                       [--resume-at K] [--auto-calibrate]
                                       [--moved-at K [--moved DX DY DEG]] [--light-at K [--light GAMMA RED BLUE]]
                                       [--resized-at K [--resized W H]] [--covered-at K [--covered PIT GREY PITCHES]]

Writes ``benchmarks/results/referee_eval.json`` (``referee_eval_stills.json``
for ``--mode stills``: only the settled frames, each read as a still, like
``bao referee`` on a folder of photos; ``referee_eval_no_players.json`` for
``--no-players``; ``_resumeK`` and ``_auto_calibrate`` are added for those options).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]


def evaluate_game(folder: Path, args: argparse.Namespace) -> dict[str, Any]:
    import cv2
    import numpy as np

    from vision.motion import MotionConfig
    from vision.pipeline import recognize
    from webui.live import LiveReferee
    from webui.sources import Frame, GameSequenceSource
    from webui.store import GameStore

    cv2.setNumThreads(1)

    @functools.cache
    def pit_in_label(file: str, pit: str) -> tuple[tuple[float, float], float]:
        """The pit's centre in a frame's label, and the label's mean pitch (each pit to its
        nearest); read once a frame, though the source repeats each frame many times."""
        label = json.loads((folder / file).with_suffix(".json").read_text())
        centres = np.array(list(label["pit_centers_px"].values()), np.float64)
        gaps = np.linalg.norm(centres[:, None] - centres[None], axis=2)
        pitch = float(np.where(gaps > 0, gaps, np.inf).min(axis=1).mean())
        x, y = label["pit_centers_px"][pit]
        return (float(x), float(y)), pitch

    def as_seen(image: np.ndarray, entry: dict[str, Any]) -> np.ndarray:
        """The frame as the camera sees it once the setup changed: the light (``--light``),
        a pit covered (``--covered``), the pictures' size (``--resized``), the board or the
        camera moved (``--moved``)."""
        if args.light_at is not None and int(entry["after_move"]) >= args.light_at:
            gamma, red, blue = args.light
            lit = (image.astype(np.float32) / 255.0) ** gamma * np.float32([blue, 1.0, red])
            image = np.clip(lit * 255.0 + 0.5, 0, 255).astype(np.uint8)
        if args.covered_at is not None and int(entry["after_move"]) >= args.covered_at:
            pit, grey, across = args.covered
            (x, y), pitch = pit_in_label(str(entry["file"]), pit)
            image = image.copy()
            cv2.circle(image, (round(x), round(y)), round(float(across) * pitch / 2), (int(grey),) * 3, -1)
        if args.resized_at is not None and int(entry["after_move"]) >= args.resized_at:
            w2, h2 = args.resized
            h, w = image.shape[:2]
            cw, ch = min(w, round(h * w2 / h2)), min(h, round(w * h2 / w2))  # the middle, W:H
            image = image[(h - ch) // 2:(h - ch) // 2 + ch, (w - cw) // 2:(w - cw) // 2 + cw]
            image = cv2.resize(image, (w2, h2), interpolation=cv2.INTER_AREA)
        if args.moved_at is None or int(entry["after_move"]) < args.moved_at:
            return image
        dx, dy, deg = args.moved
        h, w = image.shape[:2]
        m = cv2.getRotationMatrix2D((w / 2, h / 2), deg, 1.0)
        m[:, 2] += (dx, dy)
        return cv2.warpAffine(image, m, (w, h), borderMode=cv2.BORDER_REPLICATE)

    source = GameSequenceSource(folder, fps=args.fps, settled_hold=args.settled_hold,
                                moving_hold=args.moving_hold, realtime=False)
    # the moves the frames show (a sequence may stop before the game's end)
    shown = max(int(e["after_move"]) for e in source.entries)
    truth: list[str] = list(source.game["moves"])[:shown]
    from benchmarks.referee_noise import unseen_detour
    from engine import Position
    from engine.referee import apply_moves

    start = Position.start() if source.game.get("start") is None else Position.from_json(source.game["start"])
    truth_positions = [v.position for v in apply_moves(start, truth)[1]]  # after each move
    viewed = {int(e["after_move"]) for e in source.entries if e.get("settled")}  # moves a still view followed
    live = LiveReferee(GameStore("sqlite://:memory:"), recognize,
                       motion=MotionConfig(settle_seconds=args.settle), players=args.players,
                       auto_calibrate=args.auto_calibrate)
    if not args.read_again:
        live.look_again = None
    live.south_side = source.south_side
    live.new_game(start=source.game.get("start"))
    resume = min(args.resume_at, shown)
    if resume:
        # the first moves logged before a restart; the game reopened, the camera's views
        # from the one after move ``resume`` on
        live.confirm(truth[:resume])
        live.open_game(live.game_id)
        while (source._i < len(source._schedule)
               and int(source.entries[source._schedule[source._i][1]]["after_move"]) < resume):
            source._i += 1
    calibrated = False
    if args.calibrate and not args.auto_calibrate:
        # as the players would on the calibration page: a profile from the start position
        from calibration import calibrate_from_start

        first = cv2.imread(str(folder / source.entries[0]["file"]))
        try:
            live.profile = calibrate_from_start(first, source.south_side)
            calibrated = True
        except ValueError as exc:
            print(f"{folder.name}: calibration failed ({exc}); reading without a profile", file=sys.stderr)
    unexplained = ambiguous = human = 0
    events: list[dict[str, Any]] = []
    nonlocal_wrong: list[dict[str, Any]] = []
    same_position: list[dict[str, Any]] = []
    waited: list[str] = []  # an ambiguity left to the next view
    seen_verdict_at = None
    started = time.perf_counter()

    def after_frame(entry: dict[str, Any]) -> None:
        nonlocal unexplained, ambiguous, human, seen_verdict_at
        verdict = live.verdict
        if verdict is None or verdict.get("at") == seen_verdict_at:
            return
        seen_verdict_at = verdict.get("at")
        status = verdict["status"]
        if status not in ("ambiguous", "unexplained"):
            waited.clear()
        if status == "accepted":
            logged_now = [m.notation for m in live.store.get(live.game_id).moves]
            if not args.players:
                rows = live.store.get(live.game_id).moves
                fresh = rows[-len(verdict["moves"]):]
                at = len(rows) - len(fresh)
                if [m.notation for m in fresh] != truth[at:len(rows)]:
                    # moves leaving the very same position as those played (logged with a note)
                    # are not wrong, when no view on the way showed another board
                    kind = ("same_position" if unseen_detour(
                        [m.position for m in fresh], truth_positions[at:len(rows)],
                        [at + k + 1 in viewed for k in range(len(fresh))]) else "wrong")
                    (same_position if kind == "same_position" else nonlocal_wrong).append(
                        {"frame": entry["file"], "logged": [m.notation for m in fresh], "truth": truth[at:len(rows)]})
                return
            if logged_now != truth[: len(logged_now)]:
                # a wrong move was logged: the players take it back and say what was played
                nonlocal_wrong.append({"frame": entry["file"], "logged": logged_now[-len(verdict["moves"]):],
                                       "truth": truth[len(logged_now) - len(verdict["moves"]):len(logged_now)]})
                for _ in verdict["moves"]:
                    live.undo()
                before = live.ply
                target = int(entry["after_move"])
                if target > before:
                    live.confirm(truth[before:target])
                    human += target - before
                seen_verdict_at = live.verdict.get("at") if live.verdict else None
            return
        if status in ("unexplained", "ambiguous"):
            if status == "unexplained":
                unexplained += 1
            else:
                ambiguous += 1
            events.append({"frame": entry["file"], "ply": live.ply, "status": status,
                           "message": verdict["message"][:300]})
            if not args.players:
                return  # nobody answers: the referee goes on by itself (as `bao referee` does)
            if not waited:
                # the players need not answer at once: the next view may settle it
                waited.append(entry["file"])
                return
            waited.clear()
            target = int(entry["after_move"])
            before = live.ply
            if target > before:
                live.confirm(truth[before:target])
                human += target - before
                seen_verdict_at = live.verdict.get("at") if live.verdict else None

    if args.mode == "stills":
        for entry in source.entries:
            if not entry.get("settled", True) or int(entry["after_move"]) < resume:
                continue
            image = as_seen(cv2.imread(str(folder / entry["file"])), entry)
            live.feed(Frame(image, 0.0, still=True, name=entry["file"]))
            after_frame(entry)
    else:
        schedule = source._schedule
        while True:
            index = schedule[source._i][1] if source._i < len(schedule) else None
            frame = source.read()
            if frame is None:
                break
            if index is not None:
                frame.image = as_seen(frame.image, source.entries[index])
            live.feed(frame)
            after_frame(source.entries[index])
    if not args.players and live.finish() is not None:
        after_frame(source.entries[-1])  # as bao referee does when its source ends
    if args.players and waited and live.pending is not None:
        # the game's last view left a question open: the players answer it now
        before = live.ply
        if shown > before:
            live.confirm(truth[before:shown])
            human += shown - before
    log = live.store.get(live.game_id).moves
    logged = [m.notation for m in log]
    # logged correctly: by the referee itself (source camera), the game's move at that ply
    correct = sum(1 for m, b in zip(log, truth, strict=False) if m.source == "camera" and m.notation == b)
    calibrated = calibrated or live.profile is not None
    lat = np.array(live.latencies_ms or [np.nan])
    return {
        "game": folder.name,
        "calibrated": calibrated,
        "moves": len(truth) - resume,
        "logged": len(logged) - resume,
        "correct": correct,
        "false_illegal_alarms": unexplained,
        "ambiguous": ambiguous,
        "needing_human": human,
        "wrong_accepted": len(nonlocal_wrong),
        "same_position_logged": len(same_position),
        "reads": len(live.latencies_ms),
        "latency_ms": {"median": round(float(np.nanmedian(lat)), 1),
                       "p95": round(float(np.nanpercentile(lat, 95)), 1),
                       "max": round(float(np.nanmax(lat)), 1)},
        "wall_s": round(time.perf_counter() - started, 1),
        "first_wrong": next(({"ply": i + 1, "logged": a, "truth": b}
                             for i, (a, b) in enumerate(zip(logged, truth, strict=False)) if a != b), None),
        "events": events[:20],
        "wrong": nonlocal_wrong[:20],
        "same_position": same_position[:20],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=str(ROOT / "sample_images" / "games"))
    parser.add_argument("--mode", choices=("video", "stills"), default="video")
    parser.add_argument("--fps", type=float, default=5.0)
    parser.add_argument("--settled-hold", type=float, default=2.0)
    parser.add_argument("--moving-hold", type=float, default=0.4)
    parser.add_argument("--settle", type=float, default=0.8, help="settle time of the detector (s)")
    parser.add_argument("--no-calibrate", dest="calibrate", action="store_false",
                        help="read without a calibration profile (default: calibrate from the first frame, "
                        "which shows the start position)")
    parser.add_argument("--no-read-again", dest="read_again", action="store_false",
                        help="referee each view on its first reading only (default: the pits no legal move "
                        "agrees with are read again more closely first)")
    parser.add_argument("--no-players", dest="players", action="store_false",
                        help="nobody answers the referee's questions or takes back a wrong move (as with "
                        "`bao referee`): the moves it logs by itself are counted, and a wrong one stays")
    parser.add_argument("--resume-at", type=int, default=0, metavar="K",
                        help="each game reopened after a restart at move K: its first K moves already "
                        "logged, the views from the one after move K on (default 0: from the start)")
    parser.add_argument("--auto-calibrate", action="store_true",
                        help="no profile from the first frame: the referee calibrates itself on its first "
                        "settled view, as bao serve and bao referee do")
    parser.add_argument("--moved-at", type=int, metavar="K",
                        help="from the frames after move K on, the picture moved by --moved")
    parser.add_argument("--moved", type=float, nargs=3, default=(-250.0, 30.0, 12.0), metavar=("DX", "DY", "DEG"),
                        help="the shift (px) and turn (degrees) of --moved-at (default -250 30 12)")
    parser.add_argument("--light-at", type=int, metavar="K",
                        help="from the frames after move K on, the light changed as --light says")
    parser.add_argument("--light", type=float, nargs=3, default=(1.6, 1.0, 1.0), metavar=("GAMMA", "RED", "BLUE"),
                        help="the change of --light-at: levels raised to GAMMA, then red and blue "
                        "multiplied (default 1.6 1 1: darker)")
    parser.add_argument("--resized-at", type=int, metavar="K",
                        help="from the frames after move K on, the pictures are of the size --resized says")
    parser.add_argument("--resized", type=int, nargs=2, default=(960, 540), metavar=("W", "H"),
                        help="the size of --resized-at (default 960 540); the middle cut to W:H first")
    parser.add_argument("--covered-at", type=int, metavar="K",
                        help="from the frames after move K on, a disc lies over a pit as --covered says")
    parser.add_argument("--covered", nargs=3, default=("b5", "120", "1.2"), metavar=("PIT", "GREY", "PITCHES"),
                        help="the pit, the disc's grey (0-255) and its width in pit pitches (default b5 120 1.2)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N games")
    parser.add_argument("--out", help="results file (default benchmarks/results/referee_eval[_stills].json)")
    args = parser.parse_args(argv)
    if args.covered_at is not None and args.covered[0] not in [f"{r}{i}" for r in "ABab" for i in range(1, 9)]:
        parser.error(f"--covered: no pit {args.covered[0]!r} (A1..A8, B1..B8, a1..a8, b1..b8)")
    if not args.out:
        suffix = (("" if args.mode == "video" else "_stills") + ("" if args.players else "_no_players")
                  + (f"_resume{args.resume_at}" if args.resume_at else "")
                  + ("_auto_calibrate" if args.auto_calibrate else "")
                  + (f"_moved{args.moved_at}" if args.moved_at is not None else "")
                  + (f"_light{args.light_at}" if args.light_at is not None else "")
                  + (f"_resized{args.resized_at}" if args.resized_at is not None else "")
                  + (f"_covered{args.covered_at}" if args.covered_at is not None else ""))
        args.out = str(ROOT / "benchmarks" / "results" / f"referee_eval{suffix}.json")
    sys.path.insert(0, str(ROOT))
    folders = sorted(p.parent for p in Path(args.games).glob("*/game.json"))
    if args.limit:
        folders = folders[: args.limit]
    if not folders:
        print(f"no game sequences under {args.games}", file=sys.stderr)
        return 2
    results = []
    for folder in folders:
        r = evaluate_game(folder, args)
        results.append(r)
        print(f"{r['game']}: {r['correct']}/{r['moves']} moves logged correctly, "
              f"{r['false_illegal_alarms']} false illegal alarms, {r['ambiguous']} ambiguous, "
              f"{r['needing_human']} needing a human, {r['wrong_accepted']} wrong accepted; settle->verdict median {r['latency_ms']['median']} ms "
              f"(p95 {r['latency_ms']['p95']}, max {r['latency_ms']['max']}); {r['wall_s']} s", flush=True)
    total = {
        "games": len(results),
        "moves": sum(r["moves"] for r in results),
        "correct": sum(r["correct"] for r in results),
        "false_illegal_alarms": sum(r["false_illegal_alarms"] for r in results),
        "ambiguous": sum(r["ambiguous"] for r in results),
        "needing_human": sum(r["needing_human"] for r in results),
        "wrong_accepted": sum(r["wrong_accepted"] for r in results),
        "same_position_logged": sum(r["same_position_logged"] for r in results),
        "latency_ms_max": max(r["latency_ms"]["max"] for r in results),
        "latency_ms_median_of_games": sorted(r["latency_ms"]["median"] for r in results)[len(results) // 2],
    }
    print(f"TOTAL: {total['correct']}/{total['moves']} moves logged correctly, "
          f"{total['false_illegal_alarms']} false illegal alarms, {total['needing_human']} needing a human, "
          f"{total['wrong_accepted']} wrong accepted, "
          + (f"{total['same_position_logged']} logged as another move leaving the same position, "
             if not args.players else "")
          + f"latency max {total['latency_ms_max']} ms")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    note = ("latency_ms is settle -> verdict (vision + inference) in this process; on the page the "
            "verdict comes back with the posted frame (browser camera) or at the next 300 ms poll "
            "(server camera, demo)")
    out.write_text(json.dumps({"settings": {k: v for k, v in vars(args).items() if k != "out"},
                               "machine_load": os.getloadavg()[0], "note": note,
                               "total": total, "games": results}, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
