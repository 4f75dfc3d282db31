"""Boards sent to the live API as still frames (the test recognizer reads them back)."""

from __future__ import annotations

from typing import Any

from engine import Position

START = Position.start()


def after(*moves: str) -> Position:
    """The position after these moves (full notation) from the start."""
    pos = Position.start()
    for m in moves:
        pos.push(pos.parse_move(m))
    return pos


def post_still(client: Any, recognizer: Any, board: Position, **kw: Any) -> Any:
    """Post ``board`` as a still frame (``recognizer.png``: the test recognizer's image of it)."""
    return client.post("/api/frames?still=1", data=recognizer.png(board, **kw), content_type="image/png")
