"""The referee on simulated readings: how often a misread view stops it, or fools it.

No images: random legal games are "seen" through a noise model of the vision's
per-pit count probabilities and fed to the live referee (:class:`webui.live.LiveReferee`,
one still view a move, sometimes one view for two moves) with nobody answering its
questions, as ``bao referee`` runs (and, as it does, :meth:`webui.live.LiveReferee.finish`
at the end: a stretch the last views left open is logged when they single out its
moves). The camera's change map between views is
simulated too (a pit whose seeds changed is seen changed, one left alone mostly not).

The noise model, per view and pit (count c):

- hidden seeds: a pit of 2 or more seeds is read surely one short with probability
  ``--hidden`` (0.03); the misreading stays while the pit is left alone, as a seed
  hidden behind another stays hidden;
- one off: read surely c - 1 or c + 1 with probability ``--off`` (0.01), afresh at
  every view;
- otherwise peaked on c (probability 0.9, the rest spread with noise).

A change map marks a changed pit 0.9 and an untouched one 0.03 (0.5 with
probability 0.03: a shadow, a seed nudged).

Figures: moves logged correctly (the game's move at that ply), moves logged as another
move, or order of moves, leaving the very same position with no view on the way showing
the difference (``bao referee`` logs one of such moves, with a note, as no later view can
tell them apart), moves of a stretch logged in another order to the same position whose
note says the order is not sure (:func:`score_log`), wrong moves logged (a move leaving
another position, and every move after it), and views no move explained. Writes
``benchmarks/results/referee_noise.json``.

With ``--players`` the play page's referee is run instead (``LiveReferee(players=True)``),
with simulated players as ``benchmarks/referee_eval.py`` has them: they answer a question
(unexplained or ambiguous) only if the next view leaves it open, by confirming the moves
played since the last logged one, and take back wrong moves as soon as they are logged.
Figures: moves the referee logged correctly by itself, moves the players confirmed,
wrong moves taken back. Writes ``benchmarks/results/referee_noise_players.json``.

Both print the referee's time per view (median, 99th percentile, most): a view of a lost
stretch is the slow one, its readings retraced (:func:`engine.branches.retrace`).

Usage::

    python3 benchmarks/referee_noise.py [--games 200] [--moves 24] [--seed 1] [--players]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import Position  # noqa: E402
from engine.observation import HOLES, board_vector  # noqa: E402
from webui.verdicts import ORDER_UNSURE  # noqa: E402


class SimulatedCamera:
    """Frames are 8x8 images whose first pixel numbers the view; the reader looks it up."""

    def __init__(self, seed: int, hidden: float, off: float) -> None:
        self.misreads = np.random.default_rng([seed, 1])  # drawn once a view, whatever the referee does
        self.rng = np.random.default_rng([seed, 2])  # the readings' own noise
        self.seed = seed  # (the change maps' noise is drawn for each pair of views: pit_changes)
        self.hidden = hidden
        self.off = off
        self.views: list[tuple[np.ndarray, np.ndarray]] = []  # (true counts, read counts)
        self._hidden_now: dict[int, int] = {}  # pit -> count it was hidden at

    def view(self, counts: np.ndarray) -> np.ndarray:
        read = counts.copy()
        for i, c in enumerate(counts):
            c = int(c)
            if self._hidden_now.get(i) not in (None, c):
                del self._hidden_now[i]  # the pit was touched: what hid the seed moved
            hide, off, up = self.misreads.random(3)
            if i in self._hidden_now or (c >= 2 and hide < self.hidden):
                self._hidden_now[i] = c
                read[i] = c - 1
            elif off < self.off:
                read[i] = max(0, c + (1 if up < 0.5 else -1))
        self.views.append((counts.copy(), read))
        image = np.zeros((8, 8, 3), np.uint8)
        code = len(self.views)
        image[0, 0] = (code % 256, code // 256, 0)
        return image

    def code(self, image: np.ndarray) -> int:
        return int(image[0, 0, 0]) + 256 * int(image[0, 0, 1])

    def recognize(self, image: np.ndarray, south: str = "bottom", profile: Any = None) -> Any:
        from types import SimpleNamespace

        _, read = self.views[self.code(image) - 1]
        probs = np.full((32, 41), 0.1 / 40)
        probs *= self.rng.uniform(0.5, 1.5, probs.shape)
        probs[np.arange(32), np.minimum(read, 40)] = 0.9
        probs /= probs.sum(axis=1, keepdims=True)
        nested: dict[str, Any] = {}
        position: dict[str, Any] = {}
        for side, base in (("south", 0), ("north", 16)):
            nested[side] = {row: [list(probs[base + k * 8 + j]) for j in range(8)]
                            for k, row in enumerate(("front", "back"))}
            position[side] = {row: [int(read[base + k * 8 + j]) for j in range(8)]
                              for k, row in enumerate(("front", "back"))}
        confidence = {s: {r: [0.9] * 8 for r in ("front", "back")} for s in ("south", "north")}
        centres = {h: [float(i % 8), float(i // 8)] for i, h in enumerate(HOLES)}
        return SimpleNamespace(position=position, probabilities=nested, confidence=confidence,
                               board_corners_px=[[0, 0], [7, 0], [7, 7], [0, 7]], status=[],
                               pit_centers_px=centres)

    def pit_changes(self, before: np.ndarray, after: np.ndarray, centres: Any, config: Any = None) -> Any:
        """The change map between two views. Its noise is drawn for that pair of views
        alone, so that the maps and readings a game sees do not depend on how many maps
        the referee asks for (since the forty-sixth session; before, one stream served the
        readings and every map asked for, and a change in when the referee asks moved the
        noise of every later view)."""
        a, _ = self.views[self.code(before) - 1]
        b, _ = self.views[self.code(after) - 1]
        rng = np.random.default_rng([self.seed, 3, self.code(before), self.code(after)])
        shadow = rng.random(len(HOLES)) < 0.03
        return {h: 0.9 if a[i] != b[i] else (0.5 if shadow[i] else 0.03) for i, h in enumerate(HOLES)}


def unseen_detour(logged: Sequence[Mapping[str, Any]], truth: Sequence[Mapping[str, Any]],
                  viewed: Sequence[bool]) -> bool:
    """Whether a stretch of logged moves that differ from the game's could not be told
    from them by the camera (``logged``, ``truth``: the positions after each move of the
    stretch; ``viewed[k]``: a settled view followed its move k). It ends on the game's
    position, and every view taken inside it showed the same board (counts) under both:
    another order of moves to the same position, logged with a note that says so. Both
    benchmarks of the referee count such a stretch apart, not as wrong."""
    return logged[-1] == truth[-1] and all(
        not seen or board_vector(a).tolist() == board_vector(b).tolist()
        for a, b, seen in zip(logged[:-1], truth[:-1], viewed, strict=False))


def score_log(logged: list[dict[str, Any]], notations: list[str], truth: list[str],
              truth_positions: list[dict[str, Any]], viewed: set[int],
              notes: list[str] | None = None) -> tuple[int, int, int]:
    """(moves logged correctly, moves logged as others leaving the very same position,
    moves of a stretch logged in another order, its note saying the order is not sure).

    A logged move whose position is not the game's at that ply is wrong, with every
    move after it, unless a later logged move of the same stretch comes back to the
    game's position and no view in between could tell them apart: every view taken
    inside the stretch showed the same board (counts) under both. Such a stretch
    (one of several move orders leaving the same position, logged with a note) is
    counted apart, as the same position. A stretch that comes back to the game's position
    after views on the way that showed other boards is still wrong, but counted apart
    when every move of it carries the note that the order of the moves is not sure
    (``bao referee``'s retrace, :meth:`webui.verdicts.VerdictMixin._retrace`).
    """
    correct = same = unsure = 0
    notes = notes or [""] * len(logged)
    i = 0
    while i < min(len(logged), len(truth)):
        if logged[i] == truth_positions[i]:
            if notations[i] == truth[i]:
                correct += 1
            else:
                same += 1  # another move leaving the very same position
            i += 1
            continue
        end = next((j for j in range(i + 1, min(len(logged), len(truth))) if logged[j] == truth_positions[j]), None)
        if end is None:
            break  # this move and every later one are wrong
        if not unseen_detour(logged[i:end + 1], truth_positions[i:end + 1], [k in viewed for k in range(i, end + 1)]):
            if not all(ORDER_UNSURE in notes[k] for k in range(i, end + 1)):
                break
            unsure += end - i + 1
        else:
            same += end - i + 1
        i = end + 1
    return correct, same, unsure


def play_game(seed: int, args: argparse.Namespace) -> dict[str, Any]:
    import webui.live as live_module
    from webui.live import LiveReferee
    from webui.sources import Frame
    from webui.store import GameStore

    rng = np.random.default_rng([seed, 0])  # the game's moves and skipped views
    camera = SimulatedCamera(seed, args.hidden, args.off)
    live_module.pit_changes = camera.pit_changes  # the simulated camera's change map
    live = LiveReferee(GameStore("sqlite://:memory:"), camera.recognize, look_again=None, players=args.players)
    live.new_game()
    position = Position.start()
    truth: list[str] = []
    truth_positions: list[dict[str, Any]] = []
    viewed: set[int] = set()  # plies (0-based) after which the camera had a view
    unexplained = human = taken_back = 0
    waited = False  # a question of the players' page left open for one view
    seen_at = None

    def answer() -> None:
        """The players confirm the moves played since the last logged one."""
        nonlocal human, seen_at
        if len(truth) > live.ply:
            human += len(truth) - live.ply
            live.confirm(truth[live.ply:])
            seen_at = live.verdict.get("at") if live.verdict else None

    live.feed(Frame(camera.view(board_vector(position.to_json())), 0.0, still=True, name="start"))
    while len(truth) < args.moves and not position.is_game_over():
        move = position.legal_moves[int(rng.integers(len(position.legal_moves)))]
        truth.append(position.notation(move))
        position.push(move)
        truth_positions.append(position.to_json())
        if rng.random() < args.skip and len(truth) < args.moves and not position.is_game_over():
            continue  # the next view shows two moves (or more)
        viewed.add(len(truth) - 1)
        live.feed(Frame(camera.view(board_vector(position.to_json())), 0.0, still=True, name=str(len(truth))))
        verdict = live.verdict
        if verdict and verdict.get("at") != seen_at:
            seen_at = verdict.get("at")
            unexplained += verdict["status"] == "unexplained"
            if not args.players:
                continue
            if verdict["status"] in ("unexplained", "ambiguous"):
                if waited:  # the next view left it open: the players answer
                    waited = False
                    answer()
                else:
                    waited = True  # they keep playing: the next view may settle it
                continue
            waited = False
            logged = [m.notation for m in live.store.get(live.game_id).moves]
            wrong_at = next((i for i, m in enumerate(logged) if m != truth[i]), None)
            if wrong_at is not None:  # the players take the wrong moves back and say what was played
                for _ in range(len(logged) - wrong_at):
                    live.undo()
                taken_back += len(logged) - wrong_at
                answer()
    if args.players and waited:
        answer()  # the game's last view left a question open
    if not args.players:
        live.finish()  # as bao referee does when its source ends
    if args.players:
        log = live.store.get(live.game_id).moves
        correct = sum(1 for m, t in zip(log, truth, strict=False) if m.source == "camera" and m.notation == t)
        return {"seed": seed, "moves": len(truth), "logged": len(log), "correct": correct, "needing_human": human,
                "taken_back": taken_back, "unexplained_views": unexplained, "view_ms": live.latencies_ms}
    log = live.store.get(live.game_id).moves
    correct, same, unsure = score_log([m.position for m in log], [m.notation for m in log], truth, truth_positions,
                                      viewed, [str((m.verdict or {}).get("note", "")) for m in log])
    return {"seed": seed, "moves": len(truth), "logged": len(log), "correct": correct,
            "same_position": same, "order_unsure": unsure, "wrong": len(log) - correct - same - unsure,
            "unexplained_views": unexplained, "view_ms": live.latencies_ms}


def view_times(games: list[dict[str, Any]]) -> dict[str, float]:
    """The referee's time per view over every game (median, 99th percentile, most), taking
    each game's list of times out of its entry."""
    times = np.array([t for g in games for t in g.pop("view_ms")])
    return {"view_ms_median": round(float(np.median(times)), 1), "view_ms_p99": round(float(np.percentile(times, 99)), 1),
            "view_ms_max": round(float(times.max()), 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--moves", type=int, default=24)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hidden", type=float, default=0.03)
    parser.add_argument("--off", type=float, default=0.01)
    parser.add_argument("--skip", type=float, default=0.1,
                        help="share of views the camera misses (the next shows two moves, or more)")
    parser.add_argument("--out", help="results file (default benchmarks/results/referee_noise.json, "
                                      "referee_noise_players.json with --players)")
    parser.add_argument("--players", action="store_true",
                        help="the play page's referee, its players answering a question the next view leaves open "
                             "and taking back wrong moves (default: nobody answers, as bao referee)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    games = [play_game(args.seed * 100003 + g, args) for g in range(args.games)]
    times = view_times(games)
    if args.players:
        total = {k: sum(g[k] for g in games)
                 for k in ("moves", "correct", "needing_human", "taken_back", "unexplained_views")}
        total["games_complete"] = sum(1 for g in games if g["correct"] == g["moves"])
        total["wall_s"] = round(time.perf_counter() - started, 1)
        total.update(times)
        print(f"{args.games} games, {total['moves']} moves, players answering: {total['correct']} logged correctly "
              f"by the referee ({total['games_complete']} games complete), {total['needing_human']} confirmed "
              f"by the players, {total['taken_back']} wrong moves taken back, "
              f"{total['unexplained_views']} unexplained views; {total['wall_s']} s")
        print(_times_line(times))
        return _write(args, total, games)
    total = {k: sum(g[k] for g in games)
             for k in ("moves", "logged", "correct", "same_position", "order_unsure", "wrong", "unexplained_views")}
    total["games_wrong"] = sum(1 for g in games if g["wrong"])
    total["games_complete"] = sum(1 for g in games if g["correct"] + g["same_position"] == g["moves"])
    total["games_order_unsure"] = sum(1 for g in games if g["order_unsure"])
    total["wall_s"] = round(time.perf_counter() - started, 1)
    total.update(times)
    print(f"{args.games} games, {total['moves']} moves: {total['correct']} logged correctly and "
          f"{total['same_position']} as another move leaving the same position "
          f"({total['games_complete']} games complete), {total['order_unsure']} of a stretch logged in another "
          f"order, its note saying the order is not sure ({total['games_order_unsure']} games), "
          f"{total['wrong']} logged wrong or after a wrong one "
          f"({total['games_wrong']} games), {total['unexplained_views']} unexplained views; {total['wall_s']} s")
    print(_times_line(times))
    return _write(args, total, games)


def _times_line(times: dict[str, float]) -> str:
    return (f"referee's time per view: median {times['view_ms_median']} ms, 99th percentile {times['view_ms_p99']} ms, "
            f"most {times['view_ms_max']} ms")


def _write(args: argparse.Namespace, total: dict[str, Any], games: list[dict[str, Any]]) -> int:
    name = "referee_noise_players.json" if args.players else "referee_noise.json"
    out = Path(args.out) if args.out else ROOT / "benchmarks" / "results" / name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"settings": {k: v for k, v in vars(args).items() if k != "out"},
                               "total": total, "games": games}, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
