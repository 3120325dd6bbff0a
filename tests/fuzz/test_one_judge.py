"""One judge: the fuzzer's call and a test's call of the same tool, getting the same answer, get the
same violations under each protocol version offered, in process and over stdio."""

from __future__ import annotations

import re
import sys

import pytest
from conftest import SERVERS, Project, target

PLANTED = f"""
import sys

sys.path.insert(0, {str(SERVERS.parent)!r})

import anyio
from mcp_types import ToolAnnotations

from contract_servers.wire import N_SCHEMA, WireTool, build, _protocol_error

READ = ToolAnnotations(read_only_hint=True)  # fuzzed by default, and called under every version
server = build([
    # A list where 2025-11-25 wants an object: the SDK's server refuses to send it under that version only.
    WireTool("numbers", None, [1, 2], ["1", "2"], annotations=READ),
    # A JSON-RPC error for arguments the input schema allows.
    WireTool("quota", N_SCHEMA, handler=_protocol_error, annotations=READ),
    # Data its own schema refuses, under every version.
    WireTool("wrong", N_SCHEMA, {{"n": "x"}}, ['{{"n": "x"}}'], annotations=READ),
])


async def _serve() -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_serve)
"""

TESTS = """
import pytest

VERSIONS = ["2026-07-28", "2025-11-25"]


@pytest.mark.parametrize(
    "version", [pytest.param(v, marks=pytest.mark.mcp_contract_protocol_version(v), id=v) for v in VERSIONS]
)
@pytest.mark.parametrize("tool", ["numbers", "quota", "wrong"])
def test_call(mcp_contract, tool, version):
    assert mcp_contract.protocol_version == version
    mcp_contract.call_tool(tool, {})
"""


def recorded(project: Project, tools: int) -> None:
    """The first run, as its listing item advises: it records each tool's snapshot, and from then on every
    tool has its items, its fuzz item among them (the suite is collected from the snapshots). ``tools``: how
    many the server lists."""
    result = project.run("--snapshot-update", "tox.ini::listing")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"schema snapshots: {tools} created"])


SECTION = re.compile(r"^_+ (test_call\[(\w+)-[\d-]+\]|fuzz\[(\w+)\]) _+$")
LABEL = re.compile(r"^(?:E\s+)?(\[[a-z-]+(?: @ [\d-]+)?\](?: at \S+)?)$")


def _findings(output: str) -> dict[str, dict[str, set[tuple[str, str]]]]:
    """Per caller ("test", "fuzz") and tool: each violation's label and first message line."""
    found: dict[str, dict[str, set[tuple[str, str]]]] = {"test": {}, "fuzz": {}}
    lines = output.splitlines()
    where: tuple[str, str] | None = None
    for index, line in enumerate(lines):
        section = SECTION.match(line)
        if section is not None:
            where = ("test", section[2]) if section[2] else ("fuzz", section[3])
            found[where[0]].setdefault(where[1], set())
            continue
        label = LABEL.match(line)
        if label is not None and where is not None:
            message = re.sub(r"^E\s+", "", lines[index + 1]).strip()
            found[where[0]][where[1]].add((label[1], message))
    return found


@pytest.mark.parametrize("over", ["in process", "stdio"])
def test_the_fuzzer_and_a_test_get_the_same_violations_under_each_version(project: Project, over: str) -> None:
    planted = project.pytester.makepyfile(judged=PLANTED)
    server = "judged.py:server" if over == "in process" else f"stdio:{sys.executable} {planted}"
    project.pytester.syspathinsert(SERVERS.parent)
    project.configure(server, suite=True, mcp_contract_protocol_versions="2026-07-28\n    2025-11-25")
    project.tests(TESTS)
    recorded(project, 3)
    result = project.run("--mcp-contract-fuzz", "3", "-p", "no:randomly", "-k", "test_call or fuzz")
    # numbers breaks only under 2025-11-25: its 2026-07-28 test passes; every other call fails.
    result.assert_outcomes(passed=1, failed=8)
    found = _findings(result.stdout.str())
    refused = (
        "[tool-error @ 2025-11-25]",
        "the server answered tools/call with a JSON-RPC error instead of a result: JSON-RPC error -32603: "
        "Handler returned an invalid result. The server's SDK would not send the result the tool built, as MCP "
        "2025-11-25 does not allow it: up to 2025-11-25, for example, structured_content is an object and there "
        "is no InputRequiredResult.",
    )
    crash = (
        "[input-crash]",
        "the server answered tools/call with a JSON-RPC error instead of a result: JSON-RPC error -32001: "
        "quota exhausted",
    )
    invalid = (
        "[structured-invalid] at /n",
        "'x' is not of type 'integer' (schema keyword 'type' at /properties/n/type)",
    )
    assert found["fuzz"] == {"numbers": {refused}, "quota": {crash}, "wrong": {invalid}}
    assert found["test"] == found["fuzz"]


def test_data_told_in_prose_to_the_fuzzer_is_noted_in_the_summary(project: Project) -> None:
    # The same note a test's call gets: the fuzzer's calls are checked calls like any other.
    project.configure(target("mirror_cases", "mcp"), suite=True, mcp_contract_fuzz_writes="true")
    recorded(project, 29)
    result = project.run("--mcp-contract-fuzz", "2", "-k", "fuzz and record_in_prose and not json")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["* 1 passed, * deselected *"])
    result.stdout.fnmatch_lines(
        [
            "text in prose only, no JSON for the model: record_in_prose (* call*); the spec recommends a text block "
            "with the JSON of structured_content (ini mcp_contract_require_json_text = true makes this fail)"
        ]
    )
