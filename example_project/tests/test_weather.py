"""What a server author writes: plain sync tests. Every call is checked against the tool's contract."""

from __future__ import annotations

from pytest_mcp_contract import McpContract


def test_get_weather(mcp_contract: McpContract) -> None:
    result = mcp_contract.call_tool("get_weather", {"city": "London"})
    assert result.structured_content == {
        "city": "London",
        "temperature": 11.5,
        "humidity": 81,
        "conditions": "drizzle",
    }


def test_unknown_city_is_a_tool_error(mcp_contract: McpContract) -> None:
    result = mcp_contract.call_tool("get_weather", {"city": "Atlantis"}, expect_error=True)
    assert result.content[0].type == "text"
    assert result.content[0].text == "Error executing tool get_weather: no weather data for 'Atlantis'"


def test_temperature_is_wrapped(mcp_contract: McpContract) -> None:
    assert mcp_contract.call_tool("temperature", {"city": "Oslo"}).structured_content == {"result": -2.0}


def test_station_reading_without_gust(mcp_contract: McpContract) -> None:
    result = mcp_contract.call_tool("station_reading", {"station": "LPPT"})
    assert result.structured_content is not None
    # An unmeasured gust is left out (mcp 2.x) or sent as null (mcp 1.x fills the model's default).
    assert result.structured_content.get("gust") is None
    assert result.structured_content["celsius"] == 19.2


def test_daily_forecast(mcp_contract: McpContract) -> None:
    result = mcp_contract.call_tool("daily_forecast", {"city": "Lisbon", "day": 2})
    assert result.structured_content == {"day": 2, "high": 24.0, "low": 15.0}


def test_hourly_writes_one_block_per_hour(mcp_contract: McpContract) -> None:
    result = mcp_contract.call_tool("hourly", {"city": "London", "hours": 4})
    assert result.structured_content is not None
    assert len(result.structured_content["result"]) == 4
    assert len(result.content) == 4


def test_city_temperatures(mcp_contract: McpContract) -> None:
    result = mcp_contract.call_tool("city_temperatures", {"cities": ["London", "Oslo"]})
    assert result.structured_content == {"London": 11.5, "Oslo": -2.0}


def test_weather_report_is_text_on_purpose(mcp_contract: McpContract) -> None:
    result = mcp_contract.call_tool("weather_report", {"city": "Lisbon"})
    assert result.structured_content is None
    assert mcp_contract.tools["weather_report"].output_schema is None
