"""The game log: games and their accepted moves in SQLite.

Every accepted move is written in its own transaction the moment the referee
accepts it, together with the position after it, so a crash or restart loses
nothing: :meth:`GameStore.load` replays the logged moves and the game goes on
exactly where it stopped.

Several servers may share one log (one per table of a club, each with its own
camera). A game is live in at most one of them: the server that makes it live
claims it (:meth:`GameStore.claim`), the others refuse to open or delete it while
that server's process runs, and a server (re)started picks the latest unfinished
game no other server holds.

The database is given as a URL: ``sqlite:///relative/path.db``,
``sqlite:////absolute/path.db``, ``sqlite://:memory:`` (or a plain file path).
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    south TEXT NOT NULL,
    north TEXT NOT NULL,
    headers TEXT NOT NULL,          -- JSON object of extra record headers
    start TEXT NOT NULL,            -- Position JSON of the start
    finished INTEGER NOT NULL DEFAULT 0,
    winner TEXT,                    -- "south" | "north" | NULL
    reason TEXT
);
CREATE TABLE IF NOT EXISTS moves (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply INTEGER NOT NULL,           -- 1 for the first move
    notation TEXT NOT NULL,         -- full notation
    verdict TEXT NOT NULL,          -- the referee's verdict JSON
    position TEXT NOT NULL,         -- Position JSON after the move
    source TEXT NOT NULL,           -- "camera" | "players" | "import"
    created TEXT NOT NULL,
    PRIMARY KEY (game_id, ply)
);
CREATE TABLE IF NOT EXISTS live (   -- which server holds each live game
    game_id INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    holder TEXT NOT NULL,           -- the live referee's token
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    seen REAL NOT NULL              -- time.time() of its last sign of life
);
"""

LIVE_LEASE_S = 120.0
"""A game held live by a server on another host counts as live while that server showed
a sign of life this many seconds ago (one on this host: while its process runs, where
:data:`PID_CHECK`)."""


class GameChanged(ValueError):
    """The game log no longer holds a game as the caller knows it: another program logged
    or took back moves (or deleted it: :class:`GameGone`)."""


class GameGone(GameChanged, KeyError):
    """The game is not in the log (deleted by another program sharing it); a KeyError too,
    as :meth:`GameStore.get` raises it."""

    __str__ = Exception.__str__  # (not KeyError's, which quotes the message)


class GameLiveElsewhere(ValueError):
    """The game is live in another server sharing the log."""


PID_CHECK = os.name == "posix"
"""Whether a holder on this machine is checked by its process id (POSIX); elsewhere, as
one on another host, by its last sign of life (on Windows os.kill(pid, 0) sends Ctrl-C)."""


def _other_holder(row: Sequence[Any], holder: str) -> str | None:
    """A row ``(holder, host, pid, seen)`` of table ``live``, in words when it is another
    server that still holds the game (:meth:`GameStore.live_in_others`), else None."""
    if row[0] == holder:
        return None
    host, pid, seen = str(row[1]), int(row[2]), float(row[3])
    here = host == socket.gethostname()
    if here and pid == os.getpid():
        return None
    if here and PID_CHECK:
        return f"the server of process {pid} on this machine" if _process_runs(pid) else None
    # another host (or no PID_CHECK): a holder that showed life lately
    ago = time.time() - seen
    if ago > LIVE_LEASE_S:
        return None
    where = "this machine" if here else host
    return f"the server of process {pid} on {where} (last seen {max(ago, 0):.0f} s ago)"


def _process_runs(pid: int) -> bool:
    """Whether process ``pid`` runs on this machine (POSIX only)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError, OverflowError):
        return True  # (another user's process: it runs)
    return True


def database_path(url: str) -> str:
    """The SQLite file (or ``:memory:``) named by a database URL or a plain path."""
    if "://" not in url:
        return url
    scheme, _, rest = url.partition("://")
    if scheme != "sqlite":
        raise ValueError(
            f"unsupported database URL {url!r}: only sqlite:///PATH (a file reachable from "
            "this machine, e.g. on a club server's shared disk) is supported"
        )
    if rest in (":memory:", "/:memory:"):
        return ":memory:"
    if not rest.startswith("/") or rest == "/":
        raise ValueError(f"bad database URL {url!r}: write sqlite:///relative.db or sqlite:////abs/path.db")
    return rest[1:]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class LoggedMove:
    """One accepted move as stored."""

    ply: int
    notation: str
    verdict: dict[str, Any]
    position: dict[str, Any]
    source: str
    created: str

    def remark(self) -> str | None:
        """What a scribe should know about how the move was found: the referee's note (a
        move not seen directly, an order of moves not sure), or that the players
        confirmed it; None for a move the camera saw plainly, or one imported."""
        note = (self.verdict or {}).get("note")
        if note:
            return str(note)
        if self.source == "players":
            return "confirmed by the players"
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "ply": self.ply,
            "move": self.notation,
            "verdict": self.verdict,
            "position": self.position,
            "source": self.source,
            "created": self.created,
        }


@dataclass
class GameRecord:
    """A game as stored: header fields, start position and moves."""

    id: int
    created: str
    updated: str
    south: str
    north: str
    headers: dict[str, str]
    start: dict[str, Any]
    finished: bool
    winner: str | None
    reason: str | None
    moves: list[LoggedMove] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "created": self.created,
            "updated": self.updated,
            "south": self.south,
            "north": self.north,
            "moves": len(self.moves),
            "finished": self.finished,
            "winner": self.winner,
            "reason": self.reason,
        }

    def to_json(self) -> dict[str, Any]:
        data = self.summary()
        data["headers"] = self.headers
        data["start"] = self.start
        data["moves"] = [m.to_json() for m in self.moves]
        return data


class GameStore:
    """SQLite game log; safe to share between the web threads and the referee loop."""

    def __init__(self, url: str) -> None:
        self.path = database_path(url)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        try:
            self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._conn.execute("PRAGMA foreign_keys = ON")
            if self.path != ":memory:":
                self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.executescript(SCHEMA)
        except sqlite3.Error as exc:
            raise OSError(f"cannot open the game log {self.path!r}: {exc}") from exc

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def create_game(
        self,
        start: dict[str, Any],
        south: str = "South",
        north: str = "North",
        headers: dict[str, str] | None = None,
    ) -> int:
        """Start a new game from ``start`` (Position JSON); returns its id."""
        now = _now()
        with self._transaction() as conn:
            cur = conn.execute(
                "INSERT INTO games (created, updated, south, north, headers, start) VALUES (?, ?, ?, ?, ?, ?)",
                (now, now, south, north, json.dumps(headers or {}), json.dumps(start)),
            )
            return int(cur.lastrowid or 0)

    def append_moves(
        self,
        game_id: int,
        moves: Sequence[tuple[str, dict[str, Any], dict[str, Any]]],
        source: str,
        expected_ply: int,
    ) -> None:
        """Log accepted moves ``(notation, verdict, position_after)`` in one transaction.

        ``expected_ply`` is the number of moves already logged as the caller
        knows it; a mismatch (another writer got there first) raises ValueError
        and writes nothing.
        """
        with self._transaction() as conn:
            self._check_ply(conn, game_id, expected_ply)
            self._insert_moves(conn, game_id, moves, source, expected_ply)

    @staticmethod
    def _check_ply(conn: sqlite3.Connection, game_id: int, expected_ply: int) -> None:
        GameStore._check_exists(conn, game_id)
        row = conn.execute("SELECT COUNT(*) FROM moves WHERE game_id = ?", (game_id,)).fetchone()
        if row[0] != expected_ply:
            raise GameChanged(f"game {game_id} has {row[0]} moves logged, expected {expected_ply}")

    @staticmethod
    def _check_exists(conn: sqlite3.Connection, game_id: int) -> None:
        if conn.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is None:
            raise GameGone(f"game {game_id} is no longer in the game log")

    @staticmethod
    def _insert_moves(conn: sqlite3.Connection, game_id: int, moves: Sequence[tuple[str, dict[str, Any], dict[str, Any]]],
                      source: str, after_ply: int) -> None:
        """Insert ``moves`` after the first ``after_ply`` of the game, and mark the game
        finished or not by the last one's verdict (inside a transaction)."""
        now = _now()
        for i, (notation, verdict, position) in enumerate(moves):
            conn.execute(
                "INSERT INTO moves (game_id, ply, notation, verdict, position, source, created) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game_id, after_ply + i + 1, notation, json.dumps(verdict), json.dumps(position), source, now),
            )
        last = moves[-1][1] if moves else {}
        conn.execute(
            "UPDATE games SET updated = ?, finished = ?, winner = ?, reason = ? WHERE id = ?",
            (now, int(bool(last.get("game_over"))), last.get("winner"), last.get("reason"), game_id),
        )

    def replace_moves(
        self,
        game_id: int,
        replaced: int,
        moves: Sequence[tuple[str, dict[str, Any], dict[str, Any]]],
        source: str,
        expected_ply: int,
    ) -> list[str]:
        """Replace the last ``replaced`` logged moves by ``moves`` in one transaction (the
        referee revising its own reading: nothing is lost half way); returns the
        notations replaced, oldest first.

        ``expected_ply`` is the number of moves logged as the caller knows it; a
        mismatch, or fewer moves logged than ``replaced``, raises ValueError and writes
        nothing.
        """
        if replaced < 0 or replaced > expected_ply:
            raise ValueError(f"cannot replace {replaced} of {expected_ply} moves")
        keep = expected_ply - replaced
        with self._transaction() as conn:
            self._check_ply(conn, game_id, expected_ply)
            old = [str(r[0]) for r in conn.execute(
                "SELECT notation FROM moves WHERE game_id = ? AND ply > ? ORDER BY ply", (game_id, keep))]
            conn.execute("DELETE FROM moves WHERE game_id = ? AND ply > ?", (game_id, keep))
            self._insert_moves(conn, game_id, moves, source, keep)
        return old

    def undo_last(self, game_id: int) -> str:
        """Remove the last logged move (a correction by the players); returns its notation."""
        with self._transaction() as conn:
            self._check_exists(conn, game_id)
            row = conn.execute(
                "SELECT ply, notation FROM moves WHERE game_id = ? ORDER BY ply DESC LIMIT 1", (game_id,)
            ).fetchone()
            if row is None:
                raise ValueError(f"game {game_id} has no move to take back")
            conn.execute("DELETE FROM moves WHERE game_id = ? AND ply = ?", (game_id, row[0]))
            conn.execute(
                "UPDATE games SET updated = ?, finished = 0, winner = NULL, reason = NULL WHERE id = ?",
                (_now(), game_id),
            )
            return str(row[1])

    def delete_game(self, game_id: int, holder: str | None = None) -> None:
        """Delete the game and its moves; with ``holder`` (the caller's live referee),
        GameLiveElsewhere when another server holds the game live (checked in the same
        transaction)."""
        with self._transaction() as conn:
            other = None if holder is None else self._holder_elsewhere(conn, game_id, holder)
            if other is not None:
                raise GameLiveElsewhere(f"game {game_id} is live in {other}, which shares this game log: "
                                        "start or open another game there before deleting it")
            conn.execute("DELETE FROM live WHERE game_id = ?", (game_id,))
            conn.execute("DELETE FROM moves WHERE game_id = ?", (game_id,))
            conn.execute("DELETE FROM games WHERE id = ?", (game_id,))

    def get(self, game_id: int) -> GameRecord:
        """The game with its moves; GameGone (a KeyError) if there is none with that id."""
        if not -(2**63) <= game_id < 2**63:
            # no row's id (SQLite's are 64-bit), and sqlite3 cannot even bind it (OverflowError):
            # a URL's <int:game_id> takes any number of digits
            raise GameGone(f"no game {game_id} in the game log")
        with self._lock:
            row = self._conn.execute(
                "SELECT id, created, updated, south, north, headers, start, finished, winner, reason "
                "FROM games WHERE id = ?",
                (game_id,),
            ).fetchone()
            if row is None:
                raise GameGone(f"no game {game_id} in the game log")
            moves = self._conn.execute(
                "SELECT ply, notation, verdict, position, source, created FROM moves "
                "WHERE game_id = ? ORDER BY ply",
                (game_id,),
            ).fetchall()
        game = self._game(row)
        game.moves = [
            LoggedMove(m[0], m[1], json.loads(m[2]), json.loads(m[3]), m[4], m[5]) for m in moves
        ]
        return game

    def list(self) -> list[dict[str, Any]]:
        """Summaries of every game, newest first."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT g.id, g.created, g.updated, g.south, g.north, g.headers, g.start, g.finished, "
                "g.winner, g.reason, COUNT(m.ply) FROM games g LEFT JOIN moves m ON m.game_id = g.id "
                "GROUP BY g.id ORDER BY g.id DESC"
            ).fetchall()
        out = []
        for row in rows:
            summary = self._game(row[:10]).summary()
            summary["moves"] = row[10]
            out.append(summary)
        return out

    def latest_unfinished(self, holder: str | None = None) -> int | None:
        """Id of the most recent game not yet over (the one to resume), if any; with
        ``holder``, one that no other server holds live (:meth:`live_in_others`)."""
        with self._lock:
            rows = self._conn.execute("SELECT id FROM games WHERE finished = 0 ORDER BY id DESC").fetchall()
        elsewhere = {} if holder is None else self.live_in_others(holder)
        return next((int(r[0]) for r in rows if int(r[0]) not in elsewhere), None)

    # -- which server holds a live game ---------------------------------------
    def live_in_others(self, holder: str) -> dict[int, str]:
        """Every game live in another server sharing the log: {game id: who, in words}. A
        holder in this process (another app on the same log: a restart in tests) does not
        count; one on this host counts while its process runs (:data:`PID_CHECK`), one on
        another host while it showed life within :data:`LIVE_LEASE_S`."""
        with self._lock:
            rows = self._conn.execute("SELECT game_id, holder, host, pid, seen FROM live").fetchall()
        found = {int(r[0]): _other_holder(r[1:], holder) for r in rows}
        return {game: who for game, who in found.items() if who is not None}

    def claim(self, game_id: int, holder: str, release: int | None = None) -> None:
        """Hold the game live for ``holder`` (and let go of ``release``, the game it held
        before); GameLiveElsewhere when another server holds it, GameGone (a KeyError) when
        there is no such game. Checked and written in one transaction: of two servers claiming a game
        at once, the second finds the first's claim."""
        with self._transaction() as conn:
            other = self._holder_elsewhere(conn, game_id, holder)
            if other is not None:
                raise GameLiveElsewhere(
                    f"game {game_id} is live in {other}, which shares this game log: "
                    "watch it there, or stop that server first")
            self._check_exists(conn, game_id)
            if release is not None and release != game_id:
                conn.execute("DELETE FROM live WHERE game_id = ? AND holder = ?", (release, holder))
            conn.execute(
                "INSERT OR REPLACE INTO live (game_id, holder, host, pid, seen) VALUES (?, ?, ?, ?, ?)",
                (game_id, holder, socket.gethostname(), os.getpid(), time.time()))

    @staticmethod
    def _holder_elsewhere(conn: sqlite3.Connection, game_id: int, holder: str) -> str | None:
        row = conn.execute("SELECT holder, host, pid, seen FROM live WHERE game_id = ?", (game_id,)).fetchone()
        return None if row is None else _other_holder(row, holder)

    def touch(self, game_id: int, holder: str) -> None:
        """A sign of life from the server holding the game live."""
        with self._transaction() as conn:
            conn.execute("UPDATE live SET seen = ? WHERE game_id = ? AND holder = ?", (time.time(), game_id, holder))

    @staticmethod
    def _game(row: Sequence[Any]) -> GameRecord:
        return GameRecord(
            id=int(row[0]),
            created=row[1],
            updated=row[2],
            south=row[3],
            north=row[4],
            headers=json.loads(row[5]),
            start=json.loads(row[6]),
            finished=bool(row[7]),
            winner=row[8],
            reason=row[9],
        )
