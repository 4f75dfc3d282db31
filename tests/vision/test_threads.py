"""The helper thread pools made on first use (vision/threads.py)."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from vision.threads import LazyPool


def test_a_pool_is_made_once_on_first_use_with_its_workers_and_name() -> None:
    pool = LazyPool(2, "bao-test")
    first = pool.get()
    assert pool.get() is first
    names: set[str] = set()
    barrier = threading.Barrier(2)

    def name() -> None:
        barrier.wait(timeout=10)  # both workers busy at once: two threads
        names.add(threading.current_thread().name)

    for f in [first.submit(name) for _ in range(2)]:
        f.result(timeout=10)
    assert len(names) == 2 and all(n.startswith("bao-test") for n in names)


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin", reason="fork")
def test_a_forked_child_makes_its_own_pool_and_can_use_it() -> None:
    pool = LazyPool(1, "bao-test-fork")
    parent = pool.get()
    assert parent.submit(lambda: 1).result(timeout=10) == 1
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the parent's thread is not here; a new pool runs the task
        try:
            ok = pool.get() is not parent and pool.get().submit(lambda: 7).result(timeout=10) == 7
            os.write(write, b"1" if ok else b"0")
        finally:
            os._exit(0)
    os.close(write)
    got = os.read(read, 1)
    os.waitpid(pid, 0)
    assert got == b"1"
    assert pool.get() is parent  # the parent's pool untouched
