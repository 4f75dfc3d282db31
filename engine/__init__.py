"""The rules of Bao la Kiswahili (BAO_RULES.md) as a pure-Python API.

>>> from engine import Position
>>> pos = Position.start()
>>> pos.push(pos.parse_move("A6<*")).end_reason
'last seed fell in an empty hole'

See :mod:`engine.position` for the position API, :mod:`engine.moves` for the
rules themselves and :mod:`engine.record` for game records. Nothing heavy
(numba, OpenCV) is imported here.
"""

from engine.errors import AmbiguousMove, BaoError, IllegalMove, InvalidNotation, InvalidPosition
from engine.notation import Move
from engine.position import Position
from engine.rules import Rules
from engine.trace import Outcome, Trace, TraceStep

__all__ = [
    "AmbiguousMove",
    "BaoError",
    "IllegalMove",
    "InvalidNotation",
    "InvalidPosition",
    "Move",
    "Outcome",
    "Position",
    "Rules",
    "Trace",
    "TraceStep",
]
