"""What the sync and async clients share: the session behind them, and every step of a call but the wait.

``McpContract`` waits by running its own event loop; ``AsyncMcpContract`` awaits on the test's.
Everything else about a call (the arguments, the tool lookup, turning the answer into a verdict)
is here, once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_mcp_contract._client.arguments import arguments_dict

if TYPE_CHECKING:
    from collections.abc import Mapping

    from mcp_types import CallToolResult, Tool

    from pytest_mcp_contract._client.session import ContractSession
    from pytest_mcp_contract._contract.answer import Answer, Refusal
    from pytest_mcp_contract._contract.violations import Violation
    from pytest_mcp_contract._servers.kinds import Connection


class ClientFace:
    """The base of both clients; ``_session`` is the session under contract."""

    _session: ContractSession

    @property
    def server(self) -> object:
        """The server object this session is connected to."""
        return self._session.server

    @property
    def tools(self) -> dict[str, Tool]:
        """Every tool the server lists (all pages of ``tools/list``), by name."""
        return dict(self._session.tools)

    @property
    def protocol_version(self) -> str | None:
        """The MCP protocol version the server answered with: the one this session's calls are checked under."""
        return self._session.negotiated

    @property
    def session(self) -> ContractSession:
        """The session under contract: its checks, one by one, for the plugin's own parts (suite, fuzzer)."""
        return self._session

    @property
    def connection(self) -> Connection | None:
        """For a server outside this process (a command or a URL): its connection, with the server's stderr."""
        return self._session.connection

    @property
    def client(self) -> Any:
        """The SDK's own client, for everything else: ``mcp.Client`` under mcp 2.x, an initialised
        ``ClientSession`` under mcp 1.x (from a sync test, await its methods through ``run``)."""
        return self._session.client

    def check(self, name: str, result: CallToolResult, *, expect_error: bool = False) -> list[Violation]:
        """The violations of a result obtained elsewhere (say, through :attr:`client`).

        Never raises for a bad result: it returns what is wrong instead.
        """
        session = self._session
        answer = session.answer_of(name, result)
        judged = session.verdict(name, None, answer, expect_error=expect_error, sort=False, made_here=False)
        return session.unnoted(judged.found)

    def _arguments(self, name: str, arguments: Mapping[str, Any] | None) -> dict[str, Any] | None:
        """The call's arguments as a dict; a ``TypeError`` at the call for anything else."""
        __tracebackhide__ = True
        return arguments_dict(name, arguments)

    def _limit(self, timeout: float | None) -> float:
        return self._session.timeout if timeout is None else timeout

    def _settle(
        self, name: str, arguments: dict[str, Any] | None, outcome: Answer | Refusal, *, expect_error: bool
    ) -> CallToolResult:
        """The result once it passed every check; else the violation, raised. ``outcome`` is the answer,
        or what came instead (a JSON-RPC error is raised as it is when expected)."""
        __tracebackhide__ = True
        return self._session.verdict(name, arguments, outcome, expect_error=expect_error).settle()
