"""The legacy alerts gateway is a second server: this module's marker points the fixtures at it."""

from __future__ import annotations

import pytest

from pytest_mcp_contract import ContractViolationError, McpContract

pytestmark = pytest.mark.mcp_contract_server("weather_service.gateway:gateway")


def test_current_alert(mcp_contract: McpContract) -> None:
    result = mcp_contract.call_tool("current_alert", {"city": "Oslo"})
    assert result.structured_content == {"city": "Oslo", "level": "yellow", "message": "Strong winds after 18:00"}


@pytest.mark.parametrize(
    ("tool", "violation"),
    [
        ("alert_text", ("structured-missing", None)),
        ("alert_level", ("structured-invalid", "/level")),
        ("alert_summary", ("content-mismatch", "/level")),
    ],
)
def test_defects_are_caught(mcp_contract: McpContract, tool: str, violation: tuple[str, str | None]) -> None:
    with pytest.raises(ContractViolationError) as caught:
        mcp_contract.call_tool(tool, {"city": "Oslo"})
    assert [(v.check, v.path) for v in caught.value.violations] == [violation]
