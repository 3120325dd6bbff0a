"""An MCPServer whose tools need the client to declare more than a callback gives: ``plan`` samples
with tools (the client's ``sampling.tools``, which ``sampling_capabilities`` declares), ``track``
requires the tasks capability, which the SDK's client has no keyword to declare. ``python
needs_more.py`` serves it over stdio.
"""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer, Resolve, Sample
from mcp.shared.exceptions import MCPError
from mcp.types import (
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    CreateMessageResultWithTools,
    SamplingMessage,
    TextContent,
    Tool,
)

server = MCPServer("needs_more", log_level="WARNING")

LOOKUP = Tool(name="lookup", input_schema={"type": "object", "properties": {"city": {"type": "string"}}})


def ask_model(goal: str) -> Sample:
    question = SamplingMessage(role="user", content=TextContent(type="text", text=f"Plan: {goal}"))
    return Sample([question], max_tokens=40, tools=[LOOKUP])


@server.tool()
async def plan(goal: str, drafted: Annotated[CreateMessageResultWithTools, Resolve(ask_model)]) -> str:
    """A plan from the client's model, which may call the lookup tool."""
    content = drafted.content if isinstance(drafted.content, list) else [drafted.content]
    return " ".join(block.text for block in content if block.type == "text")


@server.tool()
async def track(job: str) -> str:
    """Tracks a job; only for clients that declare the tasks capability."""
    raise MCPError(
        code=MISSING_REQUIRED_CLIENT_CAPABILITY,
        message="Client did not declare the tasks capability",
        data={"requiredCapabilities": {"tasks": {}}},
    )


if __name__ == "__main__":
    server.run()
