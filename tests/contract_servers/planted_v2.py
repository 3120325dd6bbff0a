"""The planted servers for mcp 2.x (``MCPServer``, the 2.x low-level ``Server``): the same tools, with the
same wire answers, as ``planted_v1`` for mcp 1.x. ``tests/sdk`` holds both to one set of verdicts.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any, TypedDict

import anyio
from mcp import types
from mcp.server import MCPServer, Server
from mcp.server.mcpserver.utilities.types import Image
from pydantic import BaseModel

from contract_servers.planted import PNG, WIRE, NoAnnotations

mcp = MCPServer("planted", log_level="WARNING")


class Point(BaseModel):
    x: int
    y: int


class Reading(TypedDict):
    station: str
    celsius: float


@dataclasses.dataclass
class Forecast:
    day: str
    high: float


@mcp.tool()
def model() -> Point:
    return Point(x=1, y=2)


@mcp.tool()
def typed_dict() -> Reading:
    return {"station": "Oslo", "celsius": 3.5}


@mcp.tool()
def dataclass_() -> Forecast:
    return Forecast(day="mon", high=9.5)


@mcp.tool()
def int_list() -> list[int]:
    return [1, 2, 3]


@mcp.tool()
def text() -> str:
    return "hello"


@mcp.tool()
def number(n: int = 42) -> int:
    return n


@mcp.tool()
def mapping() -> dict[str, int]:
    return {"k": 1}


@mcp.tool()
def image() -> Image:
    return Image(data=PNG, format="png")


@mcp.tool(structured_output=False)
def opted_out() -> Point:
    return Point(x=1, y=2)


@mcp.tool()
def no_annotations() -> NoAnnotations:
    return NoAnnotations()


@mcp.tool()
def crashes() -> Point:
    raise ValueError("kaput")


async def _list(_ctx: Any, _params: Any) -> types.ListToolsResult:
    tools = [types.Tool(name=name, input_schema={"type": "object"}, output_schema=schema) for name, schema, *_ in WIRE]
    return types.ListToolsResult(tools=tools)


async def _call(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    _name, _schema, structured, texts, is_error = next(case for case in WIRE if case[0] == params.name)
    blocks: list[types.ContentBlock] = [types.TextContent(type="text", text=text) for text in texts]
    return types.CallToolResult(content=blocks, structured_content=structured, is_error=is_error)


wire = Server("planted-wire", on_list_tools=_list, on_call_tool=_call)


async def _serve(server: Any) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":  # the same answers over stdio: `planted_v2.py mcp` or `planted_v2.py wire`
    if sys.argv[1:] == ["mcp"]:
        mcp.run()
    else:
        anyio.run(_serve, wire)
