"""The mirror rule gives one verdict on every transport: each layout and each defect, in process, over stdio, over HTTP.

``contract_servers/mirror_cases.py`` has one tool per case and its expected verdict. The same
inner project runs against it as an object in this process, as a command over stdio and behind
a loopback URL, and must pass the same table with the same messages and the same summary.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from conftest import SERVERS, Project, http_server, target
from contract_servers.mirror_cases import PROSE, VERDICTS

TRANSPORTS = ("in process", "stdio", "http")


@pytest.fixture(scope="module")
def targets() -> Iterator[dict[str, str]]:
    """The same server three ways: an object here, a command, and a process behind a loopback URL."""
    with http_server(str(SERVERS / "mirror_cases.py")) as url:
        yield {
            "in process": target("mirror_cases", "mcp"),
            "stdio": f"stdio:{sys.executable} {SERVERS / 'mirror_cases.py'}",
            "http": url,
        }


INNER = """
import pytest
from contract_servers.mirror_cases import VERDICTS
from pytest_mcp_contract import ContractViolationError

@pytest.mark.parametrize("tool", sorted(VERDICTS))
def test_verdict(mcp_contract, tool):
    try:
        mcp_contract.call_tool(tool)
        found = []
    except ContractViolationError as error:
        found = [(violation.check, violation.path) for violation in error.violations]
        print(error)
    assert found == VERDICTS[tool]
"""


def _run(project: Project, target: str) -> pytest.RunResult:
    project.configure(target)
    project.pytester.syspathinsert(SERVERS.parent)
    project.tests(INNER)
    return project.run("-s")


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_every_case_gets_its_verdict(project: Project, targets: dict[str, str], transport: str) -> None:
    result = _run(project, targets[transport])
    result.assert_outcomes(passed=len(VERDICTS))
    result.stdout.fnmatch_lines(
        [
            "text in prose only, no JSON for the model: record_in_prose (1 call), record_with_a_number_as_text "
            "(1 call); the spec recommends a text block with the JSON of structured_content (ini "
            "mcp_contract_require_json_text = true makes this fail)",
        ]
    )


# The messages, word for word: the same on both transports.
MESSAGES = [
    "  text block 1 (JSON) differs from structured_content in 2 places:",
    "  - has 4 at /flights where structured_content has 3",
    "  - has 99.0 at /cheapest where structured_content has 120.5",
    '  text block 0 (JSON) has "x1y2" at /password_hash, a key structured_content does not have',
    "  text block 0 (JSON) lacks /font_size, which structured_content has (12)",
    '  text block 0 says "true" but structured_content /result is 1',
    "  text block 0 (JSON) differs from structured_content in 3 places:",
    '  - has "d" at /py_name, a key structured_content does not have',
    '  - lacks /pyName, which structured_content has ("d")',
    "  - lacks /count, which structured_content has (0)",
    '  text block 0 says "About 20 of them" but structured_content /count is 17: a value that is not an object '
    "must be shown to the model as it is (its text or its JSON), not told in words",
    "  text block 0 is <travel.Search object at 0x7f3a2c1d9e80>, the default repr of a Python object "
    "(travel.Search): *",
]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_messages_name_every_differing_key(project: Project, targets: dict[str, str], transport: str) -> None:
    result = _run(project, targets[transport])
    result.assert_outcomes(passed=len(VERDICTS))
    for line in MESSAGES:
        result.stdout.fnmatch_lines([line])


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_prose_fails_when_the_project_requires_json_text(
    project: Project, targets: dict[str, str], transport: str
) -> None:
    project.configure(targets[transport], mcp_contract_require_json_text="true")
    project.tests(
        """
        def test_prose(mcp_contract):
            mcp_contract.call_tool("record_in_prose")

        def test_json_beside_prose(mcp_contract):
            mcp_contract.call_tool("record_in_prose_and_json")
        """
    )
    result = project.run()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       [[]content-prose[]]",
            "E         structured_content is an object and no text block holds its JSON: the model reads about "
            "the data in words only (the spec recommends a text block with the JSON of structured_content)",
            "E       Next step:",
            "E       - content-prose: Add a text block with the JSON of structured_content beside the words *",
        ]
    )
    assert "text in prose only" not in result.stdout.str()


def test_the_table_covers_every_tool() -> None:
    import anyio
    from contract_servers.mirror_cases import mcp

    listed = {tool.name for tool in anyio.run(mcp.list_tools)}
    assert listed == set(VERDICTS)
    assert set(PROSE) <= {tool for tool, verdict in VERDICTS.items() if not verdict}


def test_the_report_names_the_tools_told_in_prose(project: Project, targets: dict[str, str]) -> None:
    project.configure(targets["stdio"])
    project.tests('def test_prose(mcp_contract):\n    mcp_contract.call_tool("record_in_prose")\n')
    project.run("--mcp-contract-report", "report.md").assert_outcomes(passed=1)
    report = (project.pytester.path / "report.md").read_text()
    assert (
        "- Text in prose only, no JSON for the model: record_in_prose (1 call); the spec recommends a text block "
        "with the JSON of structured_content (ini mcp_contract_require_json_text = true makes this fail)"
    ) in report
