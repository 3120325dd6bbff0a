"""Under pytest-xdist each worker opens its own session and the outcomes are the same as without it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from conftest import Project, target

SUITE = """
import pytest

@pytest.mark.parametrize("round", range(6))
def test_good(mcp_contract, round):
    assert mcp_contract.call_tool("good").structured_content == {"n": 2}

@pytest.mark.parametrize("tool", ["bad_type", "mismatch", "missing"])
def test_broken(mcp_contract, tool):
    mcp_contract.call_tool(tool)
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist-2"])
def test_same_outcomes_with_and_without_xdist(project: Project, workers: list[str]) -> None:
    project.configure(target("wire"))
    project.tests(SUITE)
    result = project.run(*workers, "-rf")
    result.assert_outcomes(passed=6, failed=3)
    result.stdout.fnmatch_lines_random(
        [
            "FAILED test_contract.py::test_broken[[]bad_type[]] - *",
            "FAILED test_contract.py::test_broken[[]mismatch[]] - *",
            "FAILED test_contract.py::test_broken[[]missing[]] - *",
            "E       [[]structured-invalid[]] at /n",
            "E       [[]content-mismatch[]] at /n",
            "E       [[]structured-missing[]]",
        ]
    )


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist-2"])
def test_a_server_that_cannot_load_stops_the_run_the_same_way(project: Project, workers: list[str]) -> None:
    # xdist's controller loads the server only once its workers have started: the error is the same.
    project.pytester.makepyfile(broken='raise RuntimeError("no database")\n')
    project.configure("broken.py:mcp")
    project.tests("def test_plain():\n    pass\n")
    before = set(_children()) if sys.platform == "linux" else set()
    result = project.run(*workers)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: pytest-mcp-contract cannot load the MCP server 'broken.py:mcp' (mcp_contract_server in tox.ini): "
            "importing broken raised RuntimeError:",
            "RuntimeError: no database",
        ]
    )
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    if sys.platform == "linux":  # the workers xdist started are ended before the run returns
        assert set(_children()) - before == set()


def _children() -> list[str]:
    """The live processes this one started (the in-process run's xdist workers among them)."""
    pid = os.getpid()
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [child for child in children if Path(f"/proc/{child}/stat").read_text().split(") ", 1)[1][0] != "Z"]


def test_the_summary_under_xdist_is_the_serial_one(project: Project) -> None:
    # The controller knows its server only after the workers started; the summary names it all the same.
    project.configure(target("wire"), suite=True)
    project.tests(SUITE)
    project.run("--snapshot-update")
    # Without the listing item, whose record names the server too, the name is the one loaded at the start.
    report = project.pytester.path / "report.md"
    serial = project.run("-k", "not listing", f"--mcp-contract-report={report}")
    reports = [report.read_text(encoding="utf-8")]
    spread = project.run("-k", "not listing", f"--mcp-contract-report={report}", "-n", "2")
    reports.append(report.read_text(encoding="utf-8"))
    assert reports[1] == reports[0]
    assert "(`wire`): 21 tools." in reports[0]

    def summary(result: pytest.RunResult) -> list[str]:
        lines = result.stdout.lines
        start = next(i for i, line in enumerate(lines) if "mcp contract" in line and line.startswith("-"))
        return lines[start : next(i for i, line in enumerate(lines) if "short test summary" in line)]

    assert summary(spread) == summary(serial)
    assert any(line.startswith("tool ") for line in summary(serial))
