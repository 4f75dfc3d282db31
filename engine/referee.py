"""The referee's move inference: which legal move explains what the camera read.

Numbers only, no images. The input is an :class:`Observation` — for each of the
32 pits a probability for every seed count 0..40, as the vision pipeline
returns them — taken when the board had settled. :func:`infer_move` scores
every hypothesis about what happened since the last accepted position:

- nothing (the board is as it was),
- each legal move, with every choice in it (hole, direction, kichwa, stop or
  safari at the nyumba: the engine lists each such variant as its own move),
- each legal pair of moves (the next player moved before the board was read),
  tried only when no single move or "nothing" explains the observation,
- each legal sequence of three moves (two settled views missed, fast play), tried
  only when no pair explains it either, and kept only when one of them does
  (``RefereeConfig.max_moves``).

A hypothesis predicts exact counts for all 32 pits; its score is the sum of the
log-probabilities of those counts (seed conservation and the reserve are thus
built in: every predicted board holds exactly the seeds the rules leave on it).
When the camera also says which pits changed since a view of the accepted
position (``changed``: per-pit probabilities, :func:`vision.motion.pit_changes`),
that evidence is added to the ranking: a hypothesis changing pits the camera
saw untouched, or leaving alone pits it saw change, loses up to ~4 nats a pit.
The observation's *deficit* against a hypothesis is the best score any board
could get minus the hypothesis' score, in nats: 0 when every pit's most likely
count is the predicted one.

The verdict is ``accepted`` only when the best hypothesis explains the
observation (deficit at most ``RefereeConfig.explain_nats`` in all and
``RefereeConfig.pit_nats`` in every single pit) and beats every
hypothesis that predicts a different board by ``RefereeConfig.margin_nats``.
Otherwise it is ``unexplained`` (nothing legal fits: the pit-by-pit difference
to the closest candidates is reported) or ``ambiguous`` (several fit: the
candidates are listed for the players to pick). Nothing is ever guessed: the
readings such a view leaves are kept as branches, and a move is logged only once
a later view is explained by exactly one of them (:mod:`engine.branches`).

Example::

    from engine import Position
    from engine.observation import Observation
    from engine.referee import infer_move

    pos = Position.start()
    after, _ = pos.play(pos.parse_move("A6<*"))
    verdict = infer_move(pos, Observation.from_counts(after.to_json()))
    verdict.status          # "accepted"
    verdict.moves[0].notation   # "A6<*"
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine import Move, Position, Trace
from engine.holes import HOLE_INDEX
from engine.observation import (
    HOLES,
    Observation,
    change_evidence,
    change_logs,
)


@dataclass(frozen=True)
class RefereeConfig:
    """Thresholds of the move inference, in nats (natural-log likelihood units).

    Attributes:
        explain_nats: the largest total deficit for which a hypothesis still
            counts as explaining the observation (a few pits read uncertainly).
        pit_nats: the largest deficit of any single pit: a pit whose predicted
            count is less than ~1% as likely as its best reading contradicts
            the hypothesis (a confident misread, or seeds really misplaced).
        margin_nats: how much better the best hypothesis must score than any
            hypothesis predicting a different board before it is accepted.
        pairs: whether to try hypotheses of two moves or more when nothing single fits.
        max_moves: the most moves one view may show from the last logged position:
            when no hypothesis of fewer moves explains the view, sequences one move
            longer are tried, up to this many (3: the camera missed two settled
            views in a row, fast play). Readings already kept for later views to
            decide (:func:`engine.branches.follow`) are extended by at most two moves a view, and
            the candidates of a view nothing explains are of two moves at most: a
            longer chain from a reading that is itself unsure is too free to check.
        candidates: how many closest candidates a verdict reports.
        untouched_below: with a change map, pits whose change probability is
            below this are taken as untouched: a hypothesis leaving them alone
            is not held to their (mis)read counts.
        tentative_nats: after a view no legal move explains, the readings kept
            for the later views to decide (:func:`engine.branches.tentative`): its candidates
            scoring at most this much below the closest.
        tentative_pits: ... and predicting a board that differs from the reading's
            most likely counts in at most this many pits, each read with fewer
            seeds than it holds (seeds hidden by seeds, the camera's commonest
            sure misreading). A board further from the reading says little about
            what was played, and a later view could not tell it from the truth:
            pits the camera saw untouched since are not held to their counts.
        unexplained_views: how many views in a row no legal move explains a kept
            reading may pass through before it is dropped.
        retrace_deep: a lost stretch's readings (:func:`engine.branches.retrace`) grow by
            two moves at most between two views, except this many best ones, which grow
            by three (the camera missed two views in a row). With two, a stretch whose
            moves went three at a time was only reached with boards that fit the views on
            the way badly, and sometimes another path fitted better (docs/vision.md,
            forty-seventh session). All 32 grown by three took a lost view 2-3 times as
            long in the simulation for few more moves (18 more in 4660 with a third of
            the views missed, 5 in 4661 with players); the 2 best alone logged wrong ones.
        revise_plies: without players, when the views stop fitting every legal move after
            some logged by the camera, the referee may doubt the last this many of them:
            it retraces the views since the position before them and, when another path
            fits them all far better, replaces those moves, the note naming the moves
            replaced (:meth:`webui.verdicts.VerdictMixin._revise`; 0: never). A view
            misread in four pits once fitted a wrong move, and the game then stalled three
            moves later (docs/vision.md, forty-eighth session).
    """

    explain_nats: float = 10.0
    pit_nats: float = 5.0
    margin_nats: float = 4.0
    pairs: bool = True
    max_moves: int = 3
    candidates: int = 5
    untouched_below: float = 0.1
    tentative_nats: float = 8.0
    tentative_pits: int = 3
    unexplained_views: int = 1
    retrace_deep: int = 8
    revise_plies: int = 3


@dataclass(frozen=True)
class MoveVerdict:
    """What one logged move did.

    Attributes:
        notation: full notation in the position it was played from.
        player: "south" or "north".
        legal: always True for a move the referee accepts (it only accepts legal moves).
        kind: "capture" or "kutakata".
        captured: seeds captured from the opponent in the whole move.
        captured_holes: the opponent holes emptied by captures.
        nyumba: "safari" or "stop" where the move offered the choice, else None.
        game_over: the game ended with this move.
        winner: "south" / "north" when the game is over, else None.
        reason: the outcome's reason when the game is over.
        position: Position JSON after the move.
    """

    notation: str
    player: str
    legal: bool
    kind: str
    captured: int
    captured_holes: tuple[str, ...]
    nyumba: str | None
    game_over: bool
    winner: str | None
    reason: str | None
    position: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """JSON form (the API's and the game log's verdict)."""
        return {
            "notation": self.notation,
            "player": self.player,
            "legal": self.legal,
            "kind": self.kind,
            "captured": self.captured,
            "captured_holes": list(self.captured_holes),
            "nyumba": self.nyumba,
            "game_over": self.game_over,
            "winner": self.winner,
            "reason": self.reason,
        }


def describe_move(before: Position, move: Move, after: Position, trace: Trace) -> MoveVerdict:
    """The verdict of a legal ``move`` played from ``before`` (``after`` and ``trace`` from ``play``)."""
    captured_holes: list[str] = []
    captured = 0
    for step in trace.steps:
        if step.kind == "capture":
            captured += step.count
            if step.hole is not None:
                captured_holes.append(step.hole)
    notation = before.notation(move)
    nyumba: str | None = None
    if move.safari:
        nyumba = "safari"
    elif Move(move.hole, move.direction, True) in before.legal_moves:
        nyumba = "stop"
    outcome = after.outcome()
    return MoveVerdict(
        notation=notation,
        player=before.to_move,
        legal=True,
        kind="capture" if trace.capture else "kutakata",
        captured=captured,
        captured_holes=tuple(captured_holes),
        nyumba=nyumba,
        game_over=outcome is not None,
        winner=None if outcome is None else outcome.winner,
        reason=None if outcome is None else outcome.reason,
        position=after.to_json(),
    )


@dataclass(frozen=True)
class Candidate:
    """One hypothesis: a sequence of legal moves (none, one, or up to `RefereeConfig.max_moves`) and the board it predicts.

    Attributes:
        notations: the moves in full notation (empty for "nothing happened").
        counts: the predicted 32 counts (HOLES order).
        score: log-likelihood of the observation under it.
        deficit: best possible score minus ``score`` (>= 0; 0 = perfect fit).
        total: ``score`` plus the change map's log-likelihood (the ranking score).
        explains: whether it explains the observation (see the module docstring).
    """

    notations: tuple[str, ...]
    counts: np.ndarray = field(repr=False)
    score: float
    deficit: float
    moves: tuple[Move, ...] = field(repr=False, default=())
    total: float = 0.0
    explains: bool = False

    def difference(self, observed: np.ndarray) -> dict[str, dict[str, int]]:
        """Pits where the observation's most likely count differs from the prediction."""
        return {
            HOLES[i]: {"expected": int(self.counts[i]), "observed": int(observed[i])}
            for i in range(32)
            if int(self.counts[i]) != int(observed[i])
        }

    def to_json(self, observed: np.ndarray) -> dict[str, Any]:
        return {
            "moves": list(self.notations),
            "deficit": round(self.deficit, 3),
            "difference": self.difference(observed),
        }


@dataclass(frozen=True)
class Verdict:
    """The referee's answer for one settled observation.

    Attributes:
        status: "accepted" (``moves`` holds the moves to log, up to ``RefereeConfig.max_moves``),
            "unchanged" (the board is as it was), "unexplained" (no legal
            move fits), "ambiguous" (several fit, players must pick) or
            "game_over" (the game had already ended; nothing is inferred).
        moves: verdicts of the accepted moves, in order.
        candidates: the closest hypotheses, best first.
        observed: most likely count per pit (HOLES order).
        expected_total: seeds the rules leave on the board after the best candidate.
        observed_total: sum of the most likely counts.
        margin: score of the best minus the best hypothesis predicting another board.
        message: one line for the players.
    """

    status: str
    moves: tuple[MoveVerdict, ...]
    candidates: tuple[Candidate, ...]
    observed: np.ndarray = field(repr=False)
    expected_total: int
    observed_total: int
    margin: float
    message: str

    @property
    def difference(self) -> dict[str, dict[str, int]]:
        """Pit-by-pit difference between the best candidate and the reading."""
        return self.candidates[0].difference(self.observed) if self.candidates else {}

    def to_json(self) -> dict[str, Any]:
        """JSON form for the API."""
        return {
            "status": self.status,
            "message": self.message,
            "moves": [m.to_json() for m in self.moves],
            "candidates": [c.to_json(self.observed) for c in self.candidates],
            "difference": self.difference,
            "observed": {h: int(c) for h, c in zip(HOLES, self.observed, strict=True)},
            "observed_total": self.observed_total,
            "expected_total": self.expected_total,
            "margin": None if math.isinf(self.margin) else round(self.margin, 3),
        }


_BOARD_ORDER = np.array([16 * side + r for side, r in (HOLE_INDEX[h] for h in HOLES)])
"""Where each of HOLES lies in a position's bare board (``State.board``, engine.holes)."""


def _counts(position: Position) -> np.ndarray:
    """The position's 32 pit counts in HOLES order (``board_vector(position.to_json())``,
    without building the JSON: it is called for every hypothesis)."""
    return np.array(position.state.board, dtype=np.int64)[_BOARD_ORDER]


def _expand(position: Position) -> Iterable[tuple[Move, Position]]:
    for move in position.legal_moves:
        after, _trace = position.play(move)
        yield move, after


Hypothesis = tuple[tuple[Move, ...], tuple[str, ...], np.ndarray, float, Position]
"""(moves, notations, predicted counts, score, the position the moves leave)."""


def hypotheses(position: Position, observation: Observation, depth: int) -> list[Hypothesis]:
    """Every (moves, notations, counts, score, end position) of exactly ``depth`` legal moves."""
    out: list[Hypothesis] = []
    if depth == 0:
        counts = _counts(position)
        return [((), (), counts, observation.score(counts), position)]
    for move, after in _expand(position):
        note = position.notation(move)
        if depth == 1:
            counts = _counts(after)
            out.append(((move,), (note,), counts, observation.score(counts), after))
        elif not after.is_game_over():
            for moves, notes, counts, score, end in hypotheses(after, observation, depth - 1):
                out.append(((move, *moves), (note, *notes), counts, score, end))
    return out


SAME_POSITION = "each leaves the very same position, only the way the seeds went differs"
"""Said of moves (or readings of an ambiguous stretch) that all lead to one position: the
camera cannot tell them apart, and the players pick the one played (2.2.2: a capture of
exactly 8 seeds sown from either kichwa fills the row alike)."""


FEWER_SEEN = ("fewer seeds seen there than the closest move leaves: seeds may lie hidden under or "
              "behind others, so look at the pit before picking")
"""Said of an unexplained view whose closest candidate differs from the reading only by
pits read with fewer seeds (at most ``HIDDEN_PITS`` of them): seeds hidden by seeds are the
camera's commonest sure misreading (docs/vision.md, thirty-ninth and fortieth sessions)."""

HIDDEN_PITS = 2


def same_position(positions: Iterable[Position]) -> bool:
    """Whether the positions are all one: counts, reserves, nyumba, blocking and the
    player to move."""
    seen = [p.to_json() for p in positions]
    return all(p == seen[0] for p in seen[1:])


def _same_position(group: Sequence[Hypothesis]) -> bool:
    """Whether every hypothesis of ``group`` leads to the same position (:func:`same_position`)."""
    return same_position(h[4] for h in group)


def ranked_score(score: float, counts: np.ndarray, changed: Mapping[str, float] | None = None,
                 changed_from: np.ndarray | None = None, logs: np.ndarray | None = None) -> float:
    """How the referee ranks the board ``counts`` (HOLES order) on a view: ``score``, the
    view's log-likelihood of it, plus the log-likelihood of the camera's change map
    ``changed`` against a view of the board ``changed_from`` (:func:`change_evidence`;
    nothing without a map). ``logs``: the map's :func:`change_logs`, when already computed."""
    if not changed or changed_from is None:
        return score
    return score + change_evidence(changed_from, counts, changed, logs)


def explains_view(observation: Observation, counts: np.ndarray, config: RefereeConfig, forgiven: np.ndarray) -> bool:
    """Whether the board ``counts`` explains the view: its deficit, summed and in any one
    pit, is within ``explain_nats`` and ``pit_nats``, pits marked in ``forgiven`` (seen
    untouched and left so) not counted."""
    deficits = observation.pit_scores(counts)
    deficits[forgiven] = 0.0
    return float(deficits.sum()) <= config.explain_nats and float(deficits.max()) <= config.pit_nats


def untouched_pits(changed: Mapping[str, float] | None, config: RefereeConfig) -> np.ndarray:
    """Pits the camera saw untouched (HOLES order): they keep the counts of the
    accepted position, so a misread there says nothing against a hypothesis that
    leaves them alone."""
    if not changed:
        return np.zeros(32, dtype=bool)
    return np.array([changed.get(h, 1.0) < config.untouched_below for h in HOLES])


def disputed_pits(
    position: Position,
    observation: Observation,
    verdict: Verdict,
    changed: Mapping[str, float] | None = None,
    config: RefereeConfig | None = None,
    nats: float = 1.0,
    closest: int = 3,
    most: int = 12,
) -> tuple[str, ...]:
    """The pits worth a closer look before the players are asked.

    For a verdict that is not accepted: the pits where one of the ``closest``
    candidate boards (ranked as in :func:`infer_move`; those within
    ``RefereeConfig.explain_nats`` of the best) predicts a count that the reading
    holds more than ``nats`` less likely than its best (the pits the camera saw
    untouched, left alone by the candidate, do not count, as in
    :func:`infer_move`). At most ``most`` pits, those of the largest deficits
    first; in HOLES order. A reading of them made more closely (the vision's
    ``read_again``) is then refereed again: a pit misread surely, so that no
    legal move explains the view, or the moves told apart by a pit read unsurely.
    """
    config = config or RefereeConfig()
    if verdict.status not in ("unexplained", "ambiguous"):
        return ()
    base = _counts(position)
    untouched = untouched_pits(changed, config)
    worst = np.zeros(32)
    boards: list[bytes] = []
    near = max((c.total for c in verdict.candidates), default=0.0) - config.explain_nats
    for cand in verdict.candidates:
        key = cand.counts.tobytes()
        if key in boards or cand.total < near:
            continue
        if len(boards) == closest:
            break
        boards.append(key)
        deficits = observation.pit_scores(cand.counts)
        deficits[untouched & (cand.counts == base)] = 0.0
        worst = np.maximum(worst, deficits)
    picked = [i for i in np.argsort(-worst, kind="stable")[:most] if worst[i] > nats]
    return tuple(HOLES[i] for i in sorted(picked))


def infer_move(
    position: Position,
    observation: Observation,
    config: RefereeConfig | None = None,
    changed: Mapping[str, float] | None = None,
) -> Verdict:
    """Decide which legal move(s), if any, lead from ``position`` to the observed board.

    Args:
        position: the last accepted position (not modified).
        observation: the settled reading.
        config: thresholds; defaults to :class:`RefereeConfig`.
        changed: optional per-pit probability that the seeds changed since a
            view showing ``position`` (the camera's change map); it adds its
            log-likelihood to each hypothesis' score when ranking them and
            judging the margin (whether a hypothesis *explains* the counts
            still depends on the counts alone).

    Returns:
        A :class:`Verdict`; only ``accepted`` verdicts carry moves to log.
    """
    config = config or RefereeConfig()
    observed = observation.most_likely()
    best_possible = observation.best_score()
    if position.is_game_over():
        counts = _counts(position)
        cand = Candidate((), counts, observation.score(counts), best_possible - observation.score(counts))
        return Verdict("game_over", (), (cand,), observed, int(counts.sum()), int(observed.sum()),
                       math.inf, "the game is over; no further moves are refereed")

    base = _counts(position)
    untouched = untouched_pits(changed, config)

    def explains(counts: np.ndarray, score: float) -> bool:
        return explains_view(observation, counts, config, untouched & (counts == base))

    logs = change_logs(changed) if changed else None

    def rank_score(counts: np.ndarray, score: float) -> float:
        return ranked_score(score, counts, changed, base, logs)

    hyps = hypotheses(position, observation, 0) + hypotheses(position, observation, 1)
    if config.pairs and config.max_moves >= 2 and not any(explains(h[2], h[3]) for h in hyps):
        hyps += hypotheses(position, observation, 2)
        # longer sequences only count when one explains the view: a view they cannot
        # explain either keeps the verdict (and candidates) of two moves at most
        for depth in range(3, config.max_moves + 1):
            if any(explains(h[2], h[3]) for h in hyps):
                break
            longer = hypotheses(position, observation, depth)
            if any(explains(h[2], h[3]) for h in longer):
                hyps += longer

    # Group by predicted board: hypotheses predicting the same counts cannot be told apart.
    groups: dict[bytes, list[Hypothesis]] = {}
    for h in hyps:
        groups.setdefault(h[2].tobytes(), []).append(h)
    ranked = sorted(groups.values(), key=lambda g: -rank_score(g[0][2], g[0][3]))
    candidates = tuple(
        Candidate(h[1], h[2], h[3], best_possible - h[3], h[0], rank_score(h[2], h[3]), explains(h[2], h[3]))
        for g in ranked[: config.candidates]
        for h in g
    )[: max(config.candidates, len(ranked[0]))]
    best_group = ranked[0]
    best = best_group[0]
    margin = (rank_score(best[2], best[3]) - rank_score(ranked[1][0][2], ranked[1][0][3])
              if len(ranked) > 1 else math.inf)
    expected_total = int(best[2].sum())
    observed_total = int(observed.sum())

    def verdict(status: str, moves: tuple[MoveVerdict, ...], message: str) -> Verdict:
        return Verdict(status, moves, candidates, observed, expected_total, observed_total, margin, message)

    if not explains(best[2], best[3]):
        closest = ", ".join(" ".join(c.notations) or "no move" for c in candidates[:3])
        diff = candidates[0].difference(observed)
        where = ", ".join(f"{h} {d['expected']}→{d['observed']}" for h, d in list(diff.items())[:6])
        fewer = fewer_seen(candidates[0].counts, observed, HIDDEN_PITS)
        return verdict(
            "unexplained", (),
            f"no legal move explains the board (seen {observed_total} seeds on the board, "
            f"{expected_total} expected for the closest move); closest: {closest}; "
            f"differences: {where}" + (f"; {FEWER_SEEN}" if fewer else ""),
        )
    if len(best_group) > 1 or margin < config.margin_nats:
        names = [" ".join(h[1]) or "no move" for h in best_group]
        if len(best_group) == 1:
            names += [" ".join(h[1]) or "no move" for h in ranked[1]]
        message = "several moves fit the board: " + ", ".join(names[:6])
        if len(best_group) > 1 and margin >= config.margin_nats and _same_position(best_group):
            message += f"; {SAME_POSITION}: pick the one played"
        return verdict("ambiguous", (), message)
    if not best[0]:
        return verdict("unchanged", (), "no move: the board is as it was")
    moves: list[MoveVerdict] = []
    current = position
    for move in best[0]:
        after, trace = current.play(move)
        moves.append(describe_move(current, move, after, trace))
        current = after
    played = " then ".join(m.notation for m in moves)
    return verdict("accepted", tuple(moves), f"{played} (legal)")


def apply_moves(position: Position, notations: Sequence[str]) -> tuple[Position, list[MoveVerdict]]:
    """Play moves given in notation (a candidate the players confirmed), with their verdicts.

    Raises the engine's ``IllegalMove``/``InvalidNotation`` for a move that is not legal.
    """
    current = position
    verdicts: list[MoveVerdict] = []
    for text in notations:
        move = current.parse_move(text)
        after, trace = current.play(move)
        verdicts.append(describe_move(current, move, after, trace))
        current = after
    return current, verdicts


def fewer_seen(counts: np.ndarray, observed: np.ndarray, pits: int = HIDDEN_PITS,
               forgiven: np.ndarray | None = None) -> bool:
    """Whether the most likely counts ``observed`` differ from the board ``counts`` (HOLES
    order) only by fewer seeds seen, in one to ``pits`` pits (seeds hidden by seeds);
    pits marked in ``forgiven`` are not compared."""
    differ = counts != observed
    if forgiven is not None:
        differ &= ~forgiven
    return 0 < int(differ.sum()) <= pits and bool(np.all(observed[differ] < counts[differ]))


