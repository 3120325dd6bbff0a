"""The sync fixture: ``McpContract``, a checked client whose calls run on a :class:`~._client.loop.LoopHost`."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, TypeVar

from pytest_mcp_contract._client import DEFAULT_TIMEOUT, ToolNames
from pytest_mcp_contract._client.face import ClientFace
from pytest_mcp_contract._client.loop import PROCESS_SHUTDOWN, LoopHost
from pytest_mcp_contract._client.session import PROBE_TIMEOUT, ContractSession
from pytest_mcp_contract._contract.versions import OFFERED
from pytest_mcp_contract._errors import public
from pytest_mcp_contract._servers.kinds import server_label

if TYPE_CHECKING:
    from collections.abc import Mapping

    from mcp_types import CallToolResult

    from pytest_mcp_contract._contract.answer import Answer, Refusal, Triage
    from pytest_mcp_contract._contract.coverage import Coverage
    from pytest_mcp_contract._contract.shapes import ObservedShapes
    from pytest_mcp_contract._servers.names import ServerNames

T = TypeVar("T")


@public
class McpContract(ClientFace):
    """The ``mcp_contract`` fixture: a checked MCP client for plain (sync) tests.

    Every ``call_tool`` result is checked against the tool's published contract before it is
    returned; a broken contract raises :class:`~pytest_mcp_contract.ContractViolationError`.
    ``version`` is the protocol version it offers; ``callbacks`` are the SDK client's sampling,
    elicitation, roots and logging callbacks, and so the capabilities it declares. ``names`` is the
    plugin's record of what each server called itself this run (a script leaves it out).
    """

    def __init__(
        self,
        server: object,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        check_formats: bool = False,
        require_json_text: bool = False,
        triage: Triage | None = None,
        startup_timeout: float | None = None,
        version: str = OFFERED[0],
        callbacks: Mapping[str, Any] | None = None,
        names: ServerNames | None = None,
        coverage: Coverage | None = None,
        shapes: ObservedShapes | None = None,
        tool_names: ToolNames = "spec",
    ) -> None:
        self._session = ContractSession(
            server,
            timeout=timeout,
            check_formats=check_formats,
            triage=triage,
            require_json_text=require_json_text,
            version=version,
            callbacks=callbacks,
            names=names,
            coverage=coverage,
            shapes=shapes,
            tool_names=tool_names,
        )
        opening = timeout if startup_timeout is None else startup_timeout
        self._host = LoopHost(
            self._session.enter,
            timeout=opening,
            label=server_label(server),
            on_open_timeout=self._session.opening_timed_out,
            on_lost=self._session.lost,
        )

    def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        expect_error: bool = False,
        timeout: float | None = None,
        validate_arguments: bool = True,
    ) -> CallToolResult:
        """Call a tool and return the raw ``CallToolResult`` once it has passed every check.

        Raises ``ContractViolationError`` (an ``AssertionError``) listing each violation,
        ``UnknownToolError`` for a name the server does not list, and ``ToolTimeoutError`` when
        no answer comes within ``timeout`` (default: ini ``mcp_contract_timeout``).
        ``expect_error=True`` says the call should fail: an error result is returned, success is a
        violation, and a JSON-RPC error is raised as the SDK's ``MCPError`` (``McpError`` under mcp 1.x).
        Arguments that break the tool's ``input_schema`` raise ``InvalidArgumentsError`` (a
        ``TypeError``) and are not sent, unless ``validate_arguments=False``.
        """
        __tracebackhide__ = True
        args = self._arguments(name, arguments)
        outcome = self.request(name, args, timeout=timeout, validate=validate_arguments)
        return self._settle(name, args, outcome, expect_error=expect_error)

    def request(
        self, name: str, arguments: dict[str, Any] | None, *, timeout: float | None = None, validate: bool = False
    ) -> Answer | Refusal:
        """The raw answer to a call, or what came instead of one, not judged: :meth:`call_tool` and the
        fuzzer ask the judge (``ContractSession.judge``).

        Raises ``ToolTimeoutError`` after ``timeout``; with ``validate``, ``InvalidArgumentsError`` unsent.
        """
        __tracebackhide__ = True
        limit = self._limit(timeout)
        return self._host.run(
            self._session.request(name, arguments, validate=validate),
            limit,
            lambda: self._session.timed_out(name, limit),
            label=f"tool {name!r}",
        )

    def run(self, awaitable: Awaitable[T], *, timeout: float | None = None) -> T:
        """Run an awaitable on this session's event loop, e.g. ``run(c.client.list_resources())``."""
        __tracebackhide__ = True
        limit = self._session.timeout if timeout is None else timeout

        async def wrapper() -> T:
            return await awaitable

        return self._host.run(
            wrapper(), limit, lambda: TimeoutError(f"no answer within {limit:g} s"), label="an awaitable given to run()"
        )

    @property
    def gone(self) -> str | None:
        """Why the server can no longer be reached, once it went away under a call (or the connection
        broke between calls); ``None`` while the session works."""
        if self._session.gone is None and self._host.ended:
            return "the connection broke"
        return self._session.gone

    def unresponsive(self) -> str | None:
        """After a call that timed out, whether the server still answers: ``None`` if it lists its tools
        within ``PROBE_TIMEOUT`` s (or the call timeout, if shorter), else why it is taken for gone. A
        server with one tool stuck in a thread still answers; one blocked as a whole does not."""
        __tracebackhide__ = True
        during = self._session.take_unanswered()
        if during is None:
            return None
        limit = min(PROBE_TIMEOUT, self._session.timeout)
        try:
            self._host.run(self._session.refresh_tools(), limit, TimeoutError, label="tools/list")
        except TimeoutError:
            return self._session.stopped_answering(during, limit)
        except Exception:  # gone (then it says why), or a listing that failed: the next call tells
            return self.gone
        return None

    def close(self) -> None:
        """End the session (the fixture does this at the end of its scope)."""
        # A server that stopped answering ignores its closed stdin: give the signals that end it their time.
        self._host.close(self._session.timeout if self.gone is None else max(self._session.timeout, PROCESS_SHUTDOWN))

    def __enter__(self) -> McpContract:
        return self

    def __exit__(self, *_exc_info: object) -> None:
        self.close()
