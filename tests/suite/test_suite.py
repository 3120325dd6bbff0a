"""The generated contract suite: which items appear, their ids and marker, and when they are left out."""

from __future__ import annotations

import sys

import pytest
from conftest import Project, target
from contract_servers.wire import CASES as WIRE_TOOLS

SERVER = """
import datetime
from pydantic import BaseModel
from mcp.server import MCPServer

mcp = MCPServer("weather")

class Weather(BaseModel):
    city: str
    temperature: float

@mcp.tool()
def get_weather(city: str) -> Weather:
    return Weather(city=city, temperature=11.5)

@mcp.tool()
def last_sync() -> datetime.datetime:
    return datetime.datetime(2024, 1, 1)
"""


@pytest.fixture
def weather(project: Project) -> Project:
    project.pytester.makepyfile(weather=SERVER)
    project.configure("weather.py:mcp", suite=True)
    project.tests("def test_plain():\n    pass\n")
    return project


def _record(project: Project) -> None:
    """The first run, with no snapshot yet: the listing item writes each tool's snapshot and runs its checks
    (last_sync's fail it), so the next collection has the per-tool items."""
    first = project.run("--snapshot-update")
    first.assert_outcomes(passed=1, failed=1)
    first.stdout.fnmatch_lines(["FAILED tox.ini::listing - tool 'last_sync' breaks its contract as listed*"])


def test_two_items_per_tool_with_readable_ids(weather: Project) -> None:
    # Before any snapshot, collection knows no tool: the listing item alone.
    result = weather.run("--collect-only", "-q")
    result.stdout.fnmatch_lines(["test_contract.py::test_plain", "tox.ini::listing", "2 tests collected*"])
    _record(weather)
    result = weather.run("--collect-only", "-q")
    result.stdout.fnmatch_lines(
        [
            "test_contract.py::test_plain",
            "tox.ini::listing",
            "tox.ini::schema[get_weather]",
            "tox.ini::checks[get_weather]",
            "tox.ini::schema[last_sync]",
            "tox.ini::checks[last_sync]",
            "6 tests collected*",
        ]
    )


def test_checks_items_report_tool_level_violations(weather: Project) -> None:
    _record(weather)
    result = weather.run("-k", "checks")
    result.assert_outcomes(passed=1, failed=1, deselected=4)
    result.stdout.fnmatch_lines(
        [
            "*_ checks[[]last_sync[]] _*",
            "tool 'last_sync' breaks its contract as listed (1 violation):",
            "[silent-opt-out]",
            "  the function is annotated -> datetime, yet the tool publishes no output_schema: *",
            "Next step:",
            "- silent-opt-out: *",
        ]
    )


def test_the_marker_selects_and_deselects_the_suite(weather: Project) -> None:
    weather.run("-m", "not mcp_contract").assert_outcomes(passed=1, deselected=1)  # the listing item
    _record(weather)
    weather.run("-m", "not mcp_contract").assert_outcomes(passed=1, deselected=5)
    result = weather.run("-m", "mcp_contract", "-k", "checks and get_weather")
    result.assert_outcomes(passed=1, deselected=5)


def test_last_failed_reruns_just_the_failed_suite_item(weather: Project) -> None:
    # The cache plugin matches items by their parsed node id; ours must parse like pytest's own.
    weather.pytester.makeini("[pytest]\nmcp_contract_server = weather.py:mcp\n")
    _record(weather)
    weather.run().assert_outcomes(passed=5, failed=1)
    result = weather.run("--lf")
    # The ini file is the suite's node, so the cache plugin collects from it just the failed item.
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "collected 1 item",
            "run-last-failure: rerun previous 1 failure (skipped 1 file)",
            "FAILED tox.ini::checks[[]last_sync[]]*",
        ]
    )
    weather.run("--sw").assert_outcomes(passed=5, failed=1)
    weather.run("--sw").assert_outcomes(failed=1, deselected=5)


def test_a_node_id_pytest_prints_can_be_given_back_to_pytest(weather: Project) -> None:
    weather.pytester.makeini("[pytest]\nmcp_contract_server = weather.py:mcp\n")
    _record(weather)
    result = weather.run("-p", "no:randomly")
    # The ini file is the suite's node: a real path in the progress line and in every node id.
    result.stdout.fnmatch_lines(["test_contract.py .*", "tox.ini *F*", "FAILED tox.ini::checks[[]last_sync[]] - *"])
    again = weather.run("tox.ini::checks[last_sync]")
    again.assert_outcomes(failed=1)
    again.stdout.fnmatch_lines(["collected 1 item", "FAILED tox.ini::checks[[]last_sync[]] - *"])
    weather.run("tox.ini::schema[last_sync]", "tox.ini::checks[get_weather]").assert_outcomes(passed=2)
    # The ini file alone is the whole suite, and -k still picks items by their names.
    weather.run("tox.ini").assert_outcomes(passed=4, failed=1)
    weather.run("tox.ini::listing").assert_outcomes(passed=1)
    weather.run("-k", "schema[last_sync]").assert_outcomes(passed=1, deselected=5)


def test_without_an_ini_file_the_suite_has_a_node_of_its_own(weather: Project) -> None:
    (weather.pytester.path / "tox.ini").unlink()
    options = ("--mcp-contract-server", "weather.py:mcp", "-p", "no:cacheprovider")
    result = weather.run(*options, "--collect-only", "-q")
    result.stdout.fnmatch_lines(["test_contract.py::test_plain", "mcp-contract::listing", "2 tests collected*"])
    first = weather.run(*options, "--snapshot-update")
    first.assert_outcomes(passed=1, failed=1)  # last_sync's checks fail the listing item
    first.stdout.fnmatch_lines(["FAILED mcp-contract::listing - tool 'last_sync' breaks its contract as listed*"])
    result = weather.run(*options, "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        ["test_contract.py::test_plain", "mcp-contract::listing", "mcp-contract::schema[[]get_weather[]]", "*"]
    )


def test_marker_is_registered(weather: Project) -> None:
    result = weather.run("--markers")
    result.stdout.fnmatch_lines(
        ["@pytest.mark.mcp_contract: an item of the generated MCP contract suite (deselect with -m 'not mcp_contract')"]
    )
    weather.run("--strict-markers", "-m", "mcp_contract", "--collect-only").assert_outcomes()


def test_ini_switches_the_suite_off(weather: Project) -> None:
    weather.configure("weather.py:mcp", suite=False)
    weather.run().assert_outcomes(passed=1)


def test_running_one_test_file_leaves_the_suite_out_and_says_so(weather: Project) -> None:
    result = weather.run("test_contract.py")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "mcp-contract: contract suite not collected, as this run names test paths "
            "(run pytest without paths, or pytest -m mcp_contract, to include it)"
        ]
    )
    result = weather.run(str(weather.pytester.path), "--collect-only", "-q")
    result.stdout.fnmatch_lines(["tox.ini::listing", "*2 tests collected*"])
    assert "contract suite not collected" not in weather.run().stdout.str()


def test_naming_the_testpaths_runs_the_whole_project(weather: Project) -> None:
    weather.configure("weather.py:mcp", suite=True, testpaths="tests")
    weather.pytester.mkdir("tests")
    (weather.pytester.path / "test_contract.py").rename(weather.pytester.path / "tests" / "test_contract.py")
    weather.run("tests", "--collect-only", "-q").stdout.fnmatch_lines(["tox.ini::listing", "*2 tests collected*"])
    weather.run("tests/test_contract.py", "--collect-only", "-q").stdout.fnmatch_lines(["*1 test collected*"])


def test_no_suite_without_a_configured_target(project: Project) -> None:
    project.configure(None, suite=True)
    project.tests("def test_plain():\n    pass\n")
    project.run().assert_outcomes(passed=1)


LISTED = """
from contract_servers.wire import WireTool, build
server = build([WireTool("ping", texts=["pong"])]{})
"""


def test_a_listing_failure_is_told_whole_once_by_the_listing_item(project: Project) -> None:
    project.pytester.makepyfile(broken_listing=LISTED.format(""))
    project.configure("broken_listing.py:server", suite=True)
    project.tests("def test_plain():\n    pass\n")
    project.run("--snapshot-update").assert_outcomes(passed=2)  # ping's snapshot: its items are collected
    project.pytester.makepyfile(broken_listing=LISTED.format(', list_error=RuntimeError("registry offline")'))
    result = project.run("-p", "no:randomly")
    # The server cannot be opened: the listing item, first, tells the whole story; the others point to it.
    result.assert_outcomes(passed=1, errors=3)
    result.stdout.fnmatch_lines(
        [
            "*_ ERROR at setup of listing _*",
            "tools/list failed on Server 'wire': JSON-RPC error -32603: registry offline (cause: RuntimeError: "
            "registry offline (raised at *wire.py:* in list_tools)). Fix the server's tool listing; no tool can be "
            "checked without it.",
            "*_ ERROR at setup of schema[[]ping[]] _*",
            "Server 'wire' could not be opened for test tox.ini::listing, so it is not started again: tools/list "
            "failed on Server 'wire': *",
            "*_ ERROR at setup of checks[[]ping[]] _*",
        ]
    )


EMPTY = """
import sys
from mcp.server import MCPServer

mcp = MCPServer("empty")

if __name__ == "__main__":
    mcp.run()
"""


@pytest.mark.parametrize("how", ["in process", "stdio"])
def test_a_server_with_no_tools_says_so_and_fails(project: Project, how: str) -> None:
    project.pytester.makepyfile(empty=EMPTY)
    project.configure("empty.py:mcp" if how == "in process" else f"stdio:{sys.executable} empty.py", suite=True)
    project.tests("def test_plain():\n    pass\n")
    result = project.run()
    result.assert_outcomes(passed=1, failed=1)
    server = "MCPServer 'empty'" if how == "in process" else f"the stdio server 'stdio:{sys.executable} empty.py'"
    result.stdout.fnmatch_lines(
        [
            "*_ listing _*",
            f"{server} lists no tools (tools/list under 2026-07-28 answered an empty list), so the contract suite "
            "has nothing to check. If it registers its tools from a setting or an environment variable, give the "
            "target what production gives it; if it has no tools on purpose, switch the suite off with: "
            "mcp_contract_suite = false",
        ]
    )
    project.run("-o", "mcp_contract_suite=false").assert_outcomes(passed=1)


@pytest.mark.parametrize("configured", [True, False], ids=["target", "conftest-override"])
def test_syrupy_switched_off_is_a_usage_error(weather: Project, configured: bool) -> None:
    if not configured:  # the suite's server from a conftest's override: its suite snapshots too
        weather.configure(None, suite=True)
        weather.pytester.makeconftest(OVERRIDE)
    result = weather.run("-p", "no:syrupy")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: pytest-mcp-contract snapshots tool schemas with syrupy, which is switched off (-p no:syrupy). "
            "Drop -p no:syrupy, or switch the generated suite off with: -o mcp_contract_suite=false"
        ]
    )
    weather.run("-p", "no:syrupy", "-o", "mcp_contract_suite=false").assert_outcomes(passed=1)


OVERRIDE = """
import pytest
from contract_servers.wire import WireTool, build

@pytest.fixture(scope="session")
def mcp_contract_server():
    return build([WireTool("ping", texts=["pong"])], name="pinger")
"""


@pytest.mark.parametrize("configured", [False, True], ids=["no-target", "target-too"])
def test_a_conftest_override_gives_the_suite_its_server(weather: Project, configured: bool) -> None:
    if not configured:
        weather.configure(None, suite=True)
    weather.pytester.makeconftest(OVERRIDE)
    first = weather.run("--snapshot-update")
    # test_plain, and the listing item, which recorded the override's tool (not the target's two)
    first.assert_outcomes(passed=2)
    header = (
        "mcp-contract: server from the mcp_contract_server fixture in conftest.py (the contract suite's items "
        "get it there too, when they run)"
    )
    assert (header in first.stdout.lines) is not configured  # with a target, the header names the target
    assert "not generated" not in first.stdout.str()
    snapshots = weather.pytester.path / "mcp_contract_snapshots"
    assert sorted(path.relative_to(snapshots).as_posix() for path in snapshots.rglob("*.json")) == ["pinger/ping.json"]
    # The snapshot folder is the override's server's, so the next collection has its tool's items.
    result = weather.run("--collect-only", "-q")
    result.stdout.fnmatch_lines(
        ["test_contract.py::test_plain", "tox.ini::listing", "tox.ini::schema[[]ping[]]", "tox.ini::checks[[]ping[]]"]
    )
    result.stdout.fnmatch_lines(["4 tests collected*"])
    weather.run().assert_outcomes(passed=4)


@pytest.mark.parametrize("where", ["plugin-module", "conftest-no-tests"])
def test_an_override_no_collected_test_sits_under_still_gives_the_suite_its_server(
    weather: Project, where: str
) -> None:
    # The suite's items ask for mcp_contract_server wherever another's than the plugin's is in sight of them:
    # a plugin module's (pytest_plugins), or the rootdir conftest's when no test of its folder is collected.
    if where == "plugin-module":
        weather.pytester.makepyfile(server_fixtures=OVERRIDE)
        weather.pytester.makeconftest('pytest_plugins = ["server_fixtures"]\n')
    else:
        weather.pytester.makeconftest(OVERRIDE)
        weather.pytester.mkdir("tests")
        weather.configure("weather.py:mcp", suite=True, testpaths="tests")
    plain = 1 if where == "plugin-module" else 0  # the project's own test, where testpaths leaves it in
    weather.run("--snapshot-update").assert_outcomes(passed=plain + 1)  # and the listing item
    snapshots = weather.pytester.path / "mcp_contract_snapshots"
    assert sorted(path.relative_to(snapshots).as_posix() for path in snapshots.rglob("*.json")) == ["pinger/ping.json"]
    weather.run().assert_outcomes(passed=plain + 3)


def test_wire_server_items(project: Project) -> None:
    project.configure(target("wire"), suite=True)
    # The first run: the listing item records every tool, and fails with the checks of the four it breaks.
    first = project.run("--snapshot-update", "-q")
    first.assert_outcomes(failed=1)
    first.stdout.fnmatch_lines(
        [
            "offering protocol version 2025-11-25, the tools could not be listed: *",
            "tool 'schema_bad_type' breaks its contract as listed (1 violation):",
            "tool 'schema_dangling_ref' breaks its contract as listed (1 violation):",
            "tool 'schema_not_object' breaks its contract as listed (1 violation):",
            "tool 'schema_remote_ref' breaks its contract as listed (1 violation):",
        ]
    )
    result = project.run("-k", "checks", "-q")
    result.stdout.fnmatch_lines_random(
        [
            "FAILED tox.ini::checks[[]schema_bad_type[]] - *",
            "FAILED tox.ini::checks[[]schema_dangling_ref[]] - *",
            "FAILED tox.ini::checks[[]schema_not_object[]] - *",
            "FAILED tox.ini::checks[[]schema_remote_ref[]] - *",
        ]
    )
    # An array root is 2026-07-28's right and a 2025-11-25 client cannot list it: only that version fails.
    result.stdout.fnmatch_lines(["[[]output-schema-invalid @ 2025-11-25[]] at (root)"])
    # Deselected: each tool's schema item, and the listing item.
    result.assert_outcomes(passed=len(WIRE_TOOLS) - 4, failed=4, deselected=len(WIRE_TOOLS) + 1)
