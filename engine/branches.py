"""The referee over several views: readings of a stretch of the game kept open until
the views decide it.

:func:`engine.referee.infer_move` judges one settled view against the last logged
position. When it cannot decide, the readings it leaves are kept as
:class:`Branch` es instead of a guess:

- an ``ambiguous`` view leaves its explaining candidates close to the best
  (:func:`split`);
- an ``unexplained`` view whose closest candidates differ from the reading only
  by seeds hidden by seeds leaves those candidates (:func:`tentative`);
- every later view extends or kills each branch (:func:`follow`), and a move is
  logged once exactly one branch is left that explains a view.

A stretch no single view decides (views no legal move explains, one after
another) is decoded as a whole (:func:`retrace`): each reading is a path of legal
moves from the last logged position through every view since, scored on all of
them. :func:`short_by_hidden_seeds` tells when such a path fails the latest view
only as a seed hidden in a pit the moves filled would make it fail, and
:func:`settle_at_end` which path to log when the views end with a stretch open
(:func:`retrace_views` runs the retrace over a stretch's views for both).

Numbers only, no images: views are :class:`engine.observation.Observation` s, boards
are count vectors in ``HOLES`` order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from engine import Position
from engine.observation import HOLES, Observation, board_vector, change_logs
from engine.referee import (
    HIDDEN_PITS,
    Candidate,
    Hypothesis,
    MoveVerdict,
    RefereeConfig,
    Verdict,
    describe_move,
    explains_view,
    fewer_seen,
    hypotheses,
    infer_move,
    ranked_score,
    untouched_pits,
)


@dataclass(frozen=True)
class Branch:
    """One reading of an ambiguous stretch of the game, kept until the views decide.

    Attributes:
        position: the position if this reading is right.
        notations: the moves since the last logged position, in full notation.
        verdicts: their verdicts.
        score: log-likelihood of every view since the ambiguity under this reading.
        unexplained: how many of those views no legal move explained: this reading
            took their closest candidate (:func:`tentative`).
        explained: whether the latest view was explained by this reading.
        rival: the score of the best other sequence of moves to the same position
            (:func:`retrace` only; -inf when none was traced).
        before: the position this reading puts at the view before the latest
            (:func:`retrace` only; None at the first view).
    """

    position: Position
    notations: tuple[str, ...]
    verdicts: tuple[MoveVerdict, ...]
    score: float
    unexplained: int = 0
    explained: bool = True
    rival: float = -math.inf
    before: Position | None = None


def _grow(base: Position, prefix: tuple[str, ...], verdicts: tuple[MoveVerdict, ...], score: float,
          candidate: Candidate, unexplained: int = 0) -> Branch:
    current = base
    grown = list(verdicts)
    for move in candidate.moves:
        after, trace = current.play(move)
        grown.append(describe_move(current, move, after, trace))
        current = after
    return Branch(current, prefix + candidate.notations, tuple(grown), score + candidate.total,
                  unexplained, candidate.explains)


def _prune(branches: list[Branch], config: RefereeConfig, keep: int = 8, within: float | None = None) -> list[Branch]:
    """The branches scoring at most ``within`` (default ``margin_nats``) below the best,
    one per move sequence, best first, at most ``keep``."""
    if not branches:
        return []
    within = config.margin_nats if within is None else within
    best = max(b.score for b in branches)
    unique: dict[tuple[str, ...], Branch] = {}
    for b in sorted(branches, key=lambda b: -b.score):
        if b.score >= best - within:
            unique.setdefault(b.notations, b)
    return list(unique.values())[:keep]


def split(position: Position, verdict: Verdict, config: RefereeConfig | None = None) -> list[Branch]:
    """The branches of an ``ambiguous`` verdict: its explaining candidates close to the best."""
    config = config or RefereeConfig()
    return _prune([_grow(position, (), (), 0.0, c) for c in verdict.candidates if c.explains], config)


def _closest(base: Branch | None, position: Position, verdict: Verdict, config: RefereeConfig) -> list[Branch]:
    """The readings an unexplained view leaves: each of its candidates at most
    ``tentative_nats`` below the closest whose board differs from the reading only by
    fewer seeds seen, in at most ``tentative_pits`` pits; grown from ``base`` (None:
    from ``position``)."""
    if not verdict.candidates:
        return []
    best = max(c.total for c in verdict.candidates)
    prefix, verdicts, score, unexplained = ((), (), 0.0, 0) if base is None else (
        base.notations, base.verdicts, base.score, base.unexplained)
    kept = [c for c in verdict.candidates
            if c.total >= best - config.tentative_nats and fewer_seen(c.counts, verdict.observed, config.tentative_pits)]
    return [_grow(position, prefix, verdicts, score, c, unexplained + 1) for c in kept]


def tentative(position: Position, verdict: Verdict, config: RefereeConfig | None = None) -> list[Branch]:
    """The readings kept after an ``unexplained`` verdict, for the later views to decide.

    A view no legal move explains is most often a pit or two read with seeds
    hidden by seeds (docs/vision.md) over a board that did follow a legal move.
    The candidates whose board differs from the reading only so (fewer seeds seen
    in at most ``RefereeConfig.tentative_pits`` pits), at most
    ``RefereeConfig.tentative_nats`` below the closest, are kept as branches, and
    :func:`follow` lets each later view extend or kill them: one left standing
    that explains a later view decides the stretch, as after an ambiguity. None
    are kept for a view that differs otherwise from every candidate; the players
    can pick the move at any time.
    """
    config = config or RefereeConfig()
    if verdict.status != "unexplained":
        raise ValueError(f"tentative readings are for an unexplained verdict, not {verdict.status!r}")
    return _prune(_closest(None, position, verdict, config), config, within=config.tentative_nats)


def follow(
    branches: list[Branch],
    observation: Observation,
    config: RefereeConfig | None = None,
    changed: Mapping[str, float] | None = None,
) -> list[Branch]:
    """Extend every branch by what the next settled view shows (0, 1 or 2 moves).

    ``changed`` is the change map against the previous view (the one every
    branch claims to show). Branches that cannot explain the view die, and so
    do those ``margin_nats`` behind the best; one survivor decides the stretch.
    When no branch explains the view, each is extended by its closest
    candidates instead (as :func:`tentative`; their ``explained`` is False),
    unless it has passed ``unexplained_views`` such views already.
    """
    config = config or RefereeConfig()
    step = replace(config, max_moves=min(config.max_moves, 2))  # a kept reading grows by two moves at most
    grown: list[Branch] = []
    verdicts: list[tuple[Branch, Verdict]] = []  # each branch's verdict on this view
    for branch in branches:
        verdict = infer_move(branch.position, observation, step, changed)
        if verdict.status == "game_over":  # nothing more can happen in this reading
            grown.append(replace(branch, score=branch.score + verdict.candidates[0].score, explained=True))
            continue
        verdicts.append((branch, verdict))
        for candidate in verdict.candidates:
            if candidate.explains:
                grown.append(_grow(branch.position, branch.notations, branch.verdicts, branch.score,
                                   candidate, branch.unexplained))
    if grown:
        # a reading that only just fails this view (a seed hidden again, say) while
        # scoring as well as one that explains it stays, so it does not decide alone
        best = max(b.score for b in grown)
        missed = [_grow(b.position, b.notations, b.verdicts, b.score, v.candidates[0], b.unexplained + 1)
                  for b, v in verdicts if v.candidates and not v.candidates[0].explains]
        return _prune(grown + [b for b in missed if b.score >= best - config.margin_nats], config)
    closest = [c for b, v in verdicts if b.unexplained < config.unexplained_views
               for c in _closest(b, b.position, v, config)]
    return _prune(closest, config, within=config.tentative_nats)


def retrace(readings: list[Branch], observation: Observation, config: RefereeConfig | None = None,
            first: bool = False, width: int = 32, changed: Mapping[str, float] | None = None,
            changed_from: np.ndarray | None = None) -> list[Branch]:
    """One view more on every reading of a stretch that no single view decided.

    Lost stretches (views no legal move explains, one after another) are read the way a
    hidden Markov model is decoded: each reading is a path of legal moves from the last
    logged position through every view since, 0 to 2 moves between two views (3 from the
    ``retrace_deep`` best readings; up to ``max_moves`` before the first, ``first``; readings
    are given best first, as this returns them), scored on all the views' counts (every pit
    held to its reading, so a misread pit costs that path what it costs any other). Paths
    to one position keep only their best (and the score of the next best in ``rival``:
    another order of moves to the same position); the ``width`` best positions are
    kept, best first. ``explained`` says whether the reading explains this view by itself.

    ``changed`` is the camera's change map of this view against a view of the board
    ``changed_from`` (counts in HOLES order; the last logged position, for every view of
    the stretch): its log-likelihood under each path's board at this view is added to
    the path's score, as :func:`infer_move` ranks with it, so the pits the camera saw
    change on the way tell orders of moves apart where hidden seeds make the counts fit
    another order as well. Whether a reading explains the view is judged as
    :func:`infer_move` judges it: a pit the map sees untouched, left by the path as it
    was, is not held to its (mis)read count.
    """
    config = config or RefereeConfig()
    # position key -> (reading, hypothesis, total score, rival score); the moves'
    # verdicts are described only for the readings kept
    kept: dict[tuple[object, ...], tuple[Branch, Hypothesis, float, float]] = {}
    logs = change_logs(changed) if changed else None  # the map, once for every hypothesis
    for i, reading in enumerate(readings):
        most = config.max_moves if first else min(config.max_moves, 3 if i < config.retrace_deep else 2)
        depths = range(1) if reading.position.is_game_over() else range(most + 1)
        for depth in depths:
            for hyp in hypotheses(reading.position, observation, depth):
                key = hyp[4].key()
                step = ranked_score(hyp[3], hyp[2], changed, changed_from, logs)
                total, rival = reading.score + step, reading.rival + step
                there = kept.get(key)
                if there is not None:
                    if there[2] >= total:  # another way to a position already reached
                        kept[key] = (*there[:3], max(there[3], total))
                        continue
                    rival = max(rival, there[2])
                kept[key] = (reading, hyp, total, rival)
    out = []
    best_possible = observation.best_score()
    for reading, (moves, notations, counts, score, _end), total, rival in sorted(
            kept.values(), key=lambda k: -k[2])[:width]:
        explains = explains_view(observation, counts, config, _left_untouched(counts, config, changed, changed_from))
        candidate = Candidate(notations, counts, score, best_possible - score, moves, total - reading.score, explains)
        out.append(replace(_grow(reading.position, reading.notations, reading.verdicts, reading.score, candidate,
                                 reading.unexplained + (not explains)),
                           rival=rival, before=None if first else reading.position))
    return out


def _left_untouched(counts: np.ndarray, config: RefereeConfig, changed: Mapping[str, float] | None,
                    changed_from: np.ndarray | None) -> np.ndarray:
    """Pits the camera saw untouched since a view of the board ``changed_from`` and that the
    board ``counts`` leaves as they were: as :func:`infer_move` judges, a misread there says
    nothing against the board (HOLES order; none without a change map)."""
    if changed_from is None:
        return np.zeros(32, dtype=bool)
    return untouched_pits(changed, config) & (counts == changed_from)


def short_by_hidden_seeds(best: Branch, seen_before: Observation, seen: Observation,
                          config: RefereeConfig | None = None, changed: Mapping[str, float] | None = None,
                          changed_from: np.ndarray | None = None) -> tuple[str, ...]:
    """The pits where a retraced reading (:func:`retrace`) that does not explain the latest
    view ``seen`` fails it, if it fails it only as seeds hidden by seeds would (else ``()``).

    The view shows fewer seeds than the reading leaves, in one to ``HIDDEN_PITS`` pits
    (pits the change map ``changed`` saw untouched since ``changed_from`` and that the
    reading leaves so aside), and in each of them the reading left the count as it was at
    the view before (``best.before``), which ``seen_before`` read short there too. A seed
    that fell into a pit behind others stays hidden while the pit is left alone, so no
    path explains the views after it; a wrong path (the moves played lying beyond the
    search) seldom fails two views in the same pit only so.
    """
    config = config or RefereeConfig()
    if best.before is None:
        return ()
    counts, reading = board_vector(best.position.to_json()), seen.most_likely()
    forgiven = _left_untouched(counts, config, changed, changed_from)
    if not fewer_seen(counts, reading, forgiven=forgiven):
        return ()
    short = (reading < counts) & ~forgiven
    before = board_vector(best.before.to_json())
    if np.all(before[short] == counts[short]) and np.all(seen_before.most_likely()[short] < counts[short]):
        return tuple(HOLES[i] for i in np.flatnonzero(short))
    return ()


def retrace_views(position: Position, views: Sequence[tuple[Observation, Mapping[str, float] | None]],
                  config: RefereeConfig | None = None, retraced: tuple[int, list[Branch]] | None = None,
                  ) -> list[Branch]:
    """Every reading of the stretch since the last logged ``position`` through all its
    ``views`` (:func:`retrace`, view after view), each view with the camera's change map
    against that position's view (None: no map). ``retraced``: (n, the readings left
    after the first n views), from an earlier retrace of the same stretch, to go on from
    instead of starting again."""
    config = config or RefereeConfig()
    base = board_vector(position.to_json())
    done, readings = retraced if retraced is not None else (0, [Branch(position, (), (), 0.0)])
    for k, (seen, changed) in enumerate(views[done:], start=done):
        readings = retrace(readings, seen, config, first=k == 0, changed=changed, changed_from=base)
    return readings


def settle_at_end(position: Position, views: Sequence[tuple[Observation, Mapping[str, float] | None]],
                  config: RefereeConfig | None = None, retraced: tuple[int, list[Branch]] | None = None,
                  ) -> tuple[Branch, tuple[str, ...]] | None:
    """The reading to log when the views end with a stretch still open (a recording over,
    nobody to ask), or None.

    ``views`` are every view since the last logged ``position``, each with the camera's
    change map against that position's view (None: no map). They are retraced as one
    stretch (:func:`retrace`), and the best path is taken when it

    - has moves;
    - beats every path to another position by ``margin_nats``, and every other order of
      moves to its position too;
    - explains the last view, or fails it in at most ``HIDDEN_PITS`` pits (pits the change
      map saw untouched and the path leaves so not counted).

    During a game the next view settles such a stretch; at the end there is none, and the
    last view's misread pit or two would otherwise leave the game's last moves out of its
    record. Returns the path and the pits where the last view differs from it (HOLES
    names; ``()`` when it explains the view), so that the note can name them.

    ``retraced``: as for :func:`retrace_views`.
    """
    config = config or RefereeConfig()
    if not views:
        return None
    readings = retrace_views(position, views, config, retraced)
    if not readings or not readings[0].notations:
        return None
    best = readings[0]
    if len(readings) > 1 and best.score - readings[1].score < config.margin_nats:
        return None
    if best.score - best.rival < config.margin_nats:
        return None
    if best.explained:
        return best, ()
    seen, changed = views[-1]
    counts = board_vector(best.position.to_json())
    base = board_vector(position.to_json())
    differ = (counts != seen.most_likely()) & ~_left_untouched(counts, config, changed, base)
    if int(differ.sum()) > HIDDEN_PITS:
        return None
    return best, tuple(HOLES[i] for i in np.flatnonzero(differ))
