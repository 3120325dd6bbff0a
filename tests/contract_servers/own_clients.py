"""Servers a test calls through a client of its own (the SDK's ``Client``, ``fastmcp.Client``): one
healthy tool and one whose text says another number than its structured content."""

from __future__ import annotations

from typing import Annotated

from fastmcp import FastMCP
from fastmcp.tools import ToolResult
from mcp.server import MCPServer
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel


class Reading(BaseModel):
    n: int


mcp = MCPServer("own-clients", log_level="ERROR")


@mcp.tool()
def healthy(n: int) -> Reading:
    return Reading(n=n)


@mcp.tool()
def stale(n: int) -> Annotated[CallToolResult, Reading]:
    """Its text was written before the number changed."""
    return CallToolResult(content=[TextContent(type="text", text='{"n": 1}')], structured_content={"n": n})


@mcp.tool()
def refuses(n: int) -> Reading:
    """A tool error, as a test may ask for."""
    raise ValueError(f"no reading for {n}")


app = FastMCP("own-clients-fastmcp")


@app.tool
def fast_healthy(n: int) -> Reading:
    return Reading(n=n)


@app.tool(output_schema=Reading.model_json_schema())
def fast_stale(n: int) -> ToolResult:
    return ToolResult(content=[TextContent(type="text", text='{"n": 1}')], structured_content={"n": n})
