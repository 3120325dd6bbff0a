"""The contract summary and the Markdown report, with and without pytest-xdist."""

from __future__ import annotations

import re
import sys
from xml.etree import ElementTree

import pytest
from conftest import SERVERS, Project, target
from contract_servers.sources import WEATHER_V1, WEATHER_V2

TESTS = """
def test_weather(mcp_contract):
    mcp_contract.call_tool("get_weather", {"city": "Oslo"})

def test_ping(mcp_contract):
    assert mcp_contract.call_tool("ping").structured_content == {"result": "pong"}

def test_ping_twice(mcp_contract):
    mcp_contract.call_tool("ping")
"""


@pytest.fixture
def changed(project: Project) -> Project:
    """A project whose get_weather schema changed since its snapshot was taken."""
    project.pytester.makepyfile(weather=WEATHER_V1)
    project.configure("weather.py:mcp", suite=True)
    project.tests(TESTS)
    project.run("--snapshot-update").assert_outcomes(passed=4)  # the tests, and the listing that writes the snapshots
    project.pytester.makepyfile(weather=WEATHER_V2)
    return project


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist-2"])
def test_summary_and_report_tell_the_story(changed: Project, workers: list[str]) -> None:
    report = changed.pytester.path / "contract-report.md"
    result = changed.run(*workers, "--mcp-contract-report", str(report))
    result.assert_outcomes(passed=7, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*- mcp contract -*",
            "tool         schema                checks  calls  violations  expected  allowed",
            "get_weather  changed (2 breaking)  passed      1           0         0        0",
            "ping         matched               passed      2           0         0        0",
            "",
            "schema snapshots: 1 changed, 1 matched (2 breaking changes)",
            "tool checks: 2 passed, 0 failed",
            "tool calls checked: 3, violations: 0",
            f"report written to {report}",
        ]
    )
    assert result.stdout.str().count(" mcp contract ") == 1  # printed once, by the controller under xdist
    text = report.read_text(encoding="utf-8")
    assert text.startswith(
        "# MCP contract report\n\n"
        "Configured server `weather.py:mcp` (`weather`): 2 tools.\n\n"
        "- Schema snapshots: 1 changed, 1 matched (2 breaking changes)\n"
        "- Tool checks: 2 passed, 0 failed\n"
        "- Tool calls checked: 3, violations: 0\n\n"
        "| tool | schema snapshot | tool checks | calls | violations in calls |\n"
        "|---|---|---|---|---|\n"
        "| `get_weather` | **BREAKING** changed (2 breaking, 1 additive) | passed | 1 | — |\n"
        "| `ping` | matched | passed | 2 | — |\n"
    )
    assert (
        "## `get_weather`\n\n"
        "Schema snapshot `mcp_contract_snapshots/weather/get_weather.json`: changed.\n\n"
        "**Breaking**\n\n"
        "- `output /properties/humidity`: removed (was required)\n"
        '- `output /properties/temperature`: widened from "number" to "number" | "string"\n\n'
        "**Additive**\n\n"
        "- `output /properties/wind`: added (optional)\n\n"
        "<details><summary>Snapshot diff</summary>\n\n"
        "```diff\n"
        "--- snapshot/get_weather.json\n"
        "+++ server/get_weather.json\n"
    ) in text
    assert "## `ping`" not in text  # nothing to say about it beyond its table row


def test_the_summary_is_one_line_under_q_unless_something_failed(changed: Project) -> None:
    changed.run("--snapshot-update")  # accept the change: everything passes
    quiet = changed.run("-q").stdout
    quiet.fnmatch_lines(
        [
            "mcp contract: 2 tools; schema snapshots 2 matched; tool checks 2 passed, 0 failed; tool calls checked 3, violations: 0"
        ]
    )
    assert "- mcp contract -" not in quiet.str()  # no table
    assert "mcp contract" not in changed.run("-qq").stdout.str()
    changed.pytester.makepyfile(weather=WEATHER_V1)  # and back: the schema item fails
    result = changed.run("-q")
    result.assert_outcomes(passed=7, failed=1)
    result.stdout.fnmatch_lines(["*- mcp contract -*"])


def test_accepting_the_change_is_reported_as_updated(changed: Project) -> None:
    report = changed.pytester.path / "report.md"
    result = changed.run("--snapshot-update", "--mcp-contract-report", str(report))
    result.assert_outcomes(passed=8)
    result.stdout.fnmatch_lines(["schema snapshots: 1 matched, 1 updated (2 breaking changes)"])
    assert "| `get_weather` | **BREAKING** updated (2 breaking, 1 additive) | passed | 1 | — |" in report.read_text()


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist-2"])
def test_a_removed_tool_is_reported_as_breaking(changed: Project, workers: list[str]) -> None:
    changed.pytester.makepyfile(weather=WEATHER_V1.replace("@mcp.tool()\ndef ping", "def ping"))
    changed.tests("def test_nothing():\n    pass\n")
    report = changed.pytester.path / "report.md"
    result = changed.run(*workers, "--mcp-contract-report", str(report))
    result.assert_outcomes(passed=4, failed=1, skipped=1)  # schema[ping] fails, checks[ping] is skipped
    result.stdout.fnmatch_lines(
        [
            "*_ schema[[]ping[]] _*",
            "tool 'ping' has a snapshot, but the server no longer lists it: every client that calls it breaks. *",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "schema snapshots: 1 matched",
            "removed tools — BREAKING: ping (no longer listed; its snapshot mcp_contract_snapshots/weather/ping.json "
            "is unused (pytest --snapshot-update deletes it))",
        ]
    )
    assert report.read_text().endswith(
        "## Removed tools — **BREAKING**\n\n"
        "- `ping`: no longer listed; its snapshot mcp_contract_snapshots/weather/ping.json is unused "
        "(pytest --snapshot-update deletes it)\n"
    )
    result = changed.run(*workers, "--snapshot-update", "--mcp-contract-report", str(report))
    result.assert_outcomes(passed=5, skipped=1)  # its schema item passes as syrupy deletes its file; its checks skip
    result.stdout.fnmatch_lines(
        [
            "removed tools — BREAKING: ping (no longer listed; its snapshot mcp_contract_snapshots/weather/ping.json "
            "was deleted)"
        ]
    )
    assert "- `ping`: no longer listed; its snapshot mcp_contract_snapshots/weather/ping.json was deleted\n" in (
        report.read_text()
    )
    result = changed.run(*workers)
    result.assert_outcomes(passed=4)
    result.stdout.no_fnmatch_line("removed tools*")


def test_violations_in_calls_are_counted_per_check(project: Project) -> None:
    from conftest import target

    project.configure(target("wire"))
    project.tests(
        """
        import pytest

        from pytest_mcp_contract import ContractViolationError

        @pytest.mark.parametrize("tool", ["good", "mismatch", "mismatch", "bad_type"])
        def test_calls(mcp_contract, tool):
            mcp_contract.call_tool(tool)

        def test_known_defect(mcp_contract):
            with pytest.raises(ContractViolationError):
                mcp_contract.call_tool("mismatch")
        """
    )
    report = project.pytester.path / "report.md"
    result = project.run("--mcp-contract-report", str(report))
    result.assert_outcomes(passed=2, failed=3)
    result.stdout.fnmatch_lines(["tool calls checked: 5, violations: 4 (1 expected)"])
    text = report.read_text()
    assert "| `mismatch` | — | — | 3 | `content-mismatch` x2, `content-mismatch` x1 (expected) |" in text
    # Each failing test with its call and what it broke, not only a count.
    assert (
        "## `bad_type`\n\nFailing tests:\n\n- `test_contract.py::test_calls[bad_type]` called it with `no arguments`:\n"
        "  - `structured-invalid` at `/n`: 'x' is not of type 'integer' (schema keyword 'type' at /properties/n/type)\n"
    ) in text
    assert (
        "- `test_contract.py::test_calls[mismatch0]` called it with `no arguments`:\n  - `content-mismatch` at" in text
    )


def test_a_green_run_that_asserts_known_defects_reads_as_green(project: Project) -> None:
    from conftest import target

    project.configure(target("wire"))
    project.tests(
        """
        import pytest
        from pytest_mcp_contract import ContractViolationError

        def test_known_defect(mcp_contract):
            with pytest.raises(ContractViolationError):
                mcp_contract.call_tool("bad_type")
        """
    )
    report = project.pytester.path / "report.md"
    result = project.run("--mcp-contract-report", str(report))
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["tool calls checked: 1, violations: 1 (1 expected)"])
    text = report.read_text()
    assert "| `bad_type` | — | — | 1 | `structured-invalid` x1 (expected) |" in text
    assert "## `bad_type`" not in text  # nothing for a reviewer to act on


def test_calls_to_other_servers_get_their_own_table(project: Project) -> None:
    from conftest import target

    project.pytester.makepyfile(weather=WEATHER_V1)
    project.configure("weather.py:mcp", suite=True)
    project.run("--snapshot-update").assert_outcomes(passed=1)  # the listing writes the snapshots
    wire = target("wire")
    project.tests(
        f"""
        import pytest
        from pytest_mcp_contract._servers.target import load_target

        @pytest.fixture
        def mcp_contract_server():
            return load_target({wire!r}, __import__("pathlib").Path("."))

        def test_other(mcp_contract):
            mcp_contract.call_tool("good")
        """
    )
    report = project.pytester.path / "report.md"
    project.run("--mcp-contract-report", str(report)).assert_outcomes(passed=6)
    text = report.read_text()
    assert text.startswith("# MCP contract report\n\nConfigured server `weather.py:mcp` (`weather`): 2 tools.\n")
    configured = text.index("## Server `weather` (configured)\n\n| tool |")
    other = text.index("## Server `wire`\n\n| tool |")
    assert configured < text.index("| `ping` | matched | passed | 0 | — |") < other
    assert other < text.index("| `good` | — | — | 1 | — |")


def test_junit_xml_carries_the_records(changed: Project) -> None:
    xml = changed.pytester.path / "junit.xml"
    changed.run("--junitxml", str(xml))
    text = xml.read_text().replace("&quot;", "'")
    assert (
        "<property name=\"mcp_contract\" value=\"{'allowed': {}, 'count': 1, 'expected': {}, 'kind': 'calls', "
        "'noted': {}, 'server': 'weather', 'tool': 'get_weather', 'violations': []}\" />"
    ) in text
    assert "'kind': 'schema'" in text


def test_many_calls_in_one_test_are_one_record_per_tool(project: Project) -> None:
    project.pytester.makepyfile(weather=WEATHER_V1)
    project.configure("weather.py:mcp")
    project.tests(
        """
        import pytest
        from pytest_mcp_contract import ContractViolationError

        def test_busy(mcp_contract):
            for _ in range(500):
                mcp_contract.call_tool("ping")
            with pytest.raises(ContractViolationError):
                mcp_contract.call_tool("get_weather", {"city": "Oslo"}, expect_error=True)
        """
    )
    xml = project.pytester.path / "junit.xml"
    result = project.run("--junitxml", str(xml))
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["tool calls checked: 501, violations: 1 (1 expected)"])
    text = xml.read_text().replace("&quot;", "'")
    records = re.findall(r'<property name="[^"]*" value="[^"]*" />', text)
    assert records == [
        "<property name=\"mcp_contract\" value=\"{'allowed': {}, 'count': 500, 'expected': {}, 'kind': 'calls', "
        "'noted': {}, 'server': 'weather', 'tool': 'ping', 'violations': []}\" />",
        "<property name=\"mcp_contract\" value=\"{'allowed': {}, 'count': 1, 'expected': {}, 'kind': 'calls', "
        "'noted': {}, 'server': 'weather', 'tool': 'get_weather', "
        "'violations': [[{'check': 'tool-error', 'versions': []}, 1]]}\" />",
    ]


def test_no_summary_without_contract_activity(project: Project) -> None:
    project.configure(None)
    project.tests("def test_plain():\n    pass\n")
    result = project.run()
    result.stdout.no_fnmatch_line("*mcp contract*")


def test_without_the_suite_the_report_claims_no_tool_count(project: Project) -> None:
    project.pytester.makepyfile(weather=WEATHER_V1)
    project.configure("weather.py:mcp")  # the generated suite is off: nothing lists every tool
    project.tests("def test_ping(mcp_contract):\n    mcp_contract.call_tool('ping')\n")
    report = project.pytester.path / "report.md"
    project.run("--mcp-contract-report", str(report)).assert_outcomes(passed=1)
    assert report.read_text().startswith("# MCP contract report\n\nConfigured server `weather.py:mcp`.\n")


def test_a_tool_name_with_a_newline_nul_or_pipe_is_shown_quoted(project: Project) -> None:
    project.pytester.makepyfile(
        odd="""
from contract_servers.wire import N_SCHEMA, WireTool, build

server = build([WireTool(name, N_SCHEMA, {"n": 1}, ['{"n": 1}']) for name in ("two\\nlines", "nul\\x00", "a|b", "fine")])
"""
    )
    project.configure("odd.py:server", suite=True)
    # The listing writes each tool's snapshot (and fails on the names, as a listing-level finding).
    project.run("--snapshot-update").assert_outcomes(failed=1)
    result = project.run("-k", "checks", "--mcp-contract-report=report.md")
    result.assert_outcomes(passed=4, deselected=5)
    result.stdout.fnmatch_lines(
        [
            "tool          schema  checks  calls  violations  expected  allowed",
            '"a\\u007cb"    —       passed      0           0         0        0',
            "fine          —       passed      0           0         0        0",
            '"nul\\u0000"   —       passed      0           0         0        0',
            '"two\\nlines"  —       passed      0           0         0        0',
        ]
    )
    report = (project.pytester.path / "report.md").read_text()
    assert '| `"a\\u007cb"` |' in report
    assert "\x00" not in report
    assert "two\nlines" not in report


_HOSTILE = {
    # Where the text holds a lone surrogate and a NUL: in process they reach the checks as they are;
    # over stdio no client can read a lone surrogate's escape, and the call fails for the line.
    "in process": (
        target("hostile"),
        'E         text block 0 (JSON) has "\\udfff" at /n where structured_content has 1',
        '  - `content-mismatch` at `/n`: text block 0 (JSON) has "\\udfff" at /n where structured_content has 1',
    ),
    "stdio": (
        f"stdio:{sys.executable} {SERVERS / 'hostile_stdio.py'}",
        "E         * answered tools/call 'surrogate' with a line no MCP client can read: it holds a lone "
        "surrogate escape (\\udfff) at byte *, which stands for no Unicode character. *",
        "  - `answer-unreadable`: * answered tools/call 'surrogate' with a line no MCP client can read*",
    ),
}


@pytest.mark.parametrize("where", list(_HOSTILE))
def test_text_with_a_lone_surrogate_or_a_nul_fails_its_test_and_every_file_is_written(
    project: Project, where: str
) -> None:
    server, surrogate_line, surrogate_entry = _HOSTILE[where]
    project.configure(server, mcp_contract_protocol_versions="2025-11-25")
    project.tests(
        """
        def test_surrogate(mcp_contract):
            mcp_contract.call_tool("surrogate")

        def test_nul(mcp_contract):
            mcp_contract.call_tool("nul")
        """
    )
    # A process of its own: its output is written to real streams in UTF-8, as a CI job's is.
    result = project.pytester.runpytest_subprocess(
        "-p", "no:randomly", "--mcp-contract-report=report.md", "--junitxml=junit.xml", timeout=120
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    result.assert_outcomes(failed=2)
    nul_line = 'text block 0 says "{\\"n\\": \\"a\\u0000b\\"}" but structured_content /n is 1: *'
    result.stdout.fnmatch_lines(["*_ test_surrogate _*", surrogate_line, "*_ test_nul _*", f"E         {nul_line}"])
    assert not [line for line in result.outlines + result.errlines if "INTERNALERROR" in line or "\x00" in line]
    report = (project.pytester.path / "report.md").read_bytes().decode("utf-8")  # strict: valid UTF-8
    assert "\x00" not in report
    fnmatch_lines = pytest.LineMatcher(report.splitlines()).fnmatch_lines
    fnmatch_lines([f"  - `content-mismatch` at `/n`: {nul_line}", surrogate_entry])  # tools by name
    junit = ElementTree.parse(project.pytester.path / "junit.xml").getroot()
    failures = [failure.get("message", "") for failure in junit.iter("failure")]
    assert len(failures) == 2
    assert "\\udfff" in failures[0]
    assert "a\\u0000b" in failures[1]
