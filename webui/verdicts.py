"""From the referee's verdicts to the game log, view by view and over several views.

:class:`VerdictMixin` is the part of :class:`webui.live.LiveReferee` that decides
what a refereed view logs. A verdict on one view (:func:`engine.referee.infer_move`)
logs its moves when accepted (:meth:`VerdictMixin._settle_verdict`). When it cannot
decide, the readings it leaves are kept (:mod:`engine.branches`): an ambiguous
view's explaining moves, an unexplained view's closest moves that differ from it
only by seeds hidden; the later views extend or kill them
(:meth:`VerdictMixin._follow_branches`), and a stretch of views no move explained is
retraced through all of them (:meth:`VerdictMixin._retrace`). Without players
(``bao referee``) moves the camera can never tell apart are logged with a note
(:meth:`VerdictMixin._log_indistinguishable`), three moves seen at once wait for
the next view (:meth:`VerdictMixin._held`), and a stretch still open when the
recording ends is logged if the views single out its moves
(:meth:`VerdictMixin._finish`), and when the views stop fitting any move, the last
moves the camera logged are retraced again with them and replaced if the views single
out other moves (:meth:`VerdictMixin._revise`). Every move logged on less than one
plain view carries a note saying why.

The mixin keeps no state of its own: the live referee's game, position and kept
readings, declared below, are set by :class:`webui.live.LiveReferee`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from engine import Position
from engine.branches import (
    Branch,
    follow,
    retrace_views,
    settle_at_end,
    short_by_hidden_seeds,
    split,
    tentative,
)
from engine.observation import HOLES, Observation, board_vector
from engine.referee import SAME_POSITION, RefereeConfig, Verdict, ranked_score, same_position
from webui.store import GameStore

HIDDEN_THERE = "seeds may lie hidden under or behind others there, so look at the pit"
"""Said in the note of moves a lost stretch was retraced to though the latest view shows
fewer seeds than they leave in a pit or two, as it did at the view before
(:func:`engine.branches.short_by_hidden_seeds`)."""
ORDER_UNSURE = "the position is sure, the order of the moves is not"
"""Said in the note of moves a lost stretch was retraced to when another order of moves to
the same position fits the views nearly as well (:meth:`VerdictMixin._retrace`)."""
REVISE_AT = (2, 4, 8)
"""How many views since the last logged move (the last two fitting no legal move) make the
referee doubt the moves it logged last (:meth:`VerdictMixin._revise`). Each try retraces
more views: a median 82, 153 and 460 ms after 2, 4 and 8 views in the simulation with
harsh noise, 1.2 s once after 16. Of the three revisions in its runs, two came after 2
views and one after 8."""
SOURCE_ENDED = "logged as the recording ended, with no later view to confirm it"
"""Said in the note of moves logged from a stretch the views left open when the source
ended (:meth:`VerdictMixin._finish`)."""


class VerdictMixin:
    """What each refereed view logs (see the module's docstring); mixed into
    :class:`webui.live.LiveReferee`, which sets these attributes."""

    store: GameStore
    game_id: int | None
    players: bool
    referee: RefereeConfig
    position: Position
    ply: int
    verdict: dict[str, Any] | None
    pending: Verdict | None
    branches: list[Branch]
    _branch_view: np.ndarray | None
    _kept_view: tuple[Observation, float] | None
    _views: list[tuple[int, Observation, dict[str, float] | None, bool]]
    _trail: tuple[int, int, list[Branch]] | None
    _recent: list[tuple[int, Observation]]

    def _log(self, verdict_moves: Sequence[Any], source: str, note: str | None = None,
             replacing: int = 0) -> list[dict[str, Any]]:
        """Write the moves to the game log (each verdict with ``note`` when given) and play
        them, in place of the last ``replacing`` moves logged (:meth:`_revise`); returns
        their verdicts as logged."""
        assert self.game_id is not None
        logged = [m.to_json() | ({"note": note} if note else {}) for m in verdict_moves]
        rows = [(m.notation, v, m.position) for m, v in zip(verdict_moves, logged, strict=True)]
        if replacing:
            self.store.replace_moves(self.game_id, replacing, rows, source, self.ply)
            for _ in range(replacing):
                self.position.pop()
            self.ply -= replacing
        else:
            self.store.append_moves(self.game_id, rows, source, self.ply)
        for m in verdict_moves:
            self.position.push(self.position.parse_move(m.notation))
        self.ply += len(verdict_moves)
        self.pending = None
        self.branches = []
        self._kept_view = None
        return logged

    def _set_verdict(self, status: str, message: str, moves: Sequence[dict[str, Any]] = (),
                     candidates: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
        """The verdict the page shows, for one not made by :func:`engine.referee.infer_move`."""
        self.verdict = {"status": status, "message": message, "moves": list(moves), "candidates": list(candidates),
                        "difference": {}, "at": time.time(), "ply": self.ply}
        return self.verdict

    def _holds(self, verdict: Verdict) -> bool:
        """Whether a verdict from the accepted position is held for the next view (:meth:`_held`)."""
        return verdict.status == "accepted" and len(verdict.moves) > 2 and not self.players

    def _held(self, verdict: Verdict) -> Verdict:
        """Without players, three moves or more seen at once are not logged on that view
        alone: two sure misreads can make such a sequence fit where the two moves played
        do not, and nobody would take it back. They are kept as an ambiguity for the next
        view to confirm. (With players they are logged, and shown, at once.)"""
        played = " then ".join(m.notation for m in verdict.moves)
        return replace(verdict, status="ambiguous", moves=(),
                       message=f"{played}: {len(verdict.moves)} moves seen at once, logged once the next view "
                               "agrees")

    def _retrace(self, ply: int, observation: Observation, result: dict[str, Any]) -> dict[str, Any]:
        """A view no move explained, after others since the last logged move. Every legal
        path through all those views is traced (:func:`engine.branches.retrace`), and when
        the best explains this view, beats every other path by ``margin_nats`` over all of
        them and passes through a board fitting the view readings were last kept from (as
        :meth:`_settles` asks of a pair), its moves are logged with a note. Returns the
        verdict to show.

        The players were asked at the stretch's first view; the question goes once its
        moves are logged. When another order of moves to the same position fits nearly
        as well, they pick the order (the question stays); without players that order
        is logged, its note saying the order is not sure."""
        views = [(v[1], v[2]) for v in self._views if v[0] == ply]
        if self.ply != ply or result.get("status") != "unexplained" or len(views) < 2:
            return result
        readings = retrace_views(self.position, views, self.referee, self._trail_so_far(views))
        used = len(views)
        self._trail = (ply, used, readings)
        base = board_vector(self.position.to_json())  # every view's change map is against its view
        best = readings[0] if readings else None
        if best is None or not best.notations:
            return result
        hidden = () if best.explained else short_by_hidden_seeds(
            best, views[-2][0], observation, self.referee, views[-1][1], base)
        if not best.explained and not hidden:
            return result
        if len(readings) > 1 and best.score - readings[1].score < self.referee.margin_nats:
            return result
        if not self._passes_kept_view(best):
            return result
        note = (f"accepted though {best.unexplained} of the {used} views since the last logged move fitted no "
                "legal move: read together, the views fit these moves far better than any others")
        if best.score - best.rival < self.referee.margin_nats:
            if self.players:
                return result  # they know the order played
            note = (f"{ORDER_UNSURE}: {best.unexplained} of the {used} views "
                    "since the last logged move fitted no legal move, and another order of moves to the same position "
                    "fits them nearly as well")
        if hidden:
            pits = " and ".join(hidden)
            note += (f"; {pits} {'shows' if len(hidden) == 1 else 'show'} fewer seeds than these moves leave, at this "
                     f"view and the one before: {HIDDEN_THERE}")
        moves = self._log(best.verdicts, "camera", note)
        return self._set_verdict("accepted", f"{' then '.join(best.notations)} (legal; {note})", moves)

    def _revise(self, ply: int, result: dict[str, Any]) -> dict[str, Any]:
        """Without players: no legal move has fitted the last two views, nor has any path
        through the views since the last logged move (:meth:`_retrace`). One of the last
        moves the camera logged may be wrong: a view misread in a few pits can fit
        another move exactly, and every later view then fails.

        The views since the position before the last ``RefereeConfig.revise_plies``
        camera-logged moves (those whose views were all kept) are retraced from there
        (:func:`engine.branches.retrace_views`; counts only, as the change maps are
        against other views; two moves at most between two views). When the best path
        explains the latest view, beats every path to another position by
        ``margin_nats``, and replaces at least one of the moves logged, it is logged in
        their place in one transaction, its note naming the moves replaced (and saying
        the order is not sure when another order of moves to the same position fits
        nearly as well, as :meth:`_retrace` logs it). Tried when the views since the last logged move number one of
        ``REVISE_AT``. Returns the verdict to show."""
        here = [v for v in self._views if v[0] == ply]
        if (self.players or self.referee.revise_plies <= 0 or self.ply != ply
                or result.get("status") != "unexplained" or len(here) not in REVISE_AT
                or not all(v[3] for v in here[-2:])):
            return result
        assert self.game_id is not None
        moves = self.store.get(self.game_id).moves
        # only moves whose views were all kept: since the game was opened, a move taken
        # back or a revision
        seen_since = min(at for at, _ in self._recent)
        k = 0
        while (k < min(self.referee.revise_plies, len(moves), ply - seen_since)
               and moves[len(moves) - 1 - k].source == "camera"):
            k += 1
        if k == 0:
            return result
        undone = [self.position.pop() for _ in range(k)]
        base = self.position.copy()
        for move in reversed(undone):
            self.position.push(move)
        views = [(seen, None) for at, seen in self._recent if at >= ply - k]
        # two moves at most between two views: where the moves played went further apart,
        # no path reaches them, and the best of those that do is no evidence
        readings = retrace_views(base, views, replace(self.referee, retrace_deep=0, max_moves=2))
        best = readings[0] if readings else None
        if (best is None or not best.explained
                or (len(readings) > 1 and best.score - readings[1].score < self.referee.margin_nats)):
            return result
        logged = [m.notation for m in moves[len(moves) - k:]]
        same = 0
        while same < min(k, len(best.notations)) and best.notations[same] == logged[same]:
            same += 1
        if same == k or same == len(best.notations):
            # the moves logged and more: a path that keeps them but fits their views worse
            # than they do, to reach the later ones (which no path from them reaches), is
            # no evidence against them; or fewer of them: nothing better to log
            return result
        note = (f"revised: the camera's reading {' then '.join(logged[same:])} replaced, as the {len(views)} views "
                "since read together fit these moves far better than any others")
        if best.score - best.rival < self.referee.margin_nats:
            note += f"; {ORDER_UNSURE}: another order of moves to the same position fits the views nearly as well"
        verdicts = best.verdicts[same:]
        logged_moves = self._log(verdicts, "camera", note, replacing=k - same)
        self._views, self._trail, self._recent = [], None, []
        return self._set_verdict("accepted", f"{' then '.join(m.notation for m in verdicts)} (legal; {note})",
                                 logged_moves)

    def _log_indistinguishable(self, branches: list[Branch]) -> dict[str, Any] | None:
        """Without players: readings that all explain the view and all leave the very same
        position are logged as the first, with a note naming the others (None when that
        does not apply). When they are orders of several moves and views on the way were
        seen that no move explained, the reading whose boards fit those views best is
        the first."""
        if self.players or len(branches) < 2 or not all(b.explained for b in branches):
            return None
        if not same_position(b.position for b in branches):
            return None
        missed = [(seen, changed) for ply, seen, changed, unexplained in self._views if ply == self.ply and unexplained]
        if missed and any(len(b.verdicts) > 1 for b in branches):
            # views on the way no move explained were seen: the reading whose boards on
            # the way fit them best (counts and the camera's change map, as the referee
            # ranks) goes first; the order is kept where they fit alike
            base = board_vector(self.position.to_json())

            def fit(board: np.ndarray, seen: Observation, changed: dict[str, float] | None) -> float:
                return ranked_score(seen.score(board), board, changed, base)

            def on_the_way(branch: Branch) -> float:
                return sum(max(fit(board_vector(v.position), seen, changed) for v in branch.verdicts)
                           for seen, changed in missed)

            fits = {b.notations: on_the_way(b) for b in branches}
            branches = sorted(branches, key=lambda b: fits[b.notations], reverse=True)
            shown = fits[branches[0].notations] > fits[branches[1].notations]
        else:
            shown = False
        first, others = branches[0], [" then ".join(b.notations) for b in branches[1:]]
        note = (f"the camera cannot tell it from {' or '.join(others)}: each leaves the very same position, "
                + ("and this one fits the view(s) seen on the way best" if shown
                   else "so this one was logged with nobody to ask"))
        moves = self._log(first.verdicts, "camera", note)
        return self._set_verdict("accepted", f"{' then '.join(first.notations)} (legal; {note})", moves)

    def _keep_tentative(self, verdict: Verdict, observation: Observation) -> None:
        """Keep an unexplained view's closest readings (:func:`engine.branches.tentative`)."""
        self.branches = tentative(self.position, verdict, self.referee)
        best = max((observation.score(board_vector(b.position.to_json())) for b in self.branches), default=None)
        self._kept_view = None if best is None else (observation, best)

    def _finish(self) -> dict[str, Any] | None:
        """The source ended with a stretch open (nobody to ask: ``bao referee``): the
        views since the last logged move, read together, may still single out its moves
        (:func:`engine.branches.settle_at_end`); if so, and the path passes through a
        board fitting the view readings were last kept from (as :meth:`_settles` asks),
        they are logged with a note naming the pits the last view read otherwise.
        Returns the verdict then shown, or None when nothing more is logged."""
        if self.pending is None and not self.branches:
            return None
        views = [(v[1], v[2]) for v in self._views if v[0] == self.ply]
        settled = settle_at_end(self.position, views, self.referee, self._trail_so_far(views))
        if settled is None or not self._passes_kept_view(settled[0]):
            return None
        best, pits = settled
        counts, seen = board_vector(best.position.to_json()), views[-1][0].most_likely()
        note = (f"{SOURCE_ENDED}: read together, the {len(views)} view(s) since the last logged move fit these "
                "moves far better than any others")
        if pits:
            where = ", ".join(f"{h} {counts[HOLES.index(h)]} left, {seen[HOLES.index(h)]} seen" for h in pits)
            note += f"; the last view reads otherwise ({where}): look at the {'pit' if len(pits) == 1 else 'pits'}"
        moves = self._log(best.verdicts, "camera", note)
        self._views, self._trail = [], None
        return self._set_verdict("accepted", f"{' then '.join(best.notations)} (legal; {note})", moves)

    def _trail_so_far(self, views: Sequence[Any]) -> tuple[int, list[Branch]] | None:
        """The readings of the lost stretch at the current ply as far as it was retraced
        (the first n of ``views``, the views since the last logged move), to go on from;
        None when none were."""
        trail = self._trail
        if trail is None or trail[0] != self.ply or trail[1] > len(views):
            return None
        return trail[1], trail[2]

    def _passes_kept_view(self, path: Branch) -> bool:
        """As for a pair (:meth:`_settles`): whether a path from the last logged position
        passes through a board (that position's, or one after any of its moves) that fits
        the view readings were last kept from about as well as they do."""
        boards = [board_vector(self.position.to_json())] + [board_vector(v.position) for v in path.verdicts]
        return self._fits_kept_view(boards)

    def _fits_kept_view(self, boards: Iterable[np.ndarray]) -> bool:
        """Whether one of ``boards`` fits the view the readings were last kept from
        (:meth:`_keep_tentative`) within ``margin_nats`` of the best of them (True when
        none were kept)."""
        if self._kept_view is None:
            return True
        seen, best = self._kept_view
        return max(seen.score(b) for b in boards) >= best - self.referee.margin_nats

    def _settles(self, verdict: Verdict, changed: dict[str, float] | None) -> bool:
        """Whether a view refereed from the accepted position ends a pending stretch by
        itself: a move accepted; or, after a view no move explained (no ambiguity among
        the readings kept), the board as it was, with the camera seeing no pit change
        since the accepted position's view (``changed`` against it), so that view was a
        misreading, not a move.

        Two moves or more accepted after an unexplained view do not settle it when none
        of the boards on their way fits that view within ``margin_nats`` of a reading
        kept from it: they would ignore what that view showed (the kept readings are
        followed instead). Without players, neither do three moves or more (:meth:`_held`)."""
        tentative_pending = any(b.unexplained for b in self.branches)
        if self._holds(verdict):
            return False  # held for the next view to confirm (_held): the readings kept go on
        if verdict.status == "accepted":
            if tentative_pending and len(verdict.moves) >= 2:
                return self._fits_kept_view(board_vector(m.position) for m in verdict.moves[:-1])
            return True
        return verdict.status == "unchanged" and changed is not None and tentative_pending

    def _follow_branches(
        self, image: np.ndarray, observation: Observation, changed: dict[str, float] | None, direct: Verdict
    ) -> dict[str, Any]:
        """An ambiguity, or a view no move explained, is pending: let this view extend
        (or kill) each possible reading."""
        survivors = follow(self.branches, observation, self.referee, changed)
        self._branch_view = image
        names = ", ".join(" then ".join(b.notations) or "no move" for b in survivors[:6])
        if len(survivors) == 1 and survivors[0].explained:
            branch = survivors[0]
            played = " then ".join(branch.notations)
            if not branch.notations:
                self.branches = []
                self.pending = None
                message = "no move: the board is as it was"
                status, moves = "unchanged", []
            elif branch.unexplained:
                note = (f"accepted though {branch.unexplained} view(s) on the way fitted no legal move: "
                        "the later views fit only this reading")
                message = f"{played} (legal; {note})"
                status, moves = "accepted", self._log(branch.verdicts, "camera", note)
            else:
                message = played + " (legal; the ambiguity resolved by the later views)"
                status, moves = "accepted", self._log(branch.verdicts, "camera")
        elif any(b.explained for b in survivors):
            self.branches = survivors
            logged = self._log_indistinguishable(survivors)
            if logged is not None:
                return logged
            message = f"still ambiguous: {names}"
            if same_position(b.position for b in survivors):
                message += f"; {SAME_POSITION}"
            status, moves = "ambiguous", []
        elif survivors:
            self.branches = survivors
            message = (f"still no legal move explains the board; the readings kept, closest first: {names} "
                       "(the later views decide, or pick the move(s) played)")
            status, moves = "unexplained", []
        elif direct.status == "unexplained":
            # no reading kept fits any more: start again from the accepted position
            self.pending = direct
            self._keep_tentative(direct, observation)
            return self._settle_verdict(direct, "camera")
        elif self._holds(direct):
            # nor here, but three moves from the accepted position explain the view: held
            held = self._held(direct)
            self.branches = split(self.position, held, self.referee)
            self._kept_view = None
            return self._settle_verdict(held, "camera")
        else:
            self.branches = []
            message = "no reading kept explains this view: please confirm or correct"
            status, moves = "unexplained", []
        best = max((b.score for b in survivors), default=0.0)
        return self._set_verdict(status, message, moves,
                                 [{"moves": list(b.notations), "deficit": round(best - b.score, 3), "difference": {}}
                                  for b in survivors if b.notations])

    def _settle_verdict(self, verdict: Verdict, source: str) -> dict[str, Any]:
        note, logged = None, None
        if verdict.status == "accepted":
            missed = sum(1 for v in self._views if v[0] == self.ply and v[3]) if source == "camera" else 0
            if missed:
                note = (f"accepted though {missed} view(s) on the way fitted no legal move: "
                        "this view fits only these moves")
            logged = self._log(verdict.moves, source, note)
        elif verdict.status in ("unexplained", "ambiguous"):
            self.pending = verdict
        elif verdict.status == "unchanged":
            self.pending = None
        self.verdict = verdict.to_json()
        if note:  # "X then Y (legal)" -> "X then Y (legal; note)"
            message = self.verdict["message"]
            self.verdict["message"] = message[:-1] + f"; {note})" if message.endswith(")") else f"{message}; {note}"
            self.verdict["moves"] = logged
        self.verdict["at"] = time.time()
        self.verdict["ply"] = self.ply
        return self.verdict
