"""Each BROKEN tool of the flawed weather server, and the violation the contract checks report for it.

(A later version of the plugin turns these into markers; here they are plain pytest.raises.)
"""

from __future__ import annotations

import pytest
from weather_service.flawed import flawed

from pytest_mcp_contract import ContractViolationError, McpContract


@pytest.fixture
def mcp_contract_server() -> object:
    return flawed


def _checks(error: pytest.ExceptionInfo[ContractViolationError]) -> list[tuple[str, str | None]]:
    return [(violation.check, violation.path) for violation in error.value.violations]


def test_silent_opt_out(mcp_contract: McpContract) -> None:
    with pytest.raises(ContractViolationError) as caught:
        mcp_contract.call_tool("station_info", {"station": "EGLL"})
    assert _checks(caught) == [("silent-opt-out", None), ("silent-opt-out", None)]
    assert "annotated -> StationInfo, yet the tool publishes no output_schema" in str(caught.value)


def test_tool_error_with_its_server_side_cause(mcp_contract: McpContract) -> None:
    assert mcp_contract.call_tool("air_quality", {"city": "London"}).structured_content == {"aqi": 42, "pm25": 9.1}
    with pytest.raises(ContractViolationError) as caught:
        mcp_contract.call_tool("air_quality", {"city": "Oslo"})
    assert _checks(caught) == [("tool-error", None)]
    assert "server-side cause: ValidationError (AirQuality): pm25: Field required" in str(caught.value)


def test_structured_invalid(mcp_contract: McpContract) -> None:
    with pytest.raises(ContractViolationError) as caught:
        mcp_contract.call_tool("uv_index", {"city": "Oslo"})
    assert _checks(caught) == [("structured-invalid", "/result"), ("content-mismatch", "/result")]


def test_content_mismatch(mcp_contract: McpContract) -> None:
    with pytest.raises(ContractViolationError) as caught:
        mcp_contract.call_tool("sun_times", {"city": "Oslo"})
    assert _checks(caught) == [("content-mismatch", None)]
    assert "the default repr of a Python object (weather_service.flawed.SunTimes)" in str(caught.value)


def test_output_schema_invalid(mcp_contract: McpContract) -> None:
    with pytest.raises(ContractViolationError) as caught:
        mcp_contract.call_tool("wind", {"city": "London"})
    assert _checks(caught) == [("output-schema-invalid", "/properties/speed/exclusiveMinimum")]
