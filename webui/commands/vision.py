"""Vision subcommands: ``bao recognize``, ``bao calibrate`` and ``bao count-pit``.

OpenCV and the vision package are imported inside the command functions so
that ``bao --help`` and the rules commands start fast.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

SIDES = ("bottom", "top", "left", "right")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the vision subcommands to the ``bao`` parser."""
    p = subparsers.add_parser(
        "recognize",
        help="read a Bao position from one photo of the board",
        description="Find the board, count the seeds in each pit and print the position.",
    )
    p.add_argument("image", help="photo of the board (JPEG/PNG)")
    p.add_argument(
        "--south",
        choices=SIDES,
        default=None,
        help="image side nearest South's long edge (default: from the profile, else bottom)",
    )
    p.add_argument("--calibration", metavar="PROFILE", help="board profile JSON from bao calibrate")
    p.add_argument("--json", action="store_true", help="print the full result as JSON")
    p.add_argument("--debug", metavar="OUT.png",
                   help="also write the photo with the board's outline and each pit's count drawn "
                        "on it (orange: uncertain, red: occluded), to check the reading by eye")
    p.set_defaults(func=_recognize)

    c = subparsers.add_parser(
        "calibrate",
        help="build a board profile from a photo of the start position",
        description=(
            "Locate the board in a photo of the START position (6, 2, 2 per side), "
            "learn the seed look from the known counts and write a profile JSON. "
            "With --position, the photo shows that position instead (a game resumed "
            "from its record, or a camera moved during a game)."
        ),
    )
    c.add_argument("image", help="photo of the board set up in the start position (or in --position)")
    c.add_argument("--south", choices=SIDES, required=True, help="image side nearest South")
    c.add_argument(
        "--corners",
        metavar="X,Y;X,Y;X,Y;X,Y",
        help="the playing surface's four corners, in any order round the board (South's side "
        "from --south), when automatic location fails",
    )
    c.add_argument("--position", metavar="POSITION",
                   help="the position the photo shows, when not the start: a JSON or text-form "
                   "position file (or a labelled image's JSON), inline JSON, or the one-line text "
                   "form; it needs an empty pit and a pit of 1 to 8 seeds")
    c.add_argument("--out", metavar="PROFILE", help="output JSON path (default: IMAGE.profile.json)")
    c.set_defaults(func=_calibrate)

    # --- count-pit: added here by the counter engineer (vision/count.py) ---
    k = subparsers.add_parser(
        "count-pit",
        help="count the seeds in a photo of one pit",
        description=(
            "Count the seeds in a square crop of one pit (the pit centred and filling "
            "most of the image). Prints the most likely count; --json adds the "
            "probabilities over 0..40 and the confidence."
        ),
    )
    k.add_argument("image", help="square crop of one pit (JPEG/PNG)")
    k.add_argument("--json", action="store_true", help="print count, probabilities and confidence")
    k.add_argument("--views", type=int, default=8, choices=range(1, 9), metavar="{1..8}",
                   help="average the counter over this many turned and mirrored views of the "
                        "crop (default 8: one crop is quick)")
    k.add_argument("--networks", choices=("both", "board"), default="both",
                   help="both (default): the board network, trained on rendered Bao boards, and "
                        "one trained on pits of many looks, their answers combined; board: the "
                        "board network alone, as bao recognize reads pits")
    k.set_defaults(func=_count_pit)
    # ------------------------------------------------------------------------


def _read(path: str, board: bool = True):  # -> np.ndarray (BGR uint8)
    """The image at ``path``; with ``board``, also checked to be large enough to hold a
    board, the message naming the file (``vision.io.check_image``)."""
    from vision.errors import ImageUnreadable
    from vision.io import check_image, read_image

    image = read_image(path)
    if board:
        try:
            check_image(image)
        except ImageUnreadable as exc:
            raise ImageUnreadable(f"{path}: {exc}") from None
    return image


def _recognize(args: argparse.Namespace) -> int:
    from vision.errors import BoardNotFound
    from vision.pipeline import recognize, warm_up
    from vision.profile import BoardProfile
    from webui.cli import CommandError

    profile = BoardProfile.load(args.calibration) if args.calibration else None
    south = args.south or (profile.south_side if profile else "bottom")
    if args.debug:
        _check_debug_path(args.debug)
    image = _read(args.image)
    # the process's one-time set-up (network load, OpenCV tables) before the image,
    # so that timings_ms is this image's work
    warm_up()
    try:
        result = recognize(image, south=south, profile=profile)
    except BoardNotFound as exc:
        raise CommandError(f"{args.image}: no Bao board found ({exc})") from None
    if args.debug:
        import cv2

        from vision.pipeline import debug_image

        try:
            written = cv2.imwrite(args.debug, debug_image(image, result))
        except cv2.error:
            written = False
        if not written:
            raise CommandError(f"--debug {args.debug}: could not write the image")
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(result.to_text())
    return 0


def _check_debug_path(path: str) -> None:
    """Refuse a ``--debug`` path OpenCV cannot write an image to, before the reading."""
    import cv2

    from webui.cli import CommandError

    if not Path(path).parent.is_dir():
        raise CommandError(f"--debug {path}: no such folder {str(Path(path).parent)!r}")
    if not cv2.haveImageWriter(path):
        raise CommandError(f"--debug {path}: not an image file name OpenCV can write "
                           "(end it in .png or .jpg)")


def _parse_corners(text: str) -> list[list[float]]:
    from webui.cli import CommandError

    try:
        pts = [[float(v) for v in part.split(",")] for part in text.split(";")]
    except ValueError:
        raise CommandError(f"--corners {text!r}: expected X,Y;X,Y;X,Y;X,Y numbers") from None
    if len(pts) != 4 or any(len(p) != 2 for p in pts):
        raise CommandError(f"--corners {text!r}: expected four X,Y pairs separated by ';'")
    return pts


def _calibrate(args: argparse.Namespace) -> int:
    from calibration import calibrate_from_position, position_counts
    from vision.errors import BoardNotFound
    from vision.holes import START_COUNTS
    from webui.cli import CommandError
    from webui.commands.serve import read_position_arg

    counts = START_COUNTS
    if args.position is not None:
        try:
            counts = position_counts(read_position_arg(args.position))
        except (OSError, ValueError, TypeError, KeyError) as exc:
            raise CommandError(f"--position: not a position ({exc})") from None
    image = _read(args.image)
    corners = _parse_corners(args.corners) if args.corners else None
    try:
        profile = calibrate_from_position(image, args.south, counts, corners=corners)
    except BoardNotFound as exc:
        raise CommandError(f"{args.image}: no Bao board found ({exc}); "
                           "give its corners with --corners X,Y;X,Y;X,Y;X,Y") from None
    out = Path(args.out) if args.out else Path(args.image).with_suffix(".profile.json")
    profile.save(out)
    print(f"profile written to {out} (grid fit {profile.grid_score:.2f})")
    return 0


def _count_pit(args: argparse.Namespace) -> int:
    from vision.count import count_pit
    from webui.cli import CommandError

    image = _read(args.image, board=False)
    try:
        result = count_pit(image, views=args.views, broad=args.networks == "both")
    except ValueError as exc:  # (a crop too small, or far from square)
        raise CommandError(f"{args.image}: {exc}") from None
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(result.count)
    return 0
