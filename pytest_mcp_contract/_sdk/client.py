"""Opening a client session with the installed SDK, and the three requests the plugin sends through it.

mcp 2.x has ``mcp.Client``: it takes a server object or a transport, and negotiates 2026-07-28
(``mode="auto"``) or the 2025-11-25 handshake (``mode="legacy"``). mcp 1.x has only ``ClientSession``
over a pair of streams, and the handshake; in process, the plugin runs the server on memory streams.
Either way the answers come back as ``mcp_types`` models, read by the negotiated version's wire model:
a ``pydantic.ValidationError`` says that model refuses them, under either major.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol

import anyio
import mcp_types
from mcp_types.methods import parse_server_result
from pydantic import RootModel, TypeAdapter, ValidationError

from pytest_mcp_contract._sdk.release import MAJOR, MODERN

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams

Answer = mcp_types.CallToolResult | mcp_types.InputRequiredResult
CORE_RESULT_TYPES: Final = frozenset({"complete", "input_required"})
"""The ``resultType`` values of the core's ``tools/call`` answers (2026-07-28); any other is an extension's."""


@dataclass(frozen=True)
class Claimed:
    """A ``tools/call`` answer of a result type outside the core's (2026-07-28 on), which a client extension
    claims: ``result`` is what the claim's resolver made of it, as the SDK's client hands it back (the
    extension's own follow-ups included); ``None`` where no extension the client was given claims it."""

    result_type: str
    result: mcp_types.CallToolResult | None


class SdkSession(Protocol):
    """One open session, whichever major runs it."""

    @property
    def protocol_version(self) -> str | None:
        """The version the server answered with."""
        ...

    @property
    def server_name(self) -> str | None:
        """The name the server gave itself."""
        ...

    @property
    def discovered(self) -> bool:
        """Whether the version was settled by ``server/discover`` (2026-07-28) rather than ``initialize``."""
        ...

    @property
    def client(self) -> Any:
        """The SDK's own client object: ``mcp.Client`` (2.x) or ``ClientSession`` (1.x)."""
        ...

    @property
    def session(self) -> Any:
        """The SDK's ``ClientSession`` underneath, which dispatches requests to the callbacks."""
        ...

    async def list_tools(self, cursor: str | None) -> mcp_types.ListToolsResult: ...

    async def call(
        self, name: str, arguments: dict[str, Any] | None, responses: dict[str, Any] | None, state: str | None
    ) -> Answer | Claimed:
        """One raw ``tools/call`` round: the SDK client's own result validation would raise first. A result
        type a client extension claims is resolved by its claim, as the SDK's client does."""
        ...


async def open_session(
    stack: AsyncExitStack,
    *,
    server: object,
    transport: AbstractAsyncContextManager[TransportStreams] | None,
    version: str,
    callbacks: Mapping[str, Any],
    message_handler: Callable[[Any], Awaitable[None]] | None,
) -> SdkSession:
    """A session to ``server`` (in process) or over ``transport``, offering ``version``; ``stack`` closes it."""
    if MAJOR >= 2:
        return await _open_modern(
            stack, server=server, transport=transport, version=version, callbacks=callbacks, handler=message_handler
        )
    return await _open_handshake(
        stack, server=server, transport=transport, callbacks=callbacks, handler=message_handler
    )


@functools.cache
def client_keywords() -> frozenset[str]:
    """The keywords the installed SDK's client takes: ``mcp.Client``'s (2.x), ``ClientSession``'s (1.x)."""
    import mcp

    client = mcp.Client if MAJOR >= 2 else mcp.ClientSession
    return frozenset(inspect.signature(client).parameters)


def extension_class() -> type | None:
    """The SDK's ``ClientExtension`` (mcp 2.x), what ``Client(extensions=[...])`` takes; ``None``
    when the installed SDK has none."""
    try:
        from mcp.client import ClientExtension
    except ImportError:
        return None
    extension: type = ClientExtension
    return extension


# --- mcp 2.x --------------------------------------------------------------------------------------


async def _open_modern(
    stack: AsyncExitStack,
    *,
    server: object,
    transport: AbstractAsyncContextManager[TransportStreams] | None,
    version: str,
    callbacks: Mapping[str, Any],
    handler: Callable[[Any], Awaitable[None]] | None,
) -> SdkSession:
    from mcp import Client

    mode = "auto" if version == MODERN else "legacy"
    # cache=None: a contract check must see the server's listing, never a cached one.
    if transport is not None:
        client = Client(transport, cache=None, message_handler=handler, mode=mode, **callbacks)  # type: ignore[arg-type]
    else:
        # raise_exceptions=True: in process, a crashing handler's exception becomes the error's cause.
        client = Client(server, cache=None, raise_exceptions=True, mode=mode, **callbacks)  # type: ignore[arg-type]
    return _Modern(await stack.enter_async_context(client))


class _Modern:
    def __init__(self, client: Any) -> None:
        self.client = client
        self._claimed: dict[str, Any] | None = None
        """The result types its extensions claim at the negotiated version, read at the first call."""

    @property
    def session(self) -> Any:
        return self.client.session

    @property
    def protocol_version(self) -> str | None:
        return self.client.protocol_version  # type: ignore[no-any-return]

    @property
    def server_name(self) -> str | None:
        info = self.client.server_info
        return None if info is None else info.name

    @property
    def discovered(self) -> bool:
        return getattr(self.client.session, "discover_result", None) is not None

    async def list_tools(self, cursor: str | None) -> mcp_types.ListToolsResult:
        return await self.client.list_tools(cursor=cursor)  # type: ignore[no-any-return]

    async def call(
        self, name: str, arguments: dict[str, Any] | None, responses: dict[str, Any] | None, state: str | None
    ) -> Answer | Claimed:
        params = mcp_types.CallToolRequestParams(
            name=name, arguments=arguments, input_responses=responses, request_state=state
        )
        request = mcp_types.CallToolRequest(params=params)
        session = self.client.session
        if not getattr(self.client, "extensions", None):  # no extension declared: only the core's result types
            answer: Answer = await session.send_request(request, _answers())
            return answer
        raw: dict[str, Any] = await session.send_request(request, _as_sent())
        result_type = str(raw.get("resultType", ""))
        if self._claimed is None:  # the extensions and the version are fixed once the session is open
            self._claimed = _claims(self.client.extensions, self.protocol_version)
        claim = self._claimed.get(result_type)
        if claim is None:  # read as the SDK's client reads it: by the core's models
            try:
                return _answers().validate_python(raw, by_name=False)
            except ValidationError:
                if not result_type or result_type in CORE_RESULT_TYPES:
                    raise  # the core's shape, broken: the server's
                return Claimed(result_type, None)  # an extension's shape no extension given finishes
        from mcp.client import ClaimContext

        claimed = claim.model.model_validate(raw, by_name=False)
        context = ClaimContext(session=session, tool_name=name, read_timeout_seconds=None)
        return Claimed(result_type, await claim.resolve(claimed, context))


def _claims(extensions: Any, version: str | None) -> dict[str, Any]:
    """The result types the client's extensions claim at ``version``: result type -> its ``ResultClaim``
    (none before 2026-07-28: a claimed shape cannot come on a legacy wire)."""
    if version is None or version < MODERN:
        return {}
    found: dict[str, Any] = {}
    for extension in extensions or ():
        for claim in extension.claims():
            if claim.protocol_versions is None or version in claim.protocol_versions:
                found.setdefault(claim.result_type, claim)
    return found


@functools.cache
def _as_sent() -> TypeAdapter[dict[str, Any]]:
    return TypeAdapter(dict[str, Any])


@functools.cache
def _answers() -> TypeAdapter[Answer]:
    """What a ``tools/call`` may answer: its result, or (from 2026-07-28) a request for more input."""
    return TypeAdapter(Answer)


# --- mcp 1.x --------------------------------------------------------------------------------------


class _Raw(RootModel[dict[str, Any]]):
    """A result as it came: read by the wire model of the negotiated version, not by 1.x's own."""


async def _open_handshake(
    stack: AsyncExitStack,
    *,
    server: object,
    transport: AbstractAsyncContextManager[TransportStreams] | None,
    callbacks: Mapping[str, Any],
    handler: Callable[[Any], Awaitable[None]] | None,
) -> SdkSession:
    from mcp import ClientSession

    read, write = await stack.enter_async_context(transport if transport is not None else _in_memory(server))
    handling: Any = handler
    try:
        session = await stack.enter_async_context(ClientSession(read, write, message_handler=handling, **callbacks))
        initialized: Any = await session.initialize()  # 1.x's own model: camelCase fields
    except anyio.get_cancelled_exc_class() as cancelled:
        # mcp 1.x's HTTP transport ends its task group when a request fails (connection refused, HTTP
        # 500), which cancels this wait: closing the streams with that cancellation lets the group
        # raise the failure itself, the error to tell.
        if not await stack.__aexit__(type(cancelled), cancelled, cancelled.__traceback__):
            raise
        raise ConnectionError("the transport closed before the session opened") from None
    return _Handshake(session, str(initialized.protocolVersion), initialized.serverInfo.name)


@asynccontextmanager
async def _in_memory(server: object) -> AsyncIterator[tuple[Any, Any]]:
    """The streams of a client connected to ``server`` (a low-level ``Server``) running in this process."""
    from mcp.shared.memory import create_client_server_memory_streams

    lowlevel: Any = server
    async with (
        create_client_server_memory_streams() as (client_streams, server_streams),
        anyio.create_task_group() as tasks,
    ):
        # raise_exceptions=False: a handler that fails answers a JSON-RPC error, as over stdio.
        tasks.start_soon(lambda: lowlevel.run(*server_streams, lowlevel.create_initialization_options()))
        try:
            yield client_streams
        finally:
            tasks.cancel_scope.cancel()


class _Handshake:
    def __init__(self, session: Any, version: str, name: str | None) -> None:
        self.session = session
        self.client = session
        self.protocol_version = version
        self.server_name = name
        self.discovered = False

    async def _send(self, method: str, params: dict[str, Any] | None) -> Any:
        from mcp.types import ClientRequest

        request = ClientRequest.model_validate({"method": method, "params": params})  # type: ignore[attr-defined]
        raw = await self.session.send_request(request, _Raw)
        return parse_server_result(method, self.protocol_version, raw.root)

    async def list_tools(self, cursor: str | None) -> mcp_types.ListToolsResult:
        listed: mcp_types.ListToolsResult = await self._send("tools/list", {"cursor": cursor} if cursor else None)
        return listed

    async def call(
        self, name: str, arguments: dict[str, Any] | None, responses: dict[str, Any] | None, state: str | None
    ) -> Answer:
        answer: Answer = await self._send("tools/call", {"name": name, "arguments": arguments})
        return answer
