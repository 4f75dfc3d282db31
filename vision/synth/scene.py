"""Pure scene description for the photoreal generator: board, pits, camera, projection.

Everything here is NumPy only (no ``bpy``) so the geometry behind every label can
be tested without Blender. World frame: metres, the table top is ``z = 0``, the
board is centred on the origin with its long side along ``x``; South sits at
``-y`` and North at ``+y``, so a camera on the ``-y`` side looking down sees the
canonical view (``b8..b1`` top row, ``B1..B8`` bottom row).

Camera convention is Blender's: the camera looks along its local ``-z`` with
``+y`` up; :meth:`Camera.project` returns OpenCV pixel coordinates (pixel
centres on integers, ``y`` down).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from vision.holes import HOLE_CELL, HOLES, NYUMBA

#: The shapes a pit's wall may take (:attr:`BoardGeometry.pit_wall`): from a wall
#: steeper than the default's to a dimple with no rim.
PIT_WALLS = (0.3, 3.0)

#: Pits with the square (nyumba) shape.
SQUARE_PITS: frozenset[str] = frozenset(NYUMBA)


@dataclass(frozen=True)
class BoardGeometry:
    """A 4 x 8 board: outline, pit grid and pit shape, all in metres.

    ``pitch_x``/``pitch_y`` are centre distances between neighbouring pits;
    ``middle_gap`` is extra space between the two players' halves (rows 2|3).
    The nyumba pits are squares of side ``2 * square_half``. A pit's floor lies
    ``pit_depth * (1 - rho**2) ** pit_wall`` below the top face at ``rho`` (the
    distance from its centre over its radius): ``pit_wall`` 0.6 meets the top face
    in a steep wall, a crisp rim; 1 is a paraboloid; 2 or more a dimple whose wall
    runs into the top face with no edge at all.
    """

    pitch_x: float = 0.075
    pitch_y: float = 0.07
    middle_gap: float = 0.01
    margin_x: float = 0.04
    margin_y: float = 0.035
    thickness: float = 0.05
    pit_radius: float = 0.028
    pit_depth: float = 0.02
    square_half: float = 0.027
    bevel: float = 0.006
    pit_wall: float = 0.6

    def __post_init__(self) -> None:
        if self.pit_radius * 2 >= min(self.pitch_x, self.pitch_y):
            raise ValueError(
                f"pit radius {self.pit_radius} too large for pitch {self.pitch_x}x{self.pitch_y}"
            )
        if self.square_half * 2 >= min(self.pitch_x, self.pitch_y):
            raise ValueError(f"nyumba half side {self.square_half} too large for the pitch")
        if self.pit_depth >= self.thickness:
            raise ValueError(f"pit depth {self.pit_depth} must be below thickness {self.thickness}")
        if not PIT_WALLS[0] <= self.pit_wall <= PIT_WALLS[1]:
            raise ValueError(f"pit wall {self.pit_wall} must be from {PIT_WALLS[0]} to {PIT_WALLS[1]}")

    @property
    def length(self) -> float:
        """Extent along x (the 8 columns)."""
        return 8 * self.pitch_x + 2 * self.margin_x

    @property
    def width(self) -> float:
        """Extent along y (the 4 rows)."""
        return 3 * self.pitch_y + self.middle_gap + 2 * self.margin_y

    @property
    def top_z(self) -> float:
        return self.thickness

    def pit_xy(self, name: str) -> tuple[float, float]:
        """Board-plane centre (x, y) of hole ``name``."""
        row, col = HOLE_CELL[name]
        x = (col - 3.5) * self.pitch_x
        offsets = (1.5, 0.5, -0.5, -1.5)
        y = offsets[row] * self.pitch_y + math.copysign(self.middle_gap / 2, offsets[row])
        return x, y

    def pit_centers(self) -> dict[str, tuple[float, float]]:
        return {n: self.pit_xy(n) for n in HOLES}

    def pit_half_extent(self, name: str) -> float:
        """Radius of a round pit, half side of a square one."""
        return self.square_half if name in SQUARE_PITS else self.pit_radius

    def corners_world(self) -> np.ndarray:
        """Playing-surface corners, canonical TL, TR, BR, BL (near b8, b1, B8, B1): (4, 3)."""
        hx, hy, z = self.length / 2, self.width / 2, self.top_z
        return np.array([[-hx, hy, z], [hx, hy, z], [hx, -hy, z], [-hx, -hy, z]])

    def pit_centers_world(self) -> np.ndarray:
        """Pit centres on the playing surface, in :data:`HOLES` order: (32, 3)."""
        return np.array([[*self.pit_xy(n), self.top_z] for n in HOLES])

    def in_pit(self, name: str, xy: np.ndarray, slack: float | np.ndarray = 0.0) -> np.ndarray:
        """Which of the points ``xy`` (N, 2) lie over pit ``name`` (grown by ``slack``, scalar or (N,))."""
        cx, cy = self.pit_xy(name)
        d = np.abs(np.asarray(xy, dtype=float) - [cx, cy])
        if name in SQUARE_PITS:
            h = self.square_half + slack
            return (d[:, 0] <= h) & (d[:, 1] <= h)
        return np.hypot(d[:, 0], d[:, 1]) <= self.pit_radius + slack

    def surface_height(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Height of the carved top surface at (x, y) (pits and rounded edge included)."""
        x = np.asarray(x, dtype=float)
        y = np.asarray(y, dtype=float)
        z = np.full(np.broadcast(x, y).shape, self.top_z)
        for name in HOLES:
            cx, cy = self.pit_xy(name)
            dx, dy = x - cx, y - cy
            if name in SQUARE_PITS:
                # superellipse distance gives a square with rounded corners
                rho = (np.abs(dx) ** 6 + np.abs(dy) ** 6) ** (1 / 6) / self.square_half
            else:
                rho = np.hypot(dx, dy) / self.pit_radius
            inside = rho < 1.0
            prof = np.clip(1.0 - rho**2, 0.0, 1.0) ** self.pit_wall
            z = np.where(inside, self.top_z - self.pit_depth * prof, z)
        # rounded outer edge: drop within `bevel` of the border
        ex = np.clip(np.abs(x) - (self.length / 2 - self.bevel), 0, None)
        ey = np.clip(np.abs(y) - (self.width / 2 - self.bevel), 0, None)
        e = np.hypot(ex, ey) / self.bevel
        drop = self.bevel * (1 - np.sqrt(np.clip(1 - e**2, 0, 1)))
        return z - drop


@dataclass(frozen=True)
class Camera:
    """A pinhole camera: pose (world-from-camera rotation, location) and intrinsics."""

    location: tuple[float, float, float]
    rotation: tuple[tuple[float, float, float], ...]  # 3x3, columns = camera x, y, z in world
    focal_mm: float
    width: int
    height: int
    sensor_mm: float = 36.0  # horizontal sensor width (Blender sensor_fit HORIZONTAL)

    @property
    def R(self) -> np.ndarray:
        return np.asarray(self.rotation, dtype=float)

    @property
    def fx(self) -> float:
        return self.focal_mm / self.sensor_mm * self.width

    def matrix_world(self) -> np.ndarray:
        """4x4 world-from-camera matrix (Blender's ``Object.matrix_world``)."""
        m = np.eye(4)
        m[:3, :3] = self.R
        m[:3, 3] = self.location
        return m

    def depth(self, pts: np.ndarray) -> np.ndarray:
        """Distance in front of the camera along its viewing axis (N,)."""
        d = np.atleast_2d(pts) - np.asarray(self.location)
        return -(d @ self.R[:, 2])

    def project(self, pts: np.ndarray) -> np.ndarray:
        """World points (N, 3) -> OpenCV pixel coordinates (N, 2)."""
        d = np.atleast_2d(np.asarray(pts, dtype=float)) - np.asarray(self.location)
        c = d @ self.R  # camera coordinates
        zc = -c[:, 2]
        if np.any(zc <= 1e-9):
            raise ValueError("a point lies behind the camera")
        f = self.fx
        u = (self.width / 2 - 0.5) + f * c[:, 0] / zc
        v = (self.height / 2 - 0.5) - f * c[:, 1] / zc
        return np.stack([u, v], axis=1)

    def ray(self, px: np.ndarray) -> np.ndarray:
        """Unit world directions of the rays through pixels ``px`` (N, 2)."""
        px = np.atleast_2d(np.asarray(px, dtype=float))
        f = self.fx
        xc = (px[:, 0] - (self.width / 2 - 0.5)) / f
        yc = -(px[:, 1] - (self.height / 2 - 0.5)) / f
        dirs = np.stack([xc, yc, -np.ones_like(xc)], axis=1) @ self.R.T
        return dirs / np.linalg.norm(dirs, axis=1, keepdims=True)


def look_from(
    target: np.ndarray, azimuth_deg: float, elevation_deg: float, distance: float, roll_deg: float
) -> tuple[np.ndarray, np.ndarray]:
    """Camera location and rotation looking at ``target`` from the given direction.

    ``azimuth_deg`` is the direction from the target to the camera in the table
    plane (-90 = South's side, 0 = East, i.e. South's right, 90 = North's side);
    ``elevation_deg`` 90 is straight down. Image "up" points away from the camera
    across the table, so from South's side North is at the top of the image.
    """
    th, ph = math.radians(azimuth_deg), math.radians(elevation_deg)
    back = np.array([math.cos(ph) * math.cos(th), math.cos(ph) * math.sin(th), math.sin(ph)])
    fwd = -back
    right = np.array([-math.sin(th), math.cos(th), 0.0])
    up = np.cross(right, fwd)
    r = math.radians(roll_deg)
    right, up = (
        math.cos(r) * right + math.sin(r) * up,
        -math.sin(r) * right + math.cos(r) * up,
    )
    rot = np.stack([right, up, back], axis=1)
    return np.asarray(target, dtype=float) + distance * back, rot


def fit_camera(
    geometry: BoardGeometry,
    azimuth_deg: float,
    elevation_deg: float,
    roll_deg: float,
    focal_mm: float,
    fill: float,
    width: int,
    height: int,
    target_offset: tuple[float, float] = (0.0, 0.0),
) -> Camera:
    """The camera at the distance where the board's corners fill ``fill`` of the frame.

    ``fill`` is the largest normalised distance (0..1, 1 = image border) of a
    board corner from the image centre; it must be below 1 so the board is whole.
    """
    if not 0.2 <= fill < 1.0:
        raise ValueError(f"fill must be in [0.2, 1), got {fill}")
    target = np.array([target_offset[0], target_offset[1], geometry.top_z])
    hx, hy = geometry.length / 2, geometry.width / 2
    pts = np.array(
        [[sx * hx, sy * hy, z] for sx in (-1, 1) for sy in (-1, 1) for z in (0.0, geometry.top_z)]
    )

    def extent(dist: float) -> float:
        loc, rot = look_from(target, azimuth_deg, elevation_deg, dist, roll_deg)
        cam = Camera(tuple(loc), tuple(map(tuple, rot)), focal_mm, width, height)
        if np.any(cam.depth(pts) <= 0.05):
            return float("inf")
        p = cam.project(pts)
        return float(
            np.max(np.maximum(np.abs(p[:, 0] - width / 2) / (width / 2),
                              np.abs(p[:, 1] - height / 2) / (height / 2)))
        )

    lo, hi = 0.1, 20.0
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        if extent(mid) > fill:
            lo = mid
        else:
            hi = mid
    loc, rot = look_from(target, azimuth_deg, elevation_deg, hi, roll_deg)
    return Camera((float(loc[0]), float(loc[1]), float(loc[2])),
                  tuple((float(r[0]), float(r[1]), float(r[2])) for r in rot),
                  focal_mm, width, height)


def south_side(camera: Camera, geometry: BoardGeometry) -> str:
    """Image side South sits on: the side the projected midpoint of South's long edge
    lies towards, seen from the projected board centre (the dominant image axis of
    that direction decides, so a board seen from its end in a wide image is still
    "left"/"right" even though its South edge is nearer the top border)."""
    p = camera.project(np.array([[0.0, -geometry.width / 2, geometry.top_z],
                                 [0.0, 0.0, geometry.top_z]]))
    dx, dy = p[0] - p[1]
    if abs(dx) > abs(dy):
        return "right" if dx > 0 else "left"
    return "bottom" if dy > 0 else "top"


@dataclass
class BoardProjection:
    """Label geometry of one camera view: corners and pit centres in pixels."""

    corners_px: list[list[float]]
    pit_centers_px: dict[str, list[float]]
    south_side: str
    extra: dict = field(default_factory=dict)


def project_board(camera: Camera, geometry: BoardGeometry) -> BoardProjection:
    """Corners (canonical order) and the 32 pit centres projected into the image."""
    corners = camera.project(geometry.corners_world())
    pits = camera.project(geometry.pit_centers_world())
    return BoardProjection(
        corners_px=[[round(float(x), 2), round(float(y), 2)] for x, y in corners],
        pit_centers_px={
            n: [round(float(x), 2), round(float(y), 2)] for n, (x, y) in zip(HOLES, pits, strict=True)
        },
        south_side=south_side(camera, geometry),
    )


def geometry_dict(geometry: BoardGeometry) -> dict[str, float]:
    """JSON form of a :class:`BoardGeometry` (rounded to 0.1 mm)."""
    return {k: round(v, 4) for k, v in asdict(geometry).items()}


def camera_from_params(geometry: BoardGeometry, cam: dict) -> Camera:
    """The :class:`Camera` a parameter set's ``camera`` entry describes (fitted to the board)."""
    return fit_camera(geometry, cam["azimuth"], cam["elevation"], cam["roll"], cam["focal_mm"],
                      cam["fill"], cam["width"], cam["height"], tuple(cam["target_offset"]))
