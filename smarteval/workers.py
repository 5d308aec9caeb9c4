"""Work items in forked processes: what the parent has read is shared, results come back in order.

The parent forks once everything shared is read (the qrels: pages are copied only when
written, nothing is pickled), then works too. Items are handed out through a pipe, one
small token each, whichever process is free first takes the next; each result travels
back pickled through a pipe of its own process. The caller sees the results in the
order of the items, and the first failing item's exception, as one process would give
them: an item after it never matters.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import struct
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any

#: A token names a batch of items (one item a batch unless there are very many); all
#: tokens are written at once, in one write no reader can see half of.
_TOKEN = struct.Struct("<I")
#: Before each result: its item and the length of its pickle.
_HEADER = struct.Struct("<IQ")


def can_fork() -> bool:
    """Whether processes are forked here: on Linux only. macOS forks, but its system
    libraries (Accelerate, which numpy may use, and others) are not safe in a forked child,
    which is why Python starts fresh processes there; Windows does not fork."""
    return hasattr(os, "fork") and sys.platform.startswith("linux")


def run_forked(count: int, work: Callable[[int], Any], processes: int, *,
               shipped: Callable[[Any], Any] = lambda r: r,
               received: Callable[[Any], Any] = lambda r: r,
               parent_only: Sequence[int] = (),
               on_result: Callable[[int, Any], None] | None = None) -> list:
    """``[work(i) for i in range(count)]`` in ``processes`` processes, this one among them.

    A forked process sends ``shipped(work(i))`` and the parent keeps ``received`` of it.
    ``parent_only`` items are worked by the parent alone (standard input, which one
    process reads). ``on_result(i, result)`` is called in the order of the items, as
    each is settled. An exception of ``work`` is raised once every item before it has
    succeeded: the first failing item's, as one process would raise it. A process that
    stops before sending its results leaves its items to the parent. Processes still
    at work when this returns or raises are stopped.
    """
    results: list = [None] * count
    ready = [False] * count
    batches = _batches(count, set(parent_only))
    tasks_r, tasks_w = os.pipe()
    os.write(tasks_w, b"".join(_TOKEN.pack(b) for b in range(len(batches))))
    os.close(tasks_w)
    children: dict[int, int] = {}        # read end of each child's pipe -> its pid
    pending: dict[int, bytearray] = {}
    state = {"next": 0, "failed": count}  # the first unsettled item; the first failure

    def settle(i: int, ok: bool, value) -> None:
        results[i], ready[i] = value, True
        if not ok:
            state["failed"] = min(state["failed"], i)
            results[i] = _Failure(value)
        while state["next"] < count and ready[state["next"]]:
            n = state["next"]
            if isinstance(results[n], _Failure):
                raise results[n].exc
            if on_result is not None:
                on_result(n, results[n])
            state["next"] = n + 1

    def receive(timeout: float | None) -> None:
        """What the children have sent: waiting up to ``timeout`` for the first, then
        whatever else is there."""
        while children:
            poll = select.poll()
            for fd in children:
                poll.register(fd, select.POLLIN)
            readable = poll.poll(None if timeout is None else int(timeout * 1000))
            if not readable:
                return
            timeout = 0
            for fd, _ in readable:
                take(fd)

    def take(fd: int) -> None:
        data = os.read(fd, 1 << 20)
        if not data:
            _reap(children.pop(fd), fd, kill=False)
            return
        buf = pending.setdefault(fd, bytearray())
        buf += data
        while len(buf) >= _HEADER.size:
            i, size = _HEADER.unpack_from(buf)
            if len(buf) < _HEADER.size + size:
                break
            ok, value = _loads(bytes(buf[_HEADER.size:_HEADER.size + size]))
            del buf[:_HEADER.size + size]
            settle(i, ok, received(value) if ok else value)

    try:
        with warnings.catch_warnings():     # a multi-threaded parent is warned of on 3.12
            warnings.simplefilter("ignore", DeprecationWarning)
            for _ in range(processes - 1):
                r, w = os.pipe()
                pid = os.fork()
                if pid == 0:                # the child: works, sends, never returns
                    os.close(r)
                    for fd in children:
                        os.close(fd)
                    _child(tasks_r, w, batches, work, shipped)
                os.close(w)
                children[r] = pid
        own = list(parent_only)
        while state["next"] < count:
            if not own:
                token = os.read(tasks_r, _TOKEN.size)
                if token:
                    own = list(batches[_TOKEN.unpack(token)[0]])
            if own:
                i = own.pop(0)
                if i < state["failed"]:
                    try:
                        value = work(i)
                    except Exception as exc:    # noqa: BLE001  settled in the order of items
                        settle(i, False, exc)
                    else:
                        settle(i, True, value)
                receive(0)
            elif children:
                receive(None)
            else:                       # a process stopped early: its items are left here
                own = [i for i in range(state["next"], count) if not ready[i]]
        return results
    finally:
        os.close(tasks_r)
        for fd, pid in children.items():
            _reap(pid, fd, kill=True)


def run_isolated(count: int, work: Callable[[int], Any], *,
                 shipped: Callable[[Any], Any] = lambda r: r,
                 received: Callable[[Any], Any] = lambda r: r,
                 parent_only: Sequence[int] = (),
                 on_result: Callable[[int, Any], None] | None = None) -> list:
    """``[work(i) for i in range(count)]``, one item at a time, each in a process forked
    for it alone (``parent_only`` items in this one).

    All an item allocates goes back to the system when its process ends, so every item
    starts from this process's memory as it was: long runs one after another each take
    what the first takes, not more as the allocator's free lists grow between them.
    Exceptions are raised as they come, as in one process; an item whose process stops
    without a word is worked here.
    """
    results = []
    for i in range(count):
        value = work(i) if i in parent_only else _work_isolated(i, work, shipped, received)
        if on_result is not None:
            on_result(i, value)
        results.append(value)
    return results


def _work_isolated(i: int, work, shipped, received):
    r, w = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:
        os.close(r)
        status = 0
        try:
            try:
                message = (True, shipped(work(i)))
            except Exception as exc:        # noqa: BLE001  raised by the parent
                message = (False, exc)
            _write_all(w, _dumps(message))
        except BaseException:               # noqa: BLE001  interrupted, or the parent gone
            status = 1
        finally:
            os._exit(status)
    os.close(w)
    done = False
    try:
        chunks = []
        while data := os.read(r, 1 << 20):
            chunks.append(data)
        done = True
    finally:
        _reap(pid, r, kill=not done)
    if not chunks:                          # the process stopped: the item is worked here
        return work(i)
    ok, value = _loads(b"".join(chunks))
    if not ok:
        raise value
    return received(value)


class _Failure:
    def __init__(self, exc: BaseException):
        self.exc = exc


def _batches(count: int, parent_only: set[int]) -> list[list[int]]:
    """The items handed out, in batches of consecutive items: as many batches as fit one
    write to a pipe that no reader sees half of."""
    items = [i for i in range(count) if i not in parent_only]
    most = max(1, select.PIPE_BUF // _TOKEN.size)
    size = max(1, -(-len(items) // most))
    return [items[at:at + size] for at in range(0, len(items), size)]


def _child(tasks: int, out: int, batches: list[list[int]], work, shipped) -> None:
    status = 0
    try:
        while True:
            token = os.read(tasks, _TOKEN.size)
            if len(token) < _TOKEN.size:
                break
            for i in batches[_TOKEN.unpack(token)[0]]:
                try:
                    message = (True, shipped(work(i)))
                except Exception as exc:    # noqa: BLE001  the parent raises it in order
                    message = (False, exc)
                data = _dumps(message)
                _write_all(out, _HEADER.pack(i, len(data)) + data)
    except BaseException:                   # noqa: BLE001  interrupted, or the parent gone
        status = 1
    finally:
        os._exit(status)


def _dumps(message: tuple[bool, Any]) -> bytes:
    try:
        return pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:                # noqa: BLE001  what cannot travel is named
        value = message[1] if not message[0] else exc
        return pickle.dumps((False, RuntimeError(f"{type(value).__name__}: {value}")))


def _loads(data: bytes) -> tuple[bool, Any]:
    try:
        return pickle.loads(data)
    except Exception as exc:                # noqa: BLE001
        return False, RuntimeError(f"a result could not be read back: {exc}")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _reap(pid: int, fd: int, *, kill: bool) -> None:
    """Close the pipe of process ``pid``, stop it if asked, and wait for it."""
    os.close(fd)
    if kill:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
