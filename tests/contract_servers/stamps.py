"""An MCPServer with a tool only for clients that declare a client extension (SEP-2133):
``stamp`` answers -32021 (missing required client capability) unless the client declared
``com.example/stamps``. ``python stamps.py`` serves it over stdio.
"""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer, require_client_extension
from mcp.types import ToolAnnotations
from pydantic import BaseModel

server = MCPServer("stamps", log_level="WARNING")


class Stamped(BaseModel):
    text: str
    stamp: str


@server.tool(annotations=ToolAnnotations(read_only_hint=True))  # fuzzed by the tests
async def stamp(text: str, ctx: Context) -> Stamped:
    """Stamps a text; asks the client to have declared the stamps extension."""
    require_client_extension(ctx.request_context, "com.example/stamps")
    return Stamped(text=text, stamp="approved")


if __name__ == "__main__":
    server.run()
