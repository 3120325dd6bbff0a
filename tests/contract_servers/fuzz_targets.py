"""Tools for the fuzzing tests: some break their contract only for some inputs; FUZZ_FIXED=1 mends them."""

from __future__ import annotations

import math
import os

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp.shared.exceptions import MCPError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

mcp = MCPServer("fuzz-targets", log_level="WARNING")

READ_ONLY = ToolAnnotations(read_only_hint=True)
"""The tools the tests fuzz read only, and say so: fuzzing calls no other tool unless the project opts it in."""

STOCK = {"apple": 3, "pear": 0}


def _fixed() -> bool:
    return os.environ.get("FUZZ_FIXED") == "1"


@mcp.tool(annotations=READ_ONLY)
def average(values: list[float]) -> float:
    """NaN for an empty list (the text says NaN, structured_content holds null): breaks -> float."""
    if not values:
        if _fixed():
            raise ToolError("no values to average")
        return math.nan
    return math.fsum(values) / len(values)


@mcp.tool(annotations=READ_ONLY)
def stock(item: str) -> int:
    """None for an unknown item: the SDK refuses the return value and answers with an error."""
    count = STOCK.get(item)
    if count is None and _fixed():
        raise ToolError(f"unknown item {item!r}")
    return count  # type: ignore[return-value]


@mcp.tool(annotations=READ_ONLY)
def strict_echo(text: str) -> str:
    """A JSON-RPC error for text the input schema allows (empty): an input-crash."""
    if not text and not _fixed():
        raise MCPError(code=-32603, message="cannot echo nothing")
    return text or "(nothing)"


class Reading(BaseModel):
    station: str
    celsius: float = Field(ge=-90, le=60)


@mcp.tool(annotations=READ_ONLY)
def reading(station: str, celsius: float) -> Reading:
    """Healthy: out-of-range input is a tool error, in-range input a valid result."""
    if not -90 <= celsius <= 60:
        raise ToolError(f"{celsius} is out of range")
    return Reading(station=station, celsius=celsius)


@mcp.tool(annotations=READ_ONLY)
def tags(words: list[str], limit: int = 3) -> list[str]:
    """Healthy: a list result, one text block per item."""
    return sorted(set(words))[: max(limit, 0)]


@mcp.tool(annotations=READ_ONLY)
def flag(note: str | None, on: bool) -> str:
    """An empty answer that is no string: when on without a note, it returns None (the SDK refuses it)."""
    if on and note is None and not _fixed():
        return None  # type: ignore[return-value]
    return f"{note}:{on}"


@mcp.tool(annotations=READ_ONLY)
def observe(station: str) -> Reading:
    """An unknown station's reading with no temperature: the SDK refuses the model it is given."""
    if station not in STOCK and not _fixed():
        return {"station": station}  # type: ignore[return-value]
    return Reading(station=station, celsius=11.0)


@mcp.tool(annotations=READ_ONLY)
def builds_its_own(station: str) -> Reading:
    """Healthy: a model the tool builds itself and fails to build is the tool's own error, not a refusal."""
    return Reading(station=station, celsius=float(len(station)) * 100)  # over 60: pydantic raises in the tool


@mcp.tool(annotations=READ_ONLY)
def logo(name: str) -> Image:
    """Healthy under fuzzing: the file is missing, so the SDK's conversion raises FileNotFoundError, a
    crash like any other (a tool error), not the SDK refusing a value its output model rejects."""
    return Image(path=f"no-such-logo-{len(name)}.png")


@mcp.tool(annotations=ToolAnnotations(destructive_hint=True))
def wipe(table: str) -> str:
    """Destructive: never fuzzed unless allowed by name (every call is an input-crash, so a call shows)."""
    raise MCPError(code=-32603, message=f"wiped {table!r}")


FORECASTS = {"Oslo": -2.0, "Lima": 18.5}


@mcp.tool(annotations=READ_ONLY)
def forecast(city: str, days: int) -> float:
    """Breaks only for a city it knows (named in a case, never guessed) and days=0: NaN."""
    if city not in FORECASTS:
        raise ToolError(f"unknown city {city!r}")
    if days == 0 and not _fixed():
        return math.nan
    return FORECASTS[city] + days


@mcp.tool(annotations=READ_ONLY)
async def lookup(key: str) -> str:
    """Hangs for an empty key: no answer within the call timeout is an input-crash."""
    if not key and not _fixed():
        await anyio.sleep(60)
    return key or "(none)"


CALLS = {"moody": 0}


@mcp.tool(annotations=READ_ONLY)
def moody(word: str) -> int:
    """Breaks on its third call only, whatever the arguments: not reproducible, so flaky."""
    CALLS["moody"] += 1
    if CALLS["moody"] == 3:
        return "three"  # type: ignore[return-value]
    return len(word)


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True, destructive_hint=True))
def peek(table: str) -> str:
    """Read-only, so destructiveHint means nothing (as the spec says): fuzzed."""
    return f"{len(table)} rows"


OVER_STDIO = {"on": False}


@mcp.tool()
def shutdown(code: int) -> int:
    """Over stdio, code 0 ends the server's process under the call (in process it would end pytest). Not
    read-only (it ends the server): its test fuzzes it by name."""
    if code == 0 and OVER_STDIO["on"] and not _fixed():
        os._exit(3)
    return code


if __name__ == "__main__":  # the same tools over stdio
    OVER_STDIO["on"] = True
    mcp.run()
