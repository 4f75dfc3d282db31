"""The referee loop: frames in, logged moves out.

:class:`LiveReferee` joins the parts for one board: every frame (from a pull
source's thread, or posted by the browser) goes through :meth:`feed`; the
settle detector (:mod:`vision.motion`) lets through only settled views; the
vision pipeline reads them into per-pit count probabilities; the move
inference (:mod:`engine.referee`) decides what was played; accepted moves are
written to the game log (:mod:`webui.store`) at once; what a verdict logs, on
one view or over several, is :class:`webui.verdicts.VerdictMixin`'s part.
Everything the play page shows comes from :meth:`summary`.

A bad frame (unreadable, no board found, hands over the board) is reported
in the state and changes nothing. Unexplained or ambiguous views wait for the
players: :meth:`correct_counts` (they say what the board shows) or
:meth:`confirm` (they pick the move) resolve them.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import cv2
import numpy as np

from engine import Position
from engine.branches import (
    Branch,
    split,
)
from engine.observation import HOLES, Observation, board_vector
from engine.referee import RefereeConfig, Verdict, apply_moves, disputed_pits, infer_move
from vision.decode import status_pits
from vision.errors import BoardNotFound
from vision.motion import MotionConfig, SettleDetector, pit_changes, pit_spacing
from webui.board_image import DEFAULT_ASPECT, rectified_pits, rectify
from webui.sources import Frame, FrameSource, read_frame
from webui.store import LIVE_LEASE_S, GameChanged, GameLiveElsewhere, GameStore, LoggedMove
from webui.verdicts import REVISE_AT, VerdictMixin

Recognizer = Callable[..., Any]
"""``recognize(image_bgr, south=..., profile=...) -> Recognition`` (vision's signature)."""

LookAgain = Callable[[Any, Sequence[str]], Any]
"""``read_again(recognition, holes) -> Recognition | None`` (vision's signature): the
pits named read again more closely, or None when they cannot be."""


class StaleRequest(ValueError):
    """A players' request made before the referee logged more moves, or for a game no longer
    live (:meth:`LiveReferee._at_ply`)."""


def vision_read_again(recognition: Any, holes: Sequence[str]) -> Any:
    """:func:`vision.pipeline.read_again` for readings of the vision pipeline (None for
    any other recognizer's: they keep no pit crops)."""
    if getattr(recognition, "crops", None) is None:
        return None
    from vision.pipeline import read_again

    return read_again(recognition, holes)


BLURRED = "the camera's view looks blurred (out of focus?): its pits are read less surely"
"""The frame's problem while the vision reports ``image_blurred``; the frame is still refereed."""

NO_GAME = "no game is live: start a new game or open one"
"""The frame's problem while no game is live (the live one was deleted from the game log by
another program sharing it: :meth:`LiveReferee._resync`); the frame is read, not refereed."""

HANDS = "hands over the board: waiting for it to clear"
"""The frame's problem while the vision reports ``hand_over_board``; the frame is not refereed."""
HANDS_OR_BLUR = ("hands over the board, or the camera's view blurred (out of focus?): "
                 "waiting for a clear view")
"""... and with ``image_blurred`` too: a blurred view softens empty pits' rims as a hand
over them does (four render sets blurred by a Gaussian of 5 px: 13 of the 58 views with
no hand that were found blurred were read as a hand), so the players may need to refocus
rather than wait."""

AS_LOGGED_PITS = 2
"""At most this many pits may differ from the board the log holds for a first view that no
legal move explained to be taken as that board all the same (:meth:`LiveReferee._as_logged`):
a view reading more differences may show a move made meanwhile."""

LYING_STILL = ("something lies still over pits {pits}, covered at the last views: refereeing "
               "without them (clear them to check)")
"""The frame's problem when a view flagged as a hand over the board covers only pits
covered at the ``LYING_STILL_VIEWS`` - 1 settled views before it too
(:meth:`LiveReferee._lying_still`); the frame is refereed, those pits unknown."""

LYING_STILL_VIEWS = 3
"""Settled views in a row covering the same pits after which a view flagged as a hand over
them is refereed all the same: a hand over the board is moving, and the board settles
only once it has gone; what covers the same pits at three settled views lies still."""

BOARD_MOVED = ("the board moved since the calibration (pushed along the table, or the camera "
               "knocked): read where it is now, and the calibration follows it")
"""The frame's problem when the board is read away from where the profile has it
(:meth:`LiveReferee._follow_board`); the frame is refereed."""

PICTURE_RESIZED = ("the camera's pictures are not of the size the calibration was made for: "
                   "the board is read in them, and the calibration follows it")
"""The frame's problem when the board is read in pictures of another size than the profile's
(another resolution, or another camera); the frame is refereed."""

BOARD_MOVED_PITCH = 0.3
"""The board's pits read this share of a pit pitch or more (the median pit) away from where
the profile has them: the board moved (:meth:`LiveReferee._follow_board`). On the 546 views
of 26 rendered games (the five sample games and 21 more), read with a profile from their
first frame, the median pit lies at most 0.11 of a pitch from it."""


def _shifted(image: np.ndarray, shift: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """A kept view as the camera would see it, in pictures of ``size`` (width, height),
    with the board moved by ``shift``."""
    return cv2.warpPerspective(image, shift, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


SOUTH_UNCLEAR = ("South's side is unclear: the board's long sides run towards the side "
                 "chosen for South; choose the side South sits at")
"""The frame's problem while the vision reports ``south_unclear``; the frame is not refereed
(which pits are South's is a guess)."""


def _holes_of(nested: Any) -> dict[str, Any]:
    """{hole: value} from a position-shaped dict (south/north -> front/back -> 8)."""
    values = [v for side in ("south", "north") for row in ("front", "back") for v in nested[side][row]]
    return dict(zip(HOLES, values, strict=True))


def low_confidence_pits(status: Sequence[str], confidence: dict[str, float], threshold: float) -> list[str]:
    """Pits to highlight: those the vision flags (``uncertain_pits:``/``occluded_pits:``
    status entries), else those whose confidence is below ``threshold``."""
    flagged = [hole for key in ("uncertain_pits", "occluded_pits")
               for hole in status_pits(status, key) if hole in confidence]
    if flagged:
        return sorted(set(flagged), key=HOLES.index)
    return [h for h, c in confidence.items() if c < threshold]


class LiveReferee(VerdictMixin):
    """The live game of one board: position, latest reading, verdicts, game log.

    Thread-safe: the source thread and the web requests share it under one lock.
    """

    def __init__(
        self,
        store: GameStore,
        recognize: Recognizer,
        referee: RefereeConfig | None = None,
        motion: MotionConfig | None = None,
        low_confidence: float = 0.8,
        auto_calibrate: bool = False,
        look_again: LookAgain | None = vision_read_again,
        players: bool = True,
    ) -> None:
        self.store = store
        self.holder = uuid.uuid4().hex
        """This referee's token in the game log's table of live games (GameStore.claim)."""
        self._touched = 0.0  # time.monotonic() of the last sign of life written there
        self.players = players
        """Whether anyone can answer the referee's questions. Without players (``bao
        referee``), moves the camera can never tell apart, as they leave the very same
        position, are logged as the first of them with a note naming the others, rather
        than left waiting for an answer that will not come."""
        self.recognize = recognize
        self.look_again = look_again
        """Reads again the pits no legal move agrees with before the players are asked
        (None: never)."""
        self.referee = referee or RefereeConfig()
        self.detector = SettleDetector(motion)
        self.low_confidence = low_confidence
        self.auto_calibrate = auto_calibrate
        """Without a profile, calibrate on the first settled view of the game, from the
        position the referee has accepted (the start, a given start, or the position a
        game reopened after a restart had reached)."""
        self.lock = threading.RLock()
        self._read_lock = threading.Lock()
        self.south_side = "bottom"
        self.profile: Any = None
        self._calibration_tried: tuple[int | None, int] | None = None  # (game, ply) last tried at
        self.game_id: int | None = None
        self.position: Position = Position.start()
        self.start_json: dict[str, Any] = self.position.to_json()
        self.ply = 0
        self.frame: np.ndarray | None = None
        self.frame_seq = 0
        self.reading: dict[str, Any] | None = None
        self.rectified: np.ndarray | None = None
        self.verdict: dict[str, Any] | None = None
        self.pending: Verdict | None = None
        self.motion: dict[str, Any] = {"moving": False, "still_for": 0.0, "settled": False}
        self.problem: str | None = None
        self.latencies_ms: list[float] = []
        # the last view known to show the accepted position: (image, ply); the
        # next view's per-pit change map against it is evidence for the referee
        self._reference: tuple[np.ndarray, int] | None = None
        self._last_view: np.ndarray | None = None
        # an ambiguous stretch: the readings still possible, and the view they all claim to show
        self.branches: list[Branch] = []
        self._branch_view: np.ndarray | None = None
        # the reading of the unexplained view the kept readings come from, and the best
        # score any of them got on it
        self._kept_view: tuple[Observation, float] | None = None
        # every view refereed since the last logged move: the ply it was refereed at, the
        # reading, the camera's change map against the logged position's view, and
        # whether no legal move explained it. Those pick among readings that all leave
        # the same position, and a lost stretch is traced through them
        self._views: list[tuple[int, Observation, dict[str, float] | None, bool]] = []
        # the readings of a lost stretch (engine.branches.retrace): (ply, views used, readings)
        self._trail: tuple[int, int, list[Branch]] | None = None
        # every view refereed at the last RefereeConfig.revise_plies plies (at the current
        # ply, the first max(REVISE_AT)), with its ply: the referee retraces them when it
        # doubts the moves it logged last (_revise)
        self._recent: list[tuple[int, Observation]] = []
        # the pits named occluded on the last settled views flagged as a hand over the
        # board, in a row, and how many such views (_lying_still)
        self._covered: tuple[frozenset[str], int] = (frozenset(), 0)
        self.source: FrameSource | None = None
        self.source_info: dict[str, Any] = {"kind": "browser", "running": False, "ended": False}
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    # -- games ------------------------------------------------------------
    def new_game(
        self,
        start: dict[str, Any] | None = None,
        south: str = "South",
        north: str = "North",
        headers: dict[str, str] | None = None,
    ) -> int:
        """Start a game (from the start position unless ``start`` is given) and make it live."""
        position = Position.start() if start is None else Position.from_json(start)
        with self.lock:
            game_id = self.store.create_game(position.to_json(), south, north, headers)
            self.open_game(game_id)
            return game_id

    def open_game(self, game_id: int) -> None:
        """Make a logged game live again, replaying its moves (KeyError if unknown,
        GameLiveElsewhere when another server sharing the game log holds it live)."""
        with self.lock:
            self.store.claim(game_id, self.holder, release=self.game_id)
            self._touched = time.monotonic()
        record = self.store.get(game_id)
        position = Position.from_json(record.start)
        for logged in record.moves:
            position.push(position.parse_move(logged.notation))
        with self.lock:
            self.game_id = game_id
            self.start_json = record.start
            self.position = position
            self.ply = len(record.moves)
            self.verdict = None
            self._forget_views()
            self.detector.reset()

    def _forget_views(self) -> None:
        """Drop what the views since the last logged move said (the players' question, the
        readings kept, the view of the logged board): they are of another game, or of a
        board the log no longer holds."""
        self.pending = None
        self._reference = None
        self.branches = []
        self._views, self._trail, self._recent = [], None, []

    def resume_or_start(self) -> int:
        """Reopen the latest unfinished game no other server holds live, or start a new one."""
        latest = self.store.latest_unfinished(self.holder)
        if latest is None:
            return self.new_game()
        self.open_game(latest)
        return latest

    # -- frames -----------------------------------------------------------
    def feed(self, frame: Frame) -> dict[str, Any]:
        """Take one frame: track motion; on a settled view read it and referee it."""
        with self.lock:
            self.frame = frame.image
            self.frame_seq += 1
            if frame.still:
                ready = True
                self.motion = {"moving": False, "still_for": 0.0, "settled": True}
            else:
                state = self.detector.update(frame.image, frame.t)
                self.motion = {
                    "moving": state.moving,
                    "still_for": round(state.still_for, 2),
                    "settled": state.settled,
                }
                ready = state.ready
        if ready:
            try:
                self.read_settled(frame.image)
            except GameChanged as exc:  # (the view's moves were not logged: the log is as it was)
                with self.lock:
                    self._resync(exc)
        return self.summary()

    def _resync(self, exc: Exception) -> str:
        """The game log no longer holds the live game as this referee knows it: another
        program sharing it logged or took back moves, or deleted the game. Reopen it as
        logged there, or with it gone (or live in another server now), leave no game
        live; returns the message, also shown as the problem."""
        game_id = self.game_id
        assert game_id is not None  # (no game live: nothing is logged, nor refereed)
        try:
            self.open_game(game_id)
            message = (f"game {game_id} was changed in the game log by another program ({exc}): "
                       f"reopened as logged there, {self.ply} moves")
        except (KeyError, GameLiveElsewhere) as gone:
            self.game_id = None
            self._forget_views()
            self.detector.reset()
            why = (str(gone) if isinstance(gone, GameLiveElsewhere)
                   else f"game {game_id} is no longer in the game log (deleted by another program sharing it)")
            message = f"{why}: start a new game or open one to go on"
        self.problem = message
        self._set_verdict("game_changed", message)
        return message

    def read_settled(self, image: np.ndarray) -> dict[str, Any] | None:
        """Read a settled view and referee it; returns the verdict JSON (None if unreadable).

        The vision runs outside the state lock (the page keeps getting the live
        state meanwhile); one reading at a time.
        """
        from vision.errors import VisionError

        with self._read_lock:
            t0 = time.perf_counter()
            with self.lock:
                south, profile = self.south_side, self.profile
                reference = self._reference
                branch_view = self._branch_view if self.branches else None
                accepted = None
                if profile is None and self.auto_calibrate and self._calibration_tried != (self.game_id, self.ply):
                    # once a move (a failed try costs a search for the board, seconds where
                    # there is none; the next move's view is as good a view to calibrate on)
                    self._calibration_tried = (self.game_id, self.ply)
                    accepted = self.position.to_json()
            try:
                if accepted is not None:
                    profile = self._calibrate_on_view(image, south, accepted)
                recognition = self.recognize(image, south=south, profile=profile)
            except VisionError as exc:
                with self.lock:
                    self.problem = f"board not read: {exc}"
                return None
            status = list(getattr(recognition, "status", []) or [])
            corners = recognition.board_corners_px
            reading: dict[str, Any] = {
                **self._pit_readings(recognition, status),
                "corners": [[float(x), float(y)] for x, y in corners],
                "status": status,
                "frame_size": [int(image.shape[1]), int(image.shape[0])],
            }
            rectified: np.ndarray | None = None
            try:
                rectified, hmat, box = rectify(image, corners, getattr(profile, "aspect", DEFAULT_ASPECT))
                reading["rectified_size"] = [int(rectified.shape[1]), int(rectified.shape[0])]
                reading["rectified_board"] = box
                reading["pits"] = rectified_pits(getattr(recognition, "pit_centers_px", {}) or {}, hmat)
            except cv2.error:
                rectified = None
            observation = None
            still = self._lying_still(status)
            if ("hand_over_board" not in status or still) and "south_unclear" not in status:
                # (a covered pit's distribution is spread by the vision: unknown, not empty)
                observation = Observation.from_probabilities(recognition.probabilities)
            centres = getattr(recognition, "pit_centers_px", {}) or {}
            size = (int(image.shape[1]), int(image.shape[0]))
            moved = self._follow_board(profile, south, corners, centres, status, size)
            if moved:  # the views kept, moved with the board by _follow_board
                with self.lock:
                    reference = self._reference
                    branch_view = self._branch_view if self.branches else None
            changed = None
            if reference is not None and centres:
                changed = pit_changes(reference[0], image, centres)
            changed_since_branch = None
            if branch_view is not None and centres:
                changed_since_branch = pit_changes(branch_view, image, centres)
            with self.lock:
                self.detector.set_board(corners)
                self.reading = reading
                self.rectified = rectified
                if observation is None:
                    self.problem = (SOUTH_UNCLEAR if "south_unclear" in status
                                    else HANDS_OR_BLUR if "image_blurred" in status else HANDS)
                    return None
                if self.game_id is None:
                    self.problem = NO_GAME
                    return None
                # read, but less surely (vision.focus): the players may want to refocus
                self.problem = (BLURRED if "image_blurred" in status
                                else LYING_STILL.format(pits=", ".join(sorted(self._covered[0]))) if still
                                else None if not moved
                                else PICTURE_RESIZED if tuple(profile.image_size) != size else BOARD_MOVED)
                self._last_view = image
                if reference is None or reference[1] != self.ply:
                    changed = None  # that view no longer shows the accepted position
                verdict = infer_move(self.position, observation, self.referee, changed)
                closer = self._look_again(recognition, observation, verdict, changed)
                if closer is not None:
                    recognition, observation, verdict, holes = closer
                    reading.update(self._pit_readings(recognition, status), looked_again=list(holes))
                ply = self.ply
                self._views = [v for v in self._views if v[0] == ply] + [
                    (ply, observation, changed, verdict.status == "unexplained")]
                self._recent = [v for v in self._recent if v[0] >= ply - self.referee.revise_plies]
                if sum(1 for v in self._recent if v[0] == ply) < REVISE_AT[-1]:  # no try after more views
                    self._recent.append((ply, observation))
                if self.branches and not self._settles(verdict, changed):
                    result = self._follow_branches(image, observation, changed_since_branch, verdict)
                else:
                    if self._holds(verdict):
                        verdict = self._held(verdict)
                    result = self._settle_verdict(verdict, "camera")
                    if verdict.status == "ambiguous":
                        self.branches = split(self.position, verdict, self.referee)
                        self._branch_view = image
                        self._kept_view = None
                        result = self._log_indistinguishable(self.branches) or result
                    elif verdict.status == "unexplained":
                        # kept for the later views to decide, while the players are asked
                        self._keep_tentative(verdict, observation)
                        self._branch_view = image
                result = self._revise(ply, self._retrace(ply, observation, result))
                if result.get("status") in ("accepted", "unchanged") or self._as_logged(reference, verdict):
                    self._reference = (image, self.ply)
                latency = (time.perf_counter() - t0) * 1000.0
                self.latencies_ms.append(latency)
                result["latency_ms"] = round(latency, 1)
                return result

    def _lying_still(self, status: Sequence[str]) -> bool:
        """Whether the view is flagged as a hand over the board that covers no pit but
        pits covered (named in ``occluded_pits``) at each of the ``LYING_STILL_VIEWS`` - 1
        settled views before it, flagged as a hand or not: no hand, but something lying
        still there (an arm resting on the board, a cup, a false hand on one odd pit). Such
        a view is refereed, its covered pits unknown, rather than held back for the rest
        of the game. A hand that covers a pit more is waited for, as before."""
        pits = frozenset(status_pits(status, "occluded_pits"))
        core, run = self._covered  # the pits covered at every view of the run, its views
        still = "hand_over_board" in status and run + 1 >= LYING_STILL_VIEWS and bool(pits) and pits <= core
        self._covered = (core & pits, run + 1) if run and core & pits else (pits, 1 if pits else 0)
        return still

    def _follow_board(self, profile: Any, south: str, corners: Sequence[Sequence[float]],
                      centres: dict[str, list[float]], status: Sequence[str],
                      size: tuple[int, int]) -> bool:
        """The board read away from where the profile says it is (found again, status
        ``board_moved``, or its pits followed by the fit ``BOARD_MOVED_PITCH`` of a pit pitch
        or more, the median pit): the board was pushed along the table, or the camera
        knocked; or the pictures are of another ``size`` (width, height) than the
        profile's (another resolution, or camera), in whose pixels the board lies elsewhere.
        The profile then follows it (:meth:`BoardProfile.moved_to`), and the views
        kept for the camera's change maps are moved with it (by the homography from the
        pits where the profile had them to where they are now). False when it has not
        moved, or with no profile, another South side, a hand over the board (whose fit may
        be off), or South's side unclear (the board turned across). The pits, not the corners, tell: a fit may place a board's ends
        differently from its calibration, its pits in place (game_04: the corners 0.9 of a
        pitch apart, its pits 0.03)."""
        if (profile is None or south != profile.south_side or "hand_over_board" in status
                or "south_unclear" in status  # (the board turned across: which pit is which is a guess)
                or not set(profile.pit_centers_px) <= set(centres) or len(profile.pit_centers_px) < 4):
            return False
        names = list(profile.pit_centers_px)
        old = np.asarray([profile.pit_centers_px[n] for n in names], np.float64)
        new = np.asarray([centres[n] for n in names], np.float64)
        pitch = pit_spacing(new)
        if ("board_moved" not in status and tuple(profile.image_size) == size
                and float(np.median(np.linalg.norm(new - old, axis=1))) < BOARD_MOVED_PITCH * pitch):
            return False
        shift, _ = cv2.findHomography(old, new, 0)
        if shift is None:
            return False
        with self.lock:
            if self.profile is not profile:  # (replaced meanwhile on the calibration page)
                return False
            self.profile = profile.moved_to(corners, centres, south, size)
            if self._reference is not None:
                self._reference = (_shifted(self._reference[0], shift, size), self._reference[1])
            if self._branch_view is not None:
                self._branch_view = _shifted(self._branch_view, shift, size)
            if self._last_view is not None:
                self._last_view = _shifted(self._last_view, shift, size)
        return True

    def _as_logged(self, reference: tuple[np.ndarray, int] | None, verdict: Verdict) -> bool:
        """Whether this view, which no legal move explained, is taken all the same as the
        board the log holds, for the camera's change maps to come (nothing is logged, and
        the view stays unexplained): when no view of that board has been seen yet (the
        game just begun, reopened after a restart, or a move taken back), no move is the
        closest reading by ``RefereeConfig.margin_nats`` over every move, and the view
        differs from it in at most ``AS_LOGGED_PITS`` pits. A pit misread on every view (a
        heap read high) then stops failing each later view: the change maps say it was left
        alone. Without this, a game reopened at move 8 with one pit read 4 seeds high logged
        none of its next 8 moves (game_05; docs/vision.md, forty-sixth session)."""
        if verdict.status != "unexplained" or (reference is not None and reference[1] == self.ply):
            return False
        closest = verdict.candidates[0] if verdict.candidates else None
        if closest is None or closest.notations:
            return False
        # (a move of one seed changes two pits: misread, it may look like no move at all)
        rival = max((c.total for c in verdict.candidates if c.notations), default=-np.inf)
        return (closest.total - rival >= self.referee.margin_nats
                and int(np.count_nonzero(closest.counts != verdict.observed)) <= AS_LOGGED_PITS)

    def _pit_readings(self, recognition: Any, status: Sequence[str]) -> dict[str, Any]:
        """The reading's per-pit fields: counts, confidence and the pits to highlight."""
        confidence = {h: round(float(c), 3) for h, c in _holes_of(recognition.confidence).items()}
        return {
            "counts": _holes_of(recognition.position),
            "confidence": confidence,
            "low_confidence": low_confidence_pits(status, confidence, self.low_confidence),
        }

    def _look_again(
        self, recognition: Any, observation: Observation, verdict: Verdict, changed: dict[str, float] | None
    ) -> tuple[Any, Observation, Verdict, tuple[str, ...]] | None:
        """No legal move explains the view, or several do: the pits in dispute
        (:func:`engine.referee.disputed_pits`) read again more closely, and the view
        refereed again on that reading. None when there is nothing to look at again."""
        if self.look_again is None:
            return None
        holes = disputed_pits(self.position, observation, verdict, changed, self.referee)
        if not holes:
            return None
        from vision.errors import VisionError

        try:
            closer = self.look_again(recognition, holes)
            if closer is None:
                return None
            observation = Observation.from_probabilities(closer.probabilities)
        except (VisionError, ValueError, cv2.error):
            return None  # the first reading stands (and its verdict asks the players)
        return closer, observation, infer_move(self.position, observation, self.referee, changed), holes

    def _calibrate_on_view(self, image: np.ndarray, south: str, accepted: dict[str, Any]) -> Any:
        """No profile yet: the view should show the ``accepted`` position, whose counts are
        all a calibration needs (as the start's are on the calibration page). Not only at
        the start: a game reopened after a restart, or begun from a given position, is read
        with its camera's pits as well (over 8 rendered games, the frames after move 8 read
        with a profile made on move 8: 87 of 2048 pits wrong, as with one made on the start,
        against 113 without; docs/vision.md, forty-sixth session).

        Returns the profile, or None when the view cannot teach the look (read without a
        profile). Raises the board search's :class:`BoardNotFound` when no board was found
        and the reader is the vision pipeline's own: its search without a profile is the
        same search, seconds on a view with no board, and would only fail again."""
        from calibration import calibrate_from_position, position_counts
        from vision import pipeline

        try:
            profile = calibrate_from_position(image, south, position_counts(accepted))
        except BoardNotFound:
            if self.recognize is pipeline.recognize:
                raise
            return None
        except ValueError:
            return None  # a position that cannot teach, or no board: read without a profile
        with self.lock:
            self.profile = profile
            self.detector.set_board(profile.corners_px)
        return profile

    # -- corrections by the players -----------------------------------------
    def _at_ply(self, ply: int | None, game: int | None = None) -> None:
        """A players' request made when ``ply`` moves were logged in game ``game`` (None:
        not said) must still find them so: the referee may have logged moves meanwhile
        (the later views settled what they were asked about), or another game been made
        live, and their answer was to another question."""
        if self.game_id is None:
            raise StaleRequest(NO_GAME)
        if game is not None and game != self.game_id:
            raise StaleRequest(f"game {self.game_id} is live now, the request was made for game {game}; "
                               "look at the board and the log again")
        if ply is not None and ply != self.ply:
            raise StaleRequest(
                f"the game moved on: {self.ply} moves are logged, the request was made at {ply}; "
                "look at the board and the log again")

    def correct_counts(self, counts: dict[str, int], ply: int | None = None,
                       game: int | None = None) -> dict[str, Any]:
        """The players' counts for some pits (the rest as last read, or as the
        accepted position has them before any reading); referee that board. ``ply``:
        the moves logged when they chose, and ``game`` the game (:meth:`_at_ply`)."""
        with self.lock, self._as_known():
            self._at_ply(ply, game)
            board = dict(self.reading["counts"]) if self.reading else self.expected_counts()
            for hole, value in counts.items():
                if hole not in HOLES:
                    raise ValueError(f"unknown pit {hole!r}: pits are A1..A8, B1..B8, a1..a8, b1..b8")
                if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 64:
                    raise ValueError(f"pit {hole}: count must be a whole number 0..64, got {value!r}")
                board[hole] = value
            observation = Observation.from_counts([board[h] for h in HOLES])
            verdict = infer_move(self.position, observation, self.referee)
            if self.reading is not None:
                self.reading["counts"] = board
            result = self._settle_verdict(verdict, "players")
            if verdict.status == "unchanged":
                self.branches = []  # the players say nothing was played: no kept reading stands
            if verdict.status in ("accepted", "unchanged") and self._last_view is not None:
                self._reference = (self._last_view, self.ply)
            return result

    def confirm(self, moves: Sequence[str], ply: int | None = None, game: int | None = None) -> dict[str, Any]:
        """Log moves the players chose (notation; must be legal in turn). ``ply``: the
        moves logged when they chose, and ``game`` the game (:meth:`_at_ply`)."""
        with self.lock, self._as_known():
            self._at_ply(ply, game)
            if not moves:
                raise ValueError("give at least one move to confirm")
            _, verdicts = apply_moves(self.position, list(moves))
            logged = self._log(verdicts, "players")
            if self._last_view is not None:
                self._reference = (self._last_view, self.ply)
            return self._set_verdict(
                "accepted", " then ".join(v.notation for v in verdicts) + " (confirmed by the players)", logged)

    def undo(self, ply: int | None = None, game: int | None = None) -> str:
        """Take back the last logged move. ``ply``, ``game``: the moves logged and the game when the
        players chose to (:meth:`_at_ply`), so a move the referee logged meanwhile is not the one
        taken back."""
        with self.lock, self._as_known():
            self._at_ply(ply, game)
            assert self.game_id is not None
            notation = self.store.undo_last(self.game_id)
            self.position.pop()
            self.ply -= 1
            self._forget_views()
            self._set_verdict("undone", f"{notation} taken back")
            return notation

    # -- sources ----------------------------------------------------------
    def start_source(self, source: FrameSource, on_end: Callable[[], None] | None = None) -> None:
        """Run a pull source in a background thread, feeding every frame."""
        self.stop_source()
        self._stop = threading.Event()
        self.source = source
        self.source_info = source.describe() | {"running": True, "ended": False}
        stop = self._stop

        def run() -> None:
            try:
                while not stop.is_set():
                    frame, lapse = read_frame(source)  # (lapse: a camera with no picture for now)
                    if source.new_skips():
                        # a still that is no image, a camera's lapse: said on the page and listed
                        # in the source's state (the next frame's reading replaces the problem);
                        # the game goes on
                        with self.lock:
                            self.problem = source.skipped[-1]
                            self.source_info = self.source_info | {"skipped": list(source.skipped)}
                    if lapse:
                        continue
                    if frame is None:
                        break
                    try:
                        self.feed(frame)
                    except Exception as exc:  # noqa: BLE001 - a bad frame must never stop the referee
                        # Nothing was logged for this frame (moves are written only
                        # after a complete verdict), so the game is intact.
                        with self.lock:
                            self.problem = f"frame {frame.name} skipped: {type(exc).__name__}: {exc}"
            finally:
                source.close()
                with self.lock:
                    self.source_info = self.source_info | {"running": False, "ended": not stop.is_set()}
                if on_end is not None and not stop.is_set():
                    on_end()

        self._thread = threading.Thread(target=run, name="bao-frames", daemon=True)
        self._thread.start()

    def finish(self) -> dict[str, Any] | None:
        """The source has ended. Without players, a stretch the views left open is logged
        when the views since the last logged move single out its moves (with a note; see
        :meth:`webui.verdicts.VerdictMixin._finish`): no later view will come to settle
        it, and nobody can be asked. Returns the verdict then shown, or None when nothing
        more is logged (with players, their question stays)."""
        with self.lock:
            if self.players:
                return None
            try:
                return self._finish()
            except GameChanged as exc:
                self._resync(exc)
                return None

    def stop_source(self) -> None:
        """Stop the pull source's thread (if any) and wait for it."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)
        self._thread = None
        with self.lock:
            self.source = None
            self.source_info = {"kind": "browser", "running": False, "ended": False}

    # -- what the page shows ----------------------------------------------
    def summary(self) -> dict[str, Any]:
        """The live state for the play page (JSON)."""
        with self.lock:
            try:
                logged = self._logged()
                if self.game_id is not None and len(logged) != self.ply:
                    raise GameChanged(f"{len(logged)} moves logged, {self.ply} known here")
            except GameChanged as exc:
                self._resync(exc)
                logged = self._logged()
            self._sign_of_life()
            moves = [
                {"ply": m.ply, "move": m.notation, "source": m.source} | ({"remark": r} if (r := m.remark()) else {})
                for m in logged
            ]
            outcome = self.position.outcome()
            return {
                "game_id": self.game_id,
                "ply": self.ply,
                "position": self.position.to_json(),
                "to_move": self.position.to_move,
                "phase": self.position.phase,
                "game_over": outcome is not None,
                "outcome": None if outcome is None else outcome.to_json(),
                "moves": moves,
                "south_side": self.south_side,
                "source": self.source_info,
                "motion": self.motion,
                "frame_seq": self.frame_seq,
                "reading": self.reading,
                "verdict": self.verdict,
                "needs_players": self.pending is not None,
                "problem": self.problem,
            }

    def _logged(self) -> list[LoggedMove]:
        return [] if self.game_id is None else self.store.get(self.game_id).moves

    def _sign_of_life(self) -> None:
        """Tell the game log, now and then, that the live game is still held here (for
        servers on other hosts sharing it: GameStore.live_in_others)."""
        now = time.monotonic()
        if self.game_id is not None and now - self._touched > LIVE_LEASE_S / 4:
            self._touched = now
            self.store.touch(self.game_id, self.holder)

    @contextmanager
    def _as_known(self) -> Iterator[None]:
        """A players' request that found the game log changed under the live game: the
        referee resyncs (:meth:`_resync`), and the request is refused as stale."""
        try:
            yield
        except GameChanged as exc:
            raise StaleRequest(self._resync(exc)) from exc

    def expected_counts(self) -> dict[str, int]:
        return dict(zip(HOLES, (int(v) for v in board_vector(self.position.to_json())), strict=True))
