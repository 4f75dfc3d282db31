"""The fast search: the alpha-beta of engine/search.py as numba functions over engine.core.

Same algorithm as :func:`engine.search.search_position` (iterative-deepening
negamax alpha-beta, transposition table, multi-PV root), plus principal
variation search (null windows after the first move), killer moves and a
history table for move ordering, captures first. Positions are the fast
core's int32 state arrays; moves its int codes. The evaluation is
:func:`engine.evaluate.feature_kernel` compiled by numba, dotted with the
weights.

Only :func:`best_move_fast` is meant to be called from outside (through
``engine.search.best_move``). Importing this module imports numba; the first
call in a process compiles or loads the cached machine code (~1 s).
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Any

import numpy as np


def _purge_stale_cache() -> None:
    """Drop numba's cached machine code when the core or this search changed.

    numba checks only the timestamp of a function's own file, so code cached
    here would go on calling an old build of engine.core (a crash when the
    state layout moved). The sources' hash is kept beside the cache files.
    """
    here = Path(__file__).parent
    names = ["core.py", "core_move.py", "core_layout.py", "evaluate.py", "search_core.py"]
    digest = hashlib.sha1()
    for name in names:
        src = here / name
        if src.exists():
            digest.update(src.read_bytes())
    cache = here / "__pycache__"
    stamp = cache / "search_core.fingerprint"
    try:
        if stamp.exists() and stamp.read_text() == digest.hexdigest():
            return
        for name in names:
            for f in cache.glob(name.replace(".py", ".*.nb[ic]")):
                f.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:  # a read-only install: numba then does not cache either
        pass


_purge_stale_cache()

from numba import njit, objmode  # noqa: E402

from engine import core  # noqa: E402
from engine.core import MAX_MOVES, NO_WINNER, STATE_SIZE, TO_MOVE, WINNER, _gen  # noqa: E402
from engine.evaluate import (  # noqa: E402
    N_FEATURES,
    feature_kernel,
    load_weights,
    weight_vector,
)
from engine.search import (  # noqa: E402
    INF,
    PROVEN_MARGIN,
    WIN_SCORE,
    SearchResult,
    proven_text,
)

MAX_PLY = 64
TT_BITS = 20
TT_SIZE = 1 << TT_BITS
EXACT, LOWER, UPPER = 0, 1, 2

# counters array slots
C_NODES, C_LIMIT, C_ABORT, C_DONE = 0, 1, 2, 3

_features = njit(cache=True)(feature_kernel)


def _zobrist() -> np.ndarray:
    rng = np.random.default_rng(0x5EED_BA0)
    # rows 0..43: one key per state slot and value 0..64 (slots beyond 37 unused)
    return rng.integers(1, 2**63 - 1, size=(STATE_SIZE, 66), dtype=np.int64).astype(np.uint64)


ZOBRIST = _zobrist()


@njit(cache=True)
def _now() -> float:
    with objmode(t="float64"):
        t = time.perf_counter()
    return t


@njit(cache=True)
def _hash(st, zob):
    h = np.uint64(0)
    for i in range(38):  # holes, reserves, ownership, side to move, blocked
        v = st[i] + 1  # blocked is -1..15
        if v > 65:
            v = 65
        h ^= zob[i, v]
    return h


@njit(cache=True)
def _evaluate(st, w, fbuf):
    _features(st, fbuf)
    s = 0.0
    for k in range(fbuf.shape[0]):
        s += w[k] * fbuf[k]
    return s


@njit(cache=True)
def _to_tt(score, ply):
    if score > WIN_SCORE - PROVEN_MARGIN:
        return score + ply
    if score < -(WIN_SCORE - PROVEN_MARGIN):
        return score - ply
    return score


@njit(cache=True)
def _from_tt(score, ply):
    if score > WIN_SCORE - PROVEN_MARGIN:
        return score - ply
    if score < -(WIN_SCORE - PROVEN_MARGIN):
        return score + ply
    return score


@njit(cache=True)
def _front_empty_winner(st):
    s0 = 0
    s1 = 0
    for i in range(8):
        s0 += st[i]
        s1 += st[16 + i]
    if s0 == 0:
        return 1
    if s1 == 0:
        return 0
    return NO_WINNER


@njit(cache=True)
def _stuck(st, me):
    """True when `me`, in mtaji, has no hole with two seeds: no move can start (3.3)."""
    b = 16 * me
    if st[core.RESERVE + me] > 0:
        return False
    for r in range(16):  # noqa: SIM110  (numba compiles no generators)
        if st[b + r] >= 2:
            return False
    return True


@njit(cache=True)
def _check_limits(counters, deadline):
    over_nodes = counters[C_LIMIT] > 0 and counters[C_NODES] >= counters[C_LIMIT]
    if over_nodes or (deadline > 0.0 and (counters[C_NODES] & 511) == 0 and _now() >= deadline):
        counters[C_ABORT] = 1


_ENTER, _NEXT, _RETURN, _PROCESS = 0, 1, 2, 3
_FULL, _NULL = 0, 1


@njit(cache=True)
def _search(
    root, depth0, rules, w, fbuf, zob,
    tt_key, tt_score, tt_depth, tt_flag, tt_move,
    moves, results, keys, killers, history, counters, deadline,
    root_order, top, scores,
):  # fmt: skip
    """One iteration of negamax alpha-beta (fail-soft, PVS) to `depth0` plies.

    Written as a loop over an explicit stack, not as a recursive function:
    numba's cache crashes on recursive functions (numba#6061). The node at
    ply p > 0 is results[p - 1, IDX[p - 1]]; its moves and children are
    moves[p], results[p]. At the root the moves of `_gen` are searched in
    `root_order` (indices); scores[k] receives root_order[k]'s value and
    counters[C_DONE] how many root moves finished. Scores above the multi-PV
    bar (the (top+1)-th best so far) are exact, the others upper bounds at
    most that bar. Returns the best root score.
    """
    A = np.empty(MAX_PLY)  # window low
    B = np.empty(MAX_PLY)  # window high
    BEST = np.empty(MAX_PLY)
    ALPHA0 = np.empty(MAX_PLY)
    D = np.zeros(MAX_PLY, dtype=np.int64)  # remaining depth
    J = np.zeros(MAX_PLY, dtype=np.int64)  # current move number
    N = np.zeros(MAX_PLY, dtype=np.int64)  # number of moves
    IDX = np.zeros(MAX_PLY, dtype=np.int64)  # row of the current child
    ME = np.zeros(MAX_PLY, dtype=np.int64)  # side to move
    STAGE = np.zeros(MAX_PLY, dtype=np.int64)  # full or null window
    BC = np.zeros(MAX_PLY, dtype=np.int64)  # best move code
    SLOT = np.zeros(MAX_PLY, dtype=np.int64)
    H = np.zeros(MAX_PLY, dtype=np.uint64)
    best_vals = np.full(top + 1, -INF)
    mask = np.uint64(TT_SIZE - 1)

    _gen(root, rules, moves[0], results[0])
    D[0] = depth0
    ME[0] = root[TO_MOVE]
    N[0] = root_order.shape[0]
    J[0] = -1
    p = 0
    action = _NEXT
    value = 0.0  # value of the node just finished, for its own side to move
    score = 0.0  # value of the current move at ply p, for ME[p]
    while True:
        if action == _ENTER:
            st = results[p - 1, IDX[p - 1]]
            me = ME[p]
            counters[C_NODES] += 1
            _check_limits(counters, deadline)
            if counters[C_ABORT] != 0:
                counters[C_DONE] = J[0]
                return best_vals[0]
            if D[p] <= 0 or p >= MAX_PLY - 1:
                # a mover in mtaji without a two-seed hole has no move and loses (1.2.2)
                value = -(WIN_SCORE - p) if _stuck(st, me) else _evaluate(st, w, fbuf)
                action = _RETURN
                continue
            h = _hash(st, zob)
            slot = np.int64(h & mask)
            H[p] = h
            SLOT[p] = slot
            tt_code = -1
            if tt_key[slot] == h:
                tt_code = tt_move[slot]
                if tt_depth[slot] >= D[p]:
                    s = _from_tt(tt_score[slot], p)
                    f = tt_flag[slot]
                    if f == EXACT or (f == LOWER and s >= B[p]) or (f == UPPER and s <= A[p]):
                        value = s
                        action = _RETURN
                        continue
            out = moves[p]
            res = results[p]
            n = _gen(st, rules, out, res)
            if n == 0:  # game over: a front row is empty, or no legal move (1.2)
                wnr = st[WINNER]
                if wnr == NO_WINNER:
                    wnr = _front_empty_winner(st)
                if wnr == NO_WINNER:
                    wnr = 1 - me
                value = WIN_SCORE - p if wnr == me else -(WIN_SCORE - p)
                action = _RETURN
                continue
            # Order: table move, killers, then captured seeds and history.
            kk = keys[p]
            for i in range(n):
                code = out[i]
                if code == tt_code:
                    kk[i] = 1e12
                elif code == killers[p, 0]:
                    kk[i] = 1e10
                elif code == killers[p, 1]:
                    kk[i] = 1e9
                else:
                    kk[i] = res[i, core.CAPTURED] * 1e6 + history[me, code]
            N[p] = n
            J[p] = -1
            BEST[p] = -INF
            ALPHA0[p] = A[p]
            BC[p] = out[0]
            action = _NEXT
            continue

        if action == _NEXT:
            J[p] += 1
            j = J[p]
            if j >= N[p]:
                if p == 0:
                    counters[C_DONE] = N[0]
                    return best_vals[0]
                value = BEST[p]
                _store(tt_key, tt_score, tt_depth, tt_flag, tt_move, SLOT[p], H[p],
                       value, p, D[p], ALPHA0[p], B[p], BC[p])  # fmt: skip
                action = _RETURN
                continue
            if p == 0:
                idx = root_order[j]
            else:
                out = moves[p]
                res = results[p]
                kk = keys[p]
                m = j  # selection sort step: bring the best remaining move to j
                for i in range(j + 1, N[p]):
                    if kk[i] > kk[m]:
                        m = i
                if m != j:
                    kk[j], kk[m] = kk[m], kk[j]
                    c = out[j]
                    out[j] = out[m]
                    out[m] = c
                    for x in range(STATE_SIZE):
                        t = res[j, x]
                        res[j, x] = res[m, x]
                        res[m, x] = t
                idx = j
            IDX[p] = idx
            child = results[p, idx]
            me = ME[p]
            wnr = child[WINNER]
            if wnr == NO_WINNER:
                wnr = _front_empty_winner(child)
            if wnr != NO_WINNER:
                score = WIN_SCORE - (p + 1) if wnr == me else -(WIN_SCORE - (p + 1))
                action = _PROCESS
                continue
            if p == 0:
                if D[0] <= 1:
                    counters[C_NODES] += 1
                    score = WIN_SCORE - 1 if _stuck(child, 1 - me) else -_evaluate(child, w, fbuf)
                    action = _PROCESS
                    continue
                bar = best_vals[top]
                if bar <= -INF:
                    STAGE[0] = _FULL
                    A[1] = -INF
                    B[1] = INF
                else:
                    STAGE[0] = _NULL
                    A[1] = -bar - 1e-6
                    B[1] = -bar
            elif j == 0:
                STAGE[p] = _FULL
                A[p + 1] = -B[p]
                B[p + 1] = -A[p]
            else:
                STAGE[p] = _NULL
                A[p + 1] = -A[p] - 1e-6
                B[p + 1] = -A[p]
            D[p + 1] = D[p] - 1
            ME[p + 1] = 1 - me
            p += 1
            action = _ENTER
            continue

        if action == _RETURN:
            p -= 1
            score = -value
            if STAGE[p] == _NULL:
                if p == 0:
                    bar = best_vals[top]
                    if score > bar:  # beat the bar: re-search for the exact value
                        STAGE[0] = _FULL
                        A[1] = -INF
                        B[1] = -bar
                        p = 1
                        action = _ENTER
                        continue
                elif score > A[p] and score < B[p]:
                    STAGE[p] = _FULL
                    A[p + 1] = -B[p]
                    B[p + 1] = -A[p]
                    p += 1
                    action = _ENTER
                    continue
            action = _PROCESS
            continue

        # _PROCESS: the current move at ply p scored `score`
        if p == 0:
            scores[J[0]] = score
            if score > best_vals[top]:  # insert into the sorted top+1 list
                i = top
                while i > 0 and best_vals[i - 1] < score:
                    best_vals[i] = best_vals[i - 1]
                    i -= 1
                best_vals[i] = score
            action = _NEXT
            continue
        action = _NEXT
        if score > BEST[p]:
            BEST[p] = score
            BC[p] = moves[p, J[p]]
            if score > A[p]:
                A[p] = score
                if score >= B[p]:
                    code = moves[p, J[p]]
                    if results[p, J[p], core.CAPTURED] == 0 and killers[p, 0] != code:
                        killers[p, 1] = killers[p, 0]
                        killers[p, 0] = code
                    history[ME[p], code] += D[p] * D[p]
                    value = BEST[p]
                    _store(tt_key, tt_score, tt_depth, tt_flag, tt_move, SLOT[p], H[p],
                           value, p, D[p], ALPHA0[p], B[p], BC[p])  # fmt: skip
                    action = _RETURN


@njit(cache=True)
def _store(tt_key, tt_score, tt_depth, tt_flag, tt_move, slot, h, best, ply, depth, alpha0, beta,
           code):  # fmt: skip
    flag = UPPER if best <= alpha0 else (LOWER if best >= beta else EXACT)
    if tt_key[slot] != h or tt_depth[slot] <= depth:
        tt_key[slot] = h
        tt_score[slot] = _to_tt(best, ply)
        tt_depth[slot] = depth
        tt_flag[slot] = flag
        tt_move[slot] = code


@njit(cache=True)
def _pv_codes(st, first, limit, rules, zob, tt_key, tt_move, out):
    """Follow the table's best moves from the position after `first`."""
    cur = core.apply_copy(st, first, rules)
    out[0] = first
    n = 1
    codes = np.empty(MAX_MOVES, dtype=np.int32)
    while n < limit:
        if cur[WINNER] != NO_WINNER or _front_empty_winner(cur) != NO_WINNER:
            break
        h = _hash(cur, zob)
        slot = np.int64(h & np.uint64(TT_SIZE - 1))
        if tt_key[slot] != h:
            break
        code = tt_move[slot]
        m = core.gen_moves(cur, rules, codes)
        ok = False
        for i in range(m):
            if codes[i] == code:
                ok = True
        if not ok:
            break
        out[n] = code
        n += 1
        core.apply_move(cur, code, rules)
    return n


class _Tables:
    """Search memory reused between calls in one process (cleared per call)."""

    def __init__(self) -> None:
        self.tt_key = np.zeros(TT_SIZE, dtype=np.uint64)
        self.tt_score = np.zeros(TT_SIZE, dtype=np.float64)
        self.tt_depth = np.zeros(TT_SIZE, dtype=np.int16)
        self.tt_flag = np.zeros(TT_SIZE, dtype=np.int8)
        self.tt_move = np.zeros(TT_SIZE, dtype=np.int32)
        self.moves = np.zeros((MAX_PLY, MAX_MOVES), dtype=np.int32)
        self.results = np.zeros((MAX_PLY, MAX_MOVES, STATE_SIZE), dtype=np.int32)
        self.keys = np.zeros((MAX_PLY, MAX_MOVES), dtype=np.float64)
        self.killers = np.full((MAX_PLY, 2), -1, dtype=np.int32)
        self.history = np.zeros((2, MAX_MOVES), dtype=np.float64)
        self.fbuf = np.zeros(N_FEATURES, dtype=np.float64)

    def clear(self) -> None:
        self.tt_key[:] = 0
        self.tt_depth[:] = 0
        self.killers[:] = -1
        self.history[:] = 0.0


_TABLES: _Tables | None = None


def _tables() -> _Tables:
    global _TABLES
    if _TABLES is None:
        _TABLES = _Tables()
    return _TABLES


def _root_search(
    tb: _Tables,
    st: np.ndarray,
    order: np.ndarray,
    depth: int,
    top: int,
    rules: np.ndarray,
    weights: np.ndarray,
    counters: np.ndarray,
    deadline: float,
    scores: np.ndarray,
) -> int:
    """One iteration at the root; returns how many root moves finished."""
    _search(
        st, np.int64(depth), rules, weights, tb.fbuf, ZOBRIST,
        tb.tt_key, tb.tt_score, tb.tt_depth, tb.tt_flag, tb.tt_move,
        tb.moves, tb.results, tb.keys, tb.killers, tb.history, counters, float(deadline),
        order, np.int64(top), scores,
    )  # fmt: skip
    return int(counters[C_DONE])


_WARM = False


def _warm_up(tb: _Tables, rules: np.ndarray, weights: np.ndarray) -> None:
    """Compile (or load from numba's cache) every kernel before the clock starts."""
    global _WARM
    if _WARM:
        return
    st = core.start_state()
    codes = np.zeros(MAX_MOVES, dtype=np.int32)
    res = np.zeros((MAX_MOVES, STATE_SIZE), dtype=np.int32)
    n = _gen(st, rules, codes, res)
    counters = np.zeros(4, dtype=np.int64)
    counters[C_LIMIT] = 200
    scores = np.zeros(n, dtype=np.float64)
    order = np.arange(n, dtype=np.int64)
    _root_search(tb, st, order, 3, 1, rules, weights, counters, time.perf_counter() + 60, scores)
    pv = np.zeros(MAX_PLY, dtype=np.int32)
    _pv_codes(st, codes[0], 2, rules, ZOBRIST, tb.tt_key, tb.tt_move, pv)
    _WARM = True


def search_state(
    st: np.ndarray,
    rules: np.ndarray,
    weights: np.ndarray,
    time_limit: float | None,
    node_limit: int | None,
    top: int = 1,
    seed: int = 0,
    max_depth: int = 64,
) -> dict[str, Any]:
    """Search a core state; returns codes and scores (see best_move_fast)."""
    tb = _tables()
    _warm_up(tb, rules, weights)
    start = time.perf_counter()
    deadline = 0.0 if time_limit is None else start + time_limit
    tb.clear()
    root_codes = np.zeros(MAX_MOVES, dtype=np.int32)
    root_res = np.zeros((MAX_MOVES, STATE_SIZE), dtype=np.int32)
    n = _gen(st, rules, root_codes, root_res)
    if n == 0:
        raise ValueError("the game is over: there is no move to suggest")
    rng = np.random.default_rng(seed)
    order = rng.permutation(n).astype(np.int64)  # seeded tie-breaking
    ranked = [(int(i), 0.0) for i in order]
    counters = np.zeros(4, dtype=np.int64)
    counters[C_LIMIT] = 0 if node_limit is None else node_limit
    scores = np.zeros(n, dtype=np.float64)
    depth_done = 0
    max_depth = min(max_depth, MAX_PLY - 2)
    for depth in range(1, max_depth + 1):
        order = np.array([i for i, _ in ranked], dtype=np.int64)
        done = _root_search(tb, st, order, depth, top, rules, weights, counters, deadline, scores)
        if done < n:
            # Unfinished iteration: keep the last complete one, unless a move
            # searched now beat the previous best's new score (an exact value).
            if done > 1 and depth_done > 0:
                part = sorted(
                    ((int(order[k]), float(scores[k])) for k in range(done)), key=lambda x: -x[1]
                )
                if part[0][0] != ranked[0][0]:
                    seen = {i for i, _ in part}
                    ranked = part + [(i, s) for i, s in ranked if i not in seen]
            break
        ranked = sorted(((int(order[k]), float(scores[k])) for k in range(n)), key=lambda x: -x[1])
        depth_done = depth
        if abs(ranked[0][1]) > WIN_SCORE - PROVEN_MARGIN:
            break
        if n == 1 and depth >= 2:
            break
        if counters[C_ABORT]:
            break
    best_index, value = ranked[0]
    pv = np.zeros(MAX_PLY, dtype=np.int32)
    npv = _pv_codes(
        st, root_codes[best_index], max(depth_done, 1), rules, ZOBRIST, tb.tt_key, tb.tt_move, pv
    )
    return {
        "move": int(root_codes[best_index]),
        "evaluation": value,
        "pv": [int(c) for c in pv[:npv]],
        "alternatives": [(int(root_codes[i]), s) for i, s in ranked[1 : 1 + top]],
        "nodes": int(counters[C_NODES]),
        "time_s": time.perf_counter() - start,
        "depth": depth_done,
    }


def best_move_fast(
    position: Any,
    time_limit: float | None,
    node_limit: int | None,
    top: int,
    seed: int,
    weights: dict[str, float] | None,
    max_depth: int,
) -> SearchResult:
    """engine.search.best_move on the fast core (same arguments and result)."""
    st = core.state_from_position(position)
    engine_rules = getattr(position, "rules", None)
    rules = core.rules_array(engine_rules)
    w = weight_vector(load_weights() if weights is None else weights)
    r = search_state(st, rules, w, time_limit, node_limit, top, seed, max_depth)

    def to_move_obj(code: int, state: np.ndarray) -> Any:
        return core.move_to_engine(code, state, engine_rules)

    pv_moves = []
    cur = st.copy()
    for code in r["pv"]:
        pv_moves.append(to_move_obj(code, cur))
        core.apply_move(cur, code, rules)
    return SearchResult(
        move=to_move_obj(r["move"], st),
        evaluation=float(r["evaluation"]),
        proven=proven_text(r["evaluation"], position.to_move),
        pv=pv_moves,
        alternatives=[(to_move_obj(c, st), float(s)) for c, s in r["alternatives"]],
        nodes=r["nodes"],
        time_s=r["time_s"],
        depth=r["depth"],
        backend="fast",
    )
