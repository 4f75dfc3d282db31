"""Fast rules core for Bao la Kiswahili, compiled with numba.

An independent implementation of BAO_RULES.md §1–§5 (with every §7 option)
for random playouts, the hint search and the referee. The readable rules live
in :mod:`engine.position`; this core is cross-checked against it by
``tests/engine/test_core_matches_engine.py``. Importing :mod:`engine` never
imports numba; only ``import engine.core`` does.

State (``np.int32`` array of length ``STATE_SIZE``)
----------------------------------------------------
Each side's 16 holes are stored in *ring order*, the sowing ring
``A1 → A8 → B8 → B1``: ring index ``i < 8`` is front hole ``i + 1``,
ring index ``i >= 8`` is back hole ``16 - i``. Clockwise is ``+1 (mod 16)``.
Own front ring index ``i`` faces the opponent's front ring index ``7 - i``.

====================  ==========================================================
``st[0:16]``          South's ring (A1..A8, B8..B1)
``st[16:32]``         North's ring (a1..a8, b8..b1)
``st[RESERVE + s]``   reserve of side ``s`` (``SOUTH = 0``, ``NORTH = 1``)
``st[OWNED + s]``     1 while side ``s`` owns its nyumba
``st[TO_MOVE]``       side to move
``st[BLOCKED]``       kutakatia-blocked ring index of the side to move, or -1
``st[WINNER]``        ``NO_WINNER`` (-1), ``SOUTH`` or ``NORTH`` once a move ended
                      the game (a front row emptied mid-move; ``TO_MOVE`` is
                      switched all the same, as in the Python engine)
``st[END_REASON]``    ``END_NONE`` or one of the ``END_*`` codes
``st[HAND]``          seeds left in hand when a move ended the game; they are
                      added to the mover's reserve (§7 #7/#8)
``st[CAPTURED]``      seeds captured by the last applied move
``st[SOWN]``          seeds sown by the last applied move
``st[WAS_CAPTURE]``   1 if the last applied move was a capture move, 0 kutakata
====================  ==========================================================

Rules (``np.int32`` array of length ``RULES_SIZE``, see :func:`make_rules`):
one entry per BAO_RULES.md §7 option, defaults as stated there.

Move codes
----------
``code = ring_index * 4 + clockwise * 2 + safari`` for the mover's hole
``ring_index`` (0..15). ``clockwise`` is the ring direction of the first
sowing; for a kunamua capture it is the entry kichwa (1: left kichwa,
sowing towards hole 8, notation ``<``; 0: right kichwa, ``>``). ``safari`` is
1 when the player empties the owned nyumba at the stop-or-safari choice
(4.2.1.2); a move on which the choice never arises has ``safari = 0``. Whether
a move captures or is a kutakata (or the two-seed tax, 2.3.2) follows from the
position, so the code needs no more bits. At most ``MAX_MOVES`` codes.

API (all kernels are ``@njit(cache=True)``)
-------------------------------------------
``gen_moves(st, rules, out) -> n``       legal move codes into ``out[:n]``, ascending
``gen_moves_with_results(st, rules, out, results) -> n``  also the position
                                          after ``out[k]`` in ``results[k]``
``apply_move(st, code, rules) -> status`` in place; ``MOVE_OK``, ``MOVE_GAME_OVER``
                                          or ``MOVE_INFINITE`` (st is then garbage)
``apply_copy(st, code, rules) -> st2``    same on a copy
``game_result(st, rules) -> winner``      ``NO_WINNER`` while the game goes on
``random_playout(st, rules, seed, max_plies) -> (winner, plies)``
``captured_seeds_of_move(st, code, rules) -> int``

The state is 176 bytes: undo is a copy (``apply_copy`` or ``st.copy()``).
``start_state()`` and ``make_rules(**options)`` / ``DEFAULT_RULES`` build inputs.

Python-level converters (:mod:`engine.core_convert`): :func:`state_from_position`,
:func:`position_from_state`, :func:`state_from_json`, :func:`json_from_state`,
:func:`move_to_engine`, :func:`move_from_engine`, :func:`rules_array` (an
:class:`engine.Rules` to the rules array).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core_layout import *  # noqa: F403  (the layout is part of this API)
from engine.core_layout import (
    BLOCKED,
    CAPTURED,
    DRAW,
    MAX_MOVES,
    MOVE_INFINITE,
    NO_WINNER,
    NYUMBA,
    OWNED,
    R_KUNAMUA_KUTAKATA_FROM_SMALL_NYUMBA,
    R_KUNAMUA_SINGLETONS_WHILE_NYUMBA_OWNED,
    RESERVE,
    STATE_SIZE,
    TO_MOVE,
    WINNER,
    make_rules,
    start_state,
)
from engine.core_move import _execute, _front_sum, _mtaji_capture_target, front_occupancy


@njit(cache=True)
def _candidates(st, rules, cand):
    """Candidate codes (safari bit 0) before simulation; returns the count."""
    me = st[TO_MOVE]
    mb = me * 16
    ob = (1 - me) * 16
    n = 0
    blocked = st[BLOCKED]
    if st[RESERVE + me] > 0:
        for i in range(8):  # 2.2 kunamua captures
            if st[mb + i] > 0 and st[ob + 7 - i] > 0:
                if i >= 2:
                    cand[n] = i * 4
                    n += 1
                if i <= 5:
                    cand[n] = i * 4 + 2
                    n += 1
        if n > 0:
            return n
        occupied, big = front_occupancy(st, mb)
        owned = st[OWNED + me] == 1
        for i in range(8):  # 2.3 kunamua kutakata, front row only
            c = st[mb + i]
            if c == 0 or i == blocked:
                continue
            if i == NYUMBA and owned and occupied > 1:
                if c >= 6:  # 2.3.2 / 4.2.2.1
                    continue
                if rules[R_KUNAMUA_KUTAKATA_FROM_SMALL_NYUMBA] == 0:  # §7 #3
                    continue
            if (
                c == 1
                and big > 0
                and (not owned or rules[R_KUNAMUA_SINGLETONS_WHILE_NYUMBA_OWNED] == 0)
            ):  # 2.3.3 / §7 #4
                continue
            if not (occupied == 1 and i == 0):  # 2.3.1 lone kichwa
                cand[n] = i * 4
                n += 1
            if not (occupied == 1 and i == 7):
                cand[n] = i * 4 + 2
                n += 1
        return n
    for h in range(16):  # 3.4 mtaji captures, either row
        if _mtaji_capture_target(st, me, h, -1, rules) >= 0:
            cand[n] = h * 4
            n += 1
        if _mtaji_capture_target(st, me, h, 1, rules) >= 0:
            cand[n] = h * 4 + 2
            n += 1
    if n > 0:
        return n
    occupied, big = front_occupancy(st, mb)
    lo = 0 if big > 0 else 8  # 3.5 / 3.5.1: back row only if no front hole has 2+
    for h in range(lo, lo + 8):
        if st[mb + h] < 2 or h == blocked:
            continue
        if not (occupied == 1 and h == 0):  # 3.5.2 lone kichwa
            cand[n] = h * 4
            n += 1
        if not (occupied == 1 and h == 7):
            cand[n] = h * 4 + 2
            n += 1
    return n


@njit(cache=True)
def _front_empty_winner(st):
    """1.2.1: the winner when a front row is empty (the side to move's checked first)."""
    me = st[TO_MOVE]
    if _front_sum(st, 16 * me) == 0:
        return 1 - me
    if _front_sum(st, 16 * (1 - me)) == 0:
        return me
    return NO_WINNER


@njit(cache=True)
def _gen_into(st, rules, out, results, keep):
    """Legal codes into ``out``; with ``keep`` the position after move ``k`` is
    left in ``results[k]``, else ``results[0]`` is scratch."""
    if st[WINNER] != NO_WINNER or _front_empty_winner(st) != NO_WINNER:
        return 0
    cand = np.empty(MAX_MOVES, dtype=np.int32)
    nc = _candidates(st, rules, cand)
    n = 0
    for k in range(nc):
        code = cand[k]
        r = results[n if keep else 0]
        r[:] = st
        status = _execute(r, code, rules)
        if status == MOVE_INFINITE:
            continue
        out[n] = code
        n += 1
        if status >= 2:  # the stop-or-safari choice arose: the safari move too
            r = results[n if keep else 0]
            r[:] = st
            if _execute(r, code | 1, rules) != MOVE_INFINITE:
                out[n] = code | 1
                n += 1
    return n


@njit(cache=True)
def gen_moves(st, rules, out):
    """Write the legal move codes of the side to move into ``out[:n]`` (ascending)
    and return ``n`` (0 when the game is over). ``out`` needs ``MAX_MOVES`` slots."""
    scratch = np.empty((1, STATE_SIZE), dtype=np.int32)
    return _gen_into(st, rules, out, scratch, False)  # ascending by construction


@njit(cache=True)
def gen_moves_with_results(st, rules, out, results):
    """:func:`gen_moves` that also leaves the position after move ``out[k]`` in
    ``results[k]`` (shape ``(MAX_MOVES, STATE_SIZE)``): search needs no re-play."""
    return _gen_into(st, rules, out, results, True)


_gen = gen_moves_with_results  # the name engine/search_core.py imports


@njit(cache=True)
def apply_move(st, code, rules):
    """Play legal move ``code`` in place. Returns ``MOVE_OK``, ``MOVE_GAME_OVER``
    (``st[WINNER]`` is set) or ``MOVE_INFINITE`` (the move sows more than
    ``max_sown``; ``st`` is then left half-played: use :func:`apply_copy`)."""
    status = _execute(st, code, rules)
    if status == MOVE_INFINITE:
        return MOVE_INFINITE
    return status & 1


@njit(cache=True)
def apply_copy(st, code, rules):
    """The position after ``code``; ``st`` is unchanged."""
    r = st.copy()
    apply_move(r, code, rules)
    return r


@njit(cache=True)
def captured_seeds_of_move(st, code, rules):
    """Seeds ``code`` would capture in total (0 for a kutakata)."""
    r = st.copy()
    _execute(r, code, rules)
    return r[CAPTURED]


@njit(cache=True)
def game_result(st, rules):
    """Winner of a finished game, or ``NO_WINNER`` while it goes on: a move
    ended it, a front row is empty, or the side to move has no legal move."""
    if st[WINNER] != NO_WINNER:
        return st[WINNER]
    w = _front_empty_winner(st)
    if w != NO_WINNER:
        return w
    out = np.empty(MAX_MOVES, dtype=np.int32)
    results = np.empty((1, STATE_SIZE), dtype=np.int32)
    if _gen_into(st, rules, out, results, False) == 0:
        return 1 - st[TO_MOVE]
    return NO_WINNER


@njit(cache=True)
def random_playout(st, rules, seed, max_plies):
    """Play uniformly random legal moves from ``st`` (not modified) until the
    game ends. Returns ``(winner, plies)``; winner ``DRAW`` if ``max_plies``
    is reached first."""
    np.random.seed(seed)
    cur = st.copy()
    out = np.empty(MAX_MOVES, dtype=np.int32)
    results = np.empty((MAX_MOVES, STATE_SIZE), dtype=np.int32)
    plies = 0
    while plies < max_plies:
        if cur[WINNER] != NO_WINNER:
            return cur[WINNER], plies
        n = _gen_into(cur, rules, out, results, True)
        if n == 0:
            w = _front_empty_winner(cur)
            if w == NO_WINNER:
                w = 1 - cur[TO_MOVE]
            return w, plies
        k = np.random.randint(0, n)
        cur[:] = results[k]
        plies += 1
    return DRAW, plies


from engine.core_convert import (  # noqa: E402  (the converters use the kernels above)
    json_from_state,
    move_from_engine,
    move_to_engine,
    position_from_state,
    rules_array,
    state_from_json,
    state_from_position,
)

__all__ = [
    "apply_copy",
    "apply_move",
    "captured_seeds_of_move",
    "game_result",
    "gen_moves",
    "gen_moves_with_results",
    "json_from_state",
    "make_rules",
    "move_from_engine",
    "move_to_engine",
    "position_from_state",
    "random_playout",
    "rules_array",
    "start_state",
    "state_from_json",
    "state_from_position",
]
