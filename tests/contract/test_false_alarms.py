"""Zero false alarms: every return kind the SDK supports, written correctly, passes every check.

Many of these look suspicious to a naive checker: text that is not JSON, a float written as ``4``,
strings JSON-quoted, lists split into one block per item, ``None`` items dropped, a record told
in prose, a plain class written with ``str()``, content blocks with no data at all. The same
kinds over stdio get the same verdict.
"""

from __future__ import annotations

import anyio
import pytest
from conftest import make_result, violations_of
from contract_servers import sdk_kinds, wire

from pytest_mcp_contract import McpContract

SDK_TOOLS = sorted(tool.name for tool in anyio.run(sdk_kinds.mcp.list_tools))
ARGUMENTS = {"t_with_args": {"city": "Oslo"}}


def test_the_table_covers_every_kind() -> None:
    assert len(SDK_TOOLS) >= 55


@pytest.mark.parametrize("tool", SDK_TOOLS)
def test_correct_sdk_tool_passes(kinds: McpContract, tool: str) -> None:
    assert violations_of(kinds, tool, ARGUMENTS.get(tool)) == []


GOOD_WIRE = [case.name for case in wire.CASES if case.name.startswith("good")]


@pytest.mark.parametrize("tool", GOOD_WIRE)
def test_correct_hand_built_result_passes(wire: McpContract, tool: str) -> None:
    assert violations_of(wire, tool) == []


@pytest.mark.parametrize("tool", GOOD_WIRE)
def test_correct_hand_built_result_passes_over_stdio_too(wire_over_stdio: McpContract, tool: str) -> None:
    assert violations_of(wire_over_stdio, tool) == []


def test_sleepy_and_big_results_pass(wire: McpContract) -> None:
    assert violations_of(wire, "sleepy", {"seconds": 0.01}) == []
    result = wire.call_tool("big")
    assert len(result.content) == 2000


# The wire is the contract: over stdio every kind gets the verdict it gets in process.
UNREADABLE = {"t_huge_int"}
"""10**5000 reaches the wire, but the SDK's client cannot parse the message and drops it."""


@pytest.mark.parametrize("tool", sorted(set(SDK_TOOLS) - UNREADABLE))
def test_correct_sdk_tool_passes_over_stdio_too(kinds_over_stdio: McpContract, tool: str) -> None:
    assert violations_of(kinds_over_stdio, tool, ARGUMENTS.get(tool)) == []


def test_the_specifications_own_example_passes_at_2026_and_breaks_only_the_2025_object_rule() -> None:
    # schema/2026-07-28/examples/CallToolResult/result-with-array-structured-content.json, with its tool.
    from contract_servers.mirror_cases import USERS, USERS_SCHEMA, USERS_TEXT
    from mcp.types import Tool

    from pytest_mcp_contract import check_result

    tool = Tool(name="list_users", input_schema={"type": "object", "properties": {}}, output_schema=USERS_SCHEMA)
    result = make_result(USERS, USERS_TEXT)
    assert check_result(tool, result, version="2026-07-28") == []
    [violation] = check_result(tool, result, version="2025-11-25")  # an array is no object: that era's rule only
    assert (violation.check, violation.path, violation.versions) == ("structured-invalid", "", ("2025-11-25",))
    assert violation.message.startswith('structured_content is [{"id": "1", "name": "Alice", ')
    assert violation.message.endswith(
        "not an object: MCP 2025-11-25 requires an object there (from 2026-07-28 any JSON value may be sent), so a "
        "client on that version cannot read this result"
    )
