"""The weather MCP server, built with the official SDK's MCPServer.

Its tools show the return kinds the SDK supports, each written correctly; their schemas are
snapshotted in ``mcp_contract_snapshots/weather/``. The defects the contract checks catch live in a
server of their own, ``flawed.py``, so that this one's contract suite stays green.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated, NotRequired, TypedDict

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from weather_service import upstream

mcp = MCPServer("weather", instructions="Current weather and forecasts for a few cities.", log_level="WARNING")


READ_ONLY = ToolAnnotations(read_only_hint=True)
"""Every tool here only reads, and says so: clients (and --mcp-contract-fuzz) may call them freely."""


# --- healthy tools ---------------------------------------------------------------------------


class WeatherData(BaseModel):
    city: str
    temperature: float = Field(description="Degrees Celsius")
    humidity: int = Field(ge=0, le=100, description="Relative humidity, percent")
    conditions: str


class StationReading(TypedDict):
    station: str
    celsius: float
    gust: NotRequired[float]


@dataclasses.dataclass
class DayForecast:
    day: int
    high: float
    low: float


class HourlyReading(BaseModel):
    hour: int
    temperature: float


@mcp.tool(annotations=READ_ONLY)
def get_weather(city: Annotated[str, Field(examples=["London", "Lisbon"])]) -> WeatherData:
    """Current weather for a city (a BaseModel result). Its examples become generated contract calls."""
    try:
        data = upstream.city(city)
    except LookupError as error:
        raise ToolError(str(error)) from None
    return WeatherData(city=city, **{key: data[key] for key in ("temperature", "humidity", "conditions")})


@mcp.tool(annotations=READ_ONLY)
def temperature(city: str) -> float:
    """Current temperature in °C (a scalar, wrapped as {"result": ...})."""
    return float(upstream.city(city)["temperature"])


@mcp.tool(annotations=READ_ONLY)
def station_reading(station: str) -> StationReading:
    """The latest reading of a weather station (a TypedDict; the gust is not always measured)."""
    raw = upstream.STATIONS[station]
    reading = StationReading(station=station, celsius=raw["celsius"])
    if "gust" in raw:
        reading["gust"] = raw["gust"]
    return reading


@mcp.tool(annotations=READ_ONLY)
def daily_forecast(city: str, day: int = 1) -> DayForecast:
    """The forecast for one day ahead (a dataclass)."""
    base = upstream.city(city)["temperature"]
    return DayForecast(day=day, high=base + 3 + day, low=base - 4)


@mcp.tool(annotations=READ_ONLY)
def hourly(city: str, hours: Annotated[int, Field(ge=0, le=48)] = 3) -> list[HourlyReading]:
    """Hour-by-hour temperatures (a list of models: one text block per item)."""
    # Bounded: fuzzing found that hours=10**6 keeps a call busy for seconds.
    base = upstream.city(city)["temperature"]
    return [HourlyReading(hour=hour, temperature=base + hour * 0.5) for hour in range(hours)]


@mcp.tool(annotations=READ_ONLY)
def city_temperatures(cities: list[str]) -> dict[str, float]:
    """Temperatures for several cities at once (a dict[str, float])."""
    return {name: upstream.city(name)["temperature"] for name in cities}


@mcp.tool(annotations=READ_ONLY, structured_output=False)
def weather_report(city: str) -> str:
    """A short report for people to read; text only, on purpose (structured_output=False)."""
    data = upstream.city(city)
    return f"{city}: {data['conditions']}, {data['temperature']:g} °C, humidity {data['humidity']} %."


if __name__ == "__main__":
    # python -m weather_service.server               the same server over stdio
    # python -m weather_service.server --port 8000   over streamable HTTP at http://127.0.0.1:8000/mcp
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, help="serve streamable HTTP on 127.0.0.1:PORT instead of stdio")
    port = parser.parse_args().port
    if port is None:
        mcp.run()
    else:
        mcp.run(transport="streamable-http", port=port)
