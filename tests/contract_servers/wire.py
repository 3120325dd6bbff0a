"""Low-level ``mcp.server.Server``s that put exactly the given bytes on the wire.

MCPServer validates and writes content itself, so it cannot produce most broken results. A
low-level server sends whatever its handler returns: the right tool for broken (and unusual but
correct) servers. ``server`` below is one such server with a tool per case, for pytester runs.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp import types
from mcp.server import Server
from mcp.shared.exceptions import MCPError

Handler = Callable[[dict[str, Any]], Awaitable[types.CallToolResult]]


@dataclass
class WireTool:
    name: str
    output_schema: dict[str, Any] | None = None
    structured: Any = None
    texts: list[str] = field(default_factory=list)
    is_error: bool = False
    handler: Handler | None = None
    annotations: types.ToolAnnotations | None = None
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object"})

    def tool(self) -> types.Tool:
        return types.Tool(
            name=self.name,
            input_schema=self.input_schema,
            output_schema=self.output_schema,
            annotations=self.annotations,
        )

    async def call(self, arguments: dict[str, Any]) -> types.CallToolResult:
        if self.handler is not None:
            return await self.handler(arguments)
        return result(self.structured, self.texts, is_error=self.is_error)


def result(structured: Any, texts: list[str], *, is_error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text) for text in texts],
        structured_content=structured,
        is_error=is_error,
    )


def build(
    tools: Iterable[WireTool],
    *,
    name: str = "wire",
    page_size: int | None = None,
    list_error: Exception | None = None,
) -> Server[Any]:
    """A low-level server listing ``tools`` (``page_size`` per ``tools/list`` page)."""
    by_name = {tool.name: tool for tool in tools}
    listed = [tool.tool() for tool in by_name.values()]

    async def list_tools(_ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        if list_error is not None:
            raise list_error
        start = int(params.cursor) if params is not None and params.cursor else 0
        size = page_size or len(listed) or 1
        page = listed[start : start + size]
        more = start + size < len(listed)
        return types.ListToolsResult(tools=page, next_cursor=str(start + size) if more else None)

    async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return await by_name[params.name].call(params.arguments or {})

    return Server(name, on_list_tools=list_tools, on_call_tool=call_tool)


N_SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
WRAPPED_LIST = {
    "type": "object",
    "properties": {"result": {"type": "array", "items": {"type": "integer"}}},
    "required": ["result"],
}


async def _sleep(arguments: dict[str, Any]) -> types.CallToolResult:
    await anyio.sleep(float(arguments.get("seconds", 3600)))
    return result({"n": 1}, ['{"n": 1}'])


async def _protocol_error(_arguments: dict[str, Any]) -> types.CallToolResult:
    raise MCPError(code=-32001, message="quota exhausted")


def _big(count: int) -> Handler:
    async def handler(_arguments: dict[str, Any]) -> types.CallToolResult:
        values = list(range(count))
        return result({"result": values}, [json.dumps(value) for value in values])

    return handler


CASES = [
    WireTool("good", N_SCHEMA, {"n": 2}, ['{"n": 2}']),
    WireTool("good_compact_list", {**WRAPPED_LIST, "x-fastmcp-wrap-result": True}, {"result": [1, 2]}, ["[1,2]"]),
    WireTool("good_summary_beside_json", N_SCHEMA, {"n": 2}, ["Here is n:", '{"n": 2.0}']),
    WireTool("missing", N_SCHEMA, None, ["n is 2"]),
    WireTool("bad_type", N_SCHEMA, {"n": "x"}, ['{"n": "x"}']),
    WireTool("mismatch", N_SCHEMA, {"n": 1}, ['{"n": 2}']),
    WireTool("mismatch_bool", N_SCHEMA, {"n": 1}, ['{"n": true}']),
    WireTool("mismatch_count", WRAPPED_LIST, {"result": [1, 2, 3]}, ["1", "2"]),
    WireTool("no_text", N_SCHEMA, {"n": 1}, []),
    WireTool("empty_text", N_SCHEMA, {"n": 1}, [""]),  # the shape SEP-3279 would have, sent under 2025-11-25
    WireTool("schema_not_object", {"type": "array", "items": {"type": "integer"}}, [1], ["[1]"]),
    WireTool(
        "schema_remote_ref",
        {"type": "object", "properties": {"n": {"$ref": "https://schemas.example.com/n.json"}}},
        {"n": 1},
        ['{"n": 1}'],
    ),
    WireTool("schema_bad_type", {"type": "object", "properties": {"n": {"type": "int"}}}, {"n": 1}, ['{"n": 1}']),
    WireTool(
        "schema_dangling_ref",
        {"type": "object", "properties": {"n": {"$ref": "#/$defs/Missing"}}},
        {"n": 1},
        ['{"n": 1}'],
    ),
    WireTool("schemaless_repr", None, None, ["<acme.Report object at 0x7f3a2c1d9e80>"]),
    WireTool(  # a pattern that backtracks without end on this value (Python's re would never return)
        "schema_pattern_backtracks",
        {"type": "object", "properties": {"s": {"type": "string", "pattern": "^(a|aa)+$"}}},
        {"s": "a" * 60 + "!"},
        [json.dumps({"s": "a" * 60 + "!"})],
    ),
    WireTool("errored", N_SCHEMA, {"n": "not checked"}, ["upstream down"], is_error=True),
    WireTool("protocol_error", N_SCHEMA, handler=_protocol_error),
    # A JSON-RPC error for arguments the input schema refuses is the protocol's own answer to them.
    WireTool(
        "refuses_bad_arguments",
        N_SCHEMA,
        handler=_protocol_error,
        input_schema={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    ),
    WireTool("sleepy", N_SCHEMA, handler=_sleep),
    WireTool("big", WRAPPED_LIST, handler=_big(2000)),
]

server = build(CASES)


async def _serve_stdio() -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":  # the same answers over stdio
    anyio.run(_serve_stdio)
