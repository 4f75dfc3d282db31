"""Profiles on disk: ``<folder>/profiles/<name>.json`` (the web app passes its
instance folder)."""

from __future__ import annotations

import re
from pathlib import Path

from vision.profile import BoardProfile, ProfileError

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def profile_path(folder: str | Path, name: str = "default") -> Path:
    """Where profile ``name`` lives inside ``folder``; names are plain file stems."""
    if not _NAME.match(name) or name.endswith(".json"):
        raise ProfileError(f"profile name {name!r}: use letters, digits, '_', '-', '.' (no path)")
    return Path(folder) / "profiles" / f"{name}.json"


def save_profile(profile: BoardProfile, folder: str | Path, name: str = "default") -> Path:
    return profile.save(profile_path(folder, name))


def load_profile(folder: str | Path, name: str = "default") -> BoardProfile:
    path = profile_path(folder, name)
    if not path.exists():
        raise ProfileError(f"no calibration profile {name!r} in {Path(folder)}")
    return BoardProfile.load(path)


def list_profiles(folder: str | Path) -> list[str]:
    d = Path(folder) / "profiles"
    return sorted(p.stem for p in d.glob("*.json")) if d.is_dir() else []
