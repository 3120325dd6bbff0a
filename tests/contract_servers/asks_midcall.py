"""An MCPServer whose tool asks the client with a request of its own in the middle of the call
(``ctx.elicit``): the handshake era's way, which 2026-07-28 has no way back for.
"""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

server = MCPServer("asks-midcall", log_level="WARNING")


class Sure(BaseModel):
    sure: bool


@server.tool()
async def confirm(ctx: Context) -> str:
    """Asks the user whether to go on."""
    answer = await ctx.elicit(message="Go on?", schema=Sure)
    return "going on" if answer.action == "accept" and answer.data.sure else "stopped"
