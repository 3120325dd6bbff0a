"""The weather MCP server, built with the official SDK's MCPServer.

Most tools are healthy and show the return kinds the SDK supports. A few carry the defects
pytest-mcp-contract exists to catch; each is marked BROKEN with what is wrong.
"""

from __future__ import annotations

import dataclasses
import math
from typing import NotRequired, TypedDict

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from weather_service import upstream

mcp = MCPServer("weather", instructions="Current weather and forecasts for a few cities.", log_level="WARNING")


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


@mcp.tool()
def get_weather(city: str) -> WeatherData:
    """Current weather for a city (a BaseModel result)."""
    try:
        data = upstream.city(city)
    except LookupError as error:
        raise ToolError(str(error)) from None
    return WeatherData(city=city, **{key: data[key] for key in ("temperature", "humidity", "conditions")})


@mcp.tool()
def temperature(city: str) -> float:
    """Current temperature in °C (a scalar, wrapped as {"result": ...})."""
    return float(upstream.city(city)["temperature"])


@mcp.tool()
def station_reading(station: str) -> StationReading:
    """The latest reading of a weather station (a TypedDict; the gust is not always measured)."""
    raw = upstream.STATIONS[station]
    reading = StationReading(station=station, celsius=raw["celsius"])
    if "gust" in raw:
        reading["gust"] = raw["gust"]
    return reading


@mcp.tool()
def daily_forecast(city: str, day: int = 1) -> DayForecast:
    """The forecast for one day ahead (a dataclass)."""
    base = upstream.city(city)["temperature"]
    return DayForecast(day=day, high=base + 3 + day, low=base - 4)


@mcp.tool()
def hourly(city: str, hours: int = 3) -> list[HourlyReading]:
    """Hour-by-hour temperatures (a list of models: one text block per item)."""
    base = upstream.city(city)["temperature"]
    return [HourlyReading(hour=hour, temperature=base + hour * 0.5) for hour in range(hours)]


@mcp.tool()
def city_temperatures(cities: list[str]) -> dict[str, float]:
    """Temperatures for several cities at once (a dict[str, float])."""
    return {name: upstream.city(name)["temperature"] for name in cities}


@mcp.tool(structured_output=False)
def weather_report(city: str) -> str:
    """A short report for people to read; text only, on purpose (structured_output=False)."""
    data = upstream.city(city)
    return f"{city}: {data['conditions']}, {data['temperature']:g} °C, humidity {data['humidity']} %."


# --- BROKEN tools: one of each defect the contract checks catch ------------------------------


class StationInfo:
    """BROKEN (silent-opt-out): a class without annotations. The SDK cannot describe it, so it
    publishes no output_schema and sends the object's repr as text, and says nothing."""

    def __init__(self, code: str, city: str) -> None:
        self.code = code
        self.city = city


@mcp.tool()
def station_info(station: str) -> StationInfo:
    """Where a weather station is."""
    return StationInfo(station, upstream.STATIONS[station]["city"])


class AirQuality(TypedDict):
    aqi: int
    pm25: float


@mcp.tool()
def air_quality(city: str) -> AirQuality:
    """BROKEN (tool-error): the upstream feed dropped a required field for some cities, and the
    SDK's validation turns that into a bare "Error executing tool air_quality"."""
    return upstream.AIR[city]  # type: ignore[return-value]


@mcp.tool()
def uv_index(city: str) -> float:
    """BROKEN (structured-invalid): a missing sensor becomes NaN, which JSON writes as null; the
    result breaks the tool's own schema and the text says "NaN"."""
    value = upstream.city(city)["uv"]
    return math.nan if value is None else float(value)


class SunTimes:
    """BROKEN (content-mismatch): an annotated plain class. The SDK derives a schema from the
    annotations, but writes the object's str() as text: the model reads a memory address."""

    sunrise: str
    sunset: str

    def __init__(self, sunrise: str, sunset: str) -> None:
        self.sunrise = sunrise
        self.sunset = sunset


@mcp.tool()
def sun_times(city: str) -> SunTimes:
    """Sunrise and sunset, local time."""
    return SunTimes("07:41", "16:02")


class Wind(BaseModel):
    speed: float = Field(description="km/h", json_schema_extra={"exclusiveMinimum": True})  # BROKEN, see below
    direction: str


@mcp.tool()
def wind(city: str) -> Wind:
    """BROKEN (output-schema-invalid): `exclusiveMinimum: true` was copied from a Draft 4 schema;
    in Draft 2020-12 it must be a number, so the published output_schema is invalid."""
    return Wind(speed=upstream.city(city)["wind"], direction="SW")
