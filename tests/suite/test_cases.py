"""Declared example calls: from input-schema examples and the mcp_contract_cases file, as generated items."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import SERVERS, Project, target
from contract_servers.sources import WEATHER_WITH_EXAMPLES


def _configure(project: Project, server: str, **ini: str) -> None:
    """The suite with input schemas snapshotted: their examples are collected as ``call[...]`` items."""
    project.configure(server, suite=True, mcp_contract_snapshot_fields="input_schema", **ini)


@pytest.fixture
def weather(project: Project) -> Project:
    project.pytester.makepyfile(weather=WEATHER_WITH_EXAMPLES)
    _configure(project, "weather.py:mcp")
    # The first run: the listing item records the three tools (and makes the examples' calls).
    project.run("--snapshot-update").assert_outcomes(passed=1)
    return project


def test_property_examples_become_call_items(weather: Project) -> None:
    result = weather.run("-k", "call", "-v")
    result.assert_outcomes(passed=2, deselected=7)
    result.stdout.fnmatch_lines(
        ["tox.ini::call[[]get_weather-london[]] PASSED*", "tox.ini::call[[]get_weather-são-paulo[]] PASSED*"]
    )


def test_examples_of_an_input_schema_not_snapshotted_are_called_by_the_listing_item(project: Project) -> None:
    # Collection cannot know the examples of a schema no snapshot holds: the listing item makes those calls.
    source = WEATHER_WITH_EXAMPLES.replace('examples=["London", "São Paulo"]', 'examples=["London", "Atlantis"]')
    assert source != WEATHER_WITH_EXAMPLES
    project.pytester.makepyfile(weather=source)
    project.configure("weather.py:mcp", suite=True)
    first = project.run("--snapshot-update")
    first.assert_outcomes(failed=1)
    first.stdout.fnmatch_lines(
        [
            "*_ listing _*",
            'call[[]get_weather-atlantis[]]: tool \'get_weather\' called with {"city": "Atlantis"} *',
            "*server-side cause: ValueError: upstream has no station for Atlantis*",
            "This call is example 2 in the input schema of 'get_weather': fix the tool, or the example.",
            "get_weather  created  passed      2           1         0        0",
            "tool calls checked: 2, violations: 1",
        ]
    )
    first.stdout.no_fnmatch_line("*call[[]get_weather-london[]]*")  # that one kept its contract
    collected = project.run("--collect-only", "-q")
    collected.stdout.fnmatch_lines(["tox.ini::listing", "*7 tests collected*"])  # schema and checks of each tool
    collected.stdout.no_fnmatch_line("*::call*")


def test_examples_not_snapshotted_are_called_by_their_tools_checks_item(project: Project) -> None:
    # Once the tools are known, each tool's checks item makes its own examples' calls, so pytest-xdist
    # spreads them over its workers; the listing item makes those of tools with no checks item in the run.
    source = WEATHER_WITH_EXAMPLES.replace('examples=["London", "São Paulo"]', 'examples=["London", "Atlantis"]')
    project.pytester.makepyfile(weather=source)
    project.configure("weather.py:mcp", suite=True)
    project.run("--snapshot-update").assert_outcomes(failed=1)
    failure = [
        'call[[]get_weather-atlantis[]]: tool \'get_weather\' called with {"city": "Atlantis"} *',
        "*server-side cause: ValueError: upstream has no station for Atlantis*",
        "This call is example 2 in the input schema of 'get_weather': fix the tool, or the example.",
    ]
    for extra in ((), ("-n", "2")):
        result = project.run("-v", *extra)
        result.assert_outcomes(passed=6, failed=1)
        result.stdout.fnmatch_lines(["*_ checks[[]get_weather[]] _*", *failure, "tool calls checked: 2, violations: 1"])
        result.stdout.fnmatch_lines(["*PASSED*tox.ini::listing*" if extra else "tox.ini::listing PASSED*"])
    alone = project.run("-k", "listing")
    alone.assert_outcomes(failed=1, deselected=6)
    alone.stdout.fnmatch_lines(["*_ listing _*", *failure, "tool calls checked: 2, violations: 1"])


def test_tools_without_a_case_are_listed_as_not_called(weather: Project) -> None:
    result = weather.run()
    result.assert_outcomes(passed=9)
    result.stdout.fnmatch_lines(
        ["tools not called: forecast, sun_times (give them example calls: see mcp_contract_cases)"]
    )


def test_root_examples_are_whole_calls(project: Project) -> None:
    # A low-level server publishes whatever input schema it likes: here whole example calls.
    project.pytester.makepyfile(
        adder="""
        from mcp import types
        from mcp.server import Server

        SCHEMA = {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
            "examples": [{"a": 1, "b": 2}, {"a": 40, "b": 2}],
        }

        async def list_tools(ctx, params):
            return types.ListToolsResult(tools=[types.Tool(name="add", input_schema=SCHEMA)])

        async def call_tool(ctx, params):
            total = params.arguments["a"] + params.arguments["b"]
            return types.CallToolResult(content=[types.TextContent(type="text", text=str(total))])

        server = Server("adder", on_list_tools=list_tools, on_call_tool=call_tool)
        """
    )
    _configure(project, "adder.py:server")
    project.run("--snapshot-update").assert_outcomes(passed=1)  # the listing item records the tool
    result = project.run("-k", "call", "-v")
    result.assert_outcomes(passed=2, deselected=3)
    result.stdout.fnmatch_lines(["tox.ini::call[[]add-1[]] PASSED*", "tox.ini::call[[]add-2[]] PASSED*"])


CASES_TOML = """
[[case]]
tool = "forecast"
arguments = { city = "Oslo", days = 2 }

[[case]]
tool = "get_weather"
id = "atlantis"
arguments = { city = "Atlantis" }
error = "no station"

[[case]]
tool = "sun_times"
arguments = { city = "Oslo" }
violations = ["content-mismatch"]
"""


def test_a_cases_file_declares_calls_and_their_expected_failures(weather: Project) -> None:
    (weather.pytester.path / "cases.toml").write_text(CASES_TOML)
    _configure(weather, "weather.py:mcp", mcp_contract_cases="cases.toml")
    result = weather.run("-k", "call", "-v")
    result.assert_outcomes(passed=5, deselected=7)
    result.stdout.fnmatch_lines(
        [
            # The input schema's examples with their tool; then the file's cases, in the file's order.
            "tox.ini::call[[]get_weather-london[]] PASSED*",
            "tox.ini::call[[]get_weather-são-paulo[]] PASSED*",
            "tox.ini::call[[]forecast-oslo[]] PASSED*",
            "tox.ini::call[[]get_weather-atlantis[]] PASSED*",
            "tox.ini::call[[]sun_times-oslo[]] PASSED*",
        ]
    )
    assert "tools not called" not in weather.run().stdout.str()


NOTES = """
from mcp.server import MCPServer

mcp = MCPServer("notes", log_level="ERROR")
NOTES: dict[str, str] = {}

@mcp.tool()
def write_note(name: str, text: str) -> str:
    NOTES[name] = text
    return "saved"

@mcp.tool()
def read_note(name: str) -> str:
    return NOTES[name]
"""


def test_cases_run_in_the_files_order_so_one_can_create_and_then_read(project: Project) -> None:
    project.pytester.makepyfile(notes=NOTES)
    (project.pytester.path / "cases.toml").write_text(
        '[[case]]\ntool = "write_note"\narguments = { name = "todo", text = "milk" }\n\n'
        '[[case]]\ntool = "read_note"\narguments = { name = "todo" }\n'
    )
    project.configure("notes.py:mcp", suite=True, mcp_contract_cases="cases.toml")
    # The cases file's calls are collected before any snapshot is: only the listing item is left out.
    result = project.run("-k", "call", "-v", "-p", "no:randomly")
    result.assert_outcomes(passed=2, deselected=1)
    result.stdout.fnmatch_lines(
        ["tox.ini::call[[]write_note-todo[]] PASSED*", "tox.ini::call[[]read_note-todo[]] PASSED*"]
    )


def test_a_json_cases_file_and_failing_cases(weather: Project) -> None:
    cases = {
        "case": [
            {"tool": "get_weather", "id": "atlantis", "arguments": {"city": "Atlantis"}},
            {"tool": "sun_times", "id": "fixed", "arguments": {"city": "Paris"}, "violations": ["content-mismatch"]},
        ]
    }
    (weather.pytester.path / "cases.json").write_text(json.dumps(cases))
    _configure(weather, "weather.py:mcp", mcp_contract_cases="cases.json")
    result = weather.run("-k", "atlantis or fixed")
    result.assert_outcomes(failed=2, deselected=9)
    result.stdout.fnmatch_lines(
        [
            "*_ call[[]get_weather-atlantis[]] _*",
            "*server-side cause: ValueError: upstream has no station for Atlantis*",
            "This call is cases.json, case 1: fix the tool, or say what the call should do there "
            "(error = true or a pattern, violations = [...]).",
            "*_ call[[]sun_times-fixed[]] _*",
            "expected a content-mismatch violation from sun_times, none occurred: cases.json, case 2 is stale. If the "
            "bug is fixed, remove its violations.",
        ]
    )


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("cases.toml", "[[case]\ntool = 1\n", "ERROR: mcp_contract_cases file cases.toml is not valid TOML: *"),
        ("cases.json", "{", "ERROR: mcp_contract_cases file cases.json is not valid JSON: *"),
        (
            "cases.toml",
            '[[case]]\ntool = "forecast"\nargs = { city = "Oslo" }\n',
            "ERROR: mcp_contract_cases cases.toml, case 1: unknown key 'args' (did you mean 'arguments'?); a case "
            "has tool, id, arguments, error, violations, validate_arguments.",
        ),
        (
            "cases.toml",
            '[[case]]\ntool = "forecast"\nviolations = ["mismatch"]\n',
            "ERROR: mcp_contract_cases cases.toml, case 1: unknown check id 'mismatch'; the check ids are *",
        ),
        ("cases.toml", "case = 3\n", "ERROR: mcp_contract_cases file cases.toml holds no list of cases: *"),
    ],
)
def test_a_broken_cases_file_is_a_usage_error(weather: Project, name: str, text: str, message: str) -> None:
    (weather.pytester.path / name).write_text(text)
    weather.configure("weather.py:mcp", suite=True, mcp_contract_cases=name)
    result = weather.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_a_case_whose_tool_is_not_listed_fails_its_item(weather: Project) -> None:
    # Which tools the server lists is known once it runs: the case's item says so, the rest of the run goes on.
    (weather.pytester.path / "cases.toml").write_text('[[case]]\ntool = "get_weathr"\n')
    _configure(weather, "weather.py:mcp", mcp_contract_cases="cases.toml")
    result = weather.run()
    result.assert_outcomes(passed=9, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ call[[]get_weathr-case-1[]] _*",
            "mcp_contract_cases cases.toml, case 1: tool 'get_weathr' is not listed by the server (it lists "
            "forecast, get_weather, sun_times). Fix the case's tool, or drop the case.",
        ]
    )


def test_a_missing_cases_file_is_a_usage_error(weather: Project) -> None:
    weather.configure("weather.py:mcp", suite=True, mcp_contract_cases="nowhere.toml")
    result = weather.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: mcp_contract_cases = 'nowhere.toml' cannot be read: No such file or directory."]
    )


def test_case_ids_are_unique_and_keep_what_the_file_says(weather: Project) -> None:
    (weather.pytester.path / "cases.toml").write_text(
        """
        [[case]]
        tool = "forecast"
        arguments = { city = "Oslo", days = 1 }

        [[case]]
        tool = "forecast"
        arguments = { city = "Oslo", days = 2 }

        [[case]]
        tool = "forecast"
        id = "oslo-2"
        arguments = { city = "Oslo", days = 3 }

        [[case]]
        tool = "forecast"
        arguments = { city = "東京", days = 4 }

        [[case]]
        tool = "sun_times"
        arguments = { city = "" }
        violations = ["content-mismatch"]
        """.replace("\n        ", "\n")
    )
    weather.configure("weather.py:mcp", suite=True, mcp_contract_cases="cases.toml")
    result = weather.run("-k", "call and (forecast or sun_times)", "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        [
            "tox.ini::call[[]forecast-oslo[]]",
            "tox.ini::call[[]forecast-oslo-3[]]",
            "tox.ini::call[[]forecast-oslo-2[]]",
            "tox.ini::call[[]forecast-東京[]]",
            "tox.ini::call[[]sun_times-case-5[]]",  # no text to name it: its place in the file
        ]
    )


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ('error = "("', "error = '(' is not a valid regular expression: *"),
        ("violations = []", "violations is empty; list the check ids the call is expected to break, or drop the key."),
        ('id = "--"', "id must be a short name with letters or digits, got '--'."),
    ],
)
def test_a_malformed_case_names_the_key(weather: Project, entry: str, problem: str) -> None:
    (weather.pytester.path / "sub").mkdir()
    (weather.pytester.path / "sub" / "cases.toml").write_text(f'[[case]]\ntool = "forecast"\n{entry}\n')
    weather.configure("weather.py:mcp", suite=True, mcp_contract_cases="sub/cases.toml")
    result = weather.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: mcp_contract_cases sub/cases.toml, case 1: {problem}"])


STATEFUL_CASES = """
[[case]]
tool = "create_branch"
arguments = { name = "feature" }

[[case]]
tool = "show_branch"
arguments = { name = "feature" }

[[case]]
tool = "reset_branch"
arguments = { name = "feature" }
"""


@pytest.mark.parametrize(
    "server",
    [target("stateful", "mcp"), f"stdio:{sys.executable} {SERVERS / 'stateful.py'}"],
    ids=["in-process", "stdio"],
)
def test_a_case_that_may_write_reaches_the_server_once_whatever_versions_are_offered(
    project: Project, server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "Create, then read" against a server whose state outlives a session (over stdio, each version
    # has a process of its own): a second create would answer "already exists".
    state = tmp_path / "state"
    state.mkdir()
    monkeypatch.setenv("STATEFUL_DIR", str(state))
    (project.pytester.path / "cases.toml").write_text(STATEFUL_CASES)
    project.configure(server, suite=True, mcp_contract_cases="cases.toml")
    result = project.run("-k", "call", "-v", "-p", "no:randomly")
    result.assert_outcomes(passed=3, deselected=1)  # the listing item: no snapshot yet
    result.stdout.fnmatch_lines(
        [
            "tox.ini::call[[]create_branch-feature[]] PASSED*",
            "tox.ini::call[[]show_branch-feature[]] PASSED*",
            "tox.ini::call[[]reset_branch-feature[]] PASSED*",
            "called once, as they may write: create_branch (2025-11-25 read from the 2026-07-28 answer); a tool "
            "that only reads (readOnlyHint) or may be called again (idempotentHint) is called under each version: "
            "say so in its annotations",
        ]
    )
    # Counted by the server: the create once; the read-only and the idempotent tool once per version.
    calls = Counter((state / "calls.log").read_text().split())
    assert calls == {"create_branch": 1, "show_branch": 2, "reset_branch": 2}


def _one_case(project: Project, module: str, tool: str, arguments: str) -> None:
    """Configure ``module``.py's ``mcp`` with the suite and a cases file of one call of ``tool``."""
    (project.pytester.path / "cases.toml").write_text(f'[[case]]\ntool = "{tool}"\narguments = {arguments}\n')
    project.configure(f"{module}.py:mcp", suite=True, mcp_contract_cases="cases.toml")


def test_one_answer_is_judged_under_every_version_it_is_read_for(project: Project) -> None:
    # A tool that may write, whose answer breaks the mirror rule: called once, the violation holds for
    # both versions (no version named), as a replay under each would have found.
    project.pytester.makepyfile(
        ledger="""
        from mcp.server import MCPServer
        from mcp.types import CallToolResult, TextContent

        mcp = MCPServer("ledger", log_level="ERROR")

        @mcp.tool()
        def book(amount: int) -> CallToolResult:
            return CallToolResult(
                content=[TextContent(type="text", text='{"amount": 4}')], structured_content={"amount": amount}
            )
        """
    )
    _one_case(project, "ledger", "book", "{ amount = 3 }")
    result = project.run("-k", "call", "-p", "no:randomly")
    result.assert_outcomes(failed=1, deselected=1)
    result.stdout.fnmatch_lines(["[[]content-mismatch[]] at /amount", "called once, as they may write: book (*"])
    result.stdout.no_fnmatch_line("*content-mismatch @*")


def test_a_version_the_one_answer_says_nothing_of_is_left_out_of_the_label(project: Project) -> None:
    # FastMCP lists a schema without a root "type" as written on 2026-07-28 and with "type": "object" on
    # 2025-11-25: the 2026-07-28 answer tells nothing of what a 2025-11-25 client would have got. The tool
    # may write, so it is called once: its violation holds for the version judged, and says so.
    project.pytester.makepyfile(
        counter="""
        from fastmcp import FastMCP
        from fastmcp.tools import ToolResult
        from mcp.types import TextContent

        mcp = FastMCP("counter")

        @mcp.tool(output_schema={"properties": {"n": {"type": "integer"}}, "required": ["n"]})
        def bump(n: int) -> ToolResult:
            return ToolResult(content=[TextContent(type="text", text='{"n": 2}')], structured_content={"n": n})
        """
    )
    _one_case(project, "counter", "bump", "{ n = 1 }")
    result = project.run("-k", "call", "-p", "no:randomly")
    result.assert_outcomes(failed=1, deselected=1)
    result.stdout.fnmatch_lines(
        [
            "[[]content-mismatch @ 2026-07-28[]] at /n",
            "called once, as they may write: bump (not judged under 2025-11-25: the answer tells nothing of it); *",
            "tool calls checked: 1, violations: 1",
        ]
    )


def test_a_schema_defect_fails_the_checks_item_only_and_a_call_once_counts_once(project: Project) -> None:
    project.pytester.makepyfile(
        notes="""
        from mcp.server import MCPServer
        from pydantic import BaseModel, Field

        mcp = MCPServer("notes", log_level="ERROR")

        class Note(BaseModel):
            n: int
            label: str = Field(default=None)  # a default its own schema refuses

        @mcp.tool()
        def save(n: int) -> Note:
            return Note(n=n, label="kept")
        """
    )
    _one_case(project, "notes", "save", "{ n = 1 }")
    # The first run: the listing item records save and runs its checks, which fail it.
    first = project.run("--snapshot-update", "-v", "-p", "no:randomly")
    first.assert_outcomes(passed=1, failed=1)
    first.stdout.fnmatch_lines(["tox.ini::listing FAILED*", "tox.ini::call[[]save-case-1[]] PASSED*"])
    result = project.run("-v", "-p", "no:randomly")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        [
            "tox.ini::listing PASSED*",
            "tox.ini::schema[[]save[]] PASSED*",
            "tox.ini::checks[[]save[]] FAILED*",
            "tox.ini::call[[]save-case-1[]] PASSED*",  # the call's answer kept its contract
            "save  matched  failed      1           0         0        0",  # one call sent, judged twice
            "tool calls checked: 1, violations: 0",
        ]
    )
    # A case that expects the defect (kept as an assertion) is judged with it, and so met.
    cases = project.pytester.path / "cases.toml"
    cases.write_text(cases.read_text() + 'violations = ["output-schema-invalid"]\n')
    known = project.run("-k", "call", "-p", "no:randomly")
    known.assert_outcomes(passed=1, deselected=3)
    known.stdout.fnmatch_lines(["tool calls checked: 1, violations: 1 (1 expected)"])


def test_a_checks_item_that_fails_its_checks_still_makes_its_examples_calls(project: Project) -> None:
    # Each example reaches the server once a run: the calls are made, and told, whatever the checks found.
    project.pytester.makepyfile(
        station="""
        from typing import Annotated

        from mcp.server import MCPServer
        from pydantic import Field

        mcp = MCPServer("station", log_level="CRITICAL")


        @mcp.tool()
        def get_weather(city: Annotated[str, Field(examples=["Atlantis"])] = None) -> float:
            raise ValueError(f"upstream has no station for {city}")
        """
    )
    project.configure("station.py:mcp", suite=True)
    project.run("--snapshot-update")
    result = project.run("-k", "checks")
    result.assert_outcomes(failed=1, deselected=2)
    result.stdout.fnmatch_lines(
        [
            "*_ checks[[]get_weather[]] _*",
            "*[[]input-schema-invalid[]]*",
            'call[[]get_weather-atlantis[]]: tool \'get_weather\' called with {"city": "Atlantis"} *',
            "tool calls checked: 1, violations: 1",
        ]
    )
