"""A server whose one read-only tool changes the state once per process, the first time it is called: a
broken promise that a replay of the same calls, on a fresh server in the same process, does not see
again. The sequences must report no finding for it, and say so in the summary.

glimpse.py:build     in process: a factory (its state lives in the module, shared by every server it builds)
glimpse.py:same      a factory that hands out one server again: nothing fresh
"""

from __future__ import annotations

from mcp.server import MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel

READS = ToolAnnotations(read_only_hint=True)
_STATE = {"seen": 0, "glimpsed": False}


class Count(BaseModel):
    seen: int


def build() -> MCPServer:
    mcp = MCPServer("glimpse", log_level="CRITICAL")

    @mcp.tool(annotations=READS)
    def glimpse(at: str) -> str:  # an argument no other tool gives: never a read around another's call
        if not _STATE["glimpsed"]:
            _STATE["glimpsed"] = True
            _STATE["seen"] = int(_STATE["seen"]) + 1
        return "looked"

    @mcp.tool(annotations=READS)
    def count() -> Count:
        return Count(seen=int(_STATE["seen"]))

    return mcp


_ONE = build()


def same() -> MCPServer:
    return _ONE
