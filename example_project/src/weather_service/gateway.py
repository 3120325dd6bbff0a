"""A legacy alerts gateway written against the low-level SDK Server, with hand-written schemas.

A low-level server sends exactly what its handler returns: no validation, no content written
for it. Each tool here carries a defect only a hand-built result can have.
"""

from __future__ import annotations

import json
from typing import Any

from mcp import types
from mcp.server import Server

ALERT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "level": {"type": "string", "enum": ["green", "yellow", "orange", "red"]},
        "message": {"type": "string"},
    },
    "required": ["city", "level"],
}

CITY_ARGUMENT: dict[str, Any] = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def _tool(name: str, description: str) -> types.Tool:
    return types.Tool(name=name, description=description, input_schema=CITY_ARGUMENT, output_schema=ALERT_SCHEMA)


TOOLS = [
    _tool("current_alert", "The active weather alert for a city."),
    _tool("alert_text", "BROKEN (structured-missing): declares a schema, sends only text."),
    _tool("alert_level", "BROKEN (structured-invalid): sends a level the schema does not allow."),
    _tool("alert_summary", "BROKEN (content-mismatch): the text was rendered from a stale copy of the data."),
]


def _result(structured: dict[str, Any] | None, text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=structured)


async def list_tools(_ctx: Any, _params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    city = (params.arguments or {}).get("city", "London")
    alert = {"city": city, "level": "yellow", "message": "Strong winds after 18:00"}
    if params.name == "current_alert":
        return _result(alert, json.dumps(alert))
    if params.name == "alert_text":
        return _result(None, f"Yellow alert for {city}: strong winds after 18:00")
    if params.name == "alert_level":
        wrong = {**alert, "level": "amber"}
        return _result(wrong, json.dumps(wrong))
    if params.name == "alert_summary":
        stale = {**alert, "level": "green"}
        return _result(alert, json.dumps(stale))
    raise ValueError(f"unknown tool {params.name}")


gateway = Server("alerts-gateway", on_list_tools=list_tools, on_call_tool=call_tool)
