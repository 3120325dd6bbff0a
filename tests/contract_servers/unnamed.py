"""Servers whose names change with every process, which must not name a snapshot folder.

``fastmcp`` is a FastMCP server given no name (FastMCP calls it ``FastMCP-<4 random hex>``);
run as a script, an MCPServer names itself after a random number, and two processes differ.
"""

from __future__ import annotations

import secrets

from fastmcp import FastMCP
from mcp.server import MCPServer

fastmcp = FastMCP()


@fastmcp.tool
def ping() -> int:
    return 1


randomly_named = MCPServer(f"build-{secrets.token_hex(3)}", log_level="WARNING")


@randomly_named.tool()
def pong() -> int:
    return 2


if __name__ == "__main__":
    randomly_named.run()
