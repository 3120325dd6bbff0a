"""Under pytest-xdist each worker opens its own session and the outcomes are the same as without it."""

from __future__ import annotations

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


def test_the_summary_under_xdist_is_the_serial_one(project: Project) -> None:
    # The controller knows its server only after the workers started; the summary names it all the same.
    project.configure(target("wire"), suite=True)
    project.tests(SUITE)
    project.run("--snapshot-update")
    serial, spread = project.run(), project.run("-n", "2")

    def summary(result: pytest.RunResult) -> list[str]:
        lines = result.stdout.lines
        start = next(i for i, line in enumerate(lines) if "mcp contract" in line and line.startswith("-"))
        return lines[start : next(i for i, line in enumerate(lines) if "short test summary" in line)]

    assert summary(spread) == summary(serial)
    assert any(line.startswith("tool ") for line in summary(serial))
