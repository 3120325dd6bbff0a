"""The calls a test makes through a client of its own, judged as the fixtures' calls are (in process)."""

from __future__ import annotations

import sys

from conftest import SERVERS, Project, target
from docs_text import assert_says, quoted

SDK_CLIENT = """
import anyio
import pytest
from mcp import Client
from contract_servers.own_clients import mcp as server


def call(name, arguments):
    async def go():
        async with Client(server) as client:
            return await client.call_tool(name, arguments)

    return anyio.run(go)
"""

FASTMCP_CLIENT = """
import anyio
import fastmcp
from contract_servers.own_clients import app


def call(name, arguments):
    async def go():
        async with fastmcp.Client(app) as client:
            return await client.call_tool(name, arguments, raise_on_error=False)

    return anyio.run(go)
"""

BROKEN = [
    "E   pytest_mcp_contract.ContractViolationError: tool '*stale' called with {\"n\": 2} broke its contract "
    "(1 violation):",
    "    [[]content-mismatch[]] at /n",
    "      text block 0 (JSON) has 1 at /n where structured_content has 2",
    "    Next step:",
    "    - content-mismatch: *",
    "    (A call the test made through a client of its own, seen as the in-process server answered it under MCP "
    "2026-07-28; mcp_expect_violation and mcp_contract_allow apply as to the mcp_contract fixture's calls.)",
]


def _project(project: Project, server: str, **ini: str) -> None:
    project.pytester.syspathinsert(SERVERS.parent)
    project.configure(target("own_clients", server), suite=False, **ini)


def test_a_broken_tool_called_through_the_sdks_client_fails_the_test(project: Project) -> None:
    _project(project, "mcp")
    project.tests(
        SDK_CLIENT
        + """
def test_healthy():
    assert call("healthy", {"n": 2}).structured_content == {"n": 2}

def test_stale():
    call("stale", {"n": 2})

@pytest.mark.mcp_expect_violation("content-mismatch", tool="stale")
def test_stale_known():
    call("stale", {"n": 2})

def test_an_error_the_test_asks_for():
    assert call("refuses", {"n": 2}).is_error

def test_arguments_the_schema_refuses():
    # A tool error answers them: nothing the server promised is broken.
    assert call("healthy", {"n": "two"}).is_error
"""
    )
    result = project.run("-p", "no:randomly")
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines(["*_ test_stale _*", *BROKEN])
    assert_says(result.stdout.str(), quoted("own-client-failure"))
    # Counted as checked calls, with the expected one, under the server they went to.
    result.stdout.fnmatch_lines(
        [
            "healthy  *  2           0         0        0",
            "refuses  *  1           0         0        0",
            "stale    *  2           1         1        0",
        ]
    )
    assert "tools not called" not in result.stdout.str()


def test_a_broken_tool_called_through_fastmcps_client_fails_the_test(project: Project) -> None:
    _project(project, "app")
    project.tests(
        FASTMCP_CLIENT
        + """
def test_healthy():
    assert call("fast_healthy", {"n": 2}).structured_content == {"n": 2}

def test_stale():
    call("fast_stale", {"n": 2})
"""
    )
    result = project.run("-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*_ test_stale _*", *BROKEN])


def test_the_allow_list_carries_a_call_of_the_tests_own_client(project: Project) -> None:
    _project(project, "mcp", mcp_contract_allow="stale:content-mismatch  # the text is rewritten nightly")
    project.tests(SDK_CLIENT + "\ndef test_stale():\n    call('stale', {'n': 2})\n")
    result = project.run()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["stale  *  1           0         0        1"])


def test_a_call_through_the_fixture_is_judged_once(project: Project) -> None:
    _project(project, "mcp")
    project.tests("def test_it(mcp_contract):\n    mcp_contract.call_tool('stale', {'n': 2})\n")
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["stale  *  1           1         0        0"])
    result.stdout.no_fnmatch_line("*a client of its own*")


def test_an_answer_the_sdks_client_refuses_is_named_under_its_error(project: Project) -> None:
    # The SDK's client raises on structured content its schema refuses; the verdict says which check.
    project.pytester.syspathinsert(SERVERS.parent)
    project.configure(target("wire"))
    project.tests(
        """
import anyio
from mcp import Client
from contract_servers.wire import server

def test_it():
    async def go():
        async with Client(server) as client:
            await client.call_tool("bad_type", {})

    anyio.run(go)
"""
    )
    result = project.run()
    result.assert_outcomes(failed=1)
    # Under the client's own error (anyio's group of it, here), as a note.
    result.stdout.fnmatch_lines(
        [
            "*tool 'bad_type' called with no arguments broke its contract (1 violation):",
            "*[[]structured-invalid[]] at /n",
            "*'x' is not of type 'integer' (schema keyword 'type' at /properties/n/type)",
            "*- structured-invalid: Make the tool return data that matches its output_schema*",
            "*(A call the test made through a client of its own, seen as the in-process server answered it *",
            "*RuntimeError: Invalid structured content returned by tool bad_type*",
        ]
    )


def test_a_server_over_stdio_is_not_watched(project: Project) -> None:
    # A server in another process that a test starts itself is not seen: nothing is judged, nothing counted.
    project.configure(f"stdio:{sys.executable} {SERVERS / 'wire.py'}")
    project.pytester.syspathinsert(SERVERS.parent)
    project.tests(
        """
import anyio
from mcp import Client
from contract_servers.own_clients import mcp as server

def test_it():
    async def go():
        async with Client(server) as client:
            await client.call_tool("stale", {"n": 2})

    anyio.run(go)
"""
    )
    result = project.run()
    result.assert_outcomes(passed=1)
    result.stdout.no_fnmatch_line("*stale*")


OWN_STDIO_SERVER = """
from mcp.server import MCPServer

mcp = MCPServer("counter", log_level="ERROR")

@mcp.tool()
def count(n: int) -> int:
    return n

@mcp.tool()
def reset() -> int:
    return 0

if __name__ == "__main__":
    mcp.run()
"""


def test_tools_a_stdio_servers_own_client_called_are_not_seen_not_uncalled(project: Project) -> None:
    # The repository's own tests call it through their own stdio client: the plugin cannot tell.
    project.pytester.makepyfile(counter=OWN_STDIO_SERVER)
    command = f"{sys.executable} counter.py"
    project.configure(f"stdio:{command}", suite=True)
    project.tests(
        f"""
import anyio
from mcp import Client, StdioServerParameters

def test_count():
    async def go():
        params = StdioServerParameters(command={sys.executable!r}, args=["counter.py"])
        async with Client(params) as client:
            return await client.call_tool("count", {{"n": 3}})

    assert anyio.run(go).structured_content == {{"result": 3}}
"""
    )
    # The first run (the listing item writes both tools' snapshots), then one with each tool's own items.
    for update, passed in ((("--snapshot-update",), 2), ((), 6)):
        result = project.run("--mcp-contract-coverage", *update, "-p", "no:randomly")
        result.assert_outcomes(passed=passed)
        result.stdout.fnmatch_lines(
            [
                f"tools with no call seen: count, reset (calls through a client of the tests' own to the stdio server "
                f"'stdio:{command}' are not seen: call them through the mcp_contract fixture, or name the server in "
                "process (mcp_contract_server = package.module:server), where every client's calls are seen; or give "
                "them example calls (mcp_contract_cases))",
            ]
        )
        result.stdout.fnmatch_lines(
            ["count: no call seen (1 promise unseen); call it through the mcp_contract fixture*"]
        )
        text = result.stdout.str()
        assert "not called" not in text
        assert "never called" not in text
