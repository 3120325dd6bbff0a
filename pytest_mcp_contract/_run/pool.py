"""Which open session serves a test: one per server and per ``mcp_contract_scope`` unit.

The fixture itself is function-scoped and asks the pool. That way a server chosen per directory
(a ``mcp_contract_server`` override in a sub-folder's conftest) gets its own session instead of a
stale, cached one, and the session still lives for the whole scope.

A server that went away under a call (a command that crashed, a URL whose connection broke) fails
that test; the next test that needs it gets a new session, which starts the command again, at most
``MAX_RESTARTS`` times a server per run. Past that, every test that needs it fails at once.
"""

from __future__ import annotations

import contextlib
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._run.observed import Observed
from pytest_mcp_contract._run.records import Restart, RestartLimit
from pytest_mcp_contract._servers.names import ServerNames

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Mapping

    from pytest_mcp_contract._client.async_client import AsyncMcpContract
    from pytest_mcp_contract._client.sync_client import McpContract
    from pytest_mcp_contract._contract.answer import Triage
    from pytest_mcp_contract._contract.coverage import Coverage
    from pytest_mcp_contract._contract.shapes import ObservedShapes
    from pytest_mcp_contract._run.settings import Settings


@dataclass
class _Restarts:
    """How often a run had one server back after it went away."""

    server: object
    """Held, so that the ``id`` it is filed under names no other object."""
    count: int = 0
    last: str = ""
    """Why it went away the last time."""
    exhausted: bool = False
    """It went away again after ``MAX_RESTARTS``: no test gets it back."""


class SessionPool:
    def __init__(
        self,
        settings: Settings,
        *,
        triage: Triage | None = None,
        callbacks: Callable[[object], Mapping[str, Any] | None] | None = None,
        names: ServerNames | None = None,
        coverage: Coverage | None = None,
        shapes: ObservedShapes | None = None,
    ) -> None:
        self._settings = settings
        self.coverage = coverage
        """Told every listing and answer of the sessions opened here, when the run counts contract coverage."""
        self.shapes = shapes
        """Told every answer of the sessions opened here: the shapes of tools whose output schema names no key."""
        self.names = names if names is not None else ServerNames()
        """What each server outside this process called itself this run, told by the sessions opened here."""
        self._callbacks = callbacks
        """Per server, the callbacks its client answers with (the ``pytest_mcp_contract_callbacks`` hook)."""
        self.triage = triage
        """Judges every checked call, of the pool's sessions and of the async fixture's."""
        self._open: dict[str, McpContract] = {}
        self._failed: dict[tuple[int, str], tuple[object, str, str]] = {}
        """By server and protocol version: the server, where opening a session to it failed first, and why."""
        self._restarts: dict[int, _Restarts] = {}
        """By server: how often it was had back after it went away under a call."""
        self.observed = Observed(self.open)
        """The calls the tests make through clients of their own, to every in-process server a session is opened to."""

    @property
    def first_version(self) -> str:
        """The version a test's own calls are made under, unless it names another."""
        return self._settings.protocol_versions[0]

    def get(self, request: pytest.FixtureRequest, server: object, version: str | None = None) -> McpContract:
        """The scope's session to ``server`` offering ``version`` (by default the first)."""
        version = version or self.first_version
        node = self._scope_node(request)
        key = f"{node.nodeid}@{version}"
        current = self._open.get(key)
        if current is not None and current.server is server:
            gone = current.gone or current.unresponsive()
            if gone is None:
                return current
            with contextlib.suppress(Exception):  # its end was told by the test it failed
                self._close(key, current)
            contract = self._restart(request, server, gone, version)
        else:
            if current is not None:
                self._close(key, current)
            contract = self._open_once(server, f"test {request.node.nodeid}", version)
        self._open[key] = contract
        node.addfinalizer(lambda: self._close(key, contract))  # once per session opened, not per test
        return contract

    def _restart(self, request: pytest.FixtureRequest, server: object, cause: str, version: str) -> McpContract:
        """A new session to a server that went away (``cause`` says how), for the test ``request`` runs,
        unless it went away too often this run; each restart is recorded for the report."""
        from pytest_mcp_contract._client.session import MAX_RESTARTS
        from pytest_mcp_contract._servers.kinds import server_label

        restarts = self._restarts.setdefault(id(server), _Restarts(server))
        restarts.last = cause
        if restarts.count >= MAX_RESTARTS:
            if not restarts.exhausted:
                restarts.exhausted = True
                RestartLimit(server_label(server), MAX_RESTARTS).write(request.node)
            self._check_restarts(server)
        restarts.count += 1
        Restart(server_label(server), cause).write(request.node)
        return self._open_once(server, f"test {request.node.nodeid}", version)

    def _check_restarts(self, server: object) -> None:
        """Raise at once for a server that went away more often than a run has it back."""
        from pytest_mcp_contract._client.session import MAX_RESTARTS, SessionError
        from pytest_mcp_contract._servers.kinds import as_target

        restarts = self._restarts.get(id(server))
        if restarts is None or not restarts.exhausted:
            return
        target = as_target(server)
        raise SessionError(
            messages.restart_limit(target.label, MAX_RESTARTS, restarts.last, started=target.started_here)
        )

    def open(self, server: object, version: str | None = None) -> McpContract:
        """A new session to ``server`` with the run's settings, offering ``version`` (by default the
        first); the caller closes it."""
        from pytest_mcp_contract._client.sync_client import McpContract

        self.observed.watch(server)
        contract = McpContract(server, **self.session_options(server), version=version or self.first_version)
        contract.session.pooled = True  # its failures tell of the next test's new session
        return contract

    def opener(self, server: object, version: str | None = None) -> Callable[[object], McpContract]:
        """What opens a session of its own to each fresh server a sandbox makes of ``server``
        (``_servers.sandbox``), under ``version`` (by default the first): neither pooled nor watched,
        the caller closes it with the sandbox. Its options are read here, once, on the run's thread
        (a fresh server may be opened on another: the next sequence's, while one runs)."""
        from pytest_mcp_contract._client.sync_client import McpContract

        options = self.session_options(server)
        chosen = version or self.first_version
        return lambda fresh: McpContract(fresh, **options, version=chosen)

    def callbacks(self, server: object) -> dict[str, Any]:
        """The callbacks the ``pytest_mcp_contract_callbacks`` hook gives ``server``'s client, checked:
        a key the client does not take, or a value of the wrong kind, is a ``pytest.UsageError``."""
        given = self._callbacks(server) if self._callbacks is not None else None
        if given is None:
            return {}
        from pytest_mcp_contract._client.answering import client_callbacks

        try:
            return client_callbacks(given)
        except TypeError as error:
            raise pytest.UsageError(str(error)) from None

    def session_options(self, server: object) -> dict[str, Any]:
        """How a session to ``server`` is opened, sync or async: the run's settings, its triage, the
        server's callbacks."""
        try:
            callbacks = self.callbacks(server)
        except pytest.UsageError as error:
            # Asked for when a test's session opens, where a UsageError would only fail that test (the
            # configured server's were checked at the start): the hook is wrong for every test, so stop.
            pytest.exit(str(error), returncode=pytest.ExitCode.USAGE_ERROR)
        settings = self._settings
        return {
            "callbacks": callbacks,
            "timeout": settings.timeout,
            "check_formats": settings.check_formats,
            "require_json_text": settings.require_json_text,
            "triage": self.triage,
            "startup_timeout": settings.startup_timeout,
            "names": self.names,
            "coverage": self.coverage,
            "shapes": self.shapes,
            "tool_names": settings.tool_names,
        }

    @asynccontextmanager
    async def open_async(
        self, server: object, where: str, version: str | None = None
    ) -> AsyncIterator[AsyncMcpContract]:
        """A session of its own on the running event loop (``mcp_contract_async``); raises
        :class:`SessionError` if it cannot open, and remembers that, as :meth:`get` does."""
        from pytest_mcp_contract._client.async_client import open_async_contract
        from pytest_mcp_contract._client.session import SessionError, single

        version = version or self.first_version
        self.check_not_failed(server, version)
        self.observed.watch(server)
        async with AsyncExitStack() as stack:
            try:
                opening = open_async_contract(server, **self.session_options(server), version=version)
                contract = await stack.enter_async_context(opening)
            except BaseException as error:
                problem = single(error)  # anyio's task groups wrap it
                if not isinstance(problem, SessionError):
                    raise
                self.failed(server, where, problem, version)
                raise problem from None
            yield contract

    def _open_once(self, server: object, where: str, version: str) -> McpContract:
        """:meth:`open`, unless ``server`` already failed to open this run; a failure is remembered."""
        from pytest_mcp_contract._client.session import SessionError

        self._check_restarts(server)
        self.check_not_failed(server, version)
        try:
            return self.open(server, version)
        except SessionError as error:
            self.failed(server, where, error, version)
            raise

    def failed(self, server: object, where: str, error: BaseException, version: str | None = None) -> None:
        """Remember that a session to ``server`` could not be opened (the first failure is the one told)."""
        key = (id(server), version or self.first_version)
        if key not in self._failed:
            self._failed[key] = (server, where, str(error))

    def check_not_failed(self, server: object, version: str | None = None) -> None:
        """Raise at once for a server that already failed to open this run: starting it again for every
        test would cost each its whole startup timeout and print the same paragraph again."""
        from pytest_mcp_contract._client.session import SessionError
        from pytest_mcp_contract._servers.kinds import server_label

        key = (id(server), version or self.first_version)
        hit = self._failed.get(key)
        if hit is None or hit[0] is not server:
            return
        _server, where, message = hit
        raise SessionError(messages.failed_before(server_label(server), where, message.split("\n", 1)[0]))

    def sessions(self) -> list[McpContract]:
        """Every open session."""
        return list(self._open.values())

    def _scope_node(self, request: pytest.FixtureRequest) -> pytest.Item | pytest.Collector:
        scope = self._settings.scope
        if scope == "session":
            return request.session
        if scope == "module":
            return request.node.getparent(pytest.File) or request.session
        node: pytest.Item = request.node
        return node

    def _close(self, key: str, contract: McpContract) -> None:
        if self._open.get(key) is contract:
            del self._open[key]
        contract.close()

    def close_all(self) -> None:
        """A safety net at the end of the run: no session outlives pytest."""
        for key, contract in list(self._open.items()):
            self._close(key, contract)
        self.observed.close()
