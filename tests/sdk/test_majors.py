"""One verdict whatever SDK major the plugin runs on: the planted servers of mcp 1.x (``planted_v1``)
and 2.x (``planted_v2``) answer the same, in process and over stdio, and get the same verdicts.

These tests run on every CI leg (mcp 1.10, the newest 1.x, 2.0, the newest 2.x): each leg's servers
are written for the SDK it installs.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator

import pytest
from conftest import SERVERS, violations_of
from contract_servers.planted import ASKING, MAJOR_DIFFERS, VERDICTS, WIRE_NAMES

from pytest_mcp_contract import ClientCapabilityError, McpContract
from pytest_mcp_contract._contract.versions import OFFERED
from pytest_mcp_contract._sdk.release import MAJOR
from pytest_mcp_contract._servers.stdio import stdio_target

PLANTED = f"planted_v{MAJOR}"


def _open(which: str, transport: str, version: str = OFFERED[0]) -> McpContract:
    if transport == "in process":
        server = getattr(importlib.import_module(f"contract_servers.{PLANTED}"), which)
        return McpContract(server, timeout=30, version=version)
    command = f"stdio:{sys.executable} -m contract_servers.{PLANTED} {which}"
    target = stdio_target(command, SERVERS.parent, dict(os.environ), SERVERS.parent)
    return McpContract(target, timeout=30, version=version)


@pytest.fixture(scope="module", params=["in process", "stdio"])
def planted(request: pytest.FixtureRequest) -> Iterator[dict[str, McpContract]]:
    """Both planted servers, by the tool names they serve."""
    contracts = {which: _open(which, request.param) for which in ("mcp", "wire")}
    yield contracts
    for contract in contracts.values():
        contract.close()


def _contract(planted: dict[str, McpContract], tool: str) -> McpContract:
    return planted["wire" if tool in WIRE_NAMES else "mcp"]


@pytest.mark.parametrize("tool", sorted(VERDICTS))
def test_the_planted_tool_gets_the_same_verdict_under_every_sdk_major(
    planted: dict[str, McpContract], tool: str
) -> None:
    contract = _contract(planted, tool)
    expected = MAJOR_DIFFERS.get(MAJOR, {}).get(tool, VERDICTS[tool])
    # The checks, once each: in process, the registration may add a finding of a check the wire shows too.
    assert sorted({check for check, _path in violations_of(contract, tool)}) == expected


def test_both_planted_servers_list_every_tool(planted: dict[str, McpContract]) -> None:
    assert sorted({*planted["mcp"].tools, *planted["wire"].tools}) == sorted({*VERDICTS, *ASKING})


@pytest.mark.parametrize("transport", ["in process", "stdio"])
def test_a_request_mid_call_the_client_cannot_answer_names_the_callback(transport: str) -> None:
    """Under the handshake era (mcp 1.x knows no other), a tool's ctx.elicit reaches a client without an
    elicitation callback: the SDK client refuses it, and that is the test's set-up, not the server."""
    with _open("mcp", transport, version=OFFERED[-1]) as contract, pytest.raises(ClientCapabilityError) as raised:
        contract.call_tool("confirm")
    assert str(raised.value).startswith(
        "tool 'confirm' needs the client capability elicitation, which the plugin's client does not declare"
    )


def test_an_expected_error_is_accepted_whatever_it_says(planted: dict[str, McpContract]) -> None:
    """A correct server's own error text may begin like mcp 1.x's output refusal; the test expected an error."""
    result = planted["wire"].call_tool("refused_by_server", expect_error=True)
    assert result.is_error
