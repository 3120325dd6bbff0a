"""The flawed weather server: each BROKEN tool, and how its known defect stays in the suite.

Known failures are assertions here, not skipped tests. A marker expects the error or violation
(it does not fail the test; anything else still does), and fails as stale once the bug is fixed.
pyproject.toml's mcp_contract_allow carries the one defect the team lives with for now.
"""

from __future__ import annotations

import pytest

from pytest_mcp_contract import McpContract

pytestmark = pytest.mark.mcp_contract_server("weather_service.flawed:flawed")


def test_station_info_lost_its_schema_and_is_allowed(mcp_contract: McpContract) -> None:
    # silent-opt-out, carried by mcp_contract_allow (with its reason) in pyproject.toml.
    result = mcp_contract.call_tool("station_info", {"station": "EGLL"})
    assert result.structured_content is None


@pytest.mark.mcp_expect_error(tool="air_quality", match="pm25: Field required")
def test_air_quality_fails_when_the_upstream_drops_pm25(mcp_contract: McpContract) -> None:
    assert mcp_contract.call_tool("air_quality", {"city": "London"}).structured_content == {"aqi": 42, "pm25": 9.1}
    mcp_contract.call_tool("air_quality", {"city": "Oslo"})  # tool-error, with the server-side cause


@pytest.mark.mcp_expect_violation(["structured-invalid", "content-mismatch"], tool="uv_index")
def test_uv_index_sends_null_for_a_missing_sensor(mcp_contract: McpContract) -> None:
    mcp_contract.call_tool("uv_index", {"city": "Oslo"})


@pytest.mark.mcp_expect_violation("content-mismatch", tool="sun_times", match="default repr")
def test_sun_times_text_is_a_memory_address(mcp_contract: McpContract) -> None:
    mcp_contract.call_tool("sun_times", {"city": "Oslo"})


@pytest.mark.mcp_expect_violation("output-schema-invalid", tool="wind", match="exclusiveMinimum")
def test_wind_publishes_an_invalid_schema(mcp_contract: McpContract) -> None:
    mcp_contract.call_tool("wind", {"city": "London"})
