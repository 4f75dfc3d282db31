"""Golden transcript: a whole game from the start, every position and move list.

The game in tests/data/engine/golden_game.json was played by a seeded random
player (``random.Random(21)`` choosing among ``legal_moves``). Any change in
the rules engine that alters a legal-move list, a position or the result
shows up here. The first six plies are checked against positions worked out
by hand (below). Regenerate after a deliberate rules change with
``BAO_REGEN_GOLDEN=1 python3 -m pytest tests/engine/test_golden.py`` and
review the diff.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

from engine import Position

GOLDEN = Path(__file__).parents[1] / "data" / "engine" / "golden_game.json"
SEED = 21


def play_golden() -> dict[str, Any]:
    rng = random.Random(SEED)
    pos = Position.start()
    plies = []
    while not pos.is_game_over():
        legal = pos.legal_moves
        move = rng.choice(legal)
        entry = {
            "position": pos.to_text(),
            "legal": [pos.notation(m) for m in legal],
            "played": pos.notation(move),
        }
        entry["end_reason"] = pos.push(move).end_reason
        plies.append(entry)
    outcome = pos.outcome()
    assert outcome is not None
    return {
        "seed": SEED,
        "plies": plies,
        "final": pos.to_text(),
        "outcome": outcome.to_json(),
    }


def test_golden_transcript() -> None:
    game = play_golden()
    if os.environ.get("BAO_REGEN_GOLDEN"):
        GOLDEN.write_text(json.dumps(game, indent=1) + "\n")
    golden = json.loads(GOLDEN.read_text())
    assert len(game["plies"]) == len(golden["plies"])
    for i, (got, want) in enumerate(zip(game["plies"], golden["plies"], strict=True)):
        assert got == want, f"ply {i + 1} differs"
    assert game["final"] == golden["final"]
    assert game["outcome"] == golden["outcome"]


def test_golden_transcript_replays_from_its_own_moves() -> None:
    # Independent of the random player: replay the recorded moves.
    golden = json.loads(GOLDEN.read_text())
    pos = Position.start()
    for ply in golden["plies"]:
        assert pos.to_text() == ply["position"]
        assert [pos.notation(m) for m in pos.legal_moves] == ply["legal"]
        pos.push(ply["played"])
    assert pos.to_text() == golden["final"]
    assert pos.outcome().to_json() == golden["outcome"]


# Hand check of the first six plies (2.1, 2.3, 2.2, 4.2.2.3.1), worked out
# from the rules without the engine:
# 1. A6>*  no capture at the start; reserve seed into A6 (3), lift, sow A7 (3),
#          A8 (1), B8 (1): empty -> end.
# 2. a7>*  North likewise: a7 (3) sows a8, b8, b7.
# 3. A8>*  no capture (a8 faces A1=0, a6 faces A3=0, a5 faces A4=0); the
#          nyumba (6) may not start, singletons may (nyumba owned, §7.4):
#          A7<, A7>, A8<, A8>. A8 (2) sows B8 (1 -> 2), B7 (empty) -> end.
# 4. a8<*  a8 (2) sows a7 (1), a6 (2 -> 3): relay, lift 3: a5 (7), a4 (1),
#          a3 (1): empty -> end.
# 5. A5>   a4 (1) now faces South's nyumba A5: capture from A5 (A5<, A5>).
#          Reserve seed into A5 (7), capture a4's 1, enter at A8: empty -> end.
# 6. a3>*  no capture for North; a3 (2) sows a4 (1), a5 (7 -> 8): the owned
#          nyumba holding >= 6 ends the kutakata (4.2.2.3.1).
HAND = [
    (
        ["A6<*", "A6>*", "A7<*", "A7>*"],
        "A6>*",
        "A:0,0,0,0,6,0,3,1 B:0,0,0,0,0,0,0,1 a:0,0,0,0,6,2,2,0 b:0,0,0,0,0,0,0,0 "
        "reserve:21,22 nyumba:SN move:N",
    ),
    (
        ["a6<*", "a6>*", "a7<*", "a7>*"],
        "a7>*",
        "A:0,0,0,0,6,0,3,1 B:0,0,0,0,0,0,0,1 a:0,0,0,0,6,2,0,1 b:0,0,0,0,0,0,1,1 "
        "reserve:21,21 nyumba:SN move:S",
    ),
    (
        ["A7<*", "A7>*", "A8<*", "A8>*"],
        "A8>*",
        "A:0,0,0,0,6,0,3,0 B:0,0,0,0,0,0,1,2 a:0,0,0,0,6,2,0,1 b:0,0,0,0,0,0,1,1 "
        "reserve:20,21 nyumba:SN move:N",
    ),
    (
        ["a6<*", "a6>*", "a8<*", "a8>*"],
        "a8<*",
        "A:0,0,0,0,6,0,3,0 B:0,0,0,0,0,0,1,2 a:0,0,1,1,7,0,1,0 b:0,0,0,0,0,0,1,1 "
        "reserve:20,20 nyumba:SN move:S",
    ),
    (
        ["A5<", "A5>"],
        "A5>",
        "A:0,0,0,0,7,0,3,1 B:0,0,0,0,0,0,1,2 a:0,0,1,0,7,0,1,0 b:0,0,0,0,0,0,1,1 "
        "reserve:19,20 nyumba:SN move:N",
    ),
    (
        ["a3<*", "a3>*", "a7<*", "a7>*"],
        "a3>*",
        "A:0,0,0,0,7,0,3,1 B:0,0,0,0,0,0,1,2 a:0,0,0,1,8,0,1,0 b:0,0,0,0,0,0,1,1 "
        "reserve:19,19 nyumba:SN move:S",
    ),
]


def test_golden_first_plies_by_hand() -> None:
    golden = json.loads(GOLDEN.read_text())
    for i, (legal, played, after) in enumerate(HAND):
        assert golden["plies"][i]["legal"] == legal
        assert golden["plies"][i]["played"] == played
        following = golden["plies"][i + 1]["position"] if i + 1 < len(golden["plies"]) else None
        assert following == after, f"position after ply {i + 1}"
