"""Tools that never answer in time (or every other time) beside one that answers at once: one timeout ends a
search."""

import anyio
from mcp.server import MCPServer
from mcp.types import ToolAnnotations

mcp = MCPServer("hanging", log_level="CRITICAL")
READ_ONLY = ToolAnnotations(read_only_hint=True)


@mcp.tool(annotations=READ_ONLY)
async def stall(key: str) -> str:
    """Never answers in time, whatever the key."""
    await anyio.sleep(60)
    return key


@mcp.tool(annotations=READ_ONLY)
def echo(key: str) -> str:
    return key


CALLS = {"alternate": 0}


@mcp.tool(annotations=READ_ONLY)
async def alternate(key: str) -> str:
    """Answers every other call: read-only, so each generated call is sent under each protocol version offered,
    and only the second version's call waits."""
    CALLS["alternate"] += 1
    if CALLS["alternate"] % 2 == 0:
        await anyio.sleep(60)
    return key


if __name__ == "__main__":
    mcp.run()
