"""Per-setup calibration: a :class:`vision.profile.BoardProfile` built from one
image of the START position, stored as JSON in a folder.

``calibrate_from_start(image, south)`` needs no clicks beyond South's side: it
locates the board, fits the pit grid and lets the known start counts
(6, 2, 2 per side, 0 elsewhere) teach the seed look. ``corners=`` is the
manual fallback (the four corners of the playing surface, clicked in any order).
"""

from calibration.build import CalibrationError, calibrate_from_start
from calibration.store import list_profiles, load_profile, profile_path, save_profile

__all__ = [
    "CalibrationError",
    "calibrate_from_start",
    "list_profiles",
    "load_profile",
    "profile_path",
    "save_profile",
]
