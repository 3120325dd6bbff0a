"""A stand-in for the weather provider the server calls; fixed data keeps the example repeatable."""

from __future__ import annotations

from typing import Any

CITIES: dict[str, dict[str, Any]] = {
    "London": {"temperature": 11.5, "humidity": 81, "conditions": "drizzle", "wind": 18.0, "uv": 1.0},
    "Lisbon": {"temperature": 19.0, "humidity": 62, "conditions": "sunny", "wind": 9.5, "uv": 6.0},
    "Oslo": {"temperature": -2.0, "humidity": 70, "conditions": "snow", "wind": 12.0, "uv": None},
}

STATIONS: dict[str, dict[str, Any]] = {
    "EGLL": {"city": "London", "celsius": 11.4, "gust": 31.0},
    "LPPT": {"city": "Lisbon", "celsius": 19.2},
}

# The provider's air-quality feed dropped "pm25" for Oslo last week.
AIR: dict[str, dict[str, Any]] = {
    "London": {"aqi": 42, "pm25": 9.1},
    "Oslo": {"aqi": 17},
}


def city(name: str) -> dict[str, Any]:
    try:
        return CITIES[name]
    except KeyError:
        raise LookupError(f"no weather data for {name!r}") from None
