"""The rule options of Bao la Kiswahili (BAO_RULES.md §7).

The sources disagree or are silent on a few points; each such point is a named
field of :class:`Rules` whose default is the project's reading of the rules.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rules:
    """Every open point of BAO_RULES.md §7 as a named option (defaults as stated there).

    Attributes
    ----------
    nyumba_lost_at_mtaji_capture:
        §7.1. True (FR/DE 4.2.1.1, 3.2): an owned nyumba is lost at the instant of
        its owner's first capture in mtaji, or when emptied. False (IT): only when
        emptied.
    kutakata_stops_at_nyumba_in_mtaji:
        §7.2. A kutakata sowing that ends in the owned nyumba holding >= 6 seeds
        ends the move in mtaji too (1.6.2), not only in kunamua (4.2.2.3.1).
    kunamua_kutakata_from_small_nyumba:
        §7.3. In kunamua a kutakata may start from an owned nyumba holding fewer
        than 6 seeds (it is then an ordinary hole; emptying it loses it).
    kunamua_singletons_while_nyumba_owned:
        §7.4. In kunamua a kutakata may start from a one-seed hole while the
        nyumba is still owned (2.3.3 restricts singletons only once it is lost).
    tax_small_nyumba:
        §7.5. When the owned nyumba is the only occupied front hole but holds
        fewer than 6 seeds, False: no two-seed tax, it is sown as an ordinary
        hole; True: the tax of 2.3.2 applies anyway.
    kutakatia:
        §7.6. Whether the kutakatia (blocking) rule of §5 is applied. A block
        lasts for the opponent's next move only.
    win_at_instant_capture:
        §7.7. True: a capture that empties the opponent's front row ends the game
        at once; the captured seeds stay in the winner's hand and are counted in
        the winner's reserve. False: the move is finished first.
    lose_at_instant_own_empty:
        §7.8. True: a mover whose own front row becomes empty mid-move (a relay
        lifts the last front-row seeds and sows into the back row) loses at that
        instant; the seeds in hand go to the mover's reserve. False: only the
        position at the end of the move counts.
    max_sown:
        §7.9 / 1.5.6. A move that sows more than this many seeds in total is
        infinite, hence illegal; a player whose every move is infinite loses.
    max_capture_seeds:
        §7.10 / 3.4.2. A hole holding more seeds than this may not start a capture
        in mtaji (it may still start a kutakata).
    lap_skips_origin:
        §7.10. False: a sowing of 16 or more seeds laps the whole ring and also
        drops seeds into the hole it came from. True: that hole is skipped.
    """

    nyumba_lost_at_mtaji_capture: bool = True
    kutakata_stops_at_nyumba_in_mtaji: bool = True
    kunamua_kutakata_from_small_nyumba: bool = True
    kunamua_singletons_while_nyumba_owned: bool = True
    tax_small_nyumba: bool = False
    kutakatia: bool = True
    win_at_instant_capture: bool = True
    lose_at_instant_own_empty: bool = True
    max_sown: int = 1000
    max_capture_seeds: int = 15
    lap_skips_origin: bool = False


DEFAULT_RULES = Rules()
