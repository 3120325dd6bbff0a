"""An MCPServer whose tools ask the client back: for a form (elicitation), for the client's model
(sampling), for its roots. ``python asks.py`` serves it over stdio, ``python asks.py --port P`` over
streamable HTTP.

The tools ask through ``Resolve``, so the SDK asks in the way of the version the session speaks:
requests sent mid-call up to 2025-11-25, an ``InputRequiredResult`` the client answers and retries
from 2026-07-28. Each one keeps its contract only for a client that declares the capability.
"""

from __future__ import annotations

import sys
from typing import Annotated

from mcp.server.mcpserver import Elicit, ListRoots, MCPServer, Resolve, Sample
from mcp.types import CreateMessageResult, ListRootsResult, SamplingMessage, TextContent
from pydantic import BaseModel

server = MCPServer("asks", log_level="WARNING")


class Party(BaseModel):
    size: int


class Booking(BaseModel):
    date: str
    guests: int


def ask_party(date: str) -> Elicit[Party]:
    return Elicit(f"How many guests on {date}?", Party)


def ask_model(topic: str) -> Sample:
    question = SamplingMessage(role="user", content=TextContent(type="text", text=f"One line about {topic}"))
    return Sample([question], max_tokens=40)


def ask_roots() -> ListRoots:
    return ListRoots()


@server.tool()
async def book(date: str, party: Annotated[Party, Resolve(ask_party)]) -> Booking:
    """Book a table; asks how many guests."""
    return Booking(date=date, guests=party.size)


@server.tool()
async def line(topic: str, drafted: Annotated[CreateMessageResult, Resolve(ask_model)]) -> str:
    """A line about a topic, from the client's model."""
    return drafted.content.text if drafted.content.type == "text" else ""


@server.tool()
async def folders(found: Annotated[ListRootsResult, Resolve(ask_roots)]) -> list[str]:
    """The client's roots."""
    return [str(root.uri) for root in found.roots]


if __name__ == "__main__":
    if "--port" in sys.argv:  # python asks.py --port P: over streamable HTTP on 127.0.0.1:P
        server.run(transport="streamable-http", port=int(sys.argv[sys.argv.index("--port") + 1]))
    else:
        server.run()
