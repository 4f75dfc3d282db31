"""Vision errors: all are ``ValueError`` subclasses, so the ``bao`` CLI reports
them as one-line messages with exit status 2."""

from __future__ import annotations


class VisionError(ValueError):
    """Base class of every error raised by the vision pipeline."""


class ImageUnreadable(VisionError):
    """The file is missing, unreadable, or not an image OpenCV can decode."""


class BoardNotFound(VisionError):
    """No Bao board could be located in the image; the message says why."""
