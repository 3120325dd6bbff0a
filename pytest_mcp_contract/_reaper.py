"""No server process outlives the run: not after Ctrl-C, a failing fixture, or an xdist worker that died.

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
import time
from pathlib import Path
from typing import Final

GRACE: Final = 2.0
"""Seconds between SIGTERM and SIGKILL for a group that is still there at the end."""

_SUPPORTED: Final = hasattr(os, "killpg")  # POSIX; on Windows the SDK's job objects do this
_live: set[int] = set()
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


def closed(pid: int) -> None:
    """The server's connection closed: end what is left of its group (helpers it started) now, and
    forget it once empty; a recorded number kept longer could come to name someone else's group."""
    if pid not in _live:
        return
    if _signal_group(pid, signal.SIGTERM):
        end_all({pid})
    else:
        _forget(pid)


def end_all(pids: set[int] | None = None) -> None:
    """End every recorded group (or ``pids``): SIGTERM, then SIGKILL for those still there."""
    groups = {pid for pid in (_live if pids is None else pids) if _signal_group(pid, signal.SIGTERM)}
    deadline = time.monotonic() + GRACE
    while groups and time.monotonic() < deadline:
        time.sleep(0.05)
        for pid in groups:
            _reap(pid)
        groups = {pid for pid in groups if _signal_group(pid, 0)}
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


def _reap(pid: int) -> None:
    """Collect the exit of a server that is our own child, so it does not linger as a zombie."""
    with contextlib.suppress(ChildProcessError):  # not our child (a worker's), or already collected
        os.waitpid(pid, os.WNOHANG)


def _forget(pid: int) -> None:
    _live.discard(pid)
    if _folder is not None:
        (_folder / str(pid)).unlink(missing_ok=True)


atexit.register(end_all)
