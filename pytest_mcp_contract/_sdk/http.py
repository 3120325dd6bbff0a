"""The installed SDK's streamable HTTP client: mcp 2.x runs on ``httpx2``, mcp 1.x on ``httpx``."""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from types import ModuleType
from typing import TYPE_CHECKING, Any

from pytest_mcp_contract._sdk.release import MAJOR

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams


def http_library() -> ModuleType:
    """The HTTP library the SDK's transport takes a client of."""
    return importlib.import_module("httpx2" if MAJOR >= 2 else "httpx")


@asynccontextmanager
async def streams(
    url: str, headers: dict[str, str], on_response: Callable[[Any], Awaitable[None]]
) -> AsyncIterator[TransportStreams]:
    """The read and write streams of a streamable HTTP session to ``url``, sending ``headers`` and
    telling ``on_response`` of every response."""
    __tracebackhide__ = True  # its locals hold the revealed headers: never shown under -l
    from mcp.client import streamable_http

    httpx = http_library()

    def client(given: Mapping[str, str] | None = None) -> Any:
        __tracebackhide__ = True
        return httpx.AsyncClient(
            headers={**(given or {}), **headers},
            # The SDK's own defaults: a server may hold a response stream open for long.
            timeout=httpx.Timeout(30.0, read=300.0),
            event_hooks={"response": [on_response]},
            # As the SDK's own client does: mcp 1.x's factory follows every redirect (/mcp -> /mcp/; 1.30
            # follows within the origin itself, whatever this says), mcp 2.x only within the origin.
            follow_redirects=MAJOR < 2,
        )

    if hasattr(streamable_http, "streamable_http_client"):  # 2.x, and 1.x from 1.2x
        async with client() as http, streamable_http.streamable_http_client(url, http_client=http) as given:
            yield given[0], given[1]  # 1.x adds a third: the session id's getter
    else:  # the older 1.x name, which opens a client from a factory, with its protocol headers
        older: Any = getattr(streamable_http, "streamablehttp_client")  # noqa: B009 - absent from 2.x's stubs
        # The factory is given the transport's protocol headers (Accept, Content-Type) as `headers`.
        async with older(url, httpx_client_factory=lambda headers=None, **_rest: client(headers)) as given:
            yield given[0], given[1]
