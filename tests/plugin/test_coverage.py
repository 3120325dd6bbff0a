"""Contract coverage (``--mcp-contract-coverage``): which promises of each output schema the run's answers kept.

The planted server (``contract_servers/promises.py``) promises a status of three values, an optional
warning and an outlook that is a Forecast or an Alert; a first suite sees one value, never the warning and
one branch. Every number below comes from real sessions, in process, over stdio and under pytest-xdist.
"""

from __future__ import annotations

import json
import sys

import pytest
from conftest import SERVERS, Project, target
from docs_text import assert_says, quoted

IN_PROCESS = target("promises", "mcp")
STDIO = f"stdio:{sys.executable} {SERVERS / 'promises.py'}"

ONE_CALL = """
def test_paris(mcp_contract):
    mcp_contract.call_tool("status", {"city": "Paris"})
"""

EVERY_SHAPE = (
    ONE_CALL
    + """

def test_oslo(mcp_contract):
    mcp_contract.call_tool("status", {"city": "Oslo"})

def test_atlantis(mcp_contract):
    mcp_contract.call_tool("status", {"city": "Atlantis"})

def test_uptime(mcp_contract):
    mcp_contract.call_tool("uptime")
"""
)

BEFORE = [
    "*- mcp contract coverage -*",
    "tool    promises  unseen  cover  calls",
    "status         8       4   50 %      1",
    "uptime         1       1    0 %      0",
    "total: 44 % (4 of 9 promises seen, 1 call)",
    "",
    "uptime: never called (1 promise unseen); give it a case in mcp_contract_cases",
    "status: 4 unseen",
    '  /status: "degraded" never seen (seen: "ok", from {"city": "Paris"})',
    '  /status: "down" never seen (seen: "ok", from {"city": "Paris"})',
    '  /warning never present (seen: absent, from {"city": "Paris"})',
    '  /outlook/anyOf/1 (Alert) never taken (seen: Forecast, from {"city": "Paris"})',
    "  next: a case in mcp_contract_cases (or a test) with arguments that make the server answer so; or "
    "--mcp-contract-fuzz N, which calls it with generated arguments (the tool says readOnlyHint: true)",
]


@pytest.mark.parametrize("server", [IN_PROCESS, STDIO], ids=["in process", "stdio"])
def test_the_lines_name_exactly_the_promises_never_seen(project: Project, server: str) -> None:
    project.configure(server)
    project.tests(ONE_CALL)
    result = project.run("--mcp-contract-coverage", "-p", "no:randomly")
    result.assert_outcomes(passed=1)
    if server == STDIO:  # a client of the tests' own may have called it: not seen is not "never called"
        unseen = (
            "uptime: no call seen (1 promise unseen); call it through the mcp_contract fixture, or give it a case "
            "in mcp_contract_cases"
        )
        result.stdout.fnmatch_lines([unseen if "never called" in line else line for line in BEFORE], consecutive=True)
    else:
        result.stdout.fnmatch_lines(BEFORE, consecutive=True)
    assert "/warning never absent" not in result.stdout.str()  # seen: Paris has no warning


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_fail_under_fails_before_the_missing_calls_and_passes_after(project: Project, workers: list[str]) -> None:
    project.configure(IN_PROCESS)
    project.tests(ONE_CALL)
    result = project.run("--mcp-contract-coverage", "--mcp-contract-coverage-fail-under", "100", *workers)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([*BEFORE[1:5]])  # the same numbers with two workers
    assert_says(result.stdout.str(), quoted("coverage-fail-under"))

    project.tests(EVERY_SHAPE)
    result = project.run("--mcp-contract-coverage", "--mcp-contract-coverage-fail-under", "100", *workers)
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(
        [
            "tool    promises  unseen  cover  calls",
            "status         8       0  100 %      3",
            "uptime         1       0  100 %      1",
            "total: 100 % (9 of 9 promises seen, 4 calls)",
        ],
        consecutive=True,
    )
    assert "never" not in result.stdout.str()
    assert "FAIL" not in result.stdout.str()


def test_fail_under_alone_prints_only_its_failure(project: Project) -> None:
    project.configure(IN_PROCESS, mcp_contract_coverage_fail_under="50")
    project.tests(ONE_CALL)
    result = project.run()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*- mcp contract coverage -*",
            "FAIL: contract coverage 44 % is below the 50 % *"
            "Call those tools so their answers show the promises that --mcp-contract-coverage lists *",
        ]
    )
    assert "status: 4 unseen" not in result.stdout.str()  # the table and lines only when asked
    assert project.run("-o", "mcp_contract_coverage_fail_under=40").ret == pytest.ExitCode.OK


def test_a_failing_answer_counts_nothing(project: Project) -> None:
    # wire.py's `mismatch` answers structured content its text contradicts: a call, no promise kept.
    project.configure(target("wire"))
    project.tests(
        """
        import pytest
        from pytest_mcp_contract import ContractViolationError

        def test_mismatch(mcp_contract):
            with pytest.raises(ContractViolationError):
                mcp_contract.call_tool("mismatch")

        def test_good(mcp_contract):
            mcp_contract.call_tool("good")
        """
    )
    result = project.run("--mcp-contract-coverage", "-p", "no:randomly")
    result.assert_outcomes(passed=2)
    lines = result.stdout.str().split("mcp contract coverage")[1].splitlines()
    assert next(line for line in lines if line.startswith("good ")).split()[1:] == ["1", "0", "100", "%", "1"]
    assert next(line for line in lines if line.startswith("mismatch ")).split()[1:] == ["1", "1", "0", "%", "1"]
    result.stdout.fnmatch_lines(
        [
            "mismatch: no answer kept its contract (1 call, 1 promise unseen): each ended in a tool error or broke "
            "the contract (the summary above names those)"
        ]
    )


def test_the_json_file_lists_every_promise_and_the_arguments_that_kept_it(project: Project) -> None:
    project.configure(IN_PROCESS)
    project.tests(ONE_CALL)
    result = project.run("--mcp-contract-coverage-json", "out/coverage.json")
    result.assert_outcomes(passed=1)
    assert "mcp contract coverage" not in result.stdout.str()  # the file was asked for, not the lines
    data = json.loads((project.pytester.path / "out" / "coverage.json").read_text(encoding="utf-8"))
    assert data["format"] == 1
    assert data["total"] == {"promises": 9, "seen": 4, "percent": 44.44}
    status = next(tool for tool in data["tools"] if tool["tool"] == "status")
    assert (status["server"], status["calls"], status["kept"], status["percent"]) == ("promises", 1, 1, 50.0)
    assert [(item["pointer"], item["kind"], item["detail"]) for item in status["unseen"]] == [
        ("/status", "value", '"degraded"'),
        ("/status", "value", '"down"'),
        ("/warning", "present", ""),
        ("/outlook/anyOf/1", "branch", "Alert"),
    ]
    kept = {(item["pointer"], item["kind"]): item["arguments"] for item in status["kept_promises"]}
    assert kept[("/outlook/anyOf/0", "branch")] == {"city": "Paris"}
    assert set(kept) == {("", "answered"), ("/status", "value"), ("/warning", "absent"), ("/outlook/anyOf/0", "branch")}


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_arguments_json_cannot_write_are_written_as_their_repr(project: Project, workers: list[str]) -> None:
    # The SDK sends a date as its ISO text; the arguments kept for the hint are the test's own objects.
    project.configure(IN_PROCESS)
    project.tests(
        "import datetime\n\n"
        "def test_paris(mcp_contract):\n"
        '    mcp_contract.call_tool("status", {"city": "Paris", "on": datetime.date(2026, 1, 2)}, '
        "validate_arguments=False)\n"
    )
    result = project.run("--mcp-contract-coverage", "--mcp-contract-coverage-json", "c.json", *workers)
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ['  /status: "down" never seen (seen: "ok", from {"city": "Paris", "on": "datetime.date(2026, 1, 2)"})']
    )
    data = json.loads((project.pytester.path / "c.json").read_text(encoding="utf-8"))
    status = next(tool for tool in data["tools"] if tool["tool"] == "status")
    assert status["kept_promises"][0]["arguments"] == {"city": "Paris", "on": "datetime.date(2026, 1, 2)"}


def test_the_markdown_report_has_the_table_and_the_unseen_promises(project: Project) -> None:
    project.configure(IN_PROCESS)
    project.tests(ONE_CALL)
    project.run("--mcp-contract-coverage", "--mcp-contract-report", "report.md").assert_outcomes(passed=1)
    report = (project.pytester.path / "report.md").read_text(encoding="utf-8")
    assert (
        "## Contract coverage\n\nPromises of the output schemas seen kept: 44 % (4 of 9 promises seen, 1 call).\n"
        in report
    )
    assert "| `status` | 8 | 4 | 50 % | 1 |\n| `uptime` | 1 | 1 | 0 % | 0 |" in report
    assert '  /outlook/anyOf/1 (Alert) never taken (seen: Forecast, from {"city": "Paris"})' in report


def test_cases_and_the_fuzzer_count_too(project: Project) -> None:
    # The generated suite's cases and the fuzzer's calls are answers like a test's own.
    project.configure(IN_PROCESS, suite=True, mcp_contract_cases="cases.toml")
    project.pytester.makefile(
        ".toml",
        cases='[[case]]\ntool = "status"\narguments = {city = "Oslo"}\n\n[[case]]\ntool = "uptime"\n',
    )
    project.tests(ONE_CALL)
    result = project.run("--mcp-contract-coverage", "--snapshot-update", "-p", "no:randomly")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "status         8       1   87 %      *",
            "uptime         1       0  100 %      *",
            "status: 1 unseen",
            '  /status: "down" never seen (seen: "ok", from {"city": "Paris"})',
        ]
    )
    # Any city but Paris and Oslo is down: the fuzzer's generated cities reach it.
    result = project.run("--mcp-contract-coverage", "--mcp-contract-fuzz", "5", "--mcp-contract-fuzz-seed", "1")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["status         8       0  100 %     *", "total: 100 % (9 of 9 promises seen, * calls)"]
    )


@pytest.mark.parametrize(
    ("given", "shown"),
    [("--mcp-contract-coverage-fail-under=ninety", "'ninety'"), ("--mcp-contract-coverage-fail-under=101", "'101'")],
)
def test_a_fail_under_that_is_not_a_percent_stops_the_run(project: Project, given: str, shown: str) -> None:
    project.configure(IN_PROCESS)
    project.tests(ONE_CALL)
    result = project.run(given)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: --mcp-contract-coverage-fail-under = {shown} is not a percent: give a number from 0 to 100, "
            "e.g. --mcp-contract-coverage-fail-under 90"
        ]
    )
    assert "INTERNALERROR" not in result.stderr.str() + result.stdout.str()


def test_without_a_coverage_option_nothing_is_counted(project: Project) -> None:
    project.configure(IN_PROCESS)
    project.tests(ONE_CALL)
    result = project.run("--mcp-contract-report", "report.md")
    result.assert_outcomes(passed=1)
    assert "mcp contract coverage" not in result.stdout.str()
    assert "Contract coverage" not in (project.pytester.path / "report.md").read_text(encoding="utf-8")


def test_calls_through_a_client_of_the_tests_own_count_too(project: Project) -> None:
    # In process, the plugin sees the answers a test's own SDK client gets, and counts them as its own.
    project.pytester.syspathinsert(SERVERS.parent)
    project.configure(IN_PROCESS)
    project.tests(
        """
        import anyio
        from mcp import Client
        from contract_servers.promises import mcp as server

        def test_own_client():
            async def go():
                async with Client(server) as client:
                    for city in ("Paris", "Oslo", "Atlantis"):
                        await client.call_tool("status", {"city": city})

            anyio.run(go)
        """
    )
    result = project.run("--mcp-contract-coverage")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["status         8       0  100 %      3", "uptime         1       1    0 %      0"])


HOSTILE = """
import sys

sys.path.insert(0, {root!r})

from contract_servers.wire import WireTool, build

SCHEMA = {{
    "type": "object",
    "properties": {{
        "mode": {{"enum": ["a", "```\\n# injected", "\\u0000|`x`|"]}},
        "shape": {{"anyOf": [{{"title": "```", "type": "string"}}, {{"title": "|pipe|", "type": "integer"}}]}},
    }},
    "required": ["mode", "shape"],
}}
server = build([WireTool("odd|tool`", SCHEMA, {{"mode": "a", "shape": "s"}}, ['{{"mode": "a", "shape": "s"}}'])])
"""


def test_a_servers_words_break_neither_the_report_nor_the_json(project: Project) -> None:
    project.pytester.makepyfile(hostile=HOSTILE.format(root=str(SERVERS.parent)))
    project.configure("hostile.py:server")
    project.tests('def test_odd(mcp_contract):\n    mcp_contract.call_tool("odd|tool`")\n')
    result = project.run(
        "--mcp-contract-coverage", "--mcp-contract-report", "r.md", "--mcp-contract-coverage-json", "c.json"
    )
    result.assert_outcomes(passed=1)
    report = (project.pytester.path / "r.md").read_text(encoding="utf-8")
    section = report.split("## Contract coverage", 1)[1]
    assert section.count("```") == 2  # the fence opens and closes once: no value closes it
    assert "\n# injected" not in report
    assert '| `"odd\\u007ctool\\u0060"` | 6 | 3 | 50 % | 1 |' in section
    data = json.loads((project.pytester.path / "c.json").read_text(encoding="utf-8"))
    assert data["tools"][0]["tool"] == "odd|tool`"
    unseen = {item["detail"] for item in data["tools"][0]["unseen"]}
    assert unseen == {'"```\\n# injected"', '"\\u0000|`x`|"', "|pipe|"}


@pytest.mark.parametrize(("given", "why"), [(".", "is a folder"), ("tox.ini/c.json", "is inside a file")])
@pytest.mark.parametrize(
    ("option", "example"),
    [
        ("--mcp-contract-coverage-json", "coverage/mcp-contract.json"),
        ("--mcp-contract-report", "contract-report.md"),  # the same mistake, the same start-up stop
    ],
)
def test_a_path_that_cannot_be_a_file_stops_the_run(
    project: Project, given: str, why: str, option: str, example: str
) -> None:
    project.configure(IN_PROCESS)
    project.tests(ONE_CALL)
    result = project.run(option, given)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    shown = (project.pytester.path / given).resolve()
    result.stderr.fnmatch_lines(
        [
            f"ERROR: {option} {given}: {shown} {why}, so nothing can be written there; "
            f"give the path of a file, e.g. {option} {example}"
        ]
    )
    assert "INTERNALERROR" not in result.stderr.str() + result.stdout.str()


@pytest.mark.parametrize(
    ("read_only", "allow", "writes", "why"),
    [
        (True, False, False, " (the tool says readOnlyHint: true)"),
        (False, True, False, " (mcp_contract_fuzz_allow names it)"),
        (False, False, True, " (mcp_contract_fuzz_writes is on)"),
        (False, False, False, None),  # the fuzzer would not call it: no such hint
    ],
)
def test_the_fuzz_hint_gives_the_reason_the_fuzzer_would_call_the_tool(
    read_only: bool, allow: bool, writes: bool, why: str | None
) -> None:
    from pytest_mcp_contract._contract.coverage import ToolCoverage
    from pytest_mcp_contract._plugin.coverage import unseen_lines
    from pytest_mcp_contract._run.settings import Settings

    tool = ToolCoverage("s", "save", {"type": "object", "properties": {"id": {"type": "integer"}}}, read_only)
    tool.calls, tool.kept, tool.seen = 1, 1, {"answered": {"x": 1}, "absent /id": {"x": 1}}
    settings = Settings(
        None, "", None, "session", 30.0, False, fuzz_writes=writes, fuzz_allow=frozenset({"save"} if allow else ())
    )
    step = unseen_lines([tool], settings, several=False)[-1]
    case = "  next: a case in mcp_contract_cases (or a test) with arguments that make the server answer so"
    assert step == (
        case if why is None else f"{case}; or --mcp-contract-fuzz N, which calls it with generated arguments{why}"
    )


def test_a_schema_counted_only_in_part_says_so() -> None:
    from pytest_mcp_contract._contract.coverage import ToolCoverage
    from pytest_mcp_contract._plugin.coverage import unseen_lines
    from pytest_mcp_contract._run.settings import Settings

    giant = {"type": "object", "properties": {f"p{index}": {"type": "string"} for index in range(600)}}
    tool = ToolCoverage("s", "giant", giant)
    tool.calls, tool.kept, tool.seen = 1, 1, {"answered": None}
    lines = unseen_lines([tool], Settings(None, "", None, "session", 30.0, False), several=False)
    assert lines[0] == (
        "giant: its output schema is counted only in part (past 1,000 promises or 10,000 places read); "
        "its percent is of the promises counted"
    )
    assert lines[1] == "giant: 999 unseen"


def test_a_tool_error_the_test_expected_counts_a_call_and_nothing_else(project: Project) -> None:
    project.configure(target("writers", "mcp"))
    project.tests(
        "def test_bad_name(mcp_contract):\n"
        '    mcp_contract.call_tool("create_file", {"name": "../x", "body": ""}, expect_error=True)\n'
    )
    result = project.run("--mcp-contract-coverage", "-p", "no:randomly")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "create_file          1       1    0 %      1",
            "create_file: no answer kept its contract (1 call, 1 promise unseen): each ended in a tool error or "
            "broke the contract (the summary above names those)",
        ]
    )


def test_a_tests_answers_are_walked_when_it_ends_not_held_to_the_end_of_the_run(project: Project) -> None:
    project.configure(IN_PROCESS)
    project.tests(
        "from pytest_mcp_contract._plugin.keys import COVERAGE\n\n"
        "def test_calls(mcp_contract):\n"
        "    for city in ('Paris', 'Oslo', 'Rome', 'Paris', 'Oslo'):\n"
        '        mcp_contract.call_tool("status", {"city": city})\n\n'
        "def test_later(request):\n"
        "    coverage = request.config.stash[COVERAGE]\n"
        "    assert len(coverage._pending) <= 1  # the last may still be read by another version's session\n"
        '    assert coverage.tools["promises", "status"].calls >= 4\n'
    )
    result = project.run("--mcp-contract-coverage", "-p", "no:randomly")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["status         8       0  100 %      5"])
