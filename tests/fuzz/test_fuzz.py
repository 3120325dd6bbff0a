"""--mcp-contract-fuzz: generated arguments, shrunk counterexamples, replayed first, no false alarms."""

from __future__ import annotations

import re
import shutil
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from conftest import SERVERS, Project, target

from pytest_mcp_contract._fuzz.fuzzer import _distinct
from pytest_mcp_contract._messages import case_lines

FUZZ = target("fuzz_targets", "mcp")


def recorded(project: Project, tools: int = 15) -> None:
    """The first run, as its listing item advises: it records each tool's snapshot, and from then on every
    tool has its items, its fuzz item among them (the suite is collected from the snapshots). ``tools``: how
    many the server lists."""
    result = project.run("--snapshot-update", "tox.ini::listing")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"schema snapshots: {tools} created"])


@pytest.fixture
def fuzzing(project: Project, monkeypatch: pytest.MonkeyPatch) -> Project:
    monkeypatch.delenv("FUZZ_FIXED", raising=False)
    project.configure(FUZZ, suite=True)
    project.tests("def test_plain():\n    pass\n")
    recorded(project)
    return project


def test_a_tool_that_breaks_only_for_some_inputs_fails_with_the_smallest_call(
    fuzzing: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = fuzzing.run("--mcp-contract-fuzz", "50", "--mcp-contract-fuzz-seed", "3", "-k", "fuzz and average")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "fuzzing 'average' found arguments that break its contract (* calls); the smallest Hypothesis found:",
            '    mcp_contract.call_tool("average", {"values": []})',
            "",
            "tool 'average' called with {\"values\": []} broke its contract (2 violations):",
            "[[]structured-invalid[]] at /result",
            "  None is not of type 'number' (schema keyword 'type' at /properties/result/type)",
            "[[]content-mismatch[]] at /result",
            "  text block 0 says NaN but structured_content /result is null: NaN is not JSON (JSON has no NaN or Infinity); a tool that computes it must send a number or null in both",
            "*",
            "*",
            "*",
            "",
            "The next run tries these arguments first (.hypothesis/mcp-contract/fuzz-targets/average/last-failure.json);"
            " --mcp-contract-fuzz-seed 3 repeats this search. To keep them as a case, add to the mcp_contract_cases"
            " file:",
            "    [[][[]case[]][]]",
            '    tool = "average"',
            "    arguments = {values = []}",
        ]
    )
    # The next run replays it first: one call, the same counterexample.
    result = fuzzing.run("--mcp-contract-fuzz", "50", "--mcp-contract-fuzz-seed", "3", "-k", "fuzz and average")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["fuzzing 'average' found arguments that break its contract (1 call); *"])
    # Mended, it passes, and the record is gone.
    monkeypatch.setenv("FUZZ_FIXED", "1")
    fuzzing.run("--mcp-contract-fuzz", "50", "--mcp-contract-fuzz-seed", "3", "-k", "fuzz and average").assert_outcomes(
        passed=1
    )
    assert not (fuzzing.pytester.path / ".hypothesis/mcp-contract/fuzz-targets/average/last-failure.json").exists()


def test_a_return_value_the_sdk_refuses_is_structured_invalid(fuzzing: Project) -> None:
    result = fuzzing.run("--mcp-contract-fuzz", "50", "--mcp-contract-fuzz-seed", "3", "-k", "fuzz and stock")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            '    mcp_contract.call_tool("stock", {"item": ""})',
            "[[]structured-invalid[]]",
            "  the SDK refused the tool's return value and answered with an error instead: ValidationError "
            "(stockOutput): result: Input should be a valid integer",
        ]
    )


def test_a_json_rpc_error_for_allowed_input_is_an_input_crash(fuzzing: Project) -> None:
    result = fuzzing.run("--mcp-contract-fuzz", "50", "--mcp-contract-fuzz-seed", "3", "-k", "fuzz and strict_echo")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            '    mcp_contract.call_tool("strict_echo", {"text": ""})',
            "[[]input-crash[]]",
            "  the server answered tools/call with a JSON-RPC error instead of a result: JSON-RPC error -32603: "
            "cannot echo nothing",
            "- input-crash: Arguments the input schema allows must get an answer: *",
        ]
    )


def test_healthy_tools_and_tool_errors_raise_no_false_alarm(fuzzing: Project) -> None:
    result = fuzzing.run("--mcp-contract-fuzz", "300", "-k", "fuzz and (reading or tags)", "-rs")
    result.assert_outcomes(passed=2)


def test_a_destructive_tool_is_not_fuzzed_unless_allowed_by_name(fuzzing: Project) -> None:
    result = fuzzing.run("--mcp-contract-fuzz", "5", "-k", "fuzz and wipe", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(
        [
            "SKIPPED [[]1[]] tox.ini: 'wipe' says destructiveHint: true, so it may delete or overwrite; fuzz it with "
            "mcp_contract_fuzz_allow = wipe (or mcp_contract_fuzz_writes = true for a throwaway server)"
        ]
    )
    # Allowed, it is called (every call to it is an input-crash). It never got past an error, but its
    # failure says why: the summary does not add that it needs examples.
    result = fuzzing.run("--mcp-contract-fuzz", "5", "-k", "fuzz and wipe", "-o", "mcp_contract_fuzz_allow=wipe")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["generated calls: *, answered with a result: 0"])
    result.stdout.no_fnmatch_line("fuzzed tools that never got past*")


def test_the_example_server_survives_a_thousand_generated_calls(pytester: pytest.Pytester, example: Path) -> None:
    # Seven tools, 150 calls each (and the seed of each example or case): every answer a valid
    # result or a tool error.
    result = pytester.runpytest(
        str(example),
        "-p",
        "no:cacheprovider",
        "-k",
        "fuzz",
        "--mcp-contract-fuzz",
        "150",
        "-W",
        "ignore::DeprecationWarning",
    )
    result.assert_outcomes(passed=7)
    # Calls that drew on the schema's examples and the cases got past the tools' errors.
    result.stdout.fnmatch_lines(["generated calls: *, answered with a result: *"])
    line = next(line for line in result.stdout.lines if line.startswith("generated calls:"))
    calls, distinct, results = map(int, re.findall(r"\d+", line))
    assert calls >= 1000
    assert distinct >= 0.9 * calls
    assert results >= 100
    result.stdout.no_fnmatch_line("fuzzed tools that never got past their errors*")


def test_calls_are_told_apart_as_json_values() -> None:
    # The report's "distinct": 1 and 1.0 are one value, true is not 1, key order does not matter.
    sent: list[dict[str, Any]] = [
        {"a": 1, "b": [1.0]},
        {"b": [1], "a": 1.0},
        {"a": True, "b": [1]},
        {"a": 1},
        {"a": 1e16},
        {"a": 10**16},
    ]
    assert _distinct(sent) == 4
    assert _distinct([{"a": 10**5000}, {"a": 10**5000}, {"a": 1}]) == 3  # too long to write out: each on its own


def test_a_bad_count_stops_pytest(fuzzing: Project) -> None:
    result = fuzzing.run("--mcp-contract-fuzz", "lots")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --mcp-contract-fuzz / mcp_contract_fuzz = 'lots' is not a count; give the number of generated "
            "calls per tool, e.g. --mcp-contract-fuzz 200 (0: no fuzzing)"
        ]
    )


def test_without_the_extra_fuzzing_is_a_usage_error_that_says_what_to_install(
    fuzzing: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    # None in sys.modules is how Python says "this package is not there" (find_spec answers None).
    script = fuzzing.pytester.makepyfile(
        hide="""
import sys
import time
import pytest

sys.modules["hypothesis"] = None
# Plugins named, not found: pytest's scan of installed plugins trips over the None.
sys.exit(pytest.main(["-p", "pytest_mcp_contract.plugin", "--mcp-contract-fuzz", "5"]))
"""
    )
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = fuzzing.pytester.run(sys.executable, str(script))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            # The package itself: pytest-mcp-contract on PyPI is another project.
            "ERROR: --mcp-contract-fuzz needs Hypothesis (this plugin's fuzz extra): pip install 'hypothesis>=6.165.10'"
        ]
    )


def test_a_server_started_as_a_command_is_fuzzed_the_same_way(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FUZZ_FIXED", raising=False)
    command = f"stdio:{sys.executable} {SERVERS / 'fuzz_targets.py'}"
    project.configure(command, suite=True)
    project.tests("def test_plain():\n    pass\n")
    recorded(project)
    result = project.run(
        "--mcp-contract-fuzz", "50", "--mcp-contract-fuzz-seed", "3", "-k", "fuzz and (average or tags)"
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ['    mcp_contract.call_tool("average", {"values": []})', "[[]structured-invalid[]] at /result"]
    )


def test_the_time_limit_ends_the_search_without_failing_a_healthy_tool(fuzzing: Project) -> None:
    result = fuzzing.run("--mcp-contract-fuzz", "100000", "-o", "mcp_contract_fuzz_deadline=1", "-k", "fuzz and tags")
    result.assert_outcomes(passed=1)
    # Passed, but not with the calls asked for: the summary says so.
    result.stdout.fnmatch_lines(
        [
            "fuzzing cut short by mcp_contract_fuzz_deadline: tags (* calls); slow calls? Bound the arguments that "
            "make a tool slow (maximum, maxItems, maxLength), or raise the limit"
        ]
    )


def test_a_recorded_failure_the_schema_no_longer_allows_is_dropped(fuzzing: Project) -> None:
    # That it is deleted, and the item passes; that it is not replayed, the test after the next proves.
    record = fuzzing.pytester.path / ".hypothesis/mcp-contract/fuzz-targets/tags/last-failure.json"
    record.parent.mkdir(parents=True)
    record.write_text('{"renamed": 1}')  # from before a change of the input schema
    result = fuzzing.run("--mcp-contract-fuzz", "20", "-k", "fuzz and tags")
    result.assert_outcomes(passed=1)
    assert not record.exists()


def test_the_call_is_python_and_a_case_with_null_is_given_as_json(fuzzing: Project) -> None:
    result = fuzzing.run("--mcp-contract-fuzz", "100", "--mcp-contract-fuzz-seed", "3", "-k", "fuzz and flag")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            '    mcp_contract.call_tool("flag", {"note": None, "on": True})',
            "*",
            "    (TOML has no null: as a JSON cases file)",
            '    {"case": [[]{"tool": "flag", "arguments": {"note": null, "on": true}}[]]}',
        ]
    )


def test_fuzzing_without_the_suite_is_a_usage_error(fuzzing: Project) -> None:
    result = fuzzing.run("--mcp-contract-fuzz", "5", "-o", "mcp_contract_suite=false")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --mcp-contract-fuzz adds items to the generated contract suite, which mcp_contract_suite = false "
            "switches off. Switch it on for the fuzzing run: -o mcp_contract_suite=true"
        ]
    )


def test_a_model_the_sdk_refuses_is_caught_but_the_tools_own_failure_or_a_conversion_crash_is_an_error(
    fuzzing: Project,
) -> None:
    result = fuzzing.run(
        "--mcp-contract-fuzz",
        "50",
        "--mcp-contract-fuzz-seed",
        "3",
        "-k",
        "fuzz and (observe or builds_its_own or logo)",
    )
    result.assert_outcomes(passed=2, failed=1)  # logo: an exception in the SDK's conversion is no refusal
    result.stdout.no_fnmatch_line("*FileNotFoundError*")
    result.stdout.fnmatch_lines(
        [
            '    mcp_contract.call_tool("observe", {"station": ""})',
            "  the SDK refused the tool's return value and answered with an error instead: ValidationError (Reading): "
            "celsius: Field required",
        ]
    )


def test_a_recorded_failure_the_schema_no_longer_allows_is_not_replayed(fuzzing: Project) -> None:
    # "on": 1 is no JSON boolean, yet the server's pydantic would take it as True and break: replayed,
    # it would be reported as it stands. Dropped instead, the search finds the real counterexample.
    record = fuzzing.pytester.path / ".hypothesis/mcp-contract/fuzz-targets/flag/last-failure.json"
    record.parent.mkdir(parents=True)
    record.write_text('{"note": null, "on": 1}')
    result = fuzzing.run("--mcp-contract-fuzz", "100", "--mcp-contract-fuzz-seed", "3", "-k", "fuzz and flag")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(['    mcp_contract.call_tool("flag", {"note": None, "on": True})'])
    result.stdout.no_fnmatch_line("*replayed from the last run*")
    assert record.read_text() == '{"note": null, "on": true}'


def test_generating_draws_on_the_cases_to_reach_past_the_tools_errors(fuzzing: Project) -> None:
    # forecast knows two cities; no random text names one. Without the case, it only ever answers
    # with tool errors, and the summary says so.
    result = fuzzing.run("--mcp-contract-fuzz", "100", "--mcp-contract-fuzz-seed", "3", "-k", "fuzz and forecast")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "generated calls: 100 (* distinct), answered with a result: 0",
            "fuzzed tools that never got past their errors: forecast (100 calls); give their input schema examples "
            "(Field(examples=[[]...[]])) or add cases to the mcp_contract_cases file: generated calls draw on both",
        ]
    )
    # With a case that passes, the calls reach the defect behind the known city.
    fuzzing.pytester.makefile(".toml", cases='[[case]]\ntool = "forecast"\narguments = {city = "Lima", days = 4}\n')
    result = fuzzing.run(
        "--mcp-contract-fuzz",
        "100",
        "--mcp-contract-fuzz-seed",
        "3",
        "-k",
        "fuzz and forecast",
        "-o",
        "mcp_contract_cases=cases.toml",
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(['    mcp_contract.call_tool("forecast", {"city": "Lima", "days": 0})'])


def test_no_answer_in_time_is_an_input_crash(fuzzing: Project) -> None:
    result = fuzzing.run("--mcp-contract-fuzz", "50", "-k", "fuzz and lookup", "-o", "mcp_contract_timeout=0.5")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            '    mcp_contract.call_tool("lookup", {"key": ""})',
            "",
            'tool \'lookup\' called with {"key": ""} broke its contract (1 violation):',
            "[[]input-crash @ 2026-07-28[]]",  # no answer tells nothing of 2025-11-25
            "  no answer: tool 'lookup' did not answer within 0.5 s*",
        ]
    )


def test_a_failure_that_does_not_come_back_is_reported_as_flaky(fuzzing: Project) -> None:
    result = fuzzing.run("--mcp-contract-fuzz", "50", "-k", "fuzz and moody")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "fuzzing 'moody' found arguments that break its contract (* calls); the smallest Hypothesis found:",
            "(flaky: the same arguments did not break it again when replayed; the tool's answer depends on more)",
            "*",
            "",
            "tool 'moody' called with * broke its contract (1 violation):",
            # Called under each version (it says it only reads), and only one of those calls broke.
            "[[]structured-invalid @ 2026-07-28[]]",
        ]
    )


def test_a_read_only_tool_is_fuzzed_whatever_its_destructive_hint_says(fuzzing: Project) -> None:
    fuzzing.run("--mcp-contract-fuzz", "20", "-k", "fuzz and peek", "-rs").assert_outcomes(passed=1)


def test_a_seed_repeats_the_search_call_for_call(fuzzing: Project) -> None:
    runs = []
    for _ in range(2):
        shutil.rmtree(fuzzing.pytester.path / ".hypothesis", ignore_errors=True)
        result = fuzzing.run("--mcp-contract-fuzz", "200", "--mcp-contract-fuzz-seed", "11", "-k", "fuzz and flag")
        result.assert_outcomes(failed=1)
        runs.append([line for line in result.stdout.lines if line.startswith(("fuzzing 'flag'", "    mcp_contract"))])
    assert runs[0] == runs[1]
    assert runs[0][0].startswith("fuzzing 'flag' found arguments that break its contract (")


def test_fuzzing_runs_under_xdist_with_the_same_findings(fuzzing: Project) -> None:
    selected = "fuzz and (average or stock or tags or reading or wipe)"
    result = fuzzing.run(
        "--mcp-contract-fuzz", "50", "--mcp-contract-fuzz-seed", "3", "-k", selected, "-n", "2", "-rfs"
    )
    result.assert_outcomes(passed=2, failed=2, skipped=1)
    # In the order the workers finished them.
    result.stdout.fnmatch_lines_random(
        [
            "FAILED tox.ini::fuzz[[]average[]] - fuzzing 'average' found arguments that b*",
            "FAILED tox.ini::fuzz[[]stock[]] - fuzzing 'stock' found arguments that bre*",
        ]
    )
    # Every generated call counts, the failing tools' too (50 each, or fewer when they failed early).
    result.stdout.fnmatch_lines(["generated calls: *, answered with a result: *"])


def test_a_server_that_dies_under_a_call_is_an_input_crash_and_so_is_its_replay(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FUZZ_FIXED", raising=False)
    # shutdown ends the server: no read-only tool, so fuzzed by name.
    target = f"stdio:{sys.executable} {SERVERS / 'fuzz_targets.py'}"
    project.configure(target, suite=True, mcp_contract_fuzz_allow="shutdown")
    project.tests("def test_plain():\n    pass\n")
    recorded(project)
    for searched in (True, False):  # then replayed from the record: the same finding, not a traceback
        result = project.run(
            "--mcp-contract-fuzz", "50", "--mcp-contract-fuzz-seed", "3", "-k", "fuzz and (shutdown or tags)"
        )
        # The next tool's fuzz item gets the server started again, and its 50 calls pass.
        result.assert_outcomes(failed=1, passed=1)
        result.stdout.fnmatch_lines(
            [
                "tags      —       —          50           0         0        0",
                f"server restarts: 1 (the stdio server '{target}': it exited with code 3 during tools/call 'shutdown')",
            ]
        )
        stopped = "the server is gone, so the search stopped" if searched else "replayed from the last run"
        result.stdout.fnmatch_lines(
            [
                "fuzzing 'shutdown' found arguments that break its contract (* call*); the smallest Hypothesis found:",
                f"({stopped}; these are the smallest arguments found by then)",
                '    mcp_contract.call_tool("shutdown", {"code": 0})',
                "*",
                "[[]input-crash @ 2026-07-28[]]",  # a server gone tells nothing of 2025-11-25
                "  the server went away: the stdio server * closed the connection during tools/call 'shutdown'*",
            ]
        )
        result.stdout.no_fnmatch_line("*SessionError*")


def test_a_suggested_case_is_toml_that_loads_back_as_the_same_call() -> None:
    # JSON's string escapes are TOML's, but for DEL, which TOML forbids raw and JSON leaves raw.
    arguments = {"text": 'a\x7fb\x00"é', "n": 1.5, "tags": ["x", True], "nested key": {"k": -2}}
    lines = case_lines("echo", arguments)
    assert tomllib.loads("\n".join(lines)) == {"case": [{"tool": "echo", "arguments": arguments}]}


# --- what the project declared holds for fuzzing too ------------------------------------------------------


def test_a_violation_a_case_expects_fails_no_fuzz_item(fuzzing: Project) -> None:
    (fuzzing.pytester.path / "cases.toml").write_text(
        '[[case]]\ntool = "average"\narguments = { values = [] }\nviolations = ["structured-invalid", "content-mismatch"]\n'
    )
    fuzzing.configure(FUZZ, suite=True, mcp_contract_cases="cases.toml")
    result = fuzzing.run(
        "--mcp-contract-fuzz",
        "30",
        "--mcp-contract-fuzz-seed",
        "3",
        "-k",
        "average and not schema",
        "-p",
        "no:randomly",
    )
    result.assert_outcomes(passed=3)  # its checks, the case's call and the fuzz item
    # Counted as the case's call is: expected, none failing.
    result.stdout.fnmatch_lines(["tool calls checked: *, violations: * (* expected)"])
    assert "found arguments that break its contract" not in result.stdout.str()


RATIO = """
import math
from mcp.server import MCPServer
from mcp.types import ToolAnnotations

mcp = MCPServer("ratio", log_level="ERROR")

@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
def ratio(n: int) -> float:
    return math.nan if n == 0 else 1 / n
"""


def test_an_allow_line_fuzzing_needed_is_neither_failing_nor_stale(project: Project) -> None:
    project.pytester.makepyfile(ratio=RATIO)
    project.configure(
        "ratio.py:mcp",
        suite=True,
        mcp_contract_allow="\n    ratio:structured-invalid  # NaN for 0, until the fix\n    ratio:content-mismatch  # the same",
    )
    recorded(project, 1)
    # The whole project: only such a run can tell an allow line nothing needed.
    result = project.run("--mcp-contract-fuzz", "30", "--mcp-contract-fuzz-seed", "3")
    result.assert_outcomes(passed=4)  # listing, schema, checks, fuzz
    result.stdout.fnmatch_lines(
        [
            "ratio  matched  passed     30           0         0        2",
            "tool calls checked: 30, violations: 2 (2 allowed)",
        ]
    )
    assert "stale mcp_contract_allow" not in result.stdout.str()


TICKETS = """
import random
from mcp.server import MCPServer
from mcp.types import ToolAnnotations

mcp = MCPServer("tickets", log_level="ERROR")
drawn: set[float] = set()

@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
def ticket(n: int) -> str:
    draw = random.random()
    if draw in drawn:
        raise RuntimeError(f"ticket {draw} drawn twice")
    drawn.add(draw)
    return f"ticket {draw}"
"""


def test_an_in_process_server_draws_its_own_random_values_not_the_searchs(project: Project) -> None:
    # Hypothesis seeds the global random alike for each example; a server that drew from it would hand
    # out one ticket twice, and its tool error would be the fuzzer's doing, not the server's.
    project.pytester.makepyfile(tickets=TICKETS)
    project.configure("tickets.py:mcp", suite=True)
    recorded(project, 1)
    result = project.run("--mcp-contract-fuzz", "25", "-k", "fuzz")
    result.assert_outcomes(passed=1)
    # A tool error is a fair answer to a generated call, so it fails nothing: the count shows it.
    result.stdout.fnmatch_lines(["generated calls: 25 (* distinct), answered with a result: 25"])


def test_a_failure_with_a_cases_arguments_suggests_no_new_case(fuzzing: Project) -> None:
    (fuzzing.pytester.path / "cases.toml").write_text(
        '[[case]]\ntool = "average"\narguments = { values = [] }\nviolations = ["structured-invalid"]\n'
    )
    fuzzing.configure(FUZZ, suite=True, mcp_contract_cases="cases.toml")
    result = fuzzing.run("--mcp-contract-fuzz", "30", "--mcp-contract-fuzz-seed", "3", "-k", "fuzz and average")
    result.assert_outcomes(failed=1)  # the content-mismatch the case does not list
    result.stdout.fnmatch_lines(
        [
            "The next run tries these arguments first (*); --mcp-contract-fuzz-seed 3 repeats this search. A case in "
            "the mcp_contract_cases file has these arguments: fix the tool, or list these violations in that case's "
            "violations."
        ]
    )
    assert "To keep them as a case" not in result.stdout.str()


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_an_unseeded_run_prints_the_seed_its_failure_repeats_with(fuzzing: Project, workers: list[str]) -> None:
    result = fuzzing.run("--mcp-contract-fuzz", "30", "-k", "fuzz and average", *workers)
    result.assert_outcomes(failed=1)
    header = re.search(
        r"mcp-contract: fuzzing 30 calls per tool, seed (\d+) \(chosen for this run; --mcp-contract-fuzz-seed \1 "
        r"searches the same way again\)",
        result.stdout.str(),
    )
    assert header is not None, result.stdout.str()
    # Under xdist too, the worker that found it searched with the seed the header names.
    result.stdout.fnmatch_lines([f"*; --mcp-contract-fuzz-seed {header.group(1)} repeats this search.*"])


def test_a_given_seed_is_in_the_header(fuzzing: Project) -> None:
    result = fuzzing.run("--mcp-contract-fuzz", "30", "--mcp-contract-fuzz-seed", "7", "-k", "fuzz and peek")
    result.stdout.fnmatch_lines(
        [
            "mcp-contract: fuzzing 30 calls per tool, seed 7 (given; --mcp-contract-fuzz-seed 7 searches the same "
            "way again)"
        ]
    )


def test_a_finding_with_a_lone_surrogate_is_recorded_escaped_and_replayed(project: Project) -> None:
    # The cases file gives the argument (generated strings hold no lone surrogates); only it breaks the tool.
    (project.pytester.path / "cases.json").write_text(
        '{"case": [{"tool": "picky", "arguments": {"text": "a\\udfff"}}]}'
    )
    project.configure(target("hostile"), suite=True, mcp_contract_cases="cases.json")
    recorded(project, 3)
    args = ("--mcp-contract-fuzz", "20", "--mcp-contract-fuzz-seed", "3", "-k", "fuzz and picky")
    result = project.run(*args)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "fuzzing 'picky' found arguments that break its contract (* calls); the smallest Hypothesis found:",
            '    mcp_contract.call_tool("picky", {"text": "a\\udfff"})',
        ]
    )
    record = project.pytester.path / ".hypothesis/mcp-contract/hostile/picky/last-failure.json"
    assert record.read_bytes().decode("utf-8") == '{"text": "a\\udfff"}'  # strict: valid UTF-8, the escape
    result = project.run(*args)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["(replayed from the last run; *", '    mcp_contract.call_tool("picky", {"text": "a\\udfff"})']
    )


@pytest.mark.parametrize("transport", ["in process", "stdio"])
def test_a_tool_that_times_out_is_reported_once_and_the_others_are_still_fuzzed(
    project: Project, transport: str
) -> None:
    # Each try Hypothesis would shrink the call with waits as long: the first timeout ends the tool's search.
    hanging = SERVERS / "hanging.py"
    server = f"{hanging}:mcp" if transport == "in process" else f"stdio:{sys.executable} {hanging}"
    project.configure(server, suite=True, mcp_contract_timeout="0.5")
    recorded(project, tools=3)
    result = project.run("--mcp-contract-fuzz", "20", "-k", "fuzz and (echo or stall)", "-v", "-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "tox.ini::fuzz[[]echo[]] PASSED*",
            "tox.ini::fuzz[[]stall[]] FAILED*",
            "fuzzing 'stall' found arguments that break its contract (1 call); the smallest Hypothesis found:",
            "(a call got no answer within its timeout, so the search stopped there: each smaller try would wait as "
            "long; these are the smallest arguments found by then)",
            '    mcp_contract.call_tool("stall", {"key": *})',
            "*no answer: tool 'stall' did not answer within 0.5 s*",
        ]
    )
    assert result.stdout.str().count("did not answer within") == 1
    # One call of the hanging tool; the healthy one got its 20.
    result.stdout.fnmatch_lines(
        ["echo * 20 * 0 * 0 * 0", "stall * 1 * 1 * 0 * 0", "generated calls: 21 (21 distinct)*"]
    )


def test_a_timeout_under_the_second_version_alone_also_ends_the_search(project: Project) -> None:
    # A read-only tool's call is sent under each version offered: the second one's timeout counts as well.
    project.configure(f"{SERVERS / 'hanging.py'}:mcp", suite=True, mcp_contract_timeout="0.5")
    recorded(project, tools=3)
    result = project.run("--mcp-contract-fuzz", "20", "-k", "fuzz and alternate", "-p", "no:randomly")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "fuzzing 'alternate' found arguments that break its contract (1 call); the smallest Hypothesis found:",
            "(a call got no answer within its timeout, so the search stopped there: *",
            "[[]input-crash @ 2025-11-25[]]",
            "*no answer: tool 'alternate' did not answer within 0.5 s*",
        ]
    )
    assert result.stdout.str().count("did not answer within") == 1


def test_a_timeout_the_project_allows_does_not_end_the_search(project: Project) -> None:
    # Only a finding is shrunk, so only a timeout that fails stops the search; an allowed one is a call like any.
    project.configure(
        f"{SERVERS / 'hanging.py'}:mcp",
        suite=True,
        mcp_contract_timeout="0.3",
        mcp_contract_allow="stall:input-crash  # it waits on purpose",
    )
    recorded(project, tools=3)
    result = project.run("--mcp-contract-fuzz", "3", "-k", "fuzz and stall", "-p", "no:randomly")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["stall * 3 * 0 * 0 * 3"])
