"""The weather MCP server for mcp 1.x, built with its FastMCP: the same tools as ``server.py`` (mcp 2.x).

Its schemas are snapshotted in ``mcp_contract_snapshots/weather-v1/``: six of seven are the very
schemas mcp 2.x derives. CI runs the example's own tests and generated suite against it on its mcp 1.x legs:
pytest -o mcp_contract_server=weather_service.server_v1:mcp --ignore=tests/test_caught_defects.py
"""

# No `from __future__ import annotations`: mcp 1.10 reads parameter annotations as classes.

import dataclasses
from typing import Annotated

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from weather_service import upstream

mcp = FastMCP("weather-v1", instructions="Current weather and forecasts for a few cities.", log_level="WARNING")


READ_ONLY = ToolAnnotations(readOnlyHint=True)
"""Every tool here only reads, and says so: clients (and --mcp-contract-fuzz) may call them freely."""


# --- healthy tools ---------------------------------------------------------------------------


class WeatherData(BaseModel):
    city: str
    temperature: float = Field(description="Degrees Celsius")
    humidity: int = Field(ge=0, le=100, description="Relative humidity, percent")
    conditions: str


class StationReading(BaseModel):
    # Not the TypedDict of server.py: mcp 1.x derives a NotRequired key's schema differently from release
    # to release (1.10 requires it), fills it with None when left out, and then refuses its own result.
    station: str
    celsius: float
    gust: float | None = None


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
    """The latest reading of a weather station (the gust is not always measured)."""
    raw = upstream.STATIONS[station]
    return StationReading(station=station, celsius=raw["celsius"], gust=raw.get("gust"))


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
    # python -m weather_service.server_v1               the same server over stdio
    # python -m weather_service.server_v1 --port 8000   over streamable HTTP at http://127.0.0.1:8000/mcp
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, help="serve streamable HTTP on 127.0.0.1:PORT instead of stdio")
    port = parser.parse_args().port
    if port is None:
        mcp.run()
    else:
        mcp.run(transport="streamable-http", port=port)
