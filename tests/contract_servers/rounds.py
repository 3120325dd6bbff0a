"""A low-level server whose tool answers with ``InputRequiredResult`` until the client answers: 2026-07-28's
multi-round trip. ``provision`` asks which region (elicitation), then, keeping it in its request state,
which label, and only then answers. ``endless`` asks again after every answer.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server import Server
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
)


def _ask(message: str, field: str) -> ElicitRequest:
    schema = {"type": "object", "properties": {field: {"type": "string"}}, "required": [field]}
    return ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=schema))


async def list_tools(_ctx: Any, _params: PaginatedRequestParams | None) -> ListToolsResult:
    schema = {"type": "object", "properties": {"region": {"type": "string"}, "label": {"type": "string"}}}
    return ListToolsResult(
        tools=[
            Tool(name="provision", input_schema={"type": "object"}, output_schema=schema | {"required": ["region"]}),
            Tool(name="endless", input_schema={"type": "object"}),
        ]
    )


async def call_tool(_ctx: Any, params: CallToolRequestParams) -> CallToolResult | InputRequiredResult:
    if params.name == "endless":  # asks again whatever the client answers: it never reaches a result
        return InputRequiredResult(input_requests={"region": _ask("Which region?", "region")}, request_state="again")
    answers = params.input_responses or {}
    region, label = answers.get("region"), answers.get("label")
    if isinstance(region, ElicitResult) and region.content is not None:  # round 2: keep the region in the state
        state = json.dumps({"region": region.content["region"]})
        return InputRequiredResult(input_requests={"label": _ask("Which label?", "label")}, request_state=state)
    if isinstance(label, ElicitResult) and label.content is not None and params.request_state:  # round 3: done
        data = {**json.loads(params.request_state), "label": str(label.content["label"])}
        return CallToolResult(content=[TextContent(type="text", text=json.dumps(data))], structured_content=data)
    return InputRequiredResult(input_requests={"region": _ask("Which region?", "region")}, request_state="start")


server = Server("rounds", on_list_tools=list_tools, on_call_tool=call_tool)
