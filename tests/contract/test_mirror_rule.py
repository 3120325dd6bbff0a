"""The mirror rule gives one verdict on every transport: each layout and each defect, in process, over stdio, over HTTP.

``contract_servers/mirror_cases.py`` has one tool per case and its expected verdict. The same
inner project runs against it as an object in this process, as a command over stdio and behind
a loopback URL, and must pass the same table with the same messages and the same summary. Its
``arrays`` server, the same three ways at 2026-07-28, holds the specification's own example: a
list of records told in prose.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from conftest import SERVERS, Project, http_server, target
from contract_servers.mirror_cases import ARRAY_VERDICTS, PROSE, VERDICTS

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


@pytest.fixture(scope="module")
def array_targets() -> Iterator[dict[str, str]]:
    """The ``arrays`` server three ways, as ``targets``."""
    with http_server(str(SERVERS / "mirror_cases.py"), "--arrays") as url:
        yield {
            "in process": target("mirror_cases", "arrays"),
            "stdio": f"stdio:{sys.executable} {SERVERS / 'mirror_cases.py'} --arrays",
            "http": url,
        }


INNER = """
import pytest
from contract_servers.mirror_cases import {table} as VERDICTS
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

ARRAYS_AT = "2026-07-28"
"""The version ``arrays`` is served at: an array as structured_content is MCP 2026-07-28's; a 2025-11-25
client would reject it."""


def _run(project: Project, target: str, table: str = "VERDICTS", versions: str | None = None) -> pytest.RunResult:
    if versions is None:
        project.configure(target)
    else:
        project.configure(target, mcp_contract_protocol_versions=versions)
    project.pytester.syspathinsert(SERVERS.parent)
    project.tests(INNER.format(table=table))
    return project.run("-s")


def _prose_summary(*tools: str) -> str:
    called = ", ".join(f"{tool} (1 call)" for tool in tools)
    return (
        f"text in prose only, no JSON for the model: {called}; the spec recommends a text block with the JSON "
        "of structured_content (ini mcp_contract_require_json_text = true makes this fail)"
    )


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_every_case_gets_its_verdict(project: Project, targets: dict[str, str], transport: str) -> None:
    result = _run(project, targets[transport])
    result.assert_outcomes(passed=len(VERDICTS))
    result.stdout.fnmatch_lines([_prose_summary(*PROSE)])


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
    "must be shown to the model as it is (its text or its JSON), or told in words that hold it",
    '  text block 0 says "The forecast is for Osloer Strasse." but structured_content /city is "Oslo": a value '
    "that is not an object must be shown to the model as it is (its text or its JSON), or told in words that "
    "hold it",
    "  text block 0 tells the 2 records of structured_content /entities in words that name none of them:",
    '  - /entities/0 {"name": "Ada", "kind": "person"}: the words hold "person" but not "Ada"',
    '  - /entities/1 {"name": "Paris", "kind": "city"}: the words hold "city" but not "Paris"',
    "  text block 0 tells the 2 records of structured_content /users in words that name none of them:",
    '  - /users/0 {"id": "1", "name": "Alice", "email": "alice@example.com"}: the words hold none of "1", '
    '"Alice", "alice@example.com"',
    "  text block 0 tells the 3 records of structured_content /users in words that name 2 of them:",
    '  - /users/2 {"id": "3", "name": "Carol", "email": "carol@example.com"}: the words hold none of "3", '
    '"Carol", "carol@example.com"',
    "  words may tell a list of records when they name each record by most of its text values (more than half "
    'of its strings), as "Alice (alice@example.com)" names {"id": "1", "name": "Alice", "email": '
    '"alice@example.com"}',
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
    from contract_servers.mirror_cases import ARRAY_TOOLS, mcp

    listed = {tool.name for tool in anyio.run(mcp.list_tools)}
    assert listed == set(VERDICTS)
    assert set(PROSE) <= {tool for tool, verdict in VERDICTS.items() if not verdict}
    assert list(PROSE) == sorted(PROSE)  # the order the summary names them in
    assert {tool.name for tool in ARRAY_TOOLS} == set(ARRAY_VERDICTS)


# The specification's example: an array of two users, told "Found 2 users: Alice (alice@example.com) and Bob
# (bob@example.com)." It passes at 2026-07-28 on every transport, noted as told in prose; its defective twins fail.
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_spec_example_passes_told_in_prose(project: Project, array_targets: dict[str, str], transport: str) -> None:
    result = _run(project, array_targets[transport], "ARRAY_VERDICTS", ARRAYS_AT)
    result.assert_outcomes(passed=len(ARRAY_VERDICTS))
    result.stdout.fnmatch_lines([_prose_summary("list_users")])
    result.stdout.fnmatch_lines(
        [
            "  text block 0 tells the 3 records of structured_content in words that name 2 of them:",
            '  - /2 {"id": "3", "name": "Carol", "email": "carol@example.com"}: the words hold none of "3", '
            '"Carol", "carol@example.com"',
            "  words may tell a list of records when they name each record by most of its text values *",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "  text block 0 tells the 2 records of structured_content in words that name none of them:",
            '  - /0 {"id": "1", "name": "Alice", "email": "alice@example.com"}: the words hold none of "1", '
            '"Alice", "alice@example.com"',
            '  - /1 {"id": "2", "name": "Bob", "email": "bob@example.com"}: the words hold "2" but not "Bob", '
            '"bob@example.com"',
        ]
    )


@pytest.mark.parametrize("transport", ["in process", "stdio"])
def test_the_spec_example_fails_when_the_project_requires_json_text(
    project: Project, array_targets: dict[str, str], transport: str
) -> None:
    project.configure(
        array_targets[transport], mcp_contract_require_json_text="true", mcp_contract_protocol_versions=ARRAYS_AT
    )
    project.tests('def test_spec(mcp_contract):\n    mcp_contract.call_tool("list_users")\n')
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       [[]content-prose[]]",
            "E         structured_content is a list of 2 records, told in words that name each, and no text block "
            "holds its JSON: the model reads about the data in words only (the spec recommends a text block with "
            "the JSON of structured_content)",
            "E       Next step:",
            "E       - content-prose: Add a text block with the JSON of structured_content beside the words *",
        ]
    )


def test_the_report_names_the_tools_told_in_prose(project: Project, targets: dict[str, str]) -> None:
    project.configure(targets["stdio"])
    project.tests('def test_prose(mcp_contract):\n    mcp_contract.call_tool("record_in_prose")\n')
    project.run("--mcp-contract-report", "report.md").assert_outcomes(passed=1)
    report = (project.pytester.path / "report.md").read_text()
    assert (
        "- Text in prose only, no JSON for the model: record_in_prose (1 call); the spec recommends a text block "
        "with the JSON of structured_content (ini mcp_contract_require_json_text = true makes this fail)"
    ) in report
