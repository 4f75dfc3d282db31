"""State and rules layout of the fast core (see :mod:`engine.core` for the API)."""

from __future__ import annotations

import numpy as np

# --- state layout -----------------------------------------------------------
SOUTH = 0
NORTH = 1
NO_WINNER = -1
DRAW = 2  # only from random_playout when max_plies is reached
RESERVE = 32
OWNED = 34
TO_MOVE = 36
BLOCKED = 37
WINNER = 38
END_REASON = 39
HAND = 40
CAPTURED = 41
SOWN = 42
WAS_CAPTURE = 43
STATE_SIZE = 44

NYUMBA = 4  # ring index of hole 5
MAX_MOVES = 64

END_NONE = 0
END_FRONT_CAPTURED = 1  # a capture emptied the opponent's front row (1.2.1, §7 #7)
END_FRONT_LIFTED = 2  # the mover's own front row emptied mid-move (§7 #8)
END_NO_MOVE = 3  # the side to move has no legal move (1.2.2, 1.5.6)
END_FRONT_EMPTY = 4  # a front row is empty in the given position

MOVE_OK = 0
MOVE_GAME_OVER = 1
MOVE_INFINITE = -1

# --- rules layout (BAO_RULES.md §7; names as the fields of engine.rules.Rules) ---
R_NYUMBA_LOST_AT_MTAJI_CAPTURE = 0  # #1 (default 1)
R_KUTAKATA_STOPS_AT_NYUMBA_IN_MTAJI = 1  # #2 (default 1)
R_KUNAMUA_KUTAKATA_FROM_SMALL_NYUMBA = 2  # #3 (default 1)
R_KUNAMUA_SINGLETONS_WHILE_NYUMBA_OWNED = 3  # #4 (default 1)
R_TAX_SMALL_NYUMBA = 4  # #5 (default 0)
R_KUTAKATIA = 5  # #6 (default 1)
R_WIN_AT_INSTANT_CAPTURE = 6  # #7 (default 1)
R_LOSE_AT_INSTANT_OWN_EMPTY = 7  # #8 (default 1)
R_MAX_SOWN = 8  # #9 (default 1000)
R_MAX_CAPTURE_SEEDS = 9  # #10 / 3.4.2 (default 15)
R_LAP_SKIPS_ORIGIN = 10  # #10 (default 0)
RULES_SIZE = 11

RULE_FIELDS: tuple[str, ...] = (
    "nyumba_lost_at_mtaji_capture",
    "kutakata_stops_at_nyumba_in_mtaji",
    "kunamua_kutakata_from_small_nyumba",
    "kunamua_singletons_while_nyumba_owned",
    "tax_small_nyumba",
    "kutakatia",
    "win_at_instant_capture",
    "lose_at_instant_own_empty",
    "max_sown",
    "max_capture_seeds",
    "lap_skips_origin",
)
"""Field of :class:`engine.rules.Rules` stored at each index of the rules array."""

_RULE_DEFAULTS: dict[str, int] = {name: 1 for name in RULE_FIELDS} | {
    "tax_small_nyumba": 0,
    "max_sown": 1000,
    "max_capture_seeds": 15,
    "lap_skips_origin": 0,
}


def make_rules(**options: int | bool) -> np.ndarray:
    """Rules array: BAO_RULES.md §7 defaults, overridden by keyword (the field
    names of :class:`engine.rules.Rules`, e.g. ``make_rules(kutakatia=False)``)."""
    unknown = set(options) - set(RULE_FIELDS)
    if unknown:
        raise ValueError(f"unknown rule option(s): {', '.join(sorted(unknown))}")
    values = _RULE_DEFAULTS | {k: int(v) for k, v in options.items()}
    return np.array([values[name] for name in RULE_FIELDS], dtype=np.int32)


DEFAULT_RULES = make_rules()


def start_state() -> np.ndarray:
    """The start position (2.1): nyumba 6, holes 6 and 7 two each, 22 in reserve."""
    st = np.zeros(STATE_SIZE, dtype=np.int32)
    for base in (0, 16):
        st[base + 4] = 6
        st[base + 5] = 2
        st[base + 6] = 2
    st[RESERVE] = st[RESERVE + 1] = 22
    st[OWNED] = st[OWNED + 1] = 1
    st[TO_MOVE] = SOUTH
    st[BLOCKED] = -1
    st[WINNER] = NO_WINNER
    return st
