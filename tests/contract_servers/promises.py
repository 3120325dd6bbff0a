"""A status service whose output schema promises more shapes than one call shows: a status of three
values, an optional warning and an outlook that is a forecast or an alert. For contract coverage
(``--mcp-contract-coverage``): which of them a run's answers showed.

python promises.py     over stdio
promises.py:mcp        in process
"""

# No `from __future__ import annotations`: the SDK reads the return annotation as a class.

from typing import Literal, NotRequired, TypedDict

from mcp.server import MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel

mcp = MCPServer("promises", log_level="ERROR")


class Forecast(BaseModel):
    high: float


class Alert(BaseModel):
    message: str


class Status(TypedDict):
    status: Literal["ok", "degraded", "down"]
    warning: NotRequired[str]
    outlook: Forecast | Alert


READ_ONLY = ToolAnnotations(read_only_hint=True)


@mcp.tool(annotations=READ_ONLY)
def status(city: str) -> Status:
    """The service's status in a city: Paris is fine, Oslo degraded with a warning, anywhere else down."""
    if city == "Paris":
        return {"status": "ok", "outlook": Forecast(high=21.5)}
    if city == "Oslo":
        return {"status": "degraded", "warning": "snow", "outlook": Alert(message="roads closed")}
    return {"status": "down", "outlook": Alert(message="no service")}


@mcp.tool(annotations=READ_ONLY)
def uptime() -> Forecast:
    """A tool no test calls."""
    return Forecast(high=99.9)


if __name__ == "__main__":
    mcp.run()
