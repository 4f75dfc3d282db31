"""Move execution of the fast core: sowing, captures, relays, the nyumba,
kutakatia (BAO_RULES.md §1–§5). Layout and API: :mod:`engine.core`."""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.core_layout import (
    BLOCKED,
    CAPTURED,
    END_FRONT_CAPTURED,
    END_FRONT_LIFTED,
    END_NONE,
    END_REASON,
    HAND,
    MOVE_GAME_OVER,
    MOVE_INFINITE,
    MOVE_OK,
    NO_WINNER,
    NYUMBA,
    OWNED,
    R_KUTAKATA_STOPS_AT_NYUMBA_IN_MTAJI,
    R_KUTAKATIA,
    R_LAP_SKIPS_ORIGIN,
    R_LOSE_AT_INSTANT_OWN_EMPTY,
    R_MAX_CAPTURE_SEEDS,
    R_MAX_SOWN,
    R_NYUMBA_LOST_AT_MTAJI_CAPTURE,
    R_TAX_SMALL_NYUMBA,
    R_WIN_AT_INSTANT_CAPTURE,
    RESERVE,
    SOWN,
    TO_MOVE,
    WAS_CAPTURE,
    WINNER,
)


@njit(cache=True)
def front_occupancy(st, base):
    """(occupied holes, holes with 2+ seeds) of the front row starting at ``st[base]``."""
    occupied = 0
    big = 0
    for i in range(8):
        if st[base + i] > 0:
            occupied += 1
            if st[base + i] > 1:
                big += 1
    return occupied, big


@njit(cache=True)
def _front_sum(st, base):
    s = 0
    for i in range(8):
        s += st[base + i]
    return s


@njit(cache=True)
def _long_sowing_end(st, mb, h, c, d, skip_origin):
    """Last hole of a sowing of ``c`` seeds lifted from ``h`` and that hole's
    count just before its last seed (the slow path for laps, c >= 16)."""
    q = h
    last = h
    for _ in range(c):
        q = (q + d) & 15
        if skip_origin and q == h:
            q = (q + d) & 15
        last = q
    hits = 0  # seeds the same sowing dropped into `last` before its last one
    q = h
    for _ in range(c - 1):
        q = (q + d) & 15
        if skip_origin and q == h:
            q = (q + d) & 15
        if q == last:
            hits += 1
    return last, hits + (0 if last == h else st[mb + last])


@njit(cache=True)
def _mtaji_capture_target(st, me, h, d, rules):
    """Opponent front ring index captured by the first sowing of a mtaji move
    from ``h`` in direction ``d`` (3.4), or -1 if that sowing captures nothing."""
    mb = me * 16
    c = st[mb + h]
    if c < 2 or c > rules[R_MAX_CAPTURE_SEEDS]:  # 1.3.2, 3.4.2
        return -1
    if c < 16:
        last = (h + c * d) & 15
        before = st[mb + last]
    else:
        last, before = _long_sowing_end(st, mb, h, c, d, rules[R_LAP_SKIPS_ORIGIN] == 1)
    if last < 8 and before > 0:
        t = 7 - last
        if st[(1 - me) * 16 + t] > 0:
            return t
    return -1


@njit(cache=True)
def _capture_targets(st, me, rules, mark):
    """Mark (``mark[t] = 1``) the opponent front holes that ``me`` could capture
    if it were ``me``'s turn; return how many distinct holes."""
    for t in range(8):
        mark[t] = 0
    mb = me * 16
    ob = (1 - me) * 16
    n = 0
    if st[RESERVE + me] > 0:  # kunamua (2.2): any occupied facing pair
        for i in range(8):
            if st[mb + i] > 0 and st[ob + 7 - i] > 0 and mark[7 - i] == 0:
                mark[7 - i] = 1
                n += 1
    else:
        for h in range(16):
            for d in (1, -1):
                t = _mtaji_capture_target(st, me, h, d, rules)
                if t >= 0 and mark[t] == 0:
                    mark[t] = 1
                    n += 1
    return n


@njit(cache=True)
def _has_capture(st, me, rules):
    mb = me * 16
    ob = (1 - me) * 16
    if st[RESERVE + me] > 0:
        for i in range(8):  # noqa: SIM110  (numba: no generator in any())
            if st[mb + i] > 0 and st[ob + 7 - i] > 0:
                return True
        return False
    for h in range(16):
        if _mtaji_capture_target(st, me, h, 1, rules) >= 0:
            return True
        if _mtaji_capture_target(st, me, h, -1, rules) >= 0:
            return True
    return False


@njit(cache=True)
def _kutakatia_block(st, p, rules):
    """After P's kutakata (P = ``p``, Q to move next): the ring index of Q's
    hole blocked by kutakatia (5.1, 5.1.1), or -1."""
    if rules[R_KUTAKATIA] == 0:
        return -1
    q = 1 - p
    mark = np.empty(8, dtype=np.int32)
    if _capture_targets(st, p, rules, mark) != 1:
        return -1
    if _has_capture(st, q, rules):
        return -1
    t = 0
    for i in range(8):
        if mark[i] == 1:
            t = i
    qb = q * 16
    if t == NYUMBA and st[OWNED + q] == 1:  # 5.1.1.1, 4.2.3.1
        return -1
    occupied, big = front_occupancy(st, qb)
    if occupied == 1:  # 5.1.1.2 (t is occupied: it faces P's capture)
        return -1
    if big == 1 and st[qb + t] > 1:  # 5.1.1.3
        return -1
    return t


@njit(cache=True)
def _finish(st, me, status, captured, sown, capture_move):
    st[CAPTURED] = captured
    st[SOWN] = sown
    st[WAS_CAPTURE] = 1 if capture_move else 0
    st[TO_MOVE] = 1 - me
    return status


@njit(cache=True)
def _game_over(st, me, winner, reason, hand):
    """End the game mid-move: the seeds in hand go to the mover's reserve (§7 #7/#8)."""
    st[WINNER] = winner
    st[END_REASON] = reason
    st[HAND] = hand
    st[RESERVE + me] += hand
    st[BLOCKED] = -1


@njit(cache=True)
def _execute(st, code, rules):
    """Play move ``code`` for the side to move, in place.

    Returns ``MOVE_OK``/``MOVE_GAME_OVER``/``MOVE_INFINITE``, plus 2 when the
    stop-or-safari choice (4.2.1.2) arose during the move.
    """
    me = st[TO_MOVE]
    opp = 1 - me
    mb = me * 16
    ob = opp * 16
    h = code >> 2
    d = 1 if (code >> 1) & 1 else -1
    safari = code & 1
    kunamua = st[RESERVE + me] > 0
    capture_move = _has_capture(st, me, rules)
    blocked = st[BLOCKED]
    max_sown = rules[R_MAX_SOWN]
    instant_win = rules[R_WIN_AT_INSTANT_CAPTURE] == 1
    instant_loss = rules[R_LOSE_AT_INSTANT_OWN_EMPTY] == 1
    skip_origin = rules[R_LAP_SKIPS_ORIGIN] == 1
    lose_on_capture = (not kunamua) and rules[R_NYUMBA_LOST_AT_MTAJI_CAPTURE] == 1
    kutakata_stops = kunamua or rules[R_KUTAKATA_STOPS_AT_NYUMBA_IN_MTAJI] == 1
    my_front = _front_sum(st, mb)
    opp_front = _front_sum(st, ob)
    sown = 0
    captured = 0
    choice = 0
    st[WINNER] = NO_WINNER
    st[END_REASON] = END_NONE
    st[HAND] = 0
    st[BLOCKED] = -1

    hand = 0
    nxt = 0
    origin = -1  # hole the seeds in hand were lifted from (-1: captured seeds)
    p = h  # hole where the current sowing ended
    capture_now = False
    if kunamua:
        st[RESERVE + me] -= 1  # every kunamua move takes a reserve seed (2.)
        if capture_move:  # 2.2: seed into h, capture opposite, d = kichwa choice
            st[mb + h] += 1
            my_front += 1
            capture_now = True
        else:
            alone = my_front == st[mb + NYUMBA]
            if (
                h == NYUMBA
                and st[OWNED + me] == 1
                and alone
                and (st[mb + NYUMBA] >= 6 or rules[R_TAX_SMALL_NYUMBA] == 1)
            ):
                st[mb + NYUMBA] -= 1  # 2.3.2 tax: +1 reserve seed, 2 taken out
                my_front -= 1
                hand = 2
            else:  # 2.3: seed into a front hole, lift it all
                hand = st[mb + h] + 1
                st[mb + h] = 0
                my_front -= hand - 1
                origin = h
                if h == NYUMBA:
                    st[OWNED + me] = 0
            nxt = (h + d) & 15
    else:  # 3.3: empty a hole and sow from the next one
        hand = st[mb + h]
        st[mb + h] = 0
        origin = h
        if h < 8:
            my_front -= hand
        if h == NYUMBA:
            st[OWNED + me] = 0
        nxt = (h + d) & 15

    while True:
        if not capture_now:
            q = nxt
            for k in range(hand):
                if skip_origin and q == origin:  # §7 #10 option
                    q = (q + d) & 15
                st[mb + q] += 1
                p = q
                if q < 8:
                    my_front += 1
                elif my_front == 0 and instant_loss:  # 1.2.1 / §7 #8: own front row empty
                    _game_over(st, me, opp, END_FRONT_LIFTED, hand - k - 1)
                    status = MOVE_GAME_OVER + choice
                    return _finish(st, me, status, captured, sown + k + 1, capture_move)
                q = (q + d) & 15
            sown += hand
            if sown > max_sown:  # 1.5.6 / §7 #9
                return MOVE_INFINITE
            cnt = st[mb + p]
            if cnt == 1:  # ended in an empty hole (1.5.4)
                break
            capture_now = capture_move and p < 8 and st[ob + 7 - p] > 0
            if not capture_now:
                if p == NYUMBA and st[OWNED + me] == 1 and cnt >= 6:
                    if capture_move:  # 4.2.1.2 stop or safari
                        choice = 2
                        if safari == 0:
                            break
                    elif kutakata_stops:  # 4.2.2.3.1, §7 #2
                        break
                if p == blocked and not capture_move:  # 5.2 / 1.6.3
                    break
                hand = cnt  # 1.6 kuendelea
                st[mb + p] = 0
                origin = p
                if p < 8:
                    my_front -= cnt
                if p == NYUMBA:
                    st[OWNED + me] = 0
                nxt = (p + d) & 15
                continue
        # capture at own front hole p (1.4)
        capture_now = False
        t = 7 - p
        c = st[ob + t]
        st[ob + t] = 0
        opp_front -= c
        captured += c
        if t == NYUMBA:
            st[OWNED + opp] = 0
        if lose_on_capture:  # 4.2.1.1 / §7 #1
            st[OWNED + me] = 0
        if opp_front == 0 and instant_win:  # 1.2.1 / §7 #7: seeds stay in hand
            _game_over(st, me, me, END_FRONT_CAPTURED, c)
            return _finish(st, me, MOVE_GAME_OVER + choice, captured, sown, capture_move)
        if p <= 1:  # 1.4.5 / 4.1
            d = 1
        elif p >= 6:
            d = -1
        nxt = 0 if d == 1 else 7  # 1.4.3/1.4.4: the kichwa receives the first seed
        hand = c
        origin = -1

    if opp_front == 0:  # only when the instant rules (§7 #7/#8) are off
        _game_over(st, me, me, END_FRONT_CAPTURED, 0)
        return _finish(st, me, MOVE_GAME_OVER + choice, captured, sown, capture_move)
    if my_front == 0:
        _game_over(st, me, opp, END_FRONT_LIFTED, 0)
        return _finish(st, me, MOVE_GAME_OVER + choice, captured, sown, capture_move)
    _finish(st, me, MOVE_OK, captured, sown, capture_move)
    if not capture_move:
        st[BLOCKED] = _kutakatia_block(st, me, rules)
    return MOVE_OK + choice
