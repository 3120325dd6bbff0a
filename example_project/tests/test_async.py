"""The same checked client in async tests (anyio), for servers whose tests are async anyway."""

from __future__ import annotations

import pytest

from pytest_mcp_contract import AsyncMcpContract

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_get_weather_async(mcp_contract_async: AsyncMcpContract) -> None:
    result = await mcp_contract_async.call_tool("get_weather", {"city": "Lisbon"})
    assert result.structured_content is not None
    assert result.structured_content["conditions"] == "sunny"
