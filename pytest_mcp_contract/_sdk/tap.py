"""The wire tap: every answer a server sent, as it came, before the SDK's models read it.

A transport hands the SDK's session a pair of message streams (stdio lines, HTTP bodies and SSE
events, each parsed into a JSON-RPC envelope whose ``result`` is the server's JSON, untouched). The
tap sits on that pair, whatever the transport: it notes which request each task sent, and keeps
the ``result`` of each answer to the methods the checks read, until the session takes it. The SDK's
models read the same message afterwards, leniently; the checks read the tap's copy strictly.

In process, mcp 2.x connects without streams (its messages are models its own validation built):
there is nothing to tap, and :meth:`WireTap.take` gives ``None``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any, Final

import anyio
from mcp_types import PARSE_ERROR

from pytest_mcp_contract._sdk import messages

if TYPE_CHECKING:
    from types import TracebackType
    from typing import Self

    from mcp.client._transport import TransportStreams


class Unanswered(Exception):
    """A transport's word that an answer to ``request`` came and cannot be read (``why``): a value on the read
    stream, which the tap keeps for the session and turns into the one thing that ends the SDK's wait."""

    def __init__(self, request: Any, why: str) -> None:
        super().__init__(why)
        self.request = request
        self.why = why


class NotAMessage(ValueError):
    """A line a transport read that is no MCP message (a banner on a stdio server's stdout), handed to the
    session's message handler as the SDK's transports hand their parse errors: what it was, and why not."""

    def __init__(self, line: bytes, why: str) -> None:
        super().__init__(why)
        self.line = line[: SAMPLE * 4].decode("utf-8", "replace")[:SAMPLE]
        self.why = why


SAMPLE: Final = 200
"""Characters of a stray line kept to show it."""

TAPPED: Final = frozenset({"tools/call", "tools/list", "initialize", "server/discover"})
"""The methods whose answers the checks read strictly."""
KEPT: Final = 64
"""Answers kept that no one took (a call that timed out, then answered): the oldest go first."""


class WireTap:
    """The answers of one session's connection, by the request they answer."""

    def __init__(self) -> None:
        self._methods: dict[str, str] = {}
        """Requests sent and not yet answered, by id as text: their method."""
        self._sent: dict[int, str] = {}
        """By task: the id of the request it sent last (a request is written in the task that awaits it)."""
        self._answers: OrderedDict[str, tuple[str, Mapping[str, Any]]] = OrderedDict()
        """By request id: the method and the result as it came."""
        self._unanswered: OrderedDict[str, Unanswered] = OrderedDict()
        """By request id: what the transport said of an answer it could not read."""

    def tapped(
        self, transport: AbstractAsyncContextManager[TransportStreams]
    ) -> AbstractAsyncContextManager[TransportStreams]:
        """``transport``, with this tap on its streams."""

        @asynccontextmanager
        async def streams() -> AsyncIterator[TransportStreams]:
            async with transport as (read, write):
                yield _Read(read, self), _Write(write, self)

        return streams()

    def last_sent(self) -> str | None:
        """The id of the request the running task sent last (``None`` outside an event loop: none sent there)."""
        try:
            task = anyio.get_current_task().id
        except RuntimeError:  # no event loop runs: a verdict asked for from sync code (another client's call)
            return None
        return self._sent.get(task)

    def take(self, request: str | None) -> Mapping[str, Any] | None:
        """The result that answered ``request``, as it came; ``None`` if none was seen (an error came, or
        no stream carried it)."""
        if request is None:
            return None
        kept = self._answers.pop(request, None)
        return None if kept is None else kept[1]

    def take_unanswered(self, request: str | None) -> Unanswered | None:
        """What the transport said of ``request``'s answer, if it could not read it."""
        return None if request is None else self._unanswered.pop(request, None)

    def take_method(self, method: str) -> list[Mapping[str, Any]]:
        """Every result kept of ``method`` (the handshake's, sent by the SDK on its own), oldest first."""
        ids = [request for request, (kept, _raw) in self._answers.items() if kept == method]
        return [self._answers.pop(request)[1] for request in ids]

    def sent(self, message: Any) -> None:
        inner = getattr(message.message, "root", message.message)  # mcp 1.x wraps it in a root model
        method = getattr(inner, "method", None)
        request = getattr(inner, "id", None)
        if request is None or method not in TAPPED:
            return
        self._methods[str(request)] = method
        self._sent[anyio.get_current_task().id] = str(request)

    def received(self, item: Any) -> Any:
        """``item`` noted; what the SDK's session is to get for it."""
        if isinstance(item, Unanswered):
            self._unanswered[str(item.request)] = item
            self._methods.pop(str(item.request), None)
            while len(self._unanswered) > KEPT:
                self._unanswered.popitem(last=False)
            # The SDK ends a request's wait only on an answer to it: an error answer, which the session
            # knows for the transport's (take_unanswered) and never reads as the server's.
            return messages.error_answer(item.request, PARSE_ERROR, item.why, None)
        self._note(item)
        return item

    def _note(self, item: Any) -> None:
        inner = getattr(getattr(item, "message", None), "root", getattr(item, "message", None))
        if not hasattr(inner, "result") and not hasattr(inner, "error"):
            return  # a request or notification of the server's: it answers nothing
        request = str(getattr(inner, "id", None))
        method = self._methods.pop(request, None)  # answered, by a result or an error: no longer awaited
        result = getattr(inner, "result", None)
        if method is None or not isinstance(result, Mapping):
            return
        self._answers[request] = (method, result)
        while len(self._answers) > KEPT:
            self._answers.popitem(last=False)


class _Stream:
    """One of a transport's two streams, with the tap beside it; what the SDK asks of it otherwise goes to it."""

    def __init__(self, stream: Any, tap: WireTap) -> None:
        self._stream = stream
        self._tap = tap

    def __getattr__(self, name: str) -> Any:  # ``last_context`` and whatever else a stream offers
        return getattr(self._stream, name)

    async def aclose(self) -> None:
        await self._stream.aclose()

    def close(self) -> None:
        self._stream.close()

    async def __aenter__(self) -> Self:
        await self._stream.__aenter__()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> bool | None:
        return await self._stream.__aexit__(kind, error, trace)  # type: ignore[no-any-return]


class _Read(_Stream):
    """The receiving stream, noting each answer on its way to the SDK."""

    async def receive(self) -> Any:
        return self._tap.received(await self._stream.receive())

    def __aiter__(self) -> _Read:
        return self

    async def __anext__(self) -> Any:
        return self._tap.received(await self._stream.__anext__())  # its own end of iteration, and its own errors


class _Write(_Stream):
    """The sending stream, noting each request and the task that sent it."""

    async def send(self, item: Any, /) -> None:
        self._tap.sent(item)
        await self._stream.send(item)
