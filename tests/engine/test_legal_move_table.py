"""Table-driven legal-move checks: tests/data/engine/legal_moves.json.

Each entry holds a position (text form), the clause it exercises, the hand
reasoning, and the legal moves in full notation worked out by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import Position

TABLE = json.loads((Path(__file__).parents[1] / "data/engine/legal_moves.json").read_text())


@pytest.mark.parametrize("case", TABLE, ids=[f"{c['clause']}:{i}" for i, c in enumerate(TABLE)])
def test_legal_moves_table(case: dict) -> None:
    pos = Position.from_text(case["position"])
    assert [pos.notation(m) for m in pos.legal_moves] == case["moves"], case["why"]
