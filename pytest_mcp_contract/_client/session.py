"""One client session under contract: connecting, listing tools, the raw call, and settling a result.

The async steps are plain coroutines; the sync and async fixtures (``sync_client``, on the loop of
``loop``, and ``async_client``) decide which event loop runs them and how a call is timed out.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any, Final, NoReturn, TypedDict

import anyio
import mcp_types
from mcp_types import CONNECTION_CLOSED, MISSING_REQUIRED_CLIENT_CAPABILITY
from pydantic import ValidationError

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._client.answering import (
    CALLBACK_FOR,
    answer_round,
    client_callbacks,
    missing,
    recording,
    refused_capability,
    required_capabilities,
)
from pytest_mcp_contract._client.arguments import check_arguments
from pytest_mcp_contract._client.listing import Listing
from pytest_mcp_contract._client.verdicts import CallVerdict
from pytest_mcp_contract._contract.answer import (
    Answer,
    ErrorAnswer,
    Malformed,
    Outcome,
    Refusal,
    RoundsWithoutEnd,
    Triage,
    Unreadable,
)
from pytest_mcp_contract._contract.checks import (
    Call,
    check_tool,
    stdout_noise,
    verdict,
    wire_violations,
)
from pytest_mcp_contract._contract.shapes import answer_value, is_open
from pytest_mcp_contract._contract.versions import OFFERED, OffModel, off_model
from pytest_mcp_contract._contract.violations import Violation, noted_checks
from pytest_mcp_contract._contract.wire import Reading, read_strictly
from pytest_mcp_contract._errors import (
    ClientCapabilityError,
    McpContractError,
    ToolTimeoutError,
    UnknownToolError,
    public,
)
from pytest_mcp_contract._sdk.client import Claimed, SdkSession, open_session
from pytest_mcp_contract._sdk.errors import RpcError, explain
from pytest_mcp_contract._sdk.tap import NotAMessage, WireTap
from pytest_mcp_contract._sdk.wire import read_result, wire_result
from pytest_mcp_contract._servers.kinds import Connection, as_target, own_name, server_name

if TYPE_CHECKING:
    from mcp_types import CallToolResult, Tool

    from pytest_mcp_contract._client import ToolNames
    from pytest_mcp_contract._contract.coverage import Coverage
    from pytest_mcp_contract._contract.shapes import ObservedShapes
    from pytest_mcp_contract._servers.causes import Causes
    from pytest_mcp_contract._servers.names import ServerNames

MAX_ROUNDS: Final = 10
"""``InputRequiredResult`` rounds a call may take (the SDK client's own default)."""

MAX_PAGES: Final = 1000
"""A paginator that never ends must not hang the run."""

MAX_RESTARTS: Final = 3
"""Times a run has a server back after it went away under a call (``_run.pool``): a server that
crashes on every call must not be started again for each of hundreds of tests."""

PROBE_TIMEOUT: Final = 5.0
"""Seconds a server whose call timed out has to answer ``tools/list`` when the next test needs it,
before it is taken for gone (a server blocked as a whole, not one tool stuck in a thread)."""


@public
class SessionError(McpContractError, RuntimeError):
    """The session could not be opened, or the server broke the protocol outside a tool call."""


class SessionOptions(TypedDict, total=False):
    """How a :class:`ContractSession` checks, beside its server (the keywords of its constructor)."""

    timeout: float
    check_formats: bool
    triage: Triage | None
    require_json_text: bool
    version: str
    callbacks: Mapping[str, Any]
    names: ServerNames | None
    coverage: Coverage | None
    shapes: ObservedShapes | None
    tool_names: ToolNames


class ContractSession:
    """The loop-independent core shared by ``mcp_contract`` and ``mcp_contract_async``."""

    def __init__(
        self,
        server: object,
        *,
        timeout: float,
        check_formats: bool,
        triage: Triage | None = None,
        require_json_text: bool = False,
        version: str = OFFERED[0],
        callbacks: Mapping[str, Any] | None = None,
        names: ServerNames | None = None,
        coverage: Coverage | None = None,
        shapes: ObservedShapes | None = None,
        tool_names: ToolNames = "spec",
    ) -> None:
        self.server = server
        self.target = as_target(server)
        self.coverage = coverage
        """The run's record of the output-schema promises its answers kept (``None``: not counted)."""
        self.shapes = shapes  # the run's record of the shapes answers had, where the output schema names no key
        """What the session asks of the server, whatever its kind."""
        self.names = names
        """The run's record of what each server called itself, told the name this session hears (``None``: no run's)."""
        self.callbacks = client_callbacks(callbacks)
        """The SDK client's callbacks (sampling, elicitation, roots): the capabilities it declares."""
        self._refusals: list[tuple[str, str]] = []
        """What the callbacks declined or failed on during the call in flight (capability, why)."""
        self.version = version
        """The protocol version the client offers; the server may answer an older one (:attr:`negotiated`)."""
        self.timeout = timeout
        self.check_formats = check_formats
        self.triage = triage
        """Sorts the violations of every call; without one, the checks only noted are dropped here."""
        self.noted = noted_checks(require_json_text)
        self._sdk: SdkSession | None = None
        self.connection: Connection | None = None
        """For a server outside this process: its stderr, exit code or HTTP status, for failure messages."""
        self._faults: list[tuple[str, Exception]] = []
        """What the transport could not read (non-MCP text on a stdio server's stdout), and when."""
        self._started = False
        self._calling: str | None = None
        """The call in flight, which output read now belongs to."""
        self._call_mark: object = None
        """Where the server's output stood when the last call began."""
        self._noise_told = False
        """Whether a ``stdout-noise`` violation was reported: once per session, however many lines."""
        self._gone: str | None = None
        """Why the server can no longer be reached, once it closed the connection."""
        self.pooled = False
        """Whether the ``mcp_contract`` fixture's pool hands this session out, and so gives the next test a
        new one once the server went away (a session of the async fixture or of a script has no next one)."""
        self._unanswered: str | None = None
        """The call that timed out last, until someone asks whether the server still answers."""
        self._tools: dict[str, Tool] = {}
        self._tool_violations: dict[str, tuple[Tool, list[Violation]]] = {}
        self.tool_names = tool_names
        self._causes: Causes | None = None
        """Where an in-process server's crashes are read from its log, while the session is open."""
        self.tap = WireTap()
        """Every answer as it came, where a transport carries messages (not the SDK's own in process)."""
        self._handshake: list[Violation] = []
        """What the handshake's answer (``initialize``, ``server/discover``) breaks of its version's wire model."""
        self.listing_violations: list[Violation] = []
        """What the last listing broke: its wire model (about a tool's entry, or the listing as a whole),
        the tool names a client may refuse; and what the handshake broke."""
        self._wire: Reading | None = None
        """The strict reading of the call in flight's answer, when it breaks its version's wire model."""

    # --- async steps, run on whatever loop owns the session --------------------------------------

    async def enter(self, stack: AsyncExitStack) -> None:
        """Connect and list the tools; the caller's exit stack closes the connection."""
        self._causes = self.target.causes
        if self._causes is not None:  # a crash's cause, read from the server's log, for the message
            stack.enter_context(self._causes.kept())
        self.connection = self.target.connect(stack)
        transport = self.tap.tapped(self.connection.transport()) if self.connection is not None else None
        connection = AsyncExitStack()
        try:
            self._sdk = await open_session(
                connection,
                server=self.target.sdk_server,
                transport=transport,
                version=self.version,
                callbacks=recording(self.callbacks, self._refusals),
                message_handler=self._on_message if transport is not None else None,
            )
        except Exception as error:
            await _close_quietly(connection)
            cause = single(error)
            hint = await self._hint(cause)
            problem = messages.not_opened(self.label, explain(cause), hint, self._stderr())
            raise SessionError(problem) from self._chained(error)
        self._handshake = [
            violation
            for method in ("initialize", "server/discover")
            for raw in self.tap.take_method(method)
            for violation in wire_violations(read_strictly(method, self.negotiated, raw), self.label)
        ]
        told = self._sdk.server_name
        if self.names is not None and told is not None and self.target.external:  # in process, it has its name
            self.names.told(self.server, told)
        try:
            self._tools = await self.list_tools()
        except BaseException:
            # Close first, then raise: an error passing through the client's task groups would
            # reach the user wrapped in an ExceptionGroup. Also when the startup timeout cancels
            # the listing: left open, the session would be closed by the loop's shutdown from
            # another task, which anyio refuses, with a traceback per generator of the transport.
            await _close_quietly(connection)
            raise
        stack.push_async_exit(connection)
        self._started = True

    def _discovered(self) -> bool:
        """Whether a server outside this process settled the version by its answer to ``server/discover``."""
        return self.target.external and self._sdk is not None and self._sdk.discovered

    def _chained(self, error: BaseException) -> BaseException | None:
        """The cause to chain to a session error: in process, the server's own traceback is worth
        showing; for a server outside, it would be only the SDK's and httpx's frames, which the message sums up."""
        return None if self.target.external else error

    async def _hint(self, error: BaseException | None) -> str:
        return "" if self.connection is None else await self.connection.hint(error)

    def _stderr(self) -> str:
        return "" if self.connection is None else self.connection.stderr()

    def opening_timed_out(self, seconds: float) -> SessionError:
        """The error for a server that did not finish the handshake within the startup timeout."""
        return SessionError(messages.opening_timed_out(self.label, seconds, self._stderr()))

    async def _on_message(self, message: object) -> None:
        # The transport hands its faults (the first stdout line that is not JSON-RPC) to the message
        # handler and goes on, as the SDK's clients do; the run must hear of it all the same.
        if isinstance(message, Exception):
            when = self._calling or ("between calls" if self._started else "while starting")
            self._faults.append((when, message))

    def noise(self, tool: str) -> list[Violation]:
        """The ``stdout-noise`` violation for output seen since the last call, reported once per session
        (on the first call or tool check after it); the session goes on either way."""
        return stdout_noise(tool, self._noise())

    def _noise(self) -> str | None:
        """What the transport read that is no MCP message since the last call, told once per session."""
        if not self._faults:
            return None
        (when, fault), self._faults = self._faults[0], []
        if self._noise_told:
            return None
        self._noise_told = True
        if isinstance(fault, NotAMessage):
            # Why a banner is no message goes without saying; why a would-be message is not one does not.
            why = fault.why if fault.line.lstrip().startswith(("{", "[")) else ""
            return messages.stdout_noise(self.label, when, fault.line, why)
        return messages.stdout_noise(self.label, when, None, explain(fault))

    async def list_tools(self) -> dict[str, Tool]:
        """Every page of ``tools/list``, each read strictly where the wire is tapped (``_client.listing``):
        what the listing breaks is kept in :attr:`listing_violations`, and a malformed part counts as absent."""
        __tracebackhide__ = True
        listing = Listing(self.negotiated, self.label)
        cursor: str | None = None
        sdk = self.sdk  # a server already gone says so itself
        try:
            for _ in range(MAX_PAGES):
                read: mcp_types.ListToolsResult | ValidationError
                try:
                    read = await sdk.list_tools(cursor)
                except ValidationError as error:  # the version's model refuses it: the page as it came may do
                    read = error
                cursor = listing.cursor(listing.page(read, self.tap.take(self.tap.last_sent())))
                if cursor is None:
                    clients = self.tool_names == "clients"
                    self.listing_violations = [*self._handshake, *listing.violations(clients=clients)]
                    if self.coverage is not None:
                        self.coverage.listed(self.server_name, listing.tools.values())
                    return listing.tools
        except ValidationError as error:  # the negotiated version's wire model rejects the listing
            refusal = self._off_model(error)
            raise SessionError(messages.listing_off_model(self.label, refusal.version, refusal.why)) from None
        except Exception as error:
            if self._closed_under_us(error):
                await self._went_away("tools/list", error, "it crashed or exited.")
            if self._discovered() and _wants_initialize(error):  # it claimed a version, then did not speak it
                claimed = messages.claimed_then_broke(self.label, str(self.negotiated), explain(error))
                raise SessionError(claimed) from self._chained(error)
            raise SessionError(messages.listing_failed(self.label, explain(error))) from self._chained(error)
        raise SessionError(messages.listing_endless(self.label, MAX_PAGES))

    async def refresh_tools(self) -> None:
        self._tools = await self.list_tools()

    async def request(self, name: str, arguments: dict[str, Any] | None, *, validate: bool = False) -> Answer | Refusal:
        """A raw ``tools/call``: the SDK client's own validation would raise before we see the result.

        Returns the answer, or what came instead of one a client could take (a JSON-RPC error, a line
        that could not be read, an answer the negotiated version's wire model rejects, rounds of
        input without end): values the judge reads, never raised.
        An ``InputRequiredResult`` is followed through its rounds, as the SDK's ``Client.call_tool``
        does, answering each with the client's callbacks; its final result is the answer.
        A name the listing lacks is looked up again first (the server may have added the tool since),
        within the call's time: an unknown one raises :class:`UnknownToolError`. With ``validate``,
        arguments that break the tool's ``input_schema`` raise :class:`InvalidArgumentsError` unsent.
        """
        __tracebackhide__ = True
        if name not in self._tools:
            await self.refresh_tools()
            self.tool(name)
        if validate:
            self.check_arguments(name, arguments)
        self._calling = f"during tools/call {name!r}"
        self._call_mark = self.connection.mark() if self.connection is not None else None
        self._refusals.clear()
        self._wire = None
        try:
            with self.target.own_call() as key:
                try:
                    result = await self._rounds(name, arguments)
                except RpcError as error:
                    if self._closed_under_us(error):
                        await self._went_away(
                            f"tools/call {name!r}",
                            error,
                            "the tool crashed or killed the server.",
                            self._later_calls(),
                        )
                    return self.refusal(error)
            if self.connection is not None:
                await anyio.lowlevel.checkpoint()  # let the SDK hand over a fault it read before the answer
        finally:
            self._calling = None
        if not isinstance(result, mcp_types.CallToolResult):
            return result
        if not result.is_error:
            return Answer(result, None, wire=self._wire)
        cause, refused_return = self._causes.take(key) if self._causes is not None else (None, False)
        return Answer(result, cause, refused_return, wire=self._wire)

    async def _rounds(
        self, name: str, arguments: dict[str, Any] | None
    ) -> CallToolResult | OffModel | RoundsWithoutEnd | Malformed:
        """The call through its ``InputRequiredResult`` rounds, to its final result or what stopped it."""
        __tracebackhide__ = True
        result = await self._send_call(name, arguments, None, None)
        for round_number in range(1, MAX_ROUNDS + 1):
            if not isinstance(result, mcp_types.InputRequiredResult):
                return result
            responses = await answer_round(self.sdk.session, self.callbacks, name, result, round_number)
            result = await self._send_call(name, arguments, responses, result.request_state)
        if isinstance(result, mcp_types.InputRequiredResult):  # the server's defect, not the test's
            return RoundsWithoutEnd(messages.rounds_without_end(name, MAX_ROUNDS))
        return result

    def refusal(self, error: RpcError) -> Refusal:
        """A JSON-RPC error that came instead of a result, as the value the judge reads."""
        unanswered = self.tap.take_unanswered(self.tap.last_sent())
        if unanswered is not None:  # the transport's word, not the server's: its answer could not be read
            return Unreadable(unanswered.why)
        # With an HTTP status the SDK's message leaves out.
        meanwhile = self.connection.meanwhile(self._call_mark) if self.connection is not None else ""
        return ErrorAnswer(error.error.code, error.error.message, explain(error), error, meanwhile)

    async def _send_call(
        self,
        name: str,
        arguments: dict[str, Any] | None,
        responses: dict[str, Any] | None,
        state: str | None,
    ) -> mcp_types.CallToolResult | mcp_types.InputRequiredResult | OffModel | Malformed:
        """One ``tools/call`` round, read by the negotiated version's wire model; where the wire is tapped,
        also read strictly by it (:attr:`_wire`), each malformed part then absent from the result."""
        __tracebackhide__ = True
        refused: ValidationError | None = None
        answer: mcp_types.CallToolResult | mcp_types.InputRequiredResult | Claimed | None = None
        try:
            answer = await self.sdk.call(name, arguments, responses, state)
        except ValidationError as error:  # the negotiated version's wire model rejects the answer
            refused = error
        raw = self.tap.take(self.tap.last_sent())
        if isinstance(answer, Claimed):  # an extension's result type: judged as its claim resolved it
            if answer.result is None:  # the client declared the extension, not what resolves its result
                raise ClientCapabilityError(name, messages.unclaimed(name, answer.result_type))
            return answer.result
        reading = read_strictly("tools/call", self.negotiated, raw) if raw is not None else None
        if reading is not None and reading.faults:  # read strictly, with each malformed part absent
            self._wire = reading
            if reading.kept is None:
                return Malformed(reading)
            try:
                kept: mcp_types.CallToolResult | mcp_types.InputRequiredResult = read_result("tools/call", reading.kept)
            except ValidationError as error:
                return self._off_model(error)
            return kept
        if refused is not None:
            return self._off_model(refused)
        assert answer is not None  # no refusal: the call returned one
        return answer

    def _off_model(self, error: ValidationError) -> OffModel:
        """What the negotiated version's wire model said of an answer it rejected."""
        return off_model(str(self.negotiated), error.errors(include_url=False))  # type: ignore[arg-type]

    def timed_out(self, name: str, limit: float) -> ToolTimeoutError:
        """The error for a call that did not answer in time, naming a flood of output if there was one."""
        meanwhile = self.connection.meanwhile(self._call_mark) if self.connection is not None else ""
        self._unanswered = f"tools/call {name!r}"
        return ToolTimeoutError(name, limit, meanwhile)

    def take_unanswered(self) -> str | None:
        """The call that timed out since the last time this was asked (``tools/call 'x'``), or ``None``."""
        unanswered, self._unanswered = self._unanswered, None
        return unanswered

    def stopped_answering(self, during: str, within: float) -> str:
        """Take the server for gone: after ``during`` timed out, ``tools/list`` got no answer within ``within`` s."""
        self._gone = f"it stopped answering: {during} timed out, and tools/list got no answer within {within:g} s"
        return self._gone

    def _closed_under_us(self, error: BaseException) -> bool:
        """Whether a server of its own process or endpoint closed the connection (in process, none can)."""
        return isinstance(error, RpcError) and error.error.code == CONNECTION_CLOSED and self.connection is not None

    async def _went_away(self, during: str, error: BaseException, why: str, then: str = "") -> NoReturn:
        __tracebackhide__ = True
        hint = await self._hint(error)  # waits a moment for the exit code, which the next line names too
        ended = self.connection.ended() if self.connection is not None else ""
        self._gone = f"it {ended or 'closed the connection'} during {during}"
        raise SessionError(
            messages.closed_under_us(self.label, during, why, hint, then=then, stderr=self._stderr())
        ) from None

    def lost(self, during: str | None, error: BaseException | None) -> SessionError:
        """The error for a connection that broke under a call (``during`` names it) or between calls."""
        if self._gone is not None:
            return self._gone_error()
        explained = explain(single(error)) if error is not None else None
        self._gone = f"the connection broke during {during}" if during else "the connection broke"
        then = self._later_calls()
        return SessionError(messages.connection_broke(self.label, during, explained, self._stderr(), then=then))

    def _gone_error(self) -> SessionError:
        return SessionError(
            messages.server_gone(self.label, str(self._gone), pooled=self.pooled, started=self.started_here)
        )

    def _later_calls(self) -> str:
        return messages.later_calls(MAX_RESTARTS if self.pooled else None, started=self.started_here)

    @property
    def gone(self) -> str | None:
        """Why the server can no longer be reached (``it exited with code 3 during tools/call 'x'``), once
        it went away; a session in that state is replaced by the pool for the next test."""
        return self._gone

    @property
    def started_here(self) -> bool:
        """Whether the server is a process this session started (a command), which a new session starts again."""
        return self.target.started_here

    @property
    def server_name(self) -> str:
        """What the run files the server under (``_servers.kinds.server_name``), from the run's record of names."""
        return server_name(self.server, self.names)

    @property
    def own_name(self) -> str:
        """The name the server gives itself (``_servers.kinds.own_name``), which :attr:`server_name` may not be."""
        return own_name(self.server, self.names)

    # --- sync steps: pure bookkeeping and checks ---------------------------------------------------

    @property
    def sdk(self) -> SdkSession:
        """The SDK's session underneath; a server already gone says so."""
        __tracebackhide__ = True
        if self._gone is not None:
            raise self._gone_error()
        if self._sdk is None:
            raise SessionError("the MCP session is closed")
        return self._sdk

    @property
    def client(self) -> Any:
        """The SDK's own client: ``mcp.Client`` (mcp 2.x) or ``ClientSession`` (mcp 1.x)."""
        __tracebackhide__ = True
        return self.sdk.client

    @property
    def tools(self) -> dict[str, Tool]:
        return self._tools

    @property
    def label(self) -> str:
        """How messages name the server (``server_label``), from the target made once: the judge names it
        in every verdict, and a server object's name is read as it is now."""
        return self.target.label

    @property
    def negotiated(self) -> str | None:
        """The protocol version the server answered with (``None`` before the session opened)."""
        return self._sdk.protocol_version if self._sdk is not None else None

    def check_arguments(self, name: str, arguments: dict[str, Any] | None) -> None:
        """Raise :class:`InvalidArgumentsError` for arguments the input schema refuses (``_client.arguments``)."""
        __tracebackhide__ = True
        check_arguments(name, self._tools[name].input_schema, arguments)

    def tool(self, name: str) -> Tool:
        __tracebackhide__ = True
        try:
            return self._tools[name]
        except KeyError:
            raise UnknownToolError(name, self._tools) from None

    def tool_violations(self, tool: Tool) -> list[Violation]:
        """The tool-level checks, run once per listed tool."""
        hit = self._tool_violations.get(tool.name)
        if hit is None or hit[0] is not tool:
            hit = (
                tool,
                [*self.entry_violations(tool.name), *check_tool(tool, server=self.server, version=self.negotiated)],
            )
            self._tool_violations[tool.name] = hit
        return hit[1]

    def entry_violations(self, name: str) -> list[Violation]:
        """What the listing's entry of tool ``name`` broke of its version's wire model (``wire-invalid``)."""
        return [found for found in self.listing_violations if found.subject == "tool" and found.tool == name]

    @property
    def listing_wide(self) -> list[Violation]:
        """What the listing broke that is about no tool it keeps: a name a client may refuse, a tool left out,
        a cursor that comes back, the handshake's answer."""
        return [found for found in self.listing_violations if found.subject != "tool"]

    def unnoted(self, violations: list[Violation]) -> list[Violation]:
        """``violations`` without the checks this session only notes (``content-prose``, unless required)."""
        return [violation for violation in violations if violation.check not in self.noted]

    def answer_of(self, name: str, result: CallToolResult) -> Answer:
        """A result got elsewhere, as the judge reads it: a tool error explained by the tool's last crash."""
        result = wire_result(result)
        cause = self._causes.take(name)[0] if self._causes is not None and result.is_error else None
        return Answer(result, cause)

    def verdict(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        outcome: Outcome,
        *,
        expect_error: bool | None,
        listed: bool = True,
        sort: bool = True,
        made_here: bool = True,
    ) -> CallVerdict:
        """**The one place the session judges a call**, whoever made it: what ``outcome`` broke, read by the
        judge (``checks.verdict``) under this session's version and listing, as a value; never raises.

        ``expect_error=None``: a tool error is an answer too (the fuzzer, other clients' calls). ``listed``:
        an answer also says what the tool's listing breaks (the generated suite's checks item says it for
        the fuzzer's calls). ``sort``: the run's triage (markers, the allow list) sorts what fails, else
        only the noted checks are left out. ``made_here``: the session made the call (not a result got
        elsewhere), so a failure may be its client's doing: then nothing is judged, as the server is not at
        fault. Each call is judged once: its coverage is counted here.
        """
        failed = outcome.result if isinstance(outcome, Answer) and outcome.result.is_error else outcome
        if made_here and expect_error is False and isinstance(failed, (ErrorAnswer, mcp_types.CallToolResult)):
            client_side = self.client_side(name, failed)
            if client_side is not None:
                return CallVerdict(name, arguments, outcome, [], [], client_side)
        tool = self._tools.get(name) or mcp_types.Tool(name=name, input_schema={"type": "object"})
        call = Call(
            tool,
            arguments,
            outcome,
            self.negotiated,
            server=self.label,
            expect_error=expect_error,
            check_formats=self.check_formats,
            noise=self._noise(),
        )
        found = verdict(call)
        if self.coverage is not None:
            answered = isinstance(outcome, Answer) and not outcome.result.is_error
            kept = answered and not self.unnoted(found)
            value = None
            if isinstance(outcome, Answer):  # no key in the schema: its JSON text is the data a client reads
                result = outcome.result
                value = answer_value(result) if is_open(tool.output_schema) else result.structured_content
            self.coverage.answered(self.server_name, name, arguments, outcome, value, kept=kept)
        if self.shapes is not None:
            self.shapes.answered(self.server_name, name, tool.output_schema, outcome)
        if listed and isinstance(outcome, Answer):
            found = [*self.tool_violations(tool), *found]
        failing = self.sort(name, outcome, found) if sort else self.unnoted(found)
        return CallVerdict(name, arguments, outcome, found, failing)

    def sort(self, name: str, outcome: Outcome, found: list[Violation]) -> list[Violation]:
        """What of ``found`` (what one call broke) fails the running test: sorted by the run's triage (its
        markers, the allow list), which counts it as one call; without a run, all but the noted checks."""
        if self.triage is None:
            return self.unnoted(found)
        return self.triage(self.server_name, name, outcome if isinstance(outcome, Answer) else None, found)

    def client_side(self, name: str, failed: ErrorAnswer | CallToolResult) -> str | None:
        """Why a failed call is the test's client's doing rather than the server's, as the next step
        (``None``: the server's). The tool requires a capability the client lacks (-32021); one of the
        test's callbacks declined or raised; or the tool relays the SDK client's own refusal of a request
        it had no callback for. Only what crosses the wire and the client's own callbacks count: the
        server-side cause (in process) would make the verdict differ by transport."""
        if isinstance(failed, ErrorAnswer) and failed.code == MISSING_REQUIRED_CLIENT_CAPABILITY:
            data = failed.raised.error.data if isinstance(failed.raised, RpcError) else None
            return missing(name, required_capabilities(data), failed.message, self.callbacks)
        if self._refusals:  # the tool failed on an answer the test's own callback gave
            declined, why = self._refusals[0]
            return messages.callback_declined(name, declined, CALLBACK_FOR[declined], why)
        if isinstance(failed, ErrorAnswer):
            said = failed.message
            shown = f"the client answered its request with {said!r}"
        else:
            said = "\n".join(block.text for block in failed.content if block.type == "text")
            shown = "the tool failed on the client's answer to its request"
        lacking = refused_capability(said, self.callbacks)
        return None if lacking is None else missing(name, {lacking: {}}, shown, self.callbacks)


async def _close_quietly(stack: AsyncExitStack) -> None:
    """Close what a failed or cancelled opening left open, in the task that opened it (anyio's task
    groups must be left where they were entered, and in the order they were); the opening's own error
    is the one to tell. No cancel scope may wrap this, for the same reason: a cancelled opening's
    closing is cut short by the caller's scope (``loop.LoopHost._main``, ``async_client``)."""
    with contextlib.suppress(Exception):
        await stack.aclose()


def _wants_initialize(error: BaseException) -> bool:
    """Whether an error says the server waits for ``initialize``, which 2026-07-28 has no place for."""
    return isinstance(error, RpcError) and "initializ" in error.error.message.lower()


def single(error: BaseException) -> BaseException:
    """The one exception inside nested exception groups of one (anyio wraps errors in task groups)."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error
