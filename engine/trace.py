"""What happened during a move (Trace) and how a game ended (Outcome)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# TraceStep kinds, in the order they can occur in a move.
RESERVE = "reserve"  # one seed taken from the mover's reserve (hole None)
DROP = "drop"  # one seed dropped into `hole`
PICKUP = "pickup"  # all `count` seeds lifted from own `hole` to sow them (start or relay)
TAX = "tax"  # two seeds lifted from the nyumba (2.3.2 / 4.2.2.2), the rest stay
CAPTURE = "capture"  # `count` seeds taken from the opponent's front `hole`
SAFARI = "safari"  # the owned nyumba emptied by choice (4.2.1.2, notation '+')
KEEP = "keep"  # game over mid-move: `count` seeds in hand go to the mover's reserve (§7.7/7.8)

# Trace.end_reason values.
END_EMPTY_HOLE = "last seed fell in an empty hole"  # 1.5.4
END_NYUMBA_STOP = "stopped in the nyumba"  # 4.2.1.2, 4.2.2.3.2
END_NYUMBA_KUTAKATA = "kutakata ended in the nyumba"  # 4.2.2.3.1, 1.6.2
END_BLOCKED = "relay ended in the kutakatia-blocked hole"  # 5.2, 1.6.3
END_OPPONENT_EMPTY = "captured the opponent's last front-row seeds"  # 1.2.1
END_OWN_EMPTY = "the mover's own front row became empty"  # 1.2.1, §7.8


@dataclass(frozen=True)
class TraceStep:
    """One event of a move: ``kind`` (see the constants above), the hole, a count."""

    kind: str
    hole: str | None
    count: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "hole": self.hole, "count": self.count}

    def __str__(self) -> str:
        where = f" {self.hole}" if self.hole else ""
        return f"{self.kind}{where} {self.count}"


@dataclass(frozen=True)
class Trace:
    """Every reserve take, pick-up, drop and capture of a move, in order.

    ``capture`` tells a capture move from a kutakata; ``sown`` counts the seeds
    dropped (1.5.6); ``blocked`` names the hole the move blocks for the
    opponent (kutakatia, §5) or is None.
    """

    move: str
    steps: list[TraceStep] = field(default_factory=list)
    end_reason: str = ""
    capture: bool = False
    sown: int = 0
    blocked: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "move": self.move,
            "capture": self.capture,
            "sown": self.sown,
            "blocked": self.blocked,
            "end_reason": self.end_reason,
            "steps": [s.to_json() for s in self.steps],
        }


@dataclass(frozen=True)
class Outcome:
    """How a game ended: ``winner`` ("south"/"north") and a one-line ``reason``."""

    winner: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"winner": self.winner, "reason": self.reason}

    def __str__(self) -> str:
        return f"{self.winner} wins: {self.reason}"
