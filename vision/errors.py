"""Vision errors: all are ``ValueError`` subclasses, so the ``bao`` CLI reports
them as one-line messages with exit status 2."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import ParamSpec

_P = ParamSpec("_P")


class VisionError(ValueError):
    """Base class of every error raised by the vision pipeline."""


class ImageUnreadable(VisionError):
    """The file is missing, unreadable, or not an image OpenCV can decode."""


class BoardNotFound(VisionError):
    """No Bao board could be located in the image; the message says why."""


def stage_main(main: Callable[_P, int]) -> Callable[_P, int]:
    """A stage module's command line (``python -m vision.locate IMAGE``, a debugging aid)
    with the manners of ``bao``: a vision error (a file that is no image, no board in
    it, a bad profile) is one line on stderr, ``STAGE.py: error: ...`` as argparse
    words its own errors, and exit status 2, not a traceback."""

    @functools.wraps(main)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> int:
        try:
            return main(*args, **kwargs)
        except VisionError as exc:
            print(f"{os.path.basename(sys.argv[0])}: error: {exc}", file=sys.stderr)  # as argparse names it
            return 2

    return run
