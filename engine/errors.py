"""Errors raised by the rules engine.

All are :class:`ValueError` subclasses, split by cause, so callers (the ``bao``
command line, the web app) can report them as bad input in one line.
"""

from __future__ import annotations


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
