"""An MCPServer whose tools each break their contract in a way the SDK lets through (or hides)."""

from __future__ import annotations

import datetime
import decimal
from typing import Annotated, Any, NamedTuple, TypedDict

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, Field

mcp = MCPServer("sdk-broken", log_level="ERROR")


class NoAnnotations:
    def __init__(self) -> None:
        self.value = 1


class PlainNoStr:
    u: int

    def __init__(self, u: int) -> None:
        self.u = u


class Pair(NamedTuple):
    left: int
    right: int


class Reading(TypedDict):
    station: str
    celsius: float


class Point(BaseModel):
    x: int
    y: int


class Gauge(BaseModel):
    level: float = Field(json_schema_extra={"exclusiveMinimum": True})  # Draft 4 style: invalid in 2020-12


@mcp.tool()
def class_without_annotations() -> NoAnnotations:
    return NoAnnotations()


@mcp.tool()
def returns_datetime() -> datetime.datetime:
    return datetime.datetime(2024, 1, 2, 3, 4, 5)


@mcp.tool()
def returns_decimal() -> decimal.Decimal:
    return decimal.Decimal("1.10")


@mcp.tool()
def returns_bare_dict() -> dict:  # type: ignore[type-arg]
    return {"a": 1}


@mcp.tool()
def returns_any() -> Any:
    return {"a": 1}


@mcp.tool()
def returns_namedtuple() -> Pair:
    return Pair(1, 2)


@mcp.tool()
def plain_class_without_str() -> PlainNoStr:
    return PlainNoStr(5)


@mcp.tool()
def drops_required_field() -> Reading:
    return {"station": "EGLL"}  # type: ignore[typeddict-item]


@mcp.tool()
def crashes() -> Point:
    raise ValueError("upstream returned 503")


@mcp.tool()
def refuses(city: str) -> Point:
    raise ToolError(f"unknown city {city!r}")


@mcp.tool()
def not_a_number() -> float:
    return float("nan")


@mcp.tool()
def invalid_schema() -> Gauge:
    return Gauge(level=1.0)


class Level(TypedDict):
    value: int


class Nested(TypedDict):
    level: Level


@mcp.tool()
def nested_stdlib_typeddict() -> Nested:
    """Below Python 3.12 pydantic cannot read a typing.TypedDict nested in another: no schema, silently."""
    return {"level": {"value": 1}}


@mcp.tool()
def own_result_stale_json() -> Annotated[CallToolResult, Point]:
    """Hand-built content may be prose, but this one is JSON of an older value."""
    return CallToolResult(
        content=[TextContent(type="text", text='{"x": 3, "y": 2}')], structured_content={"x": 1, "y": 2}
    )


@mcp.tool()
def own_result_invalid() -> Annotated[CallToolResult, Point]:
    return CallToolResult(content=[TextContent(type="text", text="x")], structured_content={"x": "one"})
