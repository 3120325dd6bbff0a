"""The calls a test makes through a client of its own: the SDK's ``Client``, ``fastmcp.Client``, a
hand-made session. An in-process server's answers are seen on their way out (``_sdk.observe``),
whoever asked, and judged by the one judge as the fixtures' calls are, for the test during which
they were sent. A server in another process that a test starts itself is not seen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._contract.answer import Answer, Outcome
from pytest_mcp_contract._contract.versions import off_model
from pytest_mcp_contract._contract.violations import ContractViolationError

if TYPE_CHECKING:
    from pytest_mcp_contract._client.sync_client import McpContract
    from pytest_mcp_contract._sdk.observe import Seen


class Observed:
    """Every in-process server the run knows, watched; the calls other clients made, until judged."""

    def __init__(self, open_session: Callable[[object, str | None], McpContract]) -> None:
        self._open = open_session
        """Opens the plugin's own session to a server, offering a version (by default the run's first)."""
        self._pending: list[tuple[object, Seen]] = []
        self._stops: dict[int, tuple[object, Callable[[], None] | None]] = {}
        """By server: the server (held, so its ``id`` names no other object) and what stops watching it."""
        self._readers: dict[tuple[int, str], McpContract] = {}
        """By server and version: a session of the plugin's own that lists the tools the judge reads."""

    def watch(self, server: object) -> None:
        """See every ``tools/call`` answer ``server`` sends from now on, if it runs in this process."""
        from pytest_mcp_contract._servers.inprocess import watch_calls

        if id(server) in self._stops:
            return
        self._stops[id(server)] = (server, watch_calls(server, lambda seen: self._pending.append((server, seen))))

    def blind(self, server: object) -> str | None:
        """Why calls to ``server`` through a client of the tests' own are not seen, or ``None`` when every
        one is (an in-process server this run watches): "not seen" is then never "not called"."""
        watched = self._stops.get(id(server))
        if watched is not None and watched[0] is server and watched[1] is not None:
            return None
        from pytest_mcp_contract._servers.kinds import as_target

        target = as_target(server)
        if target.external:
            return f"calls through a client of the tests' own to {target.label} are not seen"
        return f"calls through a client of the tests' own to {target.label} are not seen under mcp 1.x"

    def forget(self) -> None:
        """Drop what was seen before the next test began (its teardown's calls belong to no test's verdict)."""
        self._pending.clear()

    def judge(self) -> list[ContractViolationError]:
        """Judge each call seen since :meth:`forget`, by the running test's markers and the allow list (the
        pool's triage): one error per call that broke the contract, counted for the report either way."""
        pending, self._pending = self._pending, []
        broken = []
        for server, seen in pending:
            reader = self._reader(server, seen.version)
            if reader is None or seen.name not in reader.tools:  # a tool it does not list promises nothing
                continue
            outcome = self._outcome(reader, server, seen)
            if outcome is None:
                continue
            # A tool error is an answer too: the test may have asked for it, as the fuzzer may.
            found = reader.session.verdict(seen.name, seen.arguments, outcome, expect_error=None).failing
            if found:
                error = ContractViolationError(found, tool=seen.name, arguments=seen.arguments)
                error.add_note(messages.seen_on_the_wire(seen.version))
                broken.append(error)
        return broken

    def _reader(self, server: object, version: str | None) -> McpContract | None:
        """The plugin's own session to ``server`` under ``version``, opened at its first use and kept for the run."""
        from pytest_mcp_contract._client.session import SessionError

        key = (id(server), version or "")
        if key not in self._readers:
            try:
                self._readers[key] = self._open(server, version)
            except SessionError:
                return None  # the test's own client got answers: the failure to list is the fixtures' to tell
        return self._readers[key]

    @staticmethod
    def _outcome(reader: McpContract, server: object, seen: Seen) -> Outcome | None:
        """What the call ended in, as the judge reads it; ``None`` for a round that is not the last."""
        # Here, not at the top: the pool makes an Observed at every pytest start, server or not.
        import mcp_types
        from pydantic import ValidationError

        from pytest_mcp_contract._contract.answer import ErrorAnswer
        from pytest_mcp_contract._sdk.errors import RpcError
        from pytest_mcp_contract._servers.causes import take_cause

        if seen.error is not None:
            error = seen.error
            if isinstance(error, RpcError):
                return reader.session.refusal(error)
            # Any other exception goes on the wire as a JSON-RPC error of the server's own (code 0 or -32603,
            # by the SDK's transport): a value here, with the exception the server raised.
            said = f"JSON-RPC error {mcp_types.INTERNAL_ERROR}: {error}"
            return ErrorAnswer(mcp_types.INTERNAL_ERROR, str(error), said, error)
        wire = seen.wire or {}
        if wire.get("resultType") == "input_required":  # the client answers and calls again: that call counts
            return None
        try:
            result = mcp_types.CallToolResult.model_validate(wire)
        except ValidationError as error:
            return off_model(seen.version or "", error.errors(include_url=False))  # type: ignore[arg-type]
        return Answer(result, take_cause(server, seen.name) if result.is_error else None)

    def close(self) -> None:
        """Stop watching, and close the sessions that listed the tools."""
        for _server, stop in self._stops.values():
            if stop is not None:
                stop()
        self._stops.clear()
        self._pending.clear()
        for reader in self._readers.values():
            reader.close()
        self._readers.clear()
