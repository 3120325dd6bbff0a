"""No server process outlives the run: not after Ctrl-C, SIGTERM, SIGHUP, a failing fixture, a dead xdist worker.

A server started as a command runs in a process group of its own (``_servers.stdio_pipe`` starts it in a
new session), and its group is recorded here while it may have members. Normally the connection's
close ends the server, and then any helper process it left in its group. What is still recorded
when pytest ends is ended by whoever is left: the process itself, and under xdist the controller,
which reads the workers' records from a shared folder (a worker that died cannot clean up).

A helper that left the group (``setsid()``, a daemon's double fork) is found by its environment: each
server is started with ``MCP_CONTRACT_SERVER=<tag>``, which everything it starts inherits, and Linux
shows every process's environment under ``/proc``. Where there is no ``/proc`` (macOS, the BSDs),
such a helper is not found; on Windows the SDK-style job objects are not used, and only the server
itself is ended.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Final

GRACE: Final = 2.0
"""Seconds between SIGTERM and SIGKILL for a group that is still there at the end."""

_SUPPORTED: Final = hasattr(os, "killpg")  # POSIX; on Windows the SDK's job objects do this
TAG: Final = "MCP_CONTRACT_SERVER"
"""The environment variable that marks a server and everything it starts."""
_live: dict[int, str] = {}
"""Recorded groups, each with its server's tag."""
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


def new_tag() -> str:
    """A tag for a server about to start: unique across processes, runs and machines."""
    return f"{os.getpid()}.{uuid.uuid4().hex[:12]}"


def started(pid: int, tag: str) -> None:
    if not _SUPPORTED:
        return
    _live[pid] = tag
    if _folder is not None:
        (_folder / str(pid)).write_text(tag)


def closed(pid: int) -> bool:
    """The server's connection closed: ask what is left of its group (helpers it started) to end.

    Returns whether live members remain; call again until it says no, then :func:`forget_or_kill`.
    """
    if pid not in _live:
        return False
    _reap(pid)
    escaped = tagged({_live[pid]})
    if not _alive(pid) and not escaped:
        _forget(pid)
        return False
    if pid not in _terminated:
        _terminated.add(pid)
        _signal_group(pid, signal.SIGTERM)
        _signal_each(escaped, signal.SIGTERM)
    return True


def forget_or_kill(pid: int) -> None:
    """After :func:`closed`'s grace: kill what is still there, and forget the group either way
    (a number kept after its group is gone could come to name someone else's)."""
    if pid in _live:
        if _alive(pid):
            _signal_group(pid, signal.SIGKILL)
        _signal_each(tagged({_live[pid]}), signal.SIGKILL)
    _forget(pid)


def end_all(pids: set[int] | None = None, tags: set[str] | None = None) -> None:
    """End every recorded group (or ``pids``) and what their servers started (or what carries ``tags``):
    SIGTERM, then SIGKILL for those still there."""
    chosen = set(_live) if pids is None else pids
    tags = {_live[pid] for pid in chosen if pid in _live} | (tags or set())
    groups = {pid for pid in chosen if _alive(pid) and _signal_group(pid, signal.SIGTERM)}
    escaped = tagged(tags)
    _signal_each(escaped, signal.SIGTERM)
    deadline = time.monotonic() + GRACE
    while (groups or escaped) and time.monotonic() < deadline:
        time.sleep(0.05)
        for pid in groups:
            _reap(pid)
        groups = {pid for pid in groups if _alive(pid)}
        escaped = tagged(tags)
    for pid in groups:
        _signal_group(pid, signal.SIGKILL)
    _signal_each(escaped, signal.SIGKILL)
    for pid in chosen:
        _forget(pid)


def end_recorded(folder: Path) -> None:
    """The controller's last step: end the groups workers recorded and never closed."""
    entries = [entry for entry in folder.glob("*") if entry.name.isdigit()] if folder.is_dir() else []
    tags = set()
    for entry in entries:
        with contextlib.suppress(OSError):
            tags.add(entry.read_text())
    end_all({int(entry.name) for entry in entries}, tags - {""})
    shutil.rmtree(folder, ignore_errors=True)


def tagged(tags: set[str]) -> set[int]:
    """The live processes, other than this one, started under one of ``tags`` (Linux; elsewhere none)."""
    proc = Path("/proc")
    if not tags or not proc.is_dir():
        return set()
    needles = [f"\0{TAG}={tag}\0".encode() for tag in tags]
    found = set()
    for entry in proc.iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                environment = b"\0" + (entry / "environ").read_bytes()  # empty for a zombie
            except OSError:  # gone, or another user's
                continue
            if any(needle in environment for needle in needles):
                found.add(int(entry.name))
    return found


def _signal_each(pids: set[int], signal_number: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal_number)


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
    _live.pop(pid, None)
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
