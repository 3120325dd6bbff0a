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
