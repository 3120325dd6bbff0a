"""An MCP server over streamable HTTP that holds every answer: ``python held.py --port P [--hold S]``.

Each request waits ``--hold`` seconds (3 by default) before the server handles it. With an
``mcp_contract_startup_timeout`` between one hold and two, the handshake's first answer comes (the
session has begun, with its session id) and the next request is still held when the opening times
out: the opening is cancelled with a request in flight, and closing it sends a DELETE that is held too.
"""

from __future__ import annotations

import argparse
from typing import Any

import anyio
import uvicorn
from mcp.server import MCPServer

server = MCPServer("held", log_level="WARNING")


@server.tool()
def ping() -> str:
    return "pong"


def held(app: Any, seconds: float) -> Any:
    async def hold(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            await anyio.sleep(seconds)
        await app(scope, receive, send)

    return hold


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--hold", type=float, default=3.0)
    options = parser.parse_args()
    uvicorn.run(held(server.streamable_http_app(), options.hold), port=options.port, log_level="critical")
