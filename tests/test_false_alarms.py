"""Zero false alarms: every return kind the SDK supports, written correctly, passes every check.

Many of these look suspicious to a naive checker: text that is not JSON, a float written as ``4``,
strings JSON-quoted, lists split into one block per item, ``None`` items dropped, a model whose
text uses Python names while its data uses aliases, content blocks with no data at all.
"""

from __future__ import annotations

import anyio
import pytest
from conftest import violations_of
from contract_servers import sdk_kinds, wire

from pytest_mcp_contract import McpContract

SDK_TOOLS = sorted(tool.name for tool in anyio.run(sdk_kinds.mcp.list_tools))
ARGUMENTS = {"t_with_args": {"city": "Oslo"}}


def test_the_table_covers_every_kind() -> None:
    assert len(SDK_TOOLS) >= 55


@pytest.mark.parametrize("tool", SDK_TOOLS)
def test_correct_sdk_tool_passes(kinds: McpContract, tool: str) -> None:
    assert violations_of(kinds, tool, ARGUMENTS.get(tool)) == []


@pytest.mark.parametrize("tool", [case.name for case in wire.CASES if case.name.startswith("good")])
def test_correct_hand_built_result_passes(wire: McpContract, tool: str) -> None:
    assert violations_of(wire, tool) == []


def test_sleepy_and_big_results_pass(wire: McpContract) -> None:
    assert violations_of(wire, "sleepy", {"seconds": 0.01}) == []
    result = wire.call_tool("big")
    assert len(result.content) == 2000
