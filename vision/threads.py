"""Helper threads made on first use, one pool per purpose.

The board search (:mod:`vision.locate`), the pit scan (:mod:`vision.pit_scan`) and the
counter's network copies (:mod:`vision.cnn`) each keep their own pool: a task on one pool
may wait on another's, never on its own, so no pool can fill with tasks waiting for it.
In a forked child (benchmark workers) the parent's threads stay with the parent, so each
pool forgets its executor there and makes a new one when next asked.
"""

from __future__ import annotations

import os
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor

_ALL: weakref.WeakSet[LazyPool] = weakref.WeakSet()


class LazyPool:
    """A :class:`ThreadPoolExecutor` of ``workers`` threads named ``name``-N, made on the
    first :meth:`get` (thread-safe) and made again after a fork."""

    def __init__(self, workers: int, name: str) -> None:
        self.workers = workers
        self.name = name
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        _ALL.add(self)

    def get(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix=self.name)
            return self._pool

    def _forget(self) -> None:
        self._pool = None
        self._lock = threading.Lock()  # (a lock held by a parent's thread at the fork stays held)


def _forget_all() -> None:
    for pool in list(_ALL):
        pool._forget()


os.register_at_fork(after_in_child=_forget_all)
