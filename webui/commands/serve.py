"""``bao serve`` (the web page) and ``bao referee`` (the referee without the page)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

SIDES = ("bottom", "top", "left", "right")


def register(subparsers: Any) -> None:
    serve = subparsers.add_parser(
        "serve",
        help="start the web page (play, games, calibration) on 127.0.0.1",
        description="Start the web page. With --demo, a rendered game from sample_images/games "
        "is replayed as a virtual camera, so the whole thing works with no board and no camera.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    serve.add_argument("--demo", action="store_true", help="replay a rendered game as the camera")
    serve.add_argument("--instance", metavar="PATH", help="instance folder (game log, calibrations)")
    serve.add_argument("--database", metavar="URL", help="game log URL, e.g. sqlite:////srv/club/bao.db")
    serve.add_argument("--source", metavar="SOURCE", help="camera index or video file to watch at start")
    serve.set_defaults(func=run_serve)

    referee = subparsers.add_parser(
        "referee",
        help="referee a recorded game (video, camera or folder of stills) and print its record",
        description="Referee a game without the web page. SOURCE is a video file, a camera index, "
        "or a folder of still images read in name order (each still one settled view). The record "
        "is printed when the source ends; a camera runs until Ctrl-C, which prints the record so far.",
    )
    referee.add_argument("source", metavar="SOURCE")
    referee.add_argument("--south", required=True, choices=SIDES, help="image side South sits on")
    referee.add_argument("--calibration", metavar="PROFILE", help="board profile (from bao calibrate)")
    referee.add_argument("--start", metavar="POSITION",
                         help="start position: a JSON/text position file, JSON, or the one-line text form")
    referee.add_argument("--json", action="store_true",
                         help='print a JSON list of {"move", "verdict", "position"}')
    referee.set_defaults(func=run_referee)


def repository_root() -> Path:
    return Path(__file__).resolve().parents[2]


def demo_game() -> Path:
    from webui.sources import find_demo_game

    for root in (Path.cwd() / "sample_images" / "games", repository_root() / "sample_images" / "games"):
        if root.is_dir():
            return find_demo_game(root)
    raise OSError("no sample_images/games folder with a rendered game (run from the repository)")


def check_address(host: str, port: int) -> None:
    """Fail early, naming the address, when the page cannot be served on ``host:port``: a
    port out of range (the server would quietly take it modulo 65536), a host that does
    not resolve, or an address in use by another program."""
    import errno
    import socket

    if not 0 < port < 65536:
        raise ValueError(f"--port must be 1-65535, got {port}")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as exc:
        raise ValueError(f"--host {host!r} is no address to listen on: {exc.strerror}") from None
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does
        try:
            probe.bind(address)
        except OSError as exc:
            hint = {errno.EADDRINUSE: "another program uses it: stop it or give another --port",
                    errno.EACCES: "this port needs privileges: give one over 1023",
                    errno.EADDRNOTAVAIL: "--host must be an address of this machine"}.get(exc.errno or 0, "")
            raise OSError(f"cannot serve on {host}:{port}: {exc.strerror}" + (f"; {hint}" if hint else "")) from None


def run_serve(args: argparse.Namespace) -> int:
    from webui.app import create_app

    check_address(args.host, args.port)
    config: dict[str, Any] = {}
    if args.database:
        config["DATABASE"] = args.database
    if args.demo:
        if args.source:
            raise ValueError("give either --demo or --source, not both")
        config["SOURCE"] = f"demo:{demo_game()}"
    elif args.source:
        config["SOURCE"] = args.source
    instance = str(Path(args.instance).resolve()) if args.instance else None
    app = create_app(config or None, instance_path=instance)
    print(f"Bao companion on http://{args.host}:{args.port}/ (instance {app.instance_path})", flush=True)
    import logging

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # the page polls several times a second
    app.run(host=args.host, port=args.port, threaded=True, use_reloader=False)
    return 0


def read_position_arg(text: str) -> dict[str, Any]:
    """A position from a file (JSON or text form), inline JSON, or the one-line text form."""
    from engine import Position
    from engine.errors import json_loads

    path = Path(text)
    where = ""  # (the file's name, for the messages)
    if len(text) < 4096 and path.is_file():
        where = f"{text}: "
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:  # (a ValueError, but its message names no file)
            raise ValueError(f"{where}not UTF-8 text (expected a JSON or text-form position)") from None
    text = text.strip()
    if text.startswith("{"):
        try:
            data = json_loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}not JSON ({exc})") from None
        if isinstance(data, dict) and "position" in data and "south" not in data:
            data = data["position"]  # a labelled image's JSON
        if isinstance(data, dict) and "start" in data and "south" not in data:
            data = data["start"]  # a game.json
        return Position.from_json(data).to_json()
    return Position.from_text(text).to_json()


def verdict_line(ply: int, move: dict[str, Any]) -> str:
    bits = [f"{ply}. {move['notation']}", move["player"], "legal" if move["legal"] else "illegal", move["kind"]]
    if move["captured"]:
        bits.append(f"captured {move['captured']} from {','.join(move['captured_holes'])}")
    if move["nyumba"]:
        bits.append(f"nyumba {move['nyumba']}")
    if move["game_over"]:
        bits.append(f"game over: {move['winner']} wins ({move['reason']})")
    if move.get("note"):
        bits.append(f"({move['note']})")
    return "  ".join(bits)


def run_referee(args: argparse.Namespace) -> int:
    from vision.pipeline import recognize
    from webui.calibration_views import load_profile
    from webui.live import LiveReferee
    from webui.sources import open_source, read_frame
    from webui.store import GameStore

    start = read_position_arg(args.start) if args.start else None
    source = open_source(args.source)
    store = GameStore("sqlite://:memory:")
    live = LiveReferee(store, recognize, auto_calibrate=not args.calibration, players=False)
    live.south_side = args.south
    if args.calibration:
        live.profile = load_profile(args.calibration)
    game_id = live.new_game(start=start)
    told_at = None
    stopped = False
    try:
        while True:
            frame, lapse = read_frame(source)  # (lapse: a camera with no picture for now)
            for line in source.new_skips():  # stills that are no image, a camera's lapses
                print(f"bao referee: {line}", file=sys.stderr)
            if lapse:
                continue
            if frame is None:
                break
            try:
                live.feed(frame)
            except (ValueError, OSError) as exc:
                print(f"bao referee: {frame.name}: skipped: {exc}", file=sys.stderr)
                continue
            if live.problem and (frame.still or live.motion.get("settled")):
                print(f"bao referee: {frame.name}: {live.problem}", file=sys.stderr)
            verdict = live.verdict
            if (verdict is not None and verdict.get("status") in ("unexplained", "ambiguous")
                    and verdict.get("at") != told_at):
                told_at = verdict.get("at")
                print(f"bao referee: {frame.name}: {verdict['status']}: {verdict['message']}", file=sys.stderr)
    except KeyboardInterrupt:
        # Ctrl-C is how a camera's game ends (a camera never runs out of frames): the
        # record logged so far is printed, not lost with the in-memory log
        stopped = True
        print("bao referee: stopped (Ctrl-C): the record so far follows", file=sys.stderr)
    finally:
        source.close()
    # (a Ctrl-C between writing moves to the log and playing them leaves the two apart:
    # nothing more is logged then)
    ended = live.finish() if len(store.get(game_id).moves) == live.ply else None
    ended_how = "was stopped" if stopped else "ended"
    if ended is not None:
        print(f"bao referee: the source {ended_how}: {ended['message']}", file=sys.stderr)
    elif live.pending is not None or live.branches:
        names = sorted({" then ".join(b.notations) or "no move" for b in live.branches})
        if names:
            left = f"the readings still possible: {', '.join(names[:6])}"
        else:
            left = live.verdict["message"] if live.verdict else "no legal move explained the last view"
        print(f"bao referee: the source {ended_how} with its last move(s) not logged: {left}", file=sys.stderr)
    moves = store.get(game_id).moves
    if args.json:
        out = [{"move": m.notation, "verdict": m.verdict, "position": m.position} for m in moves]
        print(json.dumps(out, indent=1))
    else:
        for m in moves:
            print(verdict_line(m.ply, m.verdict))
    return 0
