"""An MCPServer whose tool asks the client with a request of its own in the middle of the call
(``ctx.elicit``): the handshake era's way, which 2026-07-28 has no way back for.
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel

server = MCPServer("asks-midcall", log_level="WARNING")


class Sure(BaseModel):
    sure: bool


@server.tool()
async def confirm(ctx: Context) -> str:
    """Asks the user whether to go on."""
    answer = await ctx.elicit(message="Go on?", schema=Sure)
    return "going on" if answer.action == "accept" and answer.data.sure else "stopped"


@server.tool()
async def summarize(text: str) -> str:
    """Fails on its own, in words that begin like the SDK client's refusal: no request is sent."""
    raise ToolError("Sampling not supported on the free tier")


if __name__ == "__main__" and sys.argv[1:] == ["stdio"]:  # the same server over stdio
    server.run()
