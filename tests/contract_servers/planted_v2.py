"""The planted servers for mcp 2.x (``MCPServer``, the 2.x low-level ``Server``): the same tools, with the
same wire answers, as ``planted_v1`` for mcp 1.x. ``tests/sdk`` holds both to one set of verdicts.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
from mcp import types
from mcp.server import MCPServer, Server
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.utilities.types import Image

from contract_servers.planted import PNG, TOOLS, WIRE, Sure, opted_out

mcp = MCPServer("planted", log_level="WARNING")


for tool in TOOLS:
    mcp.tool()(tool)
mcp.tool(structured_output=False)(opted_out)


@mcp.tool()
def image() -> Image:
    return Image(data=PNG, format="png")


@mcp.tool()
async def confirm(ctx: Context) -> str:
    answer = await ctx.elicit(message="Go on?", schema=Sure)
    return "going on" if answer.action == "accept" and answer.data.sure else "stopped"


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
