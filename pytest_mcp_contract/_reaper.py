"""No server process outlives the run: not after Ctrl-C, SIGTERM, SIGHUP, a failing fixture, a dead xdist worker.

A server started as a command runs in a process group of its own (the SDK starts it in a new
session), and its group is recorded here while it may have members. Normally the connection's
close ends the server, and then any helper process it left in its group. What is still recorded
when pytest ends is ended by whoever is left: the process itself, and under xdist the controller,
which reads the workers' records from a shared folder (a worker that died cannot clean up).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

GRACE: Final = 2.0
"""Seconds between SIGTERM and SIGKILL for a group that is still there at the end."""

_SUPPORTED: Final = hasattr(os, "killpg")  # POSIX; on Windows the SDK's job objects do this
_live: set[int] = set()
_terminated: set[int] = set()
"""Groups already sent SIGTERM once: some servers take a second signal as "quit now"."""
_folder: Path | None = None


def record_in(folder: Path | None) -> None:
    """Also write each group to ``folder`` (an xdist worker's records, for the controller)."""
    global _folder  # noqa: PLW0603 (one process, one place to record to)
    _folder = folder


def recorded() -> frozenset[int]:
    """The groups recorded now (a run ends only those it started, not an outer run's)."""
    return frozenset(_live)


def started(pid: int) -> None:
    if not _SUPPORTED:
        return
    _live.add(pid)
    if _folder is not None:
        (_folder / str(pid)).touch()


def closed(pid: int) -> bool:
    """The server's connection closed: ask what is left of its group (helpers it started) to end.

    Returns whether live members remain; call again until it says no, then :func:`forget_or_kill`.
    """
    if pid not in _live:
        return False
    _reap(pid)
    if not _alive(pid):
        _forget(pid)
        return False
    if pid not in _terminated:
        _terminated.add(pid)
        _signal_group(pid, signal.SIGTERM)
    return True


def forget_or_kill(pid: int) -> None:
    """After :func:`closed`'s grace: kill what is still there, and forget the group either way
    (a number kept after its group is gone could come to name someone else's)."""
    if pid in _live and _alive(pid):
        _signal_group(pid, signal.SIGKILL)
    _forget(pid)


def end_all(pids: set[int] | None = None) -> None:
    """End every recorded group (or ``pids``): SIGTERM, then SIGKILL for those still there."""
    groups = {pid for pid in (_live if pids is None else pids) if _alive(pid) and _signal_group(pid, signal.SIGTERM)}
    deadline = time.monotonic() + GRACE
    while groups and time.monotonic() < deadline:
        time.sleep(0.05)
        for pid in groups:
            _reap(pid)
        groups = {pid for pid in groups if _alive(pid)}
    for pid in groups:
        _signal_group(pid, signal.SIGKILL)
    for pid in list(_live if pids is None else pids):
        _forget(pid)


def end_recorded(folder: Path) -> None:
    """The controller's last step: end the groups workers recorded and never closed."""
    pids = {int(entry.name) for entry in folder.glob("*") if entry.name.isdigit()} if folder.is_dir() else set()
    end_all(pids)
    shutil.rmtree(folder, ignore_errors=True)


def _signal_group(pid: int, signal_number: int) -> bool:
    """Send a signal to the group; False when it has no members left."""
    try:
        os.killpg(pid, signal_number)
    except ProcessLookupError:
        return False
    except PermissionError:  # the number now belongs to someone else's group: not ours to end
        return False
    return True


def _alive(pid: int) -> bool:
    """Whether the group has a member that is not a zombie (a zombie holds the number, but ending
    it is its parent's business, and a slow init may leave it for a while)."""
    if not _signal_group(pid, 0):
        return False
    proc = Path("/proc")
    if not proc.is_dir():
        return True
    for entry in proc.iterdir():
        if entry.name.isdigit():
            try:
                # "pid (command) state ppid pgrp ..."; the command may hold spaces and parentheses.
                state, _ppid, group = (entry / "stat").read_text().rpartition(")")[2].split()[:3]
            except (OSError, ValueError):
                continue
            if int(group) == pid and state != "Z":
                return True
    return False


def _reap(pid: int) -> None:
    """Collect the exits of our own children in the group, so they do not linger as zombies."""
    with contextlib.suppress(ChildProcessError):  # none of ours there (a worker's group), or all collected
        while os.waitpid(-pid, os.WNOHANG)[0]:
            pass


def _forget(pid: int) -> None:
    _live.discard(pid)
    _terminated.discard(pid)
    if _folder is not None:
        (_folder / str(pid)).unlink(missing_ok=True)


atexit.register(end_all)


# --- SIGTERM and SIGHUP end the run as Ctrl-C does -------------------------------------------------------


def interrupt_on_termination() -> Callable[[], None]:
    """Make SIGTERM (``timeout``, CI cancelling a job) and SIGHUP (a closed terminal) a KeyboardInterrupt,
    as Ctrl-C is: pytest then tears fixtures down and ends the run, and its servers are ended with it.
    Python's default for them is to die on the spot, skipping every cleanup. Signals that already have a
    handler are left alone. Returns what puts the old handlers back.
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous: dict[signal.Signals, object] = {}
    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) is signal.SIG_DFL:
            previous[number] = signal.signal(number, _interrupt)

    def restore() -> None:
        for number, handler in previous.items():
            if signal.getsignal(number) is _interrupt:
                signal.signal(number, handler)  # type: ignore[arg-type]

    return restore


def _interrupt(number: int, _frame: object) -> None:
    raise KeyboardInterrupt(f"{signal.Signals(number).name} received")
