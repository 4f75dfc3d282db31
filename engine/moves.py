"""Legal moves of Bao la Kiswahili and what a move does (BAO_RULES.md §1-§5).

This module is the rules, written to be read next to BAO_RULES.md: clause
numbers are in the comments. It works on :class:`State` (a flat board, see
:mod:`engine.holes`) and knows nothing of notation or files; the public API is
:class:`engine.position.Position`.

A move is found in two steps. :func:`start_plans` lists every way to *start*
a move that the rules allow (hole, direction, and what kind of start it is);
:func:`play_plan` then plays the whole move from that start — sowing,
relays, captures, the nyumba — and returns the new state with a trace, or None
when the move never ends (more than ``Rules.max_sown`` seeds sown, 1.5.6).
:func:`legal_results` joins the two and adds the safari choice.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.holes import (
    ANTICLOCKWISE,
    CLOCKWISE,
    LEFT_KICHWA,
    NYUMBA,
    RIGHT_KICHWA,
    hole_name,
    opposite,
    step_of,
)
from engine.notation import Move
from engine.rules import Rules
from engine.trace import (
    CAPTURE,
    DROP,
    END_BLOCKED,
    END_EMPTY_HOLE,
    END_NYUMBA_KUTAKATA,
    END_NYUMBA_STOP,
    END_OPPONENT_EMPTY,
    END_OWN_EMPTY,
    KEEP,
    PICKUP,
    RESERVE,
    SAFARI,
    TAX,
    Trace,
    TraceStep,
)


@dataclass(slots=True)
class State:
    """The bare game state: 32 counts, reserves, nyumba ownership, side to move, block.

    ``board[16 * side + r]`` (see :mod:`engine.holes`); ``blocked`` is the ring
    index (0..7, front row) of the side to move's kutakatia-blocked hole.
    """

    board: list[int]
    reserve: list[int]
    owned: list[bool]
    to_move: int
    blocked: int | None = None

    def copy(self) -> State:
        return State(self.board[:], self.reserve[:], self.owned[:], self.to_move, self.blocked)

    def key(self) -> tuple[object, ...]:
        return (
            tuple(self.board),
            tuple(self.reserve),
            tuple(self.owned),
            self.to_move,
            self.blocked,
        )

    def front(self, side: int) -> list[int]:
        return self.board[16 * side : 16 * side + 8]


# Kinds of move start.
KUNAMUA_CAPTURE = "kunamua capture"  # 2.2: reserve seed into a hole, capture the opposite hole
KUNAMUA_KUTAKATA = "kunamua kutakata"  # 2.3: reserve seed into a front hole, sow all of it
NYUMBA_TAX = "nyumba tax"  # 2.3.2 / 4.2.2.2: reserve seed into the nyumba, sow two
MTAJI_CAPTURE = "mtaji capture"  # 3.4: empty a hole whose sowing ends in a capture
MTAJI_KUTAKATA = "mtaji kutakata"  # 3.5: empty a hole, no capture anywhere in the move
CAPTURE_STARTS = (KUNAMUA_CAPTURE, MTAJI_CAPTURE)


@dataclass(frozen=True, slots=True)
class Plan:
    """A way to start a move: its kind, the starting ring index and the direction sign."""

    kind: str
    r: int
    sign: str

    @property
    def capture(self) -> bool:
        return self.kind in CAPTURE_STARTS


@dataclass(frozen=True, slots=True)
class Result:
    """A move played out: the state after it, its trace, and whether it offered safari."""

    state: State
    trace: Trace
    offered_safari: bool


def front_row_empty(state: State, side: int) -> bool:
    """1.2.1: a player whose front row is empty has lost."""
    base = 16 * side
    return not any(state.board[base : base + 8])


def towards_back_row(r: int, sign: str) -> bool:
    """Whether a sowing leaving front ring index ``r`` towards ``sign`` goes straight
    into the back row (left kichwa ``<`` or right kichwa ``>``)."""
    return (r == LEFT_KICHWA and sign == "<") or (r == RIGHT_KICHWA and sign == ">")


# ---------------------------------------------------------------------------
# Which starts are allowed


def start_plans(state: State, rules: Rules) -> list[Plan]:
    """Every allowed start of a move for the side to move (before playing it out)."""
    if state.reserve[state.to_move] > 0:  # 1.7, 2: kunamua while the player has reserve seeds
        return _kunamua_plans(state, rules)
    return _mtaji_plans(state, rules)  # 3.1


def _kunamua_plans(state: State, rules: Rules) -> list[Plan]:
    me = state.to_move
    board, mine, theirs = state.board, 16 * me, 16 * (1 - me)
    front = board[mine : mine + 8]

    # 2.2, 2.2.1: capture if some own front hole and the hole facing it are occupied.
    captures: list[Plan] = []
    for r in range(8):
        if front[r] > 0 and board[theirs + opposite(r)] > 0:
            if r in (0, 1):  # 2.2.2 / 4.1: left kichwa or kimbi -> left kichwa
                signs = "<"
            elif r in (6, 7):  # right kichwa or kimbi -> right kichwa
                signs = ">"
            else:  # 2.2.2: the player chooses the kichwa
                signs = "<>"
            captures.extend(Plan(KUNAMUA_CAPTURE, r, s) for s in signs)
    if captures:  # 1.4.1, 1.5.1: capturing is compulsory
        return captures

    # 2.3: kutakata from an occupied front hole (never the back row).
    occupied = [r for r in range(8) if front[r] > 0]
    lone_kichwa = occupied in ([LEFT_KICHWA], [RIGHT_KICHWA])
    any_multi = any(n > 1 for n in front)
    owned = state.owned[me]
    plans: list[Plan] = []
    for r in occupied:
        if r == state.blocked:  # 5.1: kutakatia
            continue
        if r == NYUMBA and owned:
            only = occupied == [NYUMBA]
            if only and (front[r] >= 6 or rules.tax_small_nyumba):  # 2.3.2, 4.2.2.2, §7.5
                plans.extend(Plan(NYUMBA_TAX, r, s) for s in "<>")
                continue
            if front[r] >= 6:  # 2.3.2 / 4.2.2.1: not from the owned nyumba holding >= 6
                continue
            if not rules.kunamua_kutakata_from_small_nyumba:  # §7.3
                continue
        # 2.3.3: once the nyumba is lost, no singleton while a front hole holds more (§7.4).
        singleton_barred = not owned or not rules.kunamua_singletons_while_nyumba_owned
        if front[r] == 1 and any_multi and singleton_barred:
            continue
        for sign in "<>":
            if lone_kichwa and towards_back_row(r, sign):  # 2.3.1 / 1.5.3.1
                continue
            plans.append(Plan(KUNAMUA_KUTAKATA, r, sign))
    return plans


def _mtaji_plans(state: State, rules: Rules) -> list[Plan]:
    me = state.to_move
    board, mine = state.board, 16 * me

    # 3.4: a capture starts from any own hole (either row) whose sowing ends in a capture;
    # 3.3.1 at least two seeds, 3.4.2 at most 15 (§7.10).
    captures = [
        Plan(MTAJI_CAPTURE, r, sign)
        for r in range(16)
        if 2 <= board[mine + r] <= rules.max_capture_seeds
        for sign in "<>"
        if first_sowing_captures(state, rules, me, r, sign)
    ]
    if captures:  # 1.5.1
        return captures

    # 3.5: kutakata from a front hole with >= 2; 3.5.1 from the back row only if none.
    front = board[mine : mine + 8]
    starts = [r for r in range(8) if front[r] >= 2]
    if not starts:
        starts = [r for r in range(8, 16) if board[mine + r] >= 2]
    occupied = [r for r in range(8) if front[r] > 0]
    lone_kichwa = occupied in ([LEFT_KICHWA], [RIGHT_KICHWA])
    plans: list[Plan] = []
    for r in starts:
        if r == state.blocked:  # 5.1: kutakatia
            continue
        for sign in "<>":
            if lone_kichwa and towards_back_row(r, sign):  # 3.5.2 / 1.5.3.1
                continue
            plans.append(Plan(MTAJI_KUTAKATA, r, sign))
    return plans


def _sowing_holes(r: int, n: int, step: int, rules: Rules) -> list[int]:
    """Ring indices receiving the ``n`` seeds lifted from ``r`` (§7.10 lapping)."""
    holes: list[int] = []
    pos = r
    while len(holes) < n:
        pos = (pos + step) % 16
        if pos == r and rules.lap_skips_origin:
            continue
        holes.append(pos)
    return holes


def first_sowing_captures(state: State, rules: Rules, side: int, r: int, sign: str) -> bool:
    """3.4 / 1.4: does emptying ``side``'s hole ``r`` towards ``sign`` end in a capture?

    The last seed must fall in an own front hole that was already occupied,
    facing an occupied opponent front hole.
    """
    board, mine, theirs = state.board, 16 * side, 16 * (1 - side)
    n = board[mine + r]
    holes = _sowing_holes(r, n, step_of(r, sign), rules)
    last = holes[-1]
    if last >= 8:
        return False
    before = (0 if last == r else board[mine + last]) + holes.count(last) - 1
    return before > 0 and board[theirs + opposite(last)] > 0


def capture_targets(state: State, rules: Rules, side: int) -> set[int]:
    """Opponent front ring indices that ``side`` could capture by starting a move now."""
    board, mine, theirs = state.board, 16 * side, 16 * (1 - side)
    if state.reserve[side] > 0:  # 2.2
        return {
            opposite(r) for r in range(8) if board[mine + r] > 0 and board[theirs + opposite(r)] > 0
        }
    targets = set()
    for r in range(16):
        n = board[mine + r]
        if 2 <= n <= rules.max_capture_seeds:
            for sign in "<>":
                if first_sowing_captures(state, rules, side, r, sign):
                    last = _sowing_holes(r, n, step_of(r, sign), rules)[-1]
                    targets.add(opposite(last))
    return targets


def kutakatia_block(state: State, rules: Rules) -> int | None:
    """5.1: the hole blocked for the side to move Q after the opponent P's kutakata.

    P must threaten exactly one hole of Q and Q must have no capture; 5.1.1
    exempts Q's owned nyumba (also 4.2.3.1), Q's only occupied front hole and
    Q's only front hole holding more than one seed.
    """
    q = state.to_move
    p = 1 - q
    if capture_targets(state, rules, q):
        return None
    threats = capture_targets(state, rules, p)
    if len(threats) != 1:
        return None
    (hole,) = threats
    front = state.front(q)
    if hole == NYUMBA and state.owned[q]:  # 5.1.1.1
        return None
    if [r for r in range(8) if front[r] > 0] == [hole]:  # 5.1.1.2
        return None
    if [r for r in range(8) if front[r] > 1] == [hole]:  # 5.1.1.3
        return None
    return hole


# ---------------------------------------------------------------------------
# Playing a move out


class _Infinite(Exception):
    """1.5.6: the move sowed more than ``Rules.max_sown`` seeds."""


class _MovePlayer:
    """Plays one move from a start; every rule that acts during a move is a method here."""

    def __init__(self, state: State, rules: Rules, plan: Plan, safari: bool) -> None:
        self.s = state.copy()
        self.rules = rules
        self.plan = plan
        self.safari = safari
        self.me = state.to_move
        self.them = 1 - self.me
        self.mine = 16 * self.me
        self.theirs = 16 * self.them
        self.mtaji = state.reserve[self.me] == 0
        self.steps: list[TraceStep] = []
        self.sown = 0
        self.offered_safari = False
        self.end_reason = ""
        self.front_emptied = False  # own front row empty after a lift, not yet sown into

    # -- elementary actions -------------------------------------------------

    def name(self, r: int) -> str:
        return hole_name(self.me, r)

    def lift(self, r: int, kind: str = PICKUP) -> int:
        """Lift all seeds of own hole ``r`` (start, relay or safari)."""
        n = self.s.board[self.mine + r]
        self.s.board[self.mine + r] = 0
        self.steps.append(TraceStep(kind, self.name(r), n))
        if r == NYUMBA:  # 4.2: emptying the nyumba ends its ownership
            self.s.owned[self.me] = False
        if r < 8 and front_row_empty(self.s, self.me):
            self.front_emptied = True
        return n

    def sow(self, hand: int, pos: int, step: int, origin: int | None) -> int | None:
        """1.3: drop ``hand`` seeds one by one from ring index ``pos`` on; return the last
        hole, or None when the game ended during the sowing (§7.8)."""
        board = self.s.board
        last = pos
        for i in range(hand):
            if pos == origin and self.rules.lap_skips_origin:  # §7.10
                pos = (pos + step) % 16
            board[self.mine + pos] += 1
            self.steps.append(TraceStep(DROP, self.name(pos), 1))
            self.sown += 1
            if self.sown > self.rules.max_sown:  # 1.5.6
                raise _Infinite
            if self.front_emptied:
                self.front_emptied = False
                # 1.2.1 / §7.8: the front row stays empty while seeds go into the back row.
                if pos >= 8 and self.rules.lose_at_instant_own_empty:
                    self.keep_in_hand(hand - i - 1)
                    self.end_reason = END_OWN_EMPTY
                    return None
            last = pos
            pos = (pos + step) % 16
        return last

    def keep_in_hand(self, n: int) -> None:
        """§7.7/7.8: the game ended mid-move; seeds in hand count in the mover's reserve."""
        self.s.reserve[self.me] += n
        self.steps.append(TraceStep(KEEP, None, n))

    def capture(self, r: int, step: int) -> tuple[int, int, int] | None:
        """1.4: capture the opponent hole facing own front ``r``; return (seeds, first
        hole, step) for sowing them from a kichwa, or None when the game is over."""
        target = self.theirs + opposite(r)
        n = self.s.board[target]
        self.s.board[target] = 0
        self.steps.append(TraceStep(CAPTURE, hole_name(self.them, opposite(r)), n))
        if opposite(r) == NYUMBA:  # 4.2: a nyumba emptied by the opponent is lost
            self.s.owned[self.them] = False
        if self.mtaji and self.rules.nyumba_lost_at_mtaji_capture:  # 4.2.1.1, 3.2, §7.1
            self.s.owned[self.me] = False
        if self.rules.win_at_instant_capture and front_row_empty(self.s, self.them):
            self.keep_in_hand(n)  # 1.2.1, §7.7
            self.end_reason = END_OPPONENT_EMPTY
            return None
        if r in (0, 1):  # 1.4.5 / 4.1: left kichwa or kimbi -> left kichwa, clockwise
            step = CLOCKWISE
        elif r in (6, 7):  # right kichwa or kimbi -> right kichwa, anticlockwise
            step = ANTICLOCKWISE
        # 1.4.3/1.4.4: enter at the kichwa where the current direction starts.
        first = LEFT_KICHWA if step == CLOCKWISE else RIGHT_KICHWA
        return n, first, step

    # -- the move -----------------------------------------------------------

    def play(self) -> Result:
        plan, s, rules = self.plan, self.s, self.rules
        r = plan.r
        if plan.kind in (KUNAMUA_CAPTURE, KUNAMUA_KUTAKATA, NYUMBA_TAX):
            s.reserve[self.me] -= 1  # 2: every kunamua move takes one reserve seed
            self.steps.append(TraceStep(RESERVE, None, 1))
            s.board[self.mine + r] += 1
            self.steps.append(TraceStep(DROP, self.name(r), 1))

        last: int | None
        if plan.kind == KUNAMUA_CAPTURE:
            # 2.2.2: the sign names the kichwa; '<' enters at the left one (clockwise).
            step = CLOCKWISE if plan.sign == "<" else ANTICLOCKWISE
            last = r  # the reserve seed "ended" here; the loop below captures
        elif plan.kind == NYUMBA_TAX:
            # 2.3.2 / 4.2.2.2: only two seeds leave the nyumba, which stays owned.
            s.board[self.mine + r] -= 2
            self.steps.append(TraceStep(TAX, self.name(r), 2))
            step = step_of(r, plan.sign)
            last = self.sow(2, (r + step) % 16, step, None)
        else:  # 2.3, 3.3: empty the hole and sow from the next one
            step = step_of(r, plan.sign)
            hand = self.lift(r)
            last = self.sow(hand, (r + step) % 16, step, r)

        while last is not None:
            last, step = self.after_sowing(last, step)

        s.to_move = self.them
        s.blocked = None
        blocked = None
        game_over = front_row_empty(s, 0) or front_row_empty(s, 1)
        if not plan.capture and rules.kutakatia and not game_over:
            s.blocked = kutakatia_block(s, rules)  # 5.1
            if s.blocked is not None:
                blocked = hole_name(self.them, s.blocked)
        trace = Trace(
            move=str(Move(self.name(r), plan.sign, self.safari)),
            steps=self.steps,
            end_reason=self.end_reason,
            capture=plan.capture,
            sown=self.sown,
            blocked=blocked,
        )
        return Result(s, trace, self.offered_safari)

    def after_sowing(self, last: int, step: int) -> tuple[int | None, int]:
        """What happens where a sowing ended: end, capture, nyumba, block or relay (1.6)."""
        board, rules = self.s.board, self.rules
        count = board[self.mine + last]
        if count == 1:  # 1.5.4: the last seed fell in an empty hole
            self.end_reason = END_EMPTY_HOLE
            return None, step

        # 1.4, 1.5.3: only a move that started with a capture captures again (1.6.1).
        if self.plan.capture and last < 8 and board[self.theirs + opposite(last)] > 0:
            taken = self.capture(last, step)
            if taken is None:
                return None, step
            n, first, step = taken
            return self.sow(n, first, step, None), step

        # 4.2.1.3: the nyumba rules apply while it is owned and holds >= 6.
        if last == NYUMBA and self.s.owned[self.me] and count >= 6:
            if self.plan.capture:  # 4.2.1.2: stop, or safari ('+')
                self.offered_safari = True
                if not self.safari:
                    self.end_reason = END_NYUMBA_STOP
                    return None, step
                hand = self.lift(NYUMBA, SAFARI)
                return self.sow(hand, (last + step) % 16, step, NYUMBA), step
            if not self.mtaji or rules.kutakata_stops_at_nyumba_in_mtaji:  # 4.2.2.3.1, 1.6.2
                self.end_reason = END_NYUMBA_KUTAKATA
                return None, step

        if not self.plan.capture and last == self.s.blocked:  # 5.2 / 1.6.3
            self.end_reason = END_BLOCKED
            return None, step

        # 1.6 kuendelea: lift the whole hole and sow on in the same direction.
        hand = self.lift(last)
        return self.sow(hand, (last + step) % 16, step, last), step


def play_plan(state: State, rules: Rules, plan: Plan, safari: bool = False) -> Result | None:
    """Play a whole move from ``plan``; None if it is infinite (1.5.6, §7.9)."""
    try:
        return _MovePlayer(state, rules, plan, safari).play()
    except _Infinite:
        return None


def legal_results(state: State, rules: Rules) -> dict[Move, Result]:
    """Every legal move of the side to move with its result, sorted by move.

    Empty when the game is over (a front row is empty, 1.2.1) or the player has
    no legal move (1.2.2; every start infinite counts as none, 1.5.6).
    """
    if front_row_empty(state, 0) or front_row_empty(state, 1):
        return {}
    me = state.to_move
    results: dict[Move, Result] = {}
    for plan in start_plans(state, rules):
        hole = hole_name(me, plan.r)
        stopped = play_plan(state, rules, plan, safari=False)
        if stopped is None:
            continue
        results[Move(hole, plan.sign, False)] = stopped
        if stopped.offered_safari:  # 4.2.1.2: the same start, emptying the nyumba
            travelled = play_plan(state, rules, plan, safari=True)
            if travelled is not None:
                results[Move(hole, plan.sign, True)] = travelled
    return dict(sorted(results.items()))
