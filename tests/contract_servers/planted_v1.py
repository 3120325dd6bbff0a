"""The planted servers for mcp 1.x (``FastMCP``, the 1.x low-level ``Server``): the same tools, with the
same wire answers, as ``planted_v2`` for mcp 2.x. ``tests/sdk`` holds both to one set of verdicts.

``mcp``: the high-level server, with the tools of ``planted.TOOLS`` and an ``Image`` tool. ``wire``: a
low-level server that answers exactly what each case says (mcp 1.x's own one refuses a result that
breaks its schema).
"""

import sys
from typing import Any

import anyio
from mcp import types
from mcp.server import Server
from mcp.server.fastmcp import Context, FastMCP
from mcp.server.fastmcp.utilities.types import Image

from contract_servers.planted import PNG, TOOLS, WIRE, Sure, opted_out

mcp = FastMCP("planted", log_level="WARNING")


for tool in TOOLS:
    mcp.tool()(tool)
mcp.tool(structured_output=False)(opted_out)


@mcp.tool()
def image() -> Image:
    return Image(data=PNG, format="png")


@mcp.tool()
async def confirm(ctx: Context) -> str:  # type: ignore[type-arg]
    answer = await ctx.elicit(message="Go on?", schema=Sure)
    return "going on" if answer.action == "accept" and answer.data.sure else "stopped"


wire: Server[Any] = Server("planted-wire")


@wire.list_tools()
async def _list() -> list[types.Tool]:
    return [types.Tool(name=name, inputSchema={"type": "object"}, outputSchema=schema) for name, schema, *_ in WIRE]


@wire.call_tool()
async def _call(name: str, _arguments: dict[str, Any]) -> Any:
    _name, _schema, structured, texts, is_error = next(case for case in WIRE if case[0] == name)
    if is_error:
        raise RuntimeError(texts[0])  # the 1.x low-level server answers is_error with the message
    blocks = [types.TextContent(type="text", text=text) for text in texts]
    return (blocks, structured) if structured is not None else blocks


async def _serve(server: Server[Any]) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":  # the same answers over stdio: `planted_v1.py mcp` or `planted_v1.py wire`
    anyio.run(_serve, mcp._mcp_server if sys.argv[1:] == ["mcp"] else wire)
