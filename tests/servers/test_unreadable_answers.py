"""Answers no client can read, and stdout or stderr floods, over stdio (``contract_servers/garbled.py``).

An unreadable answer fails the call it belongs to when it comes, saying what is wrong with it, and the
next call is judged on its own answer; a flood costs bounded memory and output, and the verdict names it.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import pytest
from conftest import HANG, SERVERS, Project
from docs_text import assert_says, quoted_rows

from pytest_mcp_contract._servers import stdio_pipe
from pytest_mcp_contract._servers.stdio_pipe import MAX_TOKENS, answer_id

GARBLED = f"stdio:{sys.executable} {SERVERS / 'garbled.py'}"
LABEL = f"the stdio server '{GARBLED}'"


@pytest.fixture
def garbled(project: Project) -> Project:
    project.configure(GARBLED, mcp_contract_timeout="30")
    return project


def _then_ok(tool: str) -> str:
    return f"""
def test_unreadable(mcp_contract):
    mcp_contract.call_tool({tool!r})

def test_next_call(mcp_contract):
    assert mcp_contract.call_tool("ok").structured_content == {{"result": 1}}
"""


@pytest.mark.parametrize(
    ("tool", "why"),
    [
        ("bad_utf8", "byte 57 (0xe9) is not UTF-8: invalid continuation byte"),
        (
            "lone_surrogate",
            "it holds a lone surrogate escape (\\ud800) at byte 54, which stands for no Unicode character",
        ),
        ("too_deep", "its JSON nests deeper than 200 levels, more than the SDK's JSON reader goes"),
        ("cut_short", "it is not JSON (EOF while parsing a string at line 1 column 54)"),
        ("glued", "it came on one line after other output ('progress: 100%'): every message needs a line of its own"),
    ],
)
def test_an_unreadable_answer_fails_its_own_call_at_once_and_the_next_call_is_judged_alone(
    garbled: Project, tool: str, why: str
) -> None:
    garbled.tests(_then_ok(tool))
    result = garbled.run()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ test_unreadable _*",
            "E       [[]answer-unreadable[]]",
            f"E         {LABEL} answered tools/call '{tool}' with a line no MCP client can read: {why}. "
            "The call failed as that line came; the session goes on.",
            "E       Next step:",
            "E       - answer-unreadable: Write each message as one line of UTF-8 JSON: no raw bytes in strings, "
            "no lone surrogate escapes (\\ud800 alone), at most 200 levels deep, with every field the session's "
            "protocol version requires. Look at how the tool builds its result.",
        ]
    )
    output = result.stdout.str()
    assert "stdout-noise" not in output  # the bad answer is not blamed on the next call
    assert "ExceptionGroup" not in output
    assert "did not answer" not in output  # failed as the line came, not at the 30 s timeout
    if tool == "bad_utf8":  # the one the table quotes
        assert_says(output, quoted_rows("when-it-goes-wrong")["it answers with a line no client can read"])


def test_an_unreadable_answer_can_be_expected_by_a_marker(garbled: Project) -> None:
    garbled.tests(
        """
        import pytest
        from pytest_mcp_contract import NoResultError

        # Excused, the call raises that it has no result, not a ContractViolationError.
        @pytest.mark.mcp_expect_violation("answer-unreadable", tool="bad_utf8")
        def test_known(mcp_contract):
            with pytest.raises(NoResultError, match="gave no result: .*is not UTF-8"):
                mcp_contract.call_tool("bad_utf8")
        """
    )
    garbled.run().assert_outcomes(passed=1)


def test_a_stray_line_during_a_call_is_noise_not_the_answer(garbled: Project) -> None:
    # The answer comes after the stray line and is checked as usual: the call fails for the noise only.
    garbled.tests(
        """
        from pytest_mcp_contract import ContractViolationError

        def test_chatty(mcp_contract):
            try:
                mcp_contract.call_tool("chatty")
            except ContractViolationError as error:
                assert [violation.check for violation in error.violations] == ["stdout-noise"]
                raise
        """
    )
    result = garbled.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"E *{LABEL} wrote a line to stdout that is not an MCP message during tools/call 'chatty': "
            "'looking it up...'. Later ones on this session are not reported again.",
        ]
    )


FLOOD_RUN = """
import sys, time
from pathlib import Path
from pytest_mcp_contract import ContractViolationError, McpContract, ToolTimeoutError
from pytest_mcp_contract._servers.stdio import stdio_target

target = stdio_target({target!r}, Path.cwd(), {{}}, None)
with McpContract(target, timeout=4) as contract:
    try:
        contract.call_tool({tool!r}, {{"megabytes": {megabytes}}})
    except ToolTimeoutError as error:
        print("verdict:", error)
    try:
        print("next call:", contract.call_tool("ok", timeout={hang}).structured_content if {then_ok} else None)
    except ContractViolationError as error:
        print("next call:", [violation.check for violation in error.violations])
# VmHWM, not getrusage: ru_maxrss keeps the high-water mark of the process this one was forked from.
peak = next(line for line in Path("/proc/self/status").read_text().splitlines() if line.startswith("VmHWM"))
print("peak MiB:", int(peak.split()[1]) // 1024)
"""


def _flood(tool: str, megabytes: int, *, then_ok: bool) -> dict[str, str]:
    script = FLOOD_RUN.format(target=GARBLED, tool=tool, megabytes=megabytes, then_ok=then_ok, hang=HANG)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=HANG, check=False)
    assert run.returncode == 0, run.stderr
    assert len(run.stdout) + len(run.stderr) < 5000  # no per-line logging, no traceback
    return dict(line.split(": ", 1) for line in run.stdout.splitlines())


LINUX = pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="peak memory is read from Linux's /proc")


@LINUX
def test_a_stdout_flood_costs_bounded_memory_and_the_verdict_names_it() -> None:
    seen = _flood("flood", 300, then_ok=True)
    assert re.fullmatch(
        r"tool 'flood' did not answer within 4 s, so the call was abandoned and the session goes on\. Meanwhile the "
        r"server wrote [\d,]+ lines \([\d.]+ MiB\) to stdout that are not MCP messages\. Find why the tool "
        r"floods its output; logs belong on stderr, in moderation\.",
        seen["verdict"],
    ), seen["verdict"]
    assert_says(seen["verdict"], quoted_rows("when-it-goes-wrong")["it floods stdout during a call"])
    assert seen["next call"] == "['stdout-noise']"  # the session went on; the flood's first line is reported once
    assert int(seen["peak MiB"]) < 200  # 300 MiB went by


@LINUX
def test_a_stdout_line_without_end_is_cut_at_64_mib_and_named() -> None:
    seen = _flood("endless_line", 150, then_ok=False)
    assert seen["verdict"] == (
        "tool 'endless_line' did not answer within 4 s, so the call was abandoned and the session goes on. "
        "Meanwhile the server wrote a stdout line of 150 MiB with no end yet, more than the 64 MiB read: no "
        "message after it can be read until it ends. Find why the tool floods its output; logs belong on "
        "stderr, in moderation."
    )
    assert int(seen["peak MiB"]) < 300  # at most one line of 64 MiB held, and a copy of it


def test_a_stderr_flood_is_cut_in_the_report(garbled: Project) -> None:
    garbled.tests(
        """
        def test_loud(mcp_contract):
            mcp_contract.call_tool("stderr_flood", {"megabytes": 40})
            assert False, "fails, so its stderr is shown"
        """
    )
    result = garbled.run("--junitxml=junit.xml")
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert len(output) < 100_000  # 40 MiB were written
    result.stdout.fnmatch_lines(["- Captured stderr call from the stdio server *", "[[]39.9 MiB earlier left out[]]"])
    assert (garbled.pytester.path / "junit.xml").stat().st_size < 100_000


@pytest.mark.parametrize(
    ("line", "found"),
    [
        (b'{"jsonrpc":"2.0","id":7,"result":{"a":"\xff"}}', "7"),
        (b'{"result":{"content":[{"id":99}]},"jsonrpc":"2.0","id":"abc"}', "abc"),  # nested ids do not count
        (b'{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage"}', None),  # a request, not an answer
        (b'{"result":{"text":"\\"id\\": 4, {"}, "id": 5}', "5"),  # brackets and ids inside strings are text
        (b"looking it up...", None),
        (b'{"jsonrpc":"2.0","id":8,"result":' + b"[" * 5000 + b"]" * 5000 + b"}", "8"),
    ],
)
def test_the_id_of_an_unreadable_answer_is_found_at_its_top_level(line: bytes, found: str | None) -> None:
    assert answer_id(line) == found


@pytest.mark.parametrize(("ending", "found"), [(b', "id": 1}', "1"), (b"]]]", None)])
def test_finding_the_id_of_a_hostile_line_takes_bounded_time(
    ending: bytes, found: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    line = b'{"result":' + b"[" * 10_000_000 + ending  # too many brackets to walk: only its end is read
    walked = _counting_tokens(monkeypatch)
    assert answer_id(line) == found
    assert walked == [MAX_TOKENS + 2]  # tokens read before giving up on the walk: counted, not timed


def _counting_tokens(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many tokens answer_id's walk reads, in a list of one count (filled as it reads)."""
    token, walked = stdio_pipe._TOKEN, [0]

    class Counting:
        def finditer(self, line: bytes) -> Iterator[re.Match[bytes]]:
            for match in token.finditer(line):
                walked[0] += 1
                yield match

    monkeypatch.setattr(stdio_pipe, "_TOKEN", Counting())
    return walked


def test_bytes_that_are_not_utf8_on_stdout_and_stderr_are_shown_escaped_in_every_output(project: Project) -> None:
    server = f"stdio:{sys.executable} {SERVERS / 'hostile_stdio.py'}"
    project.configure(server, mcp_contract_protocol_versions="2025-11-25")
    project.tests("def test_raw(mcp_contract):\n    mcp_contract.call_tool('raw_bytes')\n")
    # A process of its own: its output is written to real streams in UTF-8, as a CI job's is.
    result = project.pytester.runpytest_subprocess(
        "--mcp-contract-report=report.md", "--junitxml=junit.xml", timeout=120
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(failed=1)
    noise = (
        f"the stdio server '{server}' wrote a line to stdout that is not an MCP message during tools/call "
        "'raw_bytes': '\ufffd\ufffd\\x00 stray'. Later ones on this session are not reported again."
    )
    result.stdout.fnmatch_lines(
        [
            "E       [[]stdout-noise[]]",
            f"E         {noise}",
            "E       [[]content-mismatch[]] at /n",
            f"*- Captured stderr call from the stdio server '{server}' -*",
            "\ufffd\ufffd\\u0000 complaint",  # each byte that is not UTF-8 a replacement character, the NUL escaped
        ]
    )
    lines = result.outlines + result.errlines
    assert not [line for line in lines if "INTERNALERROR" in line or "\x00" in line]
    report = (project.pytester.path / "report.md").read_bytes().decode("utf-8")  # strict: valid UTF-8
    assert "\x00" not in report
    assert "  - `stdout-noise`: the stdio server" in report
    failure = ElementTree.parse(project.pytester.path / "junit.xml").getroot().find(".//failure")
    assert failure is not None
    assert "'\ufffd\ufffd\\x00 stray'" in (failure.text or "")
