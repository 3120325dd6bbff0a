"""The sync fixture's event loop: it runs in the calling thread, only while a call is made.

Why not a loop in a background thread (``anyio.from_thread``)? Crossing threads costs about half a
tool call each time. Here the loop runs in the test's own thread, only for the length of a call,
and one long-lived host task owns the client (anyio needs a context entered and exited in one task).
Calls go to a worker task; a timed-out call retires its worker and a fresh one takes over, so the
session goes on even when a sync tool is stuck in a thread that cannot be cancelled.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import warnings
import weakref
from collections.abc import Awaitable, Callable, Coroutine
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import anyio
import anyio.abc

from pytest_mcp_contract._client import exit_status
from pytest_mcp_contract._client.session import single
from pytest_mcp_contract._errors import McpContractWarning

T = TypeVar("T")


@dataclass
class _Call:
    """One job for the worker and, once done, its outcome."""

    coroutine: Coroutine[Any, Any, Any] | None  # None for opening the session, which the host does
    deadline: float
    label: str = "opening the session"
    done: bool = False
    expired: bool = False
    cancelled: bool = False
    """Its worker was cancelled: retired after a timeout, or the connection broke under it."""
    value: Any = None
    error: BaseException | None = None


@dataclass
class _Worker:
    scope: anyio.CancelScope | None = None  # made inside the loop: anyio needs a running one
    retired: bool = False


PROCESS_SHUTDOWN: Final = 10.0
"""Seconds to let a server started as a command end (and its process tree be killed)."""
CLOSE_GRACE: Final = 7.0
"""Seconds a cancelled opening's closing may wait on the server: more than a server process takes to
end at worst (``stdio_pipe``: stdin closed, SIGTERM, SIGKILL, 2 s each), less than PROCESS_SHUTDOWN."""


class LoopHost:
    """Owns an event loop and one host task; runs coroutines on it from synchronous code.

    The loop runs (``run_forever``) only while a call is in flight and whoever finishes the call
    stops it: the worker with the outcome, or the watchdog at the deadline. That spares the loop
    turns ``run_until_complete`` spends on done-callbacks (about 15 µs a call, measured).
    """

    def __init__(
        self,
        enter: Callable[[AsyncExitStack], Awaitable[None]],
        *,
        timeout: float,
        label: str,
        on_open_timeout: Callable[[float], BaseException],
        on_lost: Callable[[str | None, BaseException | None], BaseException],
    ) -> None:
        _not_in_a_running_loop()
        self._loop = asyncio.new_event_loop()
        self._label = label
        self._on_lost = on_lost
        """The error for a connection that broke (during the call labelled, or before)."""
        self._lost = False
        """A broken connection was reported to a test; closing need not raise its error again."""
        self._closed = False
        self._inbox: asyncio.Future[_Call] = self._loop.create_future()
        self._stop: asyncio.Future[None] = self._loop.create_future()
        self._current: _Call | None = None
        # One watchdog timer for the session instead of a timer per call: a timer per call costs
        # about as much as the checks of a small result.
        self._watchdog: asyncio.TimerHandle | None = None
        self._worker = _Worker()
        self._abandoned: list[_Call] = []
        self._task_group: anyio.abc.TaskGroup | None = None
        self._opening: anyio.CancelScope | None = None
        self._ready = False
        self._host = self._loop.create_task(self._main(enter))
        # Whatever ends the host task must also end the loop run that waits for a call.
        self._host.add_done_callback(self._stop_loop)
        _OPEN.add(self)
        opening = _Call(None, self._loop.time() + timeout)
        try:
            self._drive(opening)
            if not self._ready:
                if self._host.done():
                    # Cancelled, it has no error to tell (exception() would raise the cancellation).
                    error = self._host_error()
                    raise single(error) if error is not None else on_lost(None, None)
                raise on_open_timeout(timeout)
        except BaseException:
            # Ending a started server process takes the SDK a few seconds (stdin closed, SIGTERM, SIGKILL).
            self.close(max(timeout, PROCESS_SHUTDOWN))
            raise

    async def _main(self, enter: Callable[[AsyncExitStack], Awaitable[None]]) -> None:
        # If this task ends early (opening failed), its done-callback stops the loop.
        # The scope, entered before the transport's own, cuts short the closing of an opening that
        # timed out (see close); the transport still unwinds in this task, where it was opened.
        with anyio.CancelScope() as self._opening:
            async with AsyncExitStack() as stack:
                await enter(stack)
                async with anyio.create_task_group() as task_group:
                    self._task_group = task_group
                    task_group.start_soon(self._work, self._worker)
                    self._ready = True
                    self._loop.stop()
                    await self._stop
                    task_group.cancel_scope.cancel()

    async def _work(self, worker: _Worker) -> None:
        __tracebackhide__ = True  # a failing call's traceback starts at the test's call_tool
        # Calls run in this long-lived task, not in a task per call: anyio binds its worker threads
        # (where sync tools run) to the root task, and a task per call would start a thread per call.
        with anyio.CancelScope() as worker.scope:
            while not worker.retired:
                call = await self._inbox
                self._inbox = self._loop.create_future()
                assert call.coroutine is not None
                try:
                    call.value = await call.coroutine
                except asyncio.CancelledError as error:
                    task = asyncio.current_task()
                    if task is not None and task.cancelling():
                        call.cancelled = True
                        raise  # this worker was retired, or the host task is ending
                    call.error = error  # raised by the awaited code itself: its outcome, not ours
                except BaseException as error:  # pytest.fail/skip too: the caller re-raises it
                    call.error = error
                finally:
                    call.done = True
                if call is self._current:
                    self._loop.stop()

    def run(
        self,
        coroutine: Coroutine[Any, Any, T],
        timeout: float,
        on_timeout: Callable[[], BaseException],
        *,
        label: str,
    ) -> T:
        """Run ``coroutine`` (described by ``label``) on the host's worker; abandon it after ``timeout`` s."""
        __tracebackhide__ = True
        try:
            self._check_usable()
        except BaseException:
            coroutine.close()
            raise
        call = _Call(coroutine, self._loop.time() + timeout, label)
        self._inbox.set_result(call)
        self._drive(call)
        if call.cancelled and not call.expired:  # the host task ended under the call: the connection broke
            self._lost = True
            raise self._on_lost(label, self._host_error())
        if call.expired:
            raise on_timeout()
        if call.error is not None:
            raise call.error
        return call.value  # type: ignore[no-any-return]

    @property
    def ended(self) -> bool:
        """Whether the host task ended without being closed: the connection broke under it."""
        return not self._closed and self._host.done()

    def _stop_loop(self, _host: asyncio.Task[None]) -> None:
        self._loop.stop()

    def _check_usable(self) -> None:
        __tracebackhide__ = True
        _not_in_a_running_loop()
        if self._closed:
            raise RuntimeError(f"the MCP session to {self._label} is closed")
        if self._host.done():
            self._lost = True
            raise self._on_lost(None, self._host_error())

    def _host_error(self) -> BaseException | None:
        if not self._host.done() or self._host.cancelled():
            return None
        return self._host.exception()

    def _drive(self, call: _Call) -> None:
        """Run the loop until ``call`` is done or its deadline passes."""
        self._current = call
        if self._watchdog is None or self._watchdog.when() > call.deadline:
            if self._watchdog is not None:
                self._watchdog.cancel()
            self._watchdog = self._loop.call_at(call.deadline, self._watch)
        try:
            self._loop.run_forever()
        finally:
            self._current = None

    def _watch(self) -> None:
        self._watchdog = None
        call = self._current
        if call is None or call.done:
            return
        if self._loop.time() < call.deadline:
            self._watchdog = self._loop.call_at(call.deadline, self._watch)
            return
        call.expired = True
        self._abandoned = [*(earlier for earlier in self._abandoned if not earlier.done), call]
        self._loop.stop()
        if self._task_group is not None:
            # The worker may be stuck in a thread that ignores cancellation: retire it, hire another.
            self._worker.retired = True
            if self._worker.scope is not None:
                self._worker.scope.cancel()
            self._worker = _Worker()
            self._task_group.start_soon(self._work, self._worker)

    def close(self, timeout: float) -> None:
        """Stop the host task and close the loop, waiting at most ``timeout`` seconds."""
        if self._closed:
            return
        self._closed = True
        _OPEN.discard(self)
        self._host.remove_done_callback(self._stop_loop)  # from now on the loop runs until the host ends
        if not self._ready:
            self._host.cancel()  # still opening: there is nothing to close gracefully
            if self._opening is not None:
                # Once, so a server process's shutdown runs whole; a closing still waiting on the server
                # after CLOSE_GRACE (the DELETE of an HTTP session, held by a server that holds every
                # answer) is cut short by the opening's scope, which cancels every wait from then on.
                self._loop.call_later(CLOSE_GRACE, self._opening.cancel)
        elif not self._stop.done():
            self._stop.set_result(None)
        finished, _pending = self._loop.run_until_complete(asyncio.wait([self._host], timeout=timeout))
        inbox = self._inbox  # a call nobody took (the worker cancels this future when it stops)
        if inbox.done() and not inbox.cancelled() and (left := inbox.result().coroutine) is not None:
            left.close()
        if not finished:
            running = ", ".join(dict.fromkeys(call.label for call in self._abandoned if not call.done))
            why = (
                f"{running} timed out earlier and is still running (a sync tool blocked in its worker thread "
                "cannot be interrupted)"
                if running
                else "the server's shutdown (its lifespan) is still running"
            )
            warnings.warn(
                McpContractWarning(
                    f"the session to {self._label} did not close within {timeout:g} s: {why}; "
                    "the session closes in the background when that ends"
                ),
                stacklevel=2,
            )
            # The stuck tool's thread reports back through this loop, and anyio lets its worker threads
            # (which Python waits for at exit) go only when the host task ends: keep the loop running.
            _STUCK.add(self)
            threading.Thread(target=self._finish, name=f"closing MCP session to {self._label}", daemon=True).start()
            return
        error = None if self._host.cancelled() else self._host.exception()
        self._finish()
        if error is not None and self._ready and not self._lost:
            raise error

    def _finish(self) -> None:
        if not self._host.done():
            self._loop.run_until_complete(asyncio.wait([self._host]))
        self._loop.run_until_complete(self._loop.shutdown_asyncgens())
        self._loop.close()


def _not_in_a_running_loop() -> None:
    __tracebackhide__ = True
    if asyncio._get_running_loop() is not None:
        raise RuntimeError(
            "mcp_contract is the sync fixture and cannot be used while an event loop runs in this "
            "thread; in async tests use mcp_contract_async"
        )


# Module level on purpose: these are the process's sessions, not a run's. A sync session is public
# (``McpContract``, also outside pytest) and runs its loop in the caller's thread; what is left open
# must be closed when Python exits, after every run's config is gone. Weak: a closed one just goes.
_OPEN: weakref.WeakSet[LoopHost] = weakref.WeakSet()


_STUCK: weakref.WeakSet[LoopHost] = weakref.WeakSet()
"""Sessions that closed while a timed-out sync tool still ran in its worker thread."""


def _close_forgotten_sessions() -> None:
    """Close sessions nobody closed, before Python waits for threads: anyio's worker threads (where
    sync tools run) would otherwise keep the process from exiting.

    A sync tool stuck past its timeout cannot be interrupted, and Python would wait for its thread
    forever after pytest's summary. Then the process ends here, with pytest's exit status, saying so.
    """
    for host in list(_OPEN):
        host.close(timeout=5)
    stuck = list(dict.fromkeys(call.label for host in _STUCK for call in host._abandoned if not call.done))
    status = exit_status()  # the plugin notes it when a pytest run finishes
    if stuck and status is not None:
        sys.stderr.write(
            f"pytest-mcp-contract: {', '.join(stuck)} still running in its worker thread after its timeout (a sync "
            "tool cannot be interrupted); ending the process without waiting for it.\n"
        )
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)


# Runs before the interpreter joins non-daemon threads (plain atexit runs after, too late).
getattr(threading, "_register_atexit", lambda _function: None)(_close_forgotten_sessions)
