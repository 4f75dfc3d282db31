"""Per-setup calibration: a :class:`vision.profile.BoardProfile` built from one
image of the START position (or of any known position), stored as JSON in a folder.

``calibrate_from_start(image, south)`` needs no clicks beyond South's side: it
locates the board, fits the pit grid and lets the known start counts
(6, 2, 2 per side, 0 elsewhere) teach the seed look. ``corners=`` is the
manual fallback (the four corners of the playing surface, clicked in any order).
``calibrate_from_position(image, south, counts)`` does the same from another known
position (``position_counts(position_json)``): a game resumed from its record, or a
camera moved during a game.
"""

from calibration.build import (
    CalibrationError,
    calibrate_from_position,
    calibrate_from_start,
    position_counts,
)
from calibration.store import list_profiles, load_profile, profile_path, save_profile

__all__ = [
    "CalibrationError",
    "calibrate_from_position",
    "calibrate_from_start",
    "list_profiles",
    "load_profile",
    "position_counts",
    "profile_path",
    "save_profile",
]
