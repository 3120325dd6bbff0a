"""Fuzzing is safe by default: only tools that say readOnlyHint: true are called, unless the project opts in.

The server is ``contract_servers/writers.py``: three tools that write files in the folder ``written``
(one says nothing, one says it writes, one says destructiveHint: true) and one that only reads and
says so. Every test compares that folder byte for byte before and after the run.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import SERVERS, Project, target
from docs_text import assert_says, quoted

NOTES = "first note\nsecond note\n"

SKIPPED = [
    "SKIPPED [[]1[]] tox.ini: 'append_note' does not say readOnlyHint: true, so it may write; fuzz it with "
    "mcp_contract_fuzz_allow = append_note (or mcp_contract_fuzz_writes = true for a throwaway server)",
    "SKIPPED [[]1[]] tox.ini: 'create_file' does not say readOnlyHint: true, so it may write; fuzz it with "
    "mcp_contract_fuzz_allow = create_file (or mcp_contract_fuzz_writes = true for a throwaway server)",
    "SKIPPED [[]1[]] tox.ini: 'delete_notes' says destructiveHint: true, so it may delete or overwrite; fuzz it with "
    "mcp_contract_fuzz_allow = delete_notes (or mcp_contract_fuzz_writes = true for a throwaway server)",
]
SUMMARY = [
    "not fuzzed, as they may write (no readOnlyHint: true): 3 tools; fuzz one with its line below, or every tool "
    "with mcp_contract_fuzz_writes = true (a throwaway server and data only)",
    "  append_note: mcp_contract_fuzz_allow = append_note",
    "  create_file: mcp_contract_fuzz_allow = create_file",
    "  delete_notes (says destructiveHint: true): mcp_contract_fuzz_allow = delete_notes",
    "a tool of these that only reads: say readOnlyHint: true on it in the server, so fuzzing and every client know "
    "it is safe to call (Python SDK: @mcp.tool(annotations=ToolAnnotations(read_only_hint=True)), ToolAnnotations "
    "from mcp.types; readOnlyHint=True on mcp 1.x)",
]
IN_PROCESS = target("writers", "mcp")
OVER_STDIO = f"stdio:{{python}} {SERVERS / 'writers.py'}"
HEADER = (
    "mcp-contract: fuzzing each tool that says readOnlyHint: true or is in mcp_contract_fuzz_allow; the summary "
    "names each tool skipped, with the line that fuzzes it"
)


def recorded(project: Project) -> None:
    """The first run, as its listing item advises: it records each tool's snapshot (calling none of them), and
    from then on every tool has its items, its fuzz item among them (the suite is collected from the snapshots)."""
    result = project.run("--snapshot-update", "tox.ini::listing")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["schema snapshots: 4 created"])


@pytest.fixture(params=["in process", "over stdio"])
def writers(request: pytest.FixtureRequest, project: Project) -> Project:
    """A project whose server writes in ``written/``, which holds notes to lose and nothing else."""
    project.configure(IN_PROCESS if request.param == "in process" else OVER_STDIO, suite=True)
    project.tests("def test_plain():\n    pass\n")
    folder = project.pytester.path / "written"
    folder.mkdir()
    (folder / "notes.txt").write_text(NOTES, encoding="utf-8")
    recorded(project)
    return project


def _contents(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def test_only_the_read_only_tool_is_fuzzed_and_no_file_changes(writers: Project) -> None:
    folder = writers.pytester.path / "written"
    before = _contents(folder)
    result = writers.run("--mcp-contract-fuzz", "50", "--mcp-contract-fuzz-seed", "3", "-k", "fuzz", "-rs")
    result.assert_outcomes(passed=1, skipped=3, deselected=10)
    assert _contents(folder) == before
    result.stdout.fnmatch_lines([HEADER])
    result.stdout.fnmatch_lines(SKIPPED, consecutive=False)
    assert_says(result.stdout.str(), quoted("fuzz-skipped"))
    # The read-only tool's calls were made and checked, each answered with a result; the others' none.
    result.stdout.fnmatch_lines(
        [
            "append_note * 0 * 0 * 0 * 0",
            "read_notes * 50 * 0 * 0 * 0",
            "",
            "generated calls: 50 (* distinct), answered with a result: 50",
            *SUMMARY,
        ]
    )


def test_a_writing_tool_the_allow_list_names_is_fuzzed_and_only_that_one(writers: Project) -> None:
    folder = writers.pytester.path / "written"
    result = writers.run(
        "--mcp-contract-fuzz", "20", "-k", "fuzz", "-o", "mcp_contract_fuzz_allow=append_note", "-rs", "-v"
    )
    result.assert_outcomes(passed=2, skipped=2, deselected=10)
    result.stdout.fnmatch_lines(["*::fuzz[[]append_note[]] PASSED*", "*::fuzz[[]read_notes[]] PASSED*"])
    result.stdout.fnmatch_lines(
        [
            HEADER,
            "not fuzzed, as they may write (no readOnlyHint: true): 2 tools; *",
            "  create_file: mcp_contract_fuzz_allow = create_file",
            "  delete_notes (says destructiveHint: true): mcp_contract_fuzz_allow = delete_notes",
        ]
    )
    # It wrote its notes; the tools not named created and deleted nothing.
    after = _contents(folder)
    assert list(after) == ["notes.txt"]
    assert after["notes.txt"].startswith(NOTES.encode())
    assert len(after["notes.txt"].splitlines()) > len(NOTES.splitlines())


def test_fuzz_writes_fuzzes_every_tool_and_the_header_says_what_that_risks(writers: Project) -> None:
    folder = writers.pytester.path / "written"
    result = writers.run("--mcp-contract-fuzz", "20", "-k", "fuzz", "-o", "mcp_contract_fuzz_writes=true", "-v")
    result.assert_outcomes(passed=4, deselected=10)
    result.stdout.fnmatch_lines(
        [
            "mcp-contract: fuzzing every tool, also those that may write, delete or send (mcp_contract_fuzz_writes "
            "= true): a throwaway server and data only"
        ]
    )
    result.stdout.no_fnmatch_line("not fuzzed, as they may write*")
    # Every tool was called, and the writers wrote: create_file's schema example is tried as it stands.
    for tool in ("append_note", "create_file", "delete_notes", "read_notes"):
        calls = re.search(rf"^{tool}\s+—\s+—\s+(\d+)\s", result.stdout.str(), re.MULTILINE)
        assert calls is not None, result.stdout.str()
        assert int(calls.group(1)) >= 20
    assert (folder / "draft").is_file()


def test_the_summary_and_report_name_the_skipped_tools_under_xdist(project: Project) -> None:
    project.configure(IN_PROCESS, suite=True)
    project.tests("def test_plain():\n    pass\n")
    (project.pytester.path / "written").mkdir()
    recorded(project)
    result = project.run(
        "--mcp-contract-fuzz", "20", "-k", "fuzz", "-n", "2", "--mcp-contract-report", "report.md", "-p", "no:randomly"
    )
    result.assert_outcomes(passed=1, skipped=3)
    result.stdout.fnmatch_lines(["generated calls: 20 (* distinct), answered with a result: 20", *SUMMARY])
    assert list((project.pytester.path / "written").iterdir()) == []
    report = (project.pytester.path / "report.md").read_text()
    assert (
        "- Not fuzzed, as they may write (no readOnlyHint: true): 3 tools; fuzz one with its line below, or every "
        "tool with mcp_contract_fuzz_writes = true (a throwaway server and data only)\n"
        "  - append_note: mcp_contract_fuzz_allow = append_note\n"
        "  - create_file: mcp_contract_fuzz_allow = create_file\n"
        "  - delete_notes (says destructiveHint: true): mcp_contract_fuzz_allow = delete_notes\n"
        "- A tool of these that only reads: say readOnlyHint: true on it in the server, so fuzzing and every "
        "client know it is safe to call (Python SDK: @mcp.tool(annotations=ToolAnnotations(read_only_hint=True)), "
        "ToolAnnotations from mcp.types; readOnlyHint=True on mcp 1.x)\n"
    ) in report, report


@pytest.mark.parametrize("where", ["ini file", "-o"])
def test_the_removed_readonly_only_key_says_it_is_now_the_default(project: Project, where: str) -> None:
    if where == "ini file":
        project.configure(IN_PROCESS, suite=True, mcp_contract_fuzz_readonly_only="true")
        result = project.run("--mcp-contract-fuzz", "5")
    else:
        project.configure(IN_PROCESS, suite=True)
        result = project.run("--mcp-contract-fuzz", "5", "-o", "mcp_contract_fuzz_readonly_only=true")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    shown = " (in tox.ini)" if where == "ini file" else ""
    result.stderr.fnmatch_lines(
        [
            f"ERROR: mcp_contract_fuzz_readonly_only{shown} is no longer an option of pytest-mcp-contract: fuzzing "
            "only the tools that say readOnlyHint: true is now the default, so remove the line. To fuzz a tool that "
            "may write, name it: mcp_contract_fuzz_allow = TOOL; to fuzz every tool, on a throwaway server and data "
            "only: mcp_contract_fuzz_writes = true"
        ]
    )
    assert "INTERNALERROR" not in result.stderr.str() + result.stdout.str()


def test_the_header_says_which_tools_are_fuzzed_without_listing_them(writers: Project) -> None:
    # Collected only: the header is written before any item runs, and collecting starts no server. So it
    # names the rule, not a count of the listed tools: the same line whether the allow list names every
    # tool that may write or none of them.
    allowed = "mcp_contract_fuzz_allow=append_note create_file delete_notes"
    for options in ([], ["-o", allowed]):
        result = writers.run("--mcp-contract-fuzz", "5", *options, "--collect-only")
        assert result.ret == pytest.ExitCode.OK
        result.stdout.fnmatch_lines([HEADER])
        result.stdout.no_fnmatch_line("*of the server's * tools*")
        # Every tool with a snapshot has its fuzz item; one not allowed is skipped when it runs.
        result.stdout.fnmatch_lines(
            [
                f"    <ContractItem fuzz[[]{tool}[]]>"
                for tool in ("append_note", "create_file", "delete_notes", "read_notes")
            ]
        )
