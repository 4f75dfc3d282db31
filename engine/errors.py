"""Errors raised by the rules engine.

All are :class:`ValueError` subclasses, split by cause, so callers (the ``bao``
command line, the web app) can report them as bad input in one line.
"""

from __future__ import annotations

import json
from typing import Any


class BaoError(ValueError):
    """Base class of every error the engine raises for bad input."""


class InvalidNotation(BaoError):
    """A move text that is not valid notation (syntax, no position needed)."""


class IllegalMove(BaoError):
    """A well-formed move that is not legal in the given position."""


class AmbiguousMove(BaoError):
    """A short-form move that matches several legal moves of the position."""


class InvalidPosition(BaoError):
    """A position (JSON or text form) with a bad shape or impossible values."""


class JSONTooDeep(json.JSONDecodeError):
    """JSON whose arrays or objects nest deeper than Python's parser can follow."""

    def __str__(self) -> str:  # (no "line 1 column 1": the parser does not say where)
        return self.msg


def json_loads(text: str | bytes) -> Any:
    """``json.loads``, with JSON nested too deeply for the parser (``[[[[...`` thousands
    deep) a :class:`json.JSONDecodeError` like any other bad JSON. The parser itself
    raises RecursionError there, which no reader of user input catches as bad input."""
    try:
        return json.loads(text)
    except RecursionError:
        raise JSONTooDeep("arrays or objects nested too deeply", "", 0) from None
