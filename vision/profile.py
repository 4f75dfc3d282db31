"""``BoardProfile``: what one camera setup teaches the recogniser.

Built by :mod:`calibration` from a start-position image; stored as JSON.
Points are image px ``[x, y]``; corners in the canonical order top-left,
top-right, bottom-right, bottom-left (near b8, b1, B8, B1).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from engine.errors import json_loads
from vision.errors import VisionError
from vision.holes import HOLES

PROFILE_VERSION = 1
SIDES = ("bottom", "top", "left", "right")


class ProfileError(VisionError):
    """A profile file or JSON object is missing, malformed or inconsistent."""


@dataclass
class BoardProfile:
    image_size: tuple[int, int]  # (width, height) of the camera images, px
    corners_px: list[list[float]]  # 4 x [x, y], canonical TL, TR, BR, BL
    south_side: str  # bottom | top | left | right
    pit_centers_px: dict[str, list[float]] = field(default_factory=dict)  # hole -> [x, y]
    aspect: float = 2.345  # playing-surface width / height used for rectification
    seed_look: dict[str, Any] | None = None  # JSON form of vision.count.SeedLook
    grid_score: float = 0.0  # grid-fit score of the calibration image
    camera: str = ""  # free text: which camera / setup

    def to_json(self) -> dict[str, Any]:
        return {
            "version": PROFILE_VERSION,
            "camera": self.camera,
            "image_size": list(self.image_size),
            "corners_px": [[round(float(x), 2), round(float(y), 2)] for x, y in self.corners_px],
            "south_side": self.south_side,
            "pit_centers_px": {n: [round(float(x), 2), round(float(y), 2)]
                               for n, (x, y) in self.pit_centers_px.items()},
            "aspect": round(float(self.aspect), 4),
            "seed_look": self.seed_look,
            "grid_score": round(float(self.grid_score), 4),
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any] | str) -> BoardProfile:
        """Parse and validate; raises :class:`ProfileError` naming the bad field."""
        if isinstance(obj, str):
            try:
                obj = json_loads(obj)  # (nested thousands deep: a JSONDecodeError too)
            except json.JSONDecodeError as exc:
                raise ProfileError(f"profile is not valid JSON: {exc}") from None
        if not isinstance(obj, dict):
            raise ProfileError("profile must be a JSON object")
        try:
            size = obj["image_size"]
            corners = obj["corners_px"]
            south = obj["south_side"]
        except KeyError as exc:
            raise ProfileError(f"profile lacks the field {exc.args[0]!r}") from None
        if not (isinstance(size, list) and len(size) == 2 and all(isinstance(v, int) and v > 0 for v in size)):
            raise ProfileError(f"image_size must be [width, height] positive integers, got {size!r}")
        if not (isinstance(corners, list) and len(corners) == 4
                and all(_is_point(p) for p in corners)):
            raise ProfileError(f"corners_px must be four [x, y] number pairs, got {corners!r}")
        if south not in SIDES:
            raise ProfileError(f"south_side must be one of {', '.join(SIDES)}, got {south!r}")
        pits = obj.get("pit_centers_px") or {}
        if not isinstance(pits, dict) or any(n not in HOLES or not _is_point(p) for n, p in pits.items()):
            raise ProfileError("pit_centers_px must map hole names (A1..b8) to [x, y]")
        look = obj.get("seed_look")
        if look is not None and not isinstance(look, dict):
            raise ProfileError("seed_look must be a JSON object or null")
        aspect = obj.get("aspect", 2.345)
        if not (isinstance(aspect, int | float) and 1.0 < aspect < 5.0):
            raise ProfileError(f"aspect must be a number between 1 and 5, got {aspect!r}")
        score = obj.get("grid_score", 0.0)
        if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
            raise ProfileError(f"grid_score must be a number, got {score!r}")
        return cls(
            image_size=(int(size[0]), int(size[1])),
            corners_px=[[float(x), float(y)] for x, y in corners],
            south_side=south,
            pit_centers_px={n: [float(x), float(y)] for n, (x, y) in pits.items()},
            aspect=float(aspect),
            seed_look=look,
            grid_score=float(score),
            camera=str(obj.get("camera", "")),
        )

    def moved_to(self, corners_px: list[list[float]], pit_centers_px: dict[str, list[float]],
                 south: str, image_size: tuple[int, int] | None = None) -> BoardProfile:
        """This profile with the board where a reading found it after it moved (pushed
        along the table, the camera knocked, another camera resolution): the corners and
        pit centres of that reading, made with South on ``south`` in images of
        ``image_size`` (default: the profile's); the seed look, aspect and camera kept.
        Unchanged when ``south`` is not the profile's side (the reading's corners and pits
        are named for another side)."""
        if south != self.south_side:
            return self
        return replace(self, corners_px=[[float(x), float(y)] for x, y in corners_px],
                       pit_centers_px={n: [float(x), float(y)] for n, (x, y) in pit_centers_px.items()},
                       image_size=self.image_size if image_size is None else (int(image_size[0]), int(image_size[1])))

    def scaled_to(self, image_size: tuple[int, int]) -> BoardProfile | None:
        """This profile for camera images of ``image_size`` (width, height): itself when
        its own; its points scaled when the images keep its shape (within 1 % in aspect:
        the same camera giving another resolution); None when they do not (another camera
        or a crop, whose picture the profile's points cannot be mapped to)."""
        w, h = int(image_size[0]), int(image_size[1])
        w0, h0 = self.image_size
        if (w, h) == (w0, h0):
            return self
        if abs((w / h) / (w0 / h0) - 1.0) > 0.01:
            return None
        sx, sy = w / w0, h / h0
        return replace(self, image_size=(w, h),
                       corners_px=[[x * sx, y * sy] for x, y in self.corners_px],
                       pit_centers_px={n: [x * sx, y * sy] for n, (x, y) in self.pit_centers_px.items()})

    def save(self, path: str | Path) -> Path:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(self.to_json(), indent=1) + "\n")
        return p

    @classmethod
    def load(cls, path: str | Path) -> BoardProfile:
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            raise ProfileError(f"{p}: cannot read profile ({exc.strerror})") from None
        except UnicodeDecodeError:  # (a ValueError, but its message names no file)
            raise ProfileError(f"{p}: not a profile: not UTF-8 text (a profile is JSON)") from None
        try:
            return cls.from_json(text)
        except ProfileError as exc:
            raise ProfileError(f"{p}: {exc}") from None


def _is_point(p: object) -> bool:
    return (isinstance(p, list | tuple) and len(p) == 2
            and all(isinstance(v, int | float) and math.isfinite(v) for v in p))
