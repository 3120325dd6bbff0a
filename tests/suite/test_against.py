"""``--mcp-contract-against REF``: every tool against its snapshot committed at a git revision, in real
git repositories made in temp folders (commit on ``main``, branch, change the server, update, commit)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import Project
from contract_servers.sources import WEATHER_V1

# humidity removed from the output model: a client that reads it gets nothing
NO_HUMIDITY = WEATHER_V1.replace('    humidity: int = Field(description="Relative humidity, %")\n', "").replace(
    ", humidity=80", ""
)
# an optional field added: nothing a client relied on changes
WITH_WIND = WEATHER_V1.replace(
    "    humidity: int", '    wind: float | None = Field(default=None, description="km/h")\n    humidity: int'
)
NO_PING = WEATHER_V1.replace("@mcp.tool()\ndef ping", "def ping")
WITH_ECHO = WEATHER_V1 + '\n@mcp.tool()\ndef echo(text: str) -> str:\n    return text\n'


def git(project: Project, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.com", "-c", "commit.gpgsign=false", *args],
        cwd=project.pytester.path,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def commit_all(project: Project, message: str) -> None:
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", message)


@pytest.fixture
def repo(project: Project) -> Project:
    """A server repository: weather.py and its snapshots committed on main, then a branch checked out."""
    project.pytester.makepyfile(weather=WEATHER_V1)
    project.configure("weather.py:mcp", suite=True)
    git(project, "init", "-q", "-b", "main")
    project.run("--snapshot-update").assert_outcomes(passed=4)
    commit_all(project, "weather server and its snapshots")
    git(project, "checkout", "-q", "-b", "change")
    return project


def update_and_commit(project: Project, source: str) -> None:
    """What a pull request does: change the server, update its snapshots, commit them."""
    project.pytester.makepyfile(weather=source)
    project.run("--snapshot-update")
    commit_all(project, "change the server")


def test_a_removed_field_passes_the_snapshots_but_fails_against_main(repo: Project) -> None:
    update_and_commit(repo, NO_HUMIDITY)
    repo.run().assert_outcomes(passed=4)  # the updated snapshots match: the break went by unseen
    result = repo.run("--mcp-contract-against", "main")
    result.assert_outcomes(passed=5, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ against[[]get_weather[]] _*",
            "tool 'get_weather' has 1 breaking change against main (???????), from a client's side:",
            "[[]breaking-change[]] get_weather at /output_schema/properties/humidity: removed (was required); "
            "a client that reads it, as the output_schema at main promised, can now get a result without it",
            "Next step: undo the change to the tool, so clients written against the base keep working (the base's "
            "schema: git show main:mcp_contract_snapshots/weather/get_weather.json); or, if the break is intended, "
            "acknowledge it for the reviewers with a line in mcp_contract_allow:",
            "    get_weather:breaking-change  # why clients can take it",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*- mcp contract -*",
            "changes against main (???????): 1 breaking",
            "  get_weather output /properties/humidity: removed (was required) — BREAKING",
            "FAILED tox.ini::against[[]get_weather[]]*",
        ]
    )
    result.stdout.no_fnmatch_line("*against[[]ping[]]*FAILED*")
