"""Zero false alarms: every return kind the SDK supports, written correctly, passes every check.

Many of these look suspicious to a naive checker: text that is not JSON, a float written as ``4``,
strings JSON-quoted, lists split into one block per item, ``None`` items dropped, a model whose
text uses Python names while its data uses aliases, content blocks with no data at all.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import anyio
import pytest
from conftest import SERVERS, violations_of
from contract_servers import sdk_kinds, wire

from pytest_mcp_contract import McpContract
from pytest_mcp_contract._stdio import stdio_target

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


# Over stdio the return value is out of sight, and only the wire can be judged. In process these
# pass as the SDK's own rule has it; on the wire their text and data really differ (Python names
# against aliases, keys the data dropped, prose, a plain class's str()), so a client sees that.
DIFFER_ON_THE_WIRE = {
    "t_annotated_call_tool_result": [("content-mismatch", "")],
    "t_dicts_for_models_nested": [("content-mismatch", "/result/0/0/count")],
    "t_dicts_for_models_with_none": [("content-mismatch", "/result/0/count")],
    "t_model_from_dict": [("content-mismatch", "/count")],
    "t_plain_class": [("content-mismatch", "")],
    "t_typeddict_extra_keys": [("content-mismatch", "/internal")],
}
UNREADABLE = {"t_huge_int"}
"""10**5000 reaches the wire, but the SDK's client cannot parse the message and drops it."""


@pytest.fixture(scope="module")
def kinds_over_stdio() -> Iterator[McpContract]:
    target = stdio_target(f"stdio:{sys.executable} {SERVERS / 'sdk_kinds.py'}", SERVERS, dict(os.environ), None)
    contract = McpContract(target, timeout=30, check_formats=False)
    yield contract
    contract.close()


@pytest.mark.parametrize("tool", sorted(set(SDK_TOOLS) - UNREADABLE))
def test_correct_sdk_tool_over_stdio_passes_unless_its_text_and_data_differ_on_the_wire(
    kinds_over_stdio: McpContract, tool: str
) -> None:
    assert violations_of(kinds_over_stdio, tool, ARGUMENTS.get(tool)) == DIFFER_ON_THE_WIRE.get(tool, [])
