"""Generated sequences of calls, on the notebook of ``contract_servers/notebook.py``: three defects no
single call shows, found in a sandbox in process and over stdio; the printed test fails the same way
when pasted; the mended notebook passes; nothing reaches the real HOME; without the sandbox nothing
that may write is called.

The inner runs' HOME is the pytester folder (pytester sets it): the notebook writes its notes under
``$HOME/.notebook``, so that folder must never appear there.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
import textwrap

import pytest
from conftest import SERVERS, Project
from docs_text import assert_says, quoted

NOTEBOOK = SERVERS / "notebook.py"
TARGETS = {
    "in process": (f"{NOTEBOOK}:build()", f"{NOTEBOOK}:build(fixed=True)"),
    "over stdio": (f"stdio:{{python}} {NOTEBOOK}", f"stdio:{{python}} {NOTEBOOK} --fixed"),
}
SEQUENCES = ("--mcp-contract-sequences", "40", "--mcp-contract-fuzz-seed", "1", "-p", "no:randomly")
# A fresh process per sequence over stdio takes about a second here: the search must not be cut short.
DEADLINE = ("-o", "mcp_contract_fuzz_deadline=600")
NEXT_STEP = "- hint-violated: Make the tool keep the promise its annotation makes, or drop the annotation: *"
# Each defect alone: the others' tools denied, so the search meets this one (a search stops at its first).
DEFECTS = {
    "readOnlyHint": (
        "",
        [
            "    def test_sequence_seed_1(mcp_contract_sandbox, mcp_contract):",
            '        note = mcp_contract.call_tool("create_note", {"title": ""}).structured_content',
            '        before = mcp_contract.call_tool("list_notes", {}).structured_content',
            '        mcp_contract.call_tool("archive_note", {"note_id": note["id"]})',
            '        after = mcp_contract.call_tool("list_notes", {}).structured_content',
            '        assert after == before, "hint-violated: archive_note says readOnlyHint: true"',
            "",
            'tool \'archive_note\' called with {"note_id": "n1"} broke its contract (1 violation):',
            "[[]hint-violated[]] at /notes",
            '  \'archive_note\' says readOnlyHint: true, yet calling it with {"note_id": "n1"} changed what '
            "'list_notes' called with no arguments answers: at /notes: before "
            '[[]{"id": "n1", "title": "", "deleted": false}[]], after [[][]]',
            "Next step:",
            NEXT_STEP,
        ],
    ),
    "idempotentHint": (
        "archive_note delete_note",
        [
            "    def test_sequence_seed_1(mcp_contract_sandbox, mcp_contract):",
            '        note = mcp_contract.call_tool("create_note", {"title": ""}).structured_content',
            '        mcp_contract.call_tool("retitle_note", {"note_id": note["id"], "title": note["title"]})',
            '        once = mcp_contract.call_tool("list_notes", {}).structured_content',
            '        mcp_contract.call_tool("retitle_note", {"note_id": note["id"], "title": note["title"]})',
            '        twice = mcp_contract.call_tool("list_notes", {}).structured_content',
            '        assert twice == once, "hint-violated: retitle_note says idempotentHint: true"',
            "",
            'tool \'retitle_note\' called with {"note_id": "n1", "title": ""} broke its contract (1 violation):',
            "[[]hint-violated[]] at /notes/0/title",
            "  'retitle_note' says idempotentHint: true, yet a second call with the same arguments "
            '({"note_id": "n1", "title": ""}) changed what \'list_notes\' called with no arguments answers: '
            'at /notes/0/title: after one call " (edited)", after two ""',
        ],
    ),
    "content-mismatch": (
        "archive_note retitle_note",
        [
            "    def test_sequence_seed_1(mcp_contract_sandbox, mcp_contract):",
            '        note = mcp_contract.call_tool("create_note", {"title": ""}).structured_content',
            '        mcp_contract.call_tool("delete_note", {"id": note["id"]})',
            '        mcp_contract.call_tool("get_note", {"id": note["id"]})',
            "",
            'tool \'get_note\' called with {"id": "n1"} broke its contract (1 violation):',
            "[[]content-mismatch[]] at /deleted",
            "  text block 0 (JSON) has false at /deleted where structured_content has true",
        ],
    ),
}
HOW_IT_FAILS = {
    "readOnlyHint": "AssertionError: hint-violated: archive_note says readOnlyHint: true",
    "idempotentHint": "AssertionError: hint-violated: retitle_note says idempotentHint: true",
    "content-mismatch": '*tool \'get_note\' called with {"id": "n1"} broke its contract (1 violation):',
}


@pytest.fixture(params=list(TARGETS))
def notebook(request: pytest.FixtureRequest, project: Project) -> tuple[Project, str, str]:
    broken, fixed = TARGETS[request.param]
    project.configure(broken, suite=True, mcp_contract_sandbox="true")
    project.tests("def test_plain():\n    pass\n")
    return project, broken, fixed


def _no_notes_at_home(project: Project) -> None:
    assert not (project.pytester.path / ".notebook").exists(), "the notebook wrote into the run's real HOME"


@pytest.mark.parametrize("defect", list(DEFECTS))
def test_each_defect_is_found_and_its_printed_test_fails_the_same_way(
    notebook: tuple[Project, str, str], defect: str
) -> None:
    project, _target, _fixed = notebook
    deny, expected = DEFECTS[defect]
    result = project.run("tox.ini::sequences", *SEQUENCES, *DEADLINE, "-o", f"mcp_contract_sandbox_deny={deny}")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "a generated sequence broke the contract (* sequences, * calls); the smallest Hypothesis found, as a "
            "test that fails the same way (paste it into a test file):",
            "",
            *expected,
        ]
    )
    result.stdout.fnmatch_lines(
        ["pytest tox.ini::sequences --mcp-contract-sequences 40 --mcp-contract-fuzz-seed 1 repeats this search."]
    )
    _no_notes_at_home(project)
    # Pasted into a test file, it fails the same way (and runs in a sandbox of its own: HOME stays clean).
    printed = re.search(r"\n(    def test_sequence_seed_1.*?)\n\n", result.stdout.str(), re.DOTALL)
    assert printed is not None
    project.tests(textwrap.dedent(printed.group(1)), name="test_pasted")
    replayed = project.run("test_pasted.py", "-p", "no:randomly")
    replayed.assert_outcomes(failed=1)
    replayed.stdout.fnmatch_lines([f"E   *{HOW_IT_FAILS[defect]}*"])
    _no_notes_at_home(project)


def test_the_mended_notebook_passes_every_sequence(notebook: tuple[Project, str, str]) -> None:
    project, _broken, fixed = notebook
    project.configure(fixed, suite=True, mcp_contract_sandbox="true")
    result = project.run("tox.ini::sequences", *SEQUENCES, *DEADLINE, "--mcp-contract-sequences", "20")
    result.assert_outcomes(passed=1)
    # Every tool was called, each call judged: the mended tools that write included, in fresh servers.
    for tool in ("archive_note", "create_note", "delete_note", "get_note", "list_notes", "retitle_note", "stats"):
        calls = re.search(rf"^{tool}\s+\S+\s+\S+\s+(\d+)\s+0\s", result.stdout.str(), re.MULTILINE)
        assert calls is not None, result.stdout.str()
        assert int(calls.group(1)) > 0, tool
    result.stdout.fnmatch_lines(
        [
            "mcp-contract: 20 sequences of up to 8 calls per server, each on a fresh server in a sandbox "
            "(mcp_contract_sandbox; a target the plugin can make anew), seed 1 (--mcp-contract-fuzz-seed 1 repeats them)",
            "sequences: * sequences on notebook, * calls, each on a fresh server in a sandbox",
        ],
        consecutive=False,
    )
    _no_notes_at_home(project)


def test_without_the_sandbox_no_tool_that_may_write_is_called(notebook: tuple[Project, str, str]) -> None:
    project, broken, _fixed = notebook
    project.configure(broken, suite=True)
    result = project.run("tox.ini::sequences", *SEQUENCES, *DEADLINE)
    # Only the tools that say they read are called: archive_note among them (it says so), but with no note
    # to archive (nothing that writes was called), its lie changes nothing and cannot be seen.
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "mcp-contract: 40 sequences of up to 8 calls per server, on the server as it is, calling only the "
            "tools fuzzing may call (the rest: mcp_contract_sandbox = true), seed 1 (*",
            "sequences: * sequences on notebook, * calls, on the server as it is",
        ],
        consecutive=False,
    )
    table = result.stdout.str()
    for tool in ("create_note", "delete_note", "retitle_note"):
        assert not re.search(rf"^{tool}\s+\S+\s+\S+\s+[1-9]", table, re.MULTILINE), tool
    for tool in ("archive_note", "get_note", "list_notes", "stats"):
        assert re.search(rf"^{tool}\s+\S+\s+\S+\s+[1-9]", table, re.MULTILINE), tool
    _no_notes_at_home(project)


def test_the_sandbox_calls_no_tool_the_project_denies(project: Project) -> None:
    project.configure(f"{SERVERS / 'writers.py'}:mcp", suite=True)
    project.tests("def test_plain():\n    pass\n")
    (project.pytester.path / "written").mkdir()
    # writers.py is one object, so no sandbox: of its four tools only the one that says it reads is called.
    result = project.run("tox.ini::sequences", "--mcp-contract-sequences", "5", "-p", "no:randomly")
    result.assert_outcomes(passed=1)
    assert list((project.pytester.path / "written").iterdir()) == []
    assert re.search(r"^read_notes\s+\S+\s+\S+\s+[1-9]", result.stdout.str(), re.MULTILINE)
    every = "append_note create_file delete_notes read_notes"
    denied = project.run(
        "tox.ini::sequences", "--mcp-contract-sequences", "5", "-rs", "-o", f"mcp_contract_sandbox_deny={every}"
    )
    denied.assert_outcomes(skipped=1)
    denied.stdout.fnmatch_lines(
        ["SKIPPED * no sequence: none of the 4 listed tools may be called; outside a sandbox a sequence calls *"]
    )


def test_a_server_that_cannot_be_made_anew_says_so_once_and_runs_without_the_sandbox(project: Project) -> None:
    project.configure(f"{NOTEBOOK}:mended", suite=True, mcp_contract_sandbox="true")
    project.tests("def test_plain():\n    pass\n")
    result = project.run("tox.ini::sequences", *SEQUENCES, *DEADLINE)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "sequences: * sequences on notebook, * calls, on the server as it is (mcp_contract_sandbox: no fresh "
            "server for MCPServer 'notebook': MCPServer 'notebook' is one object for the whole run (a module-level "
            "server, or one a conftest built); point the target at the function that builds it (module:build()), "
            "so a fresh one can be made; so only the tools fuzzing may call were called)",
        ],
        consecutive=False,
    )
    assert not re.search(r"^create_note\s+\S+\s+\S+\s+[1-9]", result.stdout.str(), re.MULTILINE)
    # A test that asks for a sandbox there fails, saying why, rather than write into the real HOME.
    project.tests("def test_it(mcp_contract_sandbox, mcp_contract):\n    mcp_contract.call_tool('stats')\n")
    asked = project.run("test_contract.py")
    asked.assert_outcomes(errors=1)
    asked.stdout.fnmatch_lines(
        [
            "*ERROR at setup of test_it*",
            "mcp_contract_sandbox: no fresh server for MCPServer 'notebook': MCPServer 'notebook' is one object for "
            "the whole run *; point the target at the function that builds it (module:build()), so a fresh one can "
            "be made.",
        ]
    )
    _no_notes_at_home(project)


def test_the_sandbox_fixture_gives_the_test_a_fresh_server_in_private_folders(
    notebook: tuple[Project, str, str],
) -> None:
    project, _broken, fixed = notebook
    project.configure(fixed)
    project.tests(
        """
        def test_first(mcp_contract_sandbox, mcp_contract):
            note = mcp_contract.call_tool("create_note", {"title": "a"}).structured_content
            assert note["id"] == "n1"
            assert (mcp_contract_sandbox / "home" / ".notebook" / "notes.json").is_file()

        def test_second(mcp_contract_sandbox, mcp_contract):
            # A fresh server: the first test's note is not there.
            assert mcp_contract.call_tool("list_notes", {}).structured_content == {"notes": []}
        """
    )
    result = project.run("-p", "no:randomly")
    result.assert_outcomes(passed=2)
    _no_notes_at_home(project)


@pytest.mark.parametrize(
    ("line", "error"),
    [
        (
            ("--mcp-contract-sequences", "many"),
            "ERROR: --mcp-contract-sequences / mcp_contract_sequences = 'many' is not a count; give the number of "
            "sequences per server, e.g. mcp_contract_sequences = 20",
        ),
        (
            ("-o", "mcp_contract_sequence_length=-2"),
            "ERROR: mcp_contract_sequence_length = '-2' is not a count; give the number of steps a sequence takes at "
            "most, e.g. mcp_contract_sequence_length = 20",
        ),
        (
            ("-o", "mcp_contract_sequence_length=0"),
            "ERROR: mcp_contract_sequence_length = 0 leaves a sequence no step; give the steps a sequence takes at "
            "most, e.g. mcp_contract_sequence_length = 8 (the default)",
        ),
    ],
)
def test_a_bad_count_is_a_usage_error(project: Project, line: tuple[str, str], error: str) -> None:
    project.configure(f"{NOTEBOOK}:build()", suite=True)
    result = project.run(*line)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([error])


def test_the_docs_show_a_sequence_failure(project: Project) -> None:
    project.pytester.makepyprojecttoml(
        f'[tool.pytest.ini_options]\nmcp_contract_server = "{NOTEBOOK}:build()"\nmcp_contract_sandbox = true\n'
    )
    project.tests("def test_plain():\n    pass\n")
    result = project.run("pyproject.toml::sequences", *SEQUENCES, *DEADLINE)
    result.assert_outcomes(failed=1)
    assert_says(result.stdout.str(), quoted("sequence-failure"))


def test_a_long_search_tells_its_progress(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_mcp_contract._suite import items

    monkeypatch.setattr(items, "PROGRESS_EVERY", 0.0)  # a line after every sequence, not every 10 s
    project.configure(f"{NOTEBOOK}:build(fixed=True)", suite=True, mcp_contract_sandbox="true")
    project.tests("def test_plain():\n    pass\n")
    result = project.run("tox.ini::sequences", "--mcp-contract-sequences", "3", "-p", "no:randomly")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["  sequences: 1 run (3 asked), * calls", "  sequences: 2 run (3 asked), * calls"])
    quiet = project.run("tox.ini::sequences", "--mcp-contract-sequences", "3", "-p", "no:randomly", "-qq")
    quiet.stdout.no_fnmatch_line("*sequences: 1 run*")


def test_a_fresh_server_that_does_not_open_in_the_sandbox_stops_at_once_saying_why(project: Project) -> None:
    # A command that starts only with the real HOME, as a pyenv shim or an npx cache would.
    home = project.pytester.path
    command = f'[ "$HOME" = {home} ] && exec {sys.executable} {NOTEBOOK} --fixed'
    project.pytester.makepyprojecttoml(
        f"[tool.pytest.ini_options]\nmcp_contract_server = {json.dumps('stdio:sh -c ' + shlex.quote(command))}\n"
        "mcp_contract_sandbox = true\n"
    )
    project.tests("def test_plain():\n    pass\n")
    result = project.run("pyproject.toml::sequences", *SEQUENCES)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "no sequence ran: the fresh server in the sandbox (mcp_contract_sandbox) did not open: could not open an "
            "MCP session to the stdio server *: * The server process exited with code 1.",
            "*",
            "In the sandbox HOME, TMPDIR and the XDG folders are private and empty: a command that finds itself "
            "through HOME (a pyenv shim, a package in ~/.npm or ~/.local) or a server that needs a file there "
            "fails. *",
            "*",
            "sequences: 0 sequences on notebook, 0 calls, each on a fresh server in a sandbox; the sandbox could not "
            "serve a sequence, so the search stopped",
        ]
    )


GLIMPSE = SERVERS / "glimpse.py"


def test_a_broken_promise_not_seen_again_when_replayed_is_no_finding_and_the_summary_says_so(
    project: Project,
) -> None:
    project.configure(f"{GLIMPSE}:build", suite=True, mcp_contract_sandbox="true")
    project.tests("def test_plain():\n    pass\n")
    result = project.run("tox.ini::sequences", *SEQUENCES, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "sequences: * sequences on glimpse, * calls, each on a fresh server in a sandbox; glimpse's readOnlyHint "
            "seemed broken once but held when the same calls were made again: no finding (a value that changes on "
            "its own, as a clock at second resolution, or another client meanwhile: name a volatile key in "
            "mcp_contract_volatile)"
        ]
    )


def test_a_factory_that_hands_out_the_same_server_makes_nothing_fresh(project: Project) -> None:
    project.configure(f"{GLIMPSE}:same", suite=True, mcp_contract_sandbox="true")
    project.tests("def test_plain():\n    pass\n")
    result = project.run("tox.ini::sequences", *SEQUENCES)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "no sequence ran: the fresh server in the sandbox (mcp_contract_sandbox) did not open: the factory "
            "returned the same MCPServer object again (a module-level server, or one it caches), so no fresh server "
            "can be had; make it build a new server at each call",
        ]
    )


@pytest.mark.parametrize("transport", ["in process", "over stdio"])
def test_a_call_that_times_out_ends_the_search_at_once(project: Project, transport: str) -> None:
    # Shrinking would make the same calls again, each waiting its timeout: the sequence is told as it came.
    hanging = SERVERS / "hanging.py"
    server = f"{hanging}:mcp" if transport == "in process" else f"stdio:{sys.executable} {hanging}"
    project.configure(server, suite=True, mcp_contract_timeout="0.5", mcp_contract_sandbox_deny="alternate")
    project.tests("def test_plain():\n    pass\n")
    result = project.run("tox.ini::sequences", *SEQUENCES, *DEADLINE)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "(a call got no answer within its timeout, so the search stopped there: each smaller try would wait as "
            "long; this is the smallest sequence found by then)",
            "*no answer: tool 'stall' did not answer within 0.5 s*",
        ]
    )
    assert result.stdout.str().count("did not answer within") == 1
    assert re.search(r"^stall\s+\S+\s+\S+\s+1\s+1\s", result.stdout.str(), re.MULTILINE)


TICKETS = """
import json
import random

from mcp.server import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel

mcp = MCPServer("tickets", log_level="ERROR")
drawn: set[float] = set()


class Ticket(BaseModel):
    number: float


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
def ticket(n: int) -> Ticket:
    number = random.random()
    if number in drawn:  # told otherwise than it holds: a content-mismatch, in the text only the model reads
        told = json.dumps({"number": -1})
        return CallToolResult(content=[TextContent(type="text", text=told)], structured_content={"number": number})
    drawn.add(number)
    return Ticket(number=number)
"""


def test_an_in_process_server_draws_its_own_random_values_in_a_sequence(project: Project) -> None:
    # Hypothesis seeds the global random alike for each example, and a sequence is one example: a server
    # that drew from it would answer alike at each call of a sequence, where over stdio it draws its own.
    project.pytester.makepyfile(tickets=TICKETS)
    project.configure("tickets.py:mcp", suite=True)
    project.tests("def test_plain():\n    pass\n")
    result = project.run("tox.ini::sequences", *SEQUENCES)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["sequences: 40 sequences on tickets, * calls, on the server as it is"])
    assert "content-mismatch" not in result.stdout.str()
