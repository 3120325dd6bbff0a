"""Weather tools as they go wrong: one defect of each kind the contract checks catch.

Each tool is marked BROKEN with what is wrong. ``tests/test_caught_defects.py`` points the
fixtures at this server and shows each defect being caught.
"""

from __future__ import annotations

import math
from typing import TypedDict

from mcp.server import MCPServer
from pydantic import BaseModel, Field

from weather_service import upstream

flawed = MCPServer("weather-flawed", log_level="WARNING")


class StationInfo:
    """BROKEN (silent-opt-out): a class without annotations. The SDK cannot describe it, so it
    publishes no output_schema and sends the object's repr as text, and says nothing."""

    def __init__(self, code: str, city: str) -> None:
        self.code = code
        self.city = city


@flawed.tool()
def station_info(station: str) -> StationInfo:
    """Where a weather station is."""
    return StationInfo(station, upstream.STATIONS[station]["city"])


class AirQuality(TypedDict):
    aqi: int
    pm25: float


@flawed.tool()
def air_quality(city: str) -> AirQuality:
    """BROKEN (tool-error): the upstream feed dropped a required field for some cities, and the
    SDK's validation turns that into a bare "Error executing tool air_quality"."""
    return upstream.AIR[city]  # type: ignore[return-value]


@flawed.tool()
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


@flawed.tool()
def sun_times(city: str) -> SunTimes:
    """Sunrise and sunset, local time."""
    return SunTimes("07:41", "16:02")


class Wind(BaseModel):
    speed: float = Field(description="km/h", json_schema_extra={"exclusiveMinimum": True})  # BROKEN, see below
    direction: str


@flawed.tool()
def wind(city: str) -> Wind:
    """BROKEN (output-schema-invalid): `exclusiveMinimum: true` was copied from a Draft 4 schema;
    in Draft 2020-12 it must be a number, so the published output_schema is invalid."""
    return Wind(speed=upstream.city(city)["wind"], direction="SW")
