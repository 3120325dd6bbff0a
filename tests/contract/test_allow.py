"""ini mcp_contract_allow: known violations carried in one place, listed in the summary, stale ones named."""

from __future__ import annotations

import pytest
from conftest import Project

SERVER = """
import datetime
from mcp.server import MCPServer

mcp = MCPServer("weather")

@mcp.tool()
def last_sync() -> datetime.datetime:  # the SDK cannot describe it: silent-opt-out
    return datetime.datetime(2024, 1, 1)

@mcp.tool()
def ping() -> str:
    return "pong"
"""

TESTS = """
def test_last_sync(mcp_contract):
    mcp_contract.call_tool("last_sync")
"""


@pytest.fixture
def weather(project: Project) -> Project:
    project.pytester.makepyfile(weather=SERVER)
    project.tests(TESTS)
    return project


def _configure(project: Project, *allow: str) -> None:
    lines = "".join(f"\n    {line}" for line in allow)
    project.configure("weather.py:mcp", suite=True, mcp_contract_allow=lines)


def _record(project: Project, **outcomes: int) -> None:
    """The first run: the listing item writes both tools' snapshots (and runs their checks), so the next run
    collects schema[TOOL] and checks[TOOL] for each."""
    project.run("--snapshot-update").assert_outcomes(**outcomes)
    assert sorted(path.name for path in project.pytester.path.glob("mcp_contract_snapshots/weather/*.json")) == [
        "last_sync.json",
        "ping.json",
    ]


def test_without_the_allow_line_the_violation_fails(weather: Project) -> None:
    _configure(weather)
    _record(weather, failed=2)  # the call, and the listing item, which ran last_sync's checks
    result = weather.run()
    result.assert_outcomes(passed=4, failed=2)  # the call and checks[last_sync]
    result.stdout.fnmatch_lines(
        [
            "*_ checks[[]last_sync[]] _*",
            "tool 'last_sync' breaks its contract as listed (1 violation):",
            "[[]silent-opt-out[]]",
            "FAILED tox.ini::checks[[]last_sync[]] - *",
        ]
    )


def test_an_allowed_violation_passes_and_is_listed_with_its_reason(weather: Project) -> None:
    _configure(weather, "last_sync:silent-opt-out  # returns a naive datetime until #42 lands")
    _record(weather, passed=2)  # the call and the listing item
    result = weather.run()
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(
        [
            "tool checks: 2 passed, 0 failed",
            "allowed violations: last_sync:silent-opt-out x2 (returns a naive datetime until #42 lands)",
            "tool calls checked: 1, violations: 1 (1 allowed)",
        ]
    )


def test_another_check_of_the_same_tool_still_fails(weather: Project) -> None:
    _configure(weather, "last_sync:content-mismatch  # not the one it breaks")
    _record(weather, failed=2)
    result = weather.run()
    result.assert_outcomes(passed=4, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*_ checks[[]last_sync[]] _*",
            "tool 'last_sync' breaks its contract as listed (1 violation):",
            "[[]silent-opt-out[]]",
            "FAILED tox.ini::checks[[]last_sync[]] - *",
        ]
    )


def test_an_allow_line_nothing_needed_is_stale(weather: Project) -> None:
    _configure(
        weather,
        "last_sync:silent-opt-out  # until #42",
        "ping:structured-invalid  # fixed long ago",
    )
    _record(weather, passed=2)
    result = weather.run()
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(
        ["stale mcp_contract_allow lines (nothing needed them; remove them): ping:structured-invalid"]
    )
    # A run that leaves tests out cannot tell: nothing is called stale.
    assert "stale mcp_contract_allow" not in weather.run("-k", "last_sync").stdout.str()


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("last_sync silent-opt-out  # why", "it names no tool and check"),
        ("last_sync:silent_opt_out  # why", "'silent_opt_out' is not a check id (the check ids are *)"),
        (
            "last_sync:silent-opt-out",
            "it gives no reason after '#'; say why the violation is carried, for the next reviewer",
        ),
    ],
)
def test_a_malformed_allow_line_is_a_usage_error(weather: Project, line: str, problem: str) -> None:
    _configure(weather, line)
    result = weather.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: mcp_contract_allow line 1 ({line!r}): {problem}. Write each line as 'tool:check  # why it is "
            "allowed', e.g. 'station_info:silent-opt-out  # schema fix in #42'."
        ]
    )


@pytest.mark.parametrize(
    "args",
    [("-n", "2", "-k", "last_sync"), ("--maxfail=1",), ("--co",), ("-m", "not mcp_contract"), ("--sw",)],
    ids=["xdist -k", "--maxfail", "--co", "-m", "--sw"],
)
def test_a_narrowed_run_never_calls_a_line_stale(weather: Project, args: tuple[str, ...]) -> None:
    _configure(weather, "last_sync:silent-opt-out  # until #42", "ping:structured-invalid  # fixed long ago")
    _record(weather, passed=2)
    result = weather.run(*args)
    assert result.ret == pytest.ExitCode.OK
    assert "stale mcp_contract_allow" not in result.stdout.str()
    assert "tools not called" not in result.stdout.str()
