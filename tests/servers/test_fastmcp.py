"""FastMCP (PyPI ``fastmcp``) servers in process, through the pure check functions.

Every tool of ``contract_servers/fastmcp_weather.py:mcp`` is correct by FastMCP's rules and must
give no violation; every tool of ``:broken`` is a defect FastMCP lets through and must be caught
with the named check. The same servers then go through the plugin as a target: the generated
suite, a snapshot and the fixture. ``fastmcp`` is a test dependency (the ``dev`` extra).

The calls go through ``mcp.Client(server._mcp_server)`` (FastMCP's low-level server), in the
client's default mode, which in process negotiates protocol 2026-07-28, as the plugin's session does.
"""

from __future__ import annotations

import asyncio
from typing import Any

import mcp
import mcp.types
import pytest
from conftest import Project, target
from contract_servers import fastmcp_weather

from pytest_mcp_contract import check_result, check_tool

ARGUMENTS = {"city": "London", "name": "Ann", "code": "LHR"}

# FastMCP warns (pydantic serializer warnings) while it sends a broken tool's data; under
# filterwarnings=error the warning would become the tool's error instead of the data.
pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")


async def _call_all(server: Any) -> dict[str, tuple[mcp.types.Tool, mcp.types.CallToolResult]]:
    answers = {}
    async with mcp.Client(server._mcp_server, cache=None, raise_exceptions=True) as client:
        for tool in (await client.list_tools()).tools:
            names = (tool.input_schema or {}).get("properties", {})
            arguments = {key: value for key, value in ARGUMENTS.items() if key in names}
            request = mcp.types.CallToolRequest(
                params=mcp.types.CallToolRequestParams(name=tool.name, arguments=arguments)
            )
            answers[tool.name] = (tool, await client.session.send_request(request, mcp.types.CallToolResult))
    return answers


_ANSWERS: dict[str, dict[str, tuple[mcp.types.Tool, mcp.types.CallToolResult]]] = {}


def _answers(which: str) -> dict[str, tuple[mcp.types.Tool, mcp.types.CallToolResult]]:
    if which not in _ANSWERS:
        _ANSWERS[which] = asyncio.run(_call_all(getattr(fastmcp_weather, which)))
    return _ANSWERS[which]


def _violations(which: str, name: str, *, expect_error: bool = False) -> list[Any]:
    server = getattr(fastmcp_weather, which)
    tool, result = _answers(which)[name]
    return [
        *check_tool(tool, server=server),
        *check_result(tool, result, expect_error=expect_error),
    ]


CORRECT = sorted(asyncio.run(fastmcp_weather.mcp.list_tools()), key=lambda tool: tool.name)


@pytest.mark.parametrize("name", [tool.name for tool in CORRECT])
def test_a_correct_fastmcp_tool_gives_no_violation(name: str) -> None:
    assert _violations("mcp", name, expect_error=name == "fails") == []


@pytest.mark.parametrize(
    ("name", "check", "path"),
    [
        ("count_text", "structured-invalid", "/result"),
        ("weather_missing_key", "structured-invalid", ""),
        ("weather_wrong_type", "structured-invalid", "/temperature_c"),
        ("list_bad_item", "structured-invalid", "/result/1"),
        ("bad_enum", "structured-invalid", "/result"),
        ("model_none", "structured-missing", None),
        ("nullable_object", "structured-missing", None),
        ("mismatched_result", "content-mismatch", "/t"),
        ("prose_for_a_value", "content-mismatch", "/t"),
        ("explicit_schema_broken", "structured-invalid", ""),
        ("opaque", "silent-opt-out", None),
        ("invalid_schema", "output-schema-invalid", "/properties/n/minimum"),
        ("crashes", "tool-error", None),
    ],
)
def test_a_defect_fastmcp_lets_through_is_caught(name: str, check: str, path: str | None) -> None:
    found = [(violation.check, violation.path) for violation in _violations("broken", name)]
    assert found == [(check, path)]


FASTMCP = target("fastmcp_weather", "mcp")


def test_a_fastmcp_server_passes_the_generated_suite_and_is_snapshotted(project: Project) -> None:
    project.configure(FASTMCP, suite=True, mcp_contract_snapshot_fields="description")
    project.tests("def test_nothing():\n    pass\n")
    result = project.run("-m", "mcp_contract", "--snapshot-update")
    result.assert_outcomes(passed=1, deselected=1)  # the listing: every tool's snapshot written, its checks run
    result.stdout.fnmatch_lines(
        [f"schema snapshots: {len(CORRECT)} created", f"tool checks: {len(CORRECT)} passed, 0 failed"]
    )
    # FastMCP's own layout is what is recorded: its wrap marker, field names (not aliases), no titles.
    folder = project.pytester.path / "mcp_contract_snapshots" / "fastmcp-weather"
    assert (folder / "count.json").read_text() == (
        "{\n"
        '  "description": null,\n'
        '  "output_schema": {\n'
        '    "properties": {\n'
        '      "result": {\n'
        '        "type": "integer"\n'
        "      }\n"
        "    },\n"
        '    "required": [\n'
        '      "result"\n'
        "    ],\n"
        '    "type": "object",\n'
        '    "x-fastmcp-wrap-result": true\n'
        "  }\n"
        "}\n"
    )
    assert '"temperature_c"' in (folder / "get_weather.json").read_text()
    again = project.run("-m", "mcp_contract")
    again.assert_outcomes(passed=1 + 2 * len(CORRECT), deselected=1)  # the listing; schema and checks, for every tool
    again.stdout.fnmatch_lines(
        [f"schema snapshots: {len(CORRECT)} matched", f"tool checks: {len(CORRECT)} passed, 0 failed"]
    )


def test_every_correct_fastmcp_tool_passes_through_the_fixture(project: Project) -> None:
    project.configure(FASTMCP)
    project.tests(
        f"""
        import pytest

        ARGUMENTS = {ARGUMENTS!r}

        @pytest.mark.parametrize("name", {[tool.name for tool in CORRECT]!r})
        def test_call(mcp_contract, name):
            names = mcp_contract.tools[name].input_schema.get("properties", {{}})
            arguments = {{key: value for key, value in ARGUMENTS.items() if key in names}}
            mcp_contract.call_tool(name, arguments, expect_error=name == "fails")
        """
    )
    project.run("-W", "ignore:Pydantic serializer warnings:UserWarning").assert_outcomes(passed=len(CORRECT))


def test_a_defect_fastmcp_lets_through_fails_the_test_that_calls_it(project: Project) -> None:
    project.configure(target("fastmcp_weather", "broken"))
    project.tests(
        """
        def test_count(mcp_contract):
            mcp_contract.call_tool("count_text")
        """
    )
    result = project.run("-W", "ignore:Pydantic serializer warnings:UserWarning")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       pytest_mcp_contract.ContractViolationError: tool 'count_text' called with no arguments broke "
            "its contract (1 violation):",
            "E       [[]structured-invalid[]] at /result",
            "E         'nope' is not of type 'integer' (schema keyword 'type' at /properties/result/type)",
        ]
    )
