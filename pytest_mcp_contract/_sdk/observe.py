"""The seam that sees every ``tools/call`` answer of an in-process server as it goes on the wire,
whoever asked: the SDK's ``Client``, ``fastmcp.Client``, a hand-made session, the plugin's own.

mcp 2.x runs every inbound request through ``Server.middleware``, the SDK's own place to observe
requests: the outermost one gets the result as the wire dict the version's serializer made, or
the error the client is sent instead. mcp 1.x has no such seam; there nothing is observed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pytest_mcp_contract._sdk.release import MAJOR


@dataclass(frozen=True)
class Seen:
    """One ``tools/call`` as the server answered it."""

    name: str
    arguments: dict[str, Any] | None
    version: str | None
    """The protocol version of the connection it came on."""
    wire: Mapping[str, Any] | None
    """The result as sent; ``None`` when an error was sent instead."""
    error: BaseException | None = None
    """What the server raised instead of a result (an ``MCPError`` becomes the JSON-RPC error)."""


def watch(lowlevel: object, seen: Callable[[Seen], None]) -> Callable[[], None] | None:
    """Call ``seen`` with every ``tools/call`` the low-level server answers from now on; returns what
    stops it, or ``None`` where the SDK has no seam (mcp 1.x)."""
    middleware = getattr(lowlevel, "middleware", None)
    if MAJOR < 2 or not isinstance(middleware, list):
        return None

    async def observe(ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        if ctx.method != "tools/call":
            return await call_next(ctx)
        params = ctx.params if isinstance(ctx.params, Mapping) else {}
        name = params.get("name")
        arguments = params.get("arguments")
        version = getattr(ctx, "protocol_version", None)
        args = dict(arguments) if isinstance(arguments, Mapping) else None
        try:
            result = await call_next(ctx)
        except Exception as error:
            seen(Seen(str(name), args, version, None, error))
            raise
        seen(Seen(str(name), args, version, result if isinstance(result, Mapping) else None))
        return result

    middleware.insert(0, observe)  # outermost: what the client is sent, after every other middleware

    def stop() -> None:
        if observe in middleware:
            middleware.remove(observe)

    return stop
