"""The async fixture: the same checked client, opened on the test's own event loop (anyio)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import anyio.abc
from typing_extensions import Unpack

from pytest_mcp_contract._client.face import ClientFace
from pytest_mcp_contract._client.session import ContractSession, SessionOptions
from pytest_mcp_contract._errors import public

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from mcp_types import CallToolResult


T = TypeVar("T")


@public
class AsyncMcpContract(ClientFace):
    """The ``mcp_contract_async`` fixture: :class:`~pytest_mcp_contract.McpContract` with awaitable calls."""

    def __init__(self, session: ContractSession, task_group: anyio.abc.TaskGroup, host: _Host) -> None:
        self._session = session
        self._task_group = task_group
        self._host = host

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        expect_error: bool = False,
        timeout: float | None = None,
        validate_arguments: bool = True,
    ) -> CallToolResult:
        """Call a tool and return the raw result once it has passed every check (see ``McpContract``)."""
        __tracebackhide__ = True
        args = self._arguments(name, arguments)
        limit = self._limit(timeout)
        outcome = await self._abandon_after(
            self._session.request(name, args, validate=validate_arguments),
            limit,
            lambda: self._session.timed_out(name, limit),
            f"tool {name!r}",
        )
        return self._settle(name, args, outcome, expect_error=expect_error)

    async def _abandon_after(
        self, awaitable: Awaitable[T], timeout: float, on_timeout: Callable[[], BaseException], label: str
    ) -> T:
        """Await in a child task, and stop waiting at the deadline even if it cannot be cancelled,
        or when the connection breaks under it."""
        __tracebackhide__ = True
        if self._host.broken is not None:
            awaitable.close()  # type: ignore[attr-defined]
            raise self._session.lost(None, self._host.broken)
        outcome: list[Any] = []
        finished = anyio.Event()
        self._host.waiting.add(finished)
        job_scope = anyio.CancelScope()

        async def job() -> None:
            __tracebackhide__ = True
            try:
                with job_scope:
                    outcome.append((True, await awaitable))
            except anyio.get_cancelled_exc_class():
                raise
            except BaseException as error:  # pytest.fail/skip too: the caller re-raises it
                outcome.append((False, error))
            finally:
                finished.set()

        self._task_group.start_soon(job)
        try:
            with anyio.move_on_after(timeout):
                await finished.wait()
        finally:
            self._host.waiting.discard(finished)
        if self._host.broken is not None and not (outcome and outcome[0][0]):
            job_scope.cancel()
            raise self._session.lost(label, self._host.broken)
        if not outcome:
            job_scope.cancel()
            raise on_timeout()
        ok, value = outcome[0]
        if not ok:
            raise value
        return value  # type: ignore[no-any-return]


class _Host:
    """The task that owns the client: anyio needs it entered and exited in one task, and a transport
    that breaks (a server behind a URL that died) then ends this task, not the test's."""

    def __init__(self, session: ContractSession) -> None:
        self.session = session
        self.opened = anyio.Event()
        self.stop = anyio.Event()
        self.error: BaseException | None = None
        """Why opening failed."""
        self.broken: BaseException | None = None
        """Why the connection broke once open."""
        self.waiting: set[anyio.Event] = set()
        """Calls in flight, woken if the connection breaks."""

    async def run(self) -> None:
        try:
            async with AsyncExitStack() as stack:
                await self.session.enter(stack)
                self.opened.set()
                await self.stop.wait()
        except Exception as error:
            if self.opened.is_set():
                self.broken = error
            else:
                self.error = error
        finally:
            self.opened.set()
            for event in self.waiting:
                event.set()


@asynccontextmanager
async def open_async_contract(
    server: object, *, startup_timeout: float, **options: Unpack[SessionOptions]
) -> AsyncIterator[AsyncMcpContract]:
    """Open a session on the running loop; used by the ``mcp_contract_async`` fixture."""
    session = ContractSession(server, **options)
    host = _Host(session)
    async with anyio.create_task_group() as outer:
        outer.start_soon(host.run)
        with anyio.move_on_after(startup_timeout):
            await host.opened.wait()
        if not host.opened.is_set():
            outer.cancel_scope.cancel()
            raise session.opening_timed_out(startup_timeout)
        if host.error is not None:
            raise host.error
        try:
            async with anyio.create_task_group() as jobs:
                yield AsyncMcpContract(session, jobs, host)
                jobs.cancel_scope.cancel()
        finally:
            host.stop.set()
