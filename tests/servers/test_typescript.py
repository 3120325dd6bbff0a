"""A server written with the official TypeScript SDK, started with node over stdio.

``contract_servers/typescript/server.mjs`` has a healthy tool and two defects the TypeScript SDK
lets through although it validates structuredContent against the zod output schema itself: a text
block that disagrees with structuredContent, and an extra key that zod strips while checking (and
the SDK then sends anyway) but that the published schema forbids.

Needs node and the server's packages (``npm ci --prefix tests/contract_servers/typescript``).
Without them the module is skipped, unless MCP_CONTRACT_REQUIRE_NODE=1 (CI sets it): then each of
its tests errors at setup with the same reason, so CI can never pass by silently skipping them.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from conftest import NODE, NODE_SERVERS, Project, needs_node, violation_lines
from conftest import REQUIRE_NODE as REQUIRE

SERVER_DIR = NODE_SERVERS

pytestmark = needs_node()


TARGET = "stdio:" + shlex.join([NODE or "node", str(SERVER_DIR / "server.mjs")])

FORECAST_SNAPSHOT = {
    "output_schema": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "additionalProperties": False,
        "properties": {
            "city": {"type": "string"},
            "days": {
                "items": {
                    "additionalProperties": False,
                    "properties": {
                        "conditions": {"enum": ["sunny", "cloudy", "rain"], "type": "string"},
                        "day": {"maximum": 9007199254740991, "minimum": -9007199254740991, "type": "integer"},
                        "high": {"description": "Degrees Celsius", "type": "number"},
                        "low": {"description": "Degrees Celsius", "type": "number"},
                    },
                    "required": ["day", "high", "low", "conditions"],
                    "type": "object",
                },
                "type": "array",
            },
        },
        "required": ["city", "days"],
        "type": "object",
    }
}


@pytest.fixture
def typescript(project: Project) -> Project:
    project.configure(TARGET)
    return project


def test_the_suite_snapshots_each_schema_and_passes_against_the_files(typescript: Project) -> None:
    typescript.configure(TARGET, suite=True)
    typescript.tests(
        """
        def test_forecast(mcp_contract):
            result = mcp_contract.call_tool("get_forecast", {"city": "Oslo", "days": 3})
            assert [day["conditions"] for day in result.structured_content["days"]] == ["sunny", "cloudy", "rain"]
        """
    )
    result = typescript.run("--snapshot-update")
    result.assert_outcomes(passed=2)  # the test, and the listing, which wrote each tool's snapshot
    result.stdout.fnmatch_lines(["schema snapshots: 3 created", "tool checks: 3 passed, 0 failed"])
    folder = typescript.pytester.path / "mcp_contract_snapshots" / "ts-weather"
    assert sorted(path.name for path in folder.iterdir()) == [
        "air_quality.json",
        "get_forecast.json",
        "station_info.json",
    ]
    # The TS SDK publishes draft-07 (zod's toJSONSchema); the file holds it with sorted keys and a 2-space indent.
    assert (folder / "get_forecast.json").read_text() == json.dumps(FORECAST_SNAPSHOT, indent=2, sort_keys=True) + "\n"

    result = typescript.run("-v")
    result.assert_outcomes(passed=8)
    result.stdout.fnmatch_lines(
        [
            f"mcp-contract: server {TARGET} (mcp_contract_server in tox.ini), scope=session, timeout=30s",
            "test_contract.py::test_forecast PASSED*",
            "tox.ini::listing PASSED*",
            "tox.ini::schema[[]air_quality[]] PASSED*",
            "tox.ini::checks[[]air_quality[]] PASSED*",
            "tox.ini::schema[[]get_forecast[]] PASSED*",
            "tox.ini::checks[[]get_forecast[]] PASSED*",
            "tox.ini::schema[[]station_info[]] PASSED*",
            "tox.ini::checks[[]station_info[]] PASSED*",
            "tool          schema   checks  calls  violations  expected  allowed",
            "air_quality   matched  passed      0           0         0        0",
            "get_forecast  matched  passed      1           0         0        0",
            "station_info  matched  passed      0           0         0        0",
            "schema snapshots: 3 matched",
            "tool checks: 3 passed, 0 failed",
        ]
    )


def test_a_text_block_that_disagrees_with_structured_content_is_caught(typescript: Project) -> None:
    typescript.tests(
        """
        def test_air_quality(mcp_contract):
            mcp_contract.call_tool("air_quality", {"city": "Oslo"})
        """
    )
    result = typescript.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        violation_lines(
            "air_quality",
            "content-mismatch",
            "text block 0 (JSON) differs from structured_content in 2 places:",
            "- has 87 at /aqi where structured_content has 42",
            '- has "moderate" at /level where structured_content has "good"',
            at="/aqi",
            next_step="Make content say what structured_content says*",
            arguments='{"city": "Oslo"}',
        )
    )


def test_a_key_the_published_schema_forbids_is_caught(typescript: Project) -> None:
    typescript.tests(
        """
        def test_station(mcp_contract):
            mcp_contract.call_tool("station_info", {"city": "Oslo"})
        """
    )
    result = typescript.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        violation_lines(
            "station_info",
            "structured-invalid",
            "Additional properties are not allowed ('internal_id' was unexpected) (schema keyword "
            "'additionalProperties' at /additionalProperties; Draft 7, as its $schema says)",
            at="/internal_id",
            next_step="Make the tool return data that matches its output_schema*",
            arguments='{"city": "Oslo"}',
        )
    )


def test_without_node_the_module_skips_unless_ci_requires_it(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    # A PATH without node; the inner pytest is started by absolute path and needs nothing else from it.
    monkeypatch.setenv("PATH", str(project.pytester.mkdir("empty-bin")))
    monkeypatch.delenv(REQUIRE, raising=False)
    module = str(Path(__file__))
    result = project.pytester.runpytest_subprocess(module, "-p", "no:cacheprovider", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(
        [
            "SKIPPED [[]1[]] *conftest.py:*: node is not on the PATH; install Node.js 18+ to run the "
            f"Node server tests ({REQUIRE}=1 makes this a failure)"
        ]
    )
    monkeypatch.setenv(REQUIRE, "1")
    result = project.pytester.runpytest_subprocess(module, "-p", "no:cacheprovider")
    result.assert_outcomes(errors=sum(name.startswith("test_") for name in globals()))  # every test here
    result.stdout.fnmatch_lines(
        [
            "node is not on the PATH; install Node.js 18+ to run the Node server tests "
            f"({REQUIRE}=1 is set, so this fails instead of skipping)"
        ]
    )


def test_console_log_on_stdout_fails_the_call_that_wrote_it_once(project: Project) -> None:
    target = "stdio:" + shlex.join([NODE or "node", str(SERVER_DIR / "noisy.mjs")])
    project.configure(target)
    project.tests(
        """
        def test_lookup(mcp_contract):
            mcp_contract.call_tool("lookup", {"city": "Oslo"})

        def test_lookup_again(mcp_contract):
            assert mcp_contract.call_tool("lookup", {"city": "Lima"}).structured_content == {"city": "Lima", "found": True}
        """
    )
    result = project.run()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ test_lookup _*",
            "E       [[]stdout-noise[]]",
            f"E         the stdio server '{target}' wrote a line to stdout that is not an MCP message during "
            "tools/call 'lookup': 'looking up Oslo'. Later ones on this session are not reported again.",
        ]
    )


def test_fuzzing_advice_is_in_the_servers_language(project: Project) -> None:
    # A Node server is not told to write Field(examples=...): that is pydantic's.
    project.configure("stdio:" + shlex.join([NODE or "node", str(SERVER_DIR / "picky.mjs")]), suite=True)
    # The snapshots first: a tool has its fuzz item once its snapshot file is there.
    project.run("-m", "mcp_contract", "--snapshot-update").assert_outcomes(passed=1)
    result = project.run("-m", "mcp_contract", "-k", "fuzz", "--mcp-contract-fuzz", "10", "-p", "no:randomly")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "fuzzed tools that never got past their errors: forecast (* calls); give their input schema examples "
            "(with zod 4, .meta({ examples: [[]...[]] }) on each argument) or add cases to the mcp_contract_cases "
            "file: generated calls draw on both",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "a tool of these that only reads: say readOnlyHint: true on it in the server, so fuzzing and every "
            "client know it is safe to call (TypeScript SDK: annotations: { readOnlyHint: true } in registerTool's "
            "config)"
        ]
    )
    result.stdout.no_fnmatch_line("*Field(examples*")
    result.stdout.no_fnmatch_line("*ToolAnnotations*")
