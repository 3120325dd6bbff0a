"""One crash hides nothing else: a server that goes away under a call fails that test, and the next
test that needs it gets it started again, at most ``MAX_RESTARTS`` times a run.

``contract_servers/crashing.py`` writes the pid of every process started to ``$CRASHING_PIDS``: how
often the server was started, and that none of them outlives the run (as in ``test_orphans``).
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest
from conftest import HANG, SERVERS, Project, running
from docs_text import ROOT, assert_says, quoted_rows

from pytest_mcp_contract._client.session import MAX_RESTARTS
from pytest_mcp_contract._contract.versions import OFFERED

CRASHING = f"stdio:{sys.executable} {SERVERS / 'crashing.py'}"
EVERY_CALL = f"{CRASHING} --every-call"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the orphan check reads /proc")


@pytest.fixture
def pids(project: Project, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The file each server process started appends its pid to."""
    path = project.pytester.path / "pids"
    monkeypatch.setenv("CRASHING_PIDS", str(path))
    return path


def _started(pids: Path) -> list[int]:
    return [int(line) for line in pids.read_text().split()]


def _left_running(pids: list[int]) -> list[int]:
    # A SIGTERM takes a moment to land (and the reaper gives 2 s before SIGKILL): polled until they end.
    deadline = time.monotonic() + HANG
    while any(running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [pid for pid in pids if running(pid)]


def _died(server: str, tool: str, code: int, stderr: str) -> list[str]:
    """The lines of a test's failure for a server that exited under its call of ``tool``."""
    return [
        f"E       pytest_mcp_contract.SessionError: the stdio server '{server}' closed the connection during "
        f"tools/call '{tool}': the tool crashed or killed the server. The server process exited with code {code}. "
        "Later calls in this test fail the same way; the next test that needs the server starts it again (at "
        f"most {MAX_RESTARTS} times a run). Fix the crash, then rerun.",
        "E       The server's stderr ends with:",
        f"E           {stderr}",
    ]


def test_a_crash_fails_that_test_and_the_next_tests_and_suite_items_get_the_server_started_again(
    project: Project, pids: Path
) -> None:
    # One protocol version: one process per start, so the count below is exact. The input schemas are
    # snapshotted, so each tool's example call is an item of its own.
    project.configure(
        CRASHING, suite=True, mcp_contract_protocol_versions=OFFERED[0], mcp_contract_snapshot_fields="input_schema"
    )
    project.tests(
        """
        FIRST = []

        def test_before(mcp_contract):
            FIRST.append(mcp_contract.call_tool("before", {"word": "a"}).structured_content["result"])

        def test_crash(mcp_contract):
            mcp_contract.call_tool("crash", {"word": "a"})

        def test_after(mcp_contract):
            # A process of its own, the tools listed again.
            assert mcp_contract.call_tool("later", {"word": "a"}).structured_content["result"] != FIRST[0]
            assert sorted(mcp_contract.tools) == ["before", "crash", "later"]
        """
    )
    # The snapshots first, so the suite has the tools' items: the listing writes them, and fails on the
    # example call of crash, which it makes itself on this first run.
    recorded = project.run("-p", "no:randomly", "-k", "listing", "--snapshot-update")
    recorded.assert_outcomes(failed=1, deselected=3)
    recorded.stdout.fnmatch_lines(["call[[]crash-hello[]]: the stdio server *", "schema snapshots: 3 created"])
    recording = _started(pids)
    pids.unlink()
    # Without schema items: they are no calls.
    result = project.run("-p", "no:randomly", "-k", "not schema")
    # The listing, each tool's checks and example call in the suite, after the crash of the test and of
    # call[crash-hello].
    result.assert_outcomes(passed=8, failed=2)
    result.stdout.fnmatch_lines(
        [
            "test_contract.py .F. *",
            "tox.ini ....F.. *",
            *_died(CRASHING, "crash", 3, "fatal: the disk is on fire"),
            "*_ call[[]crash-hello[]] _*",
            f"the stdio server '{CRASHING}' closed the connection during tools/call 'crash': the tool crashed or "
            "killed the server. The server process exited with code 3. Later calls in this test fail the same way; "
            "the next test that needs the server starts it again (at most 3 times a run). Fix the crash, then rerun.",
            f"server restarts: 2 (the stdio server '{CRASHING}': it exited with code 3 during tools/call 'crash' x2)",
        ]
    )
    assert_says(result.stdout.str(), quoted_rows("when-it-goes-wrong")["the server dies during a call"])
    started = _started(pids)
    # The first, for test_before and test_crash; one for test_after, the listing and the suite's items up to
    # call[crash-hello]; one for checks[later] and call[later-hello].
    assert len(started) == 3
    assert _left_running(recording + started) == []


def test_a_server_that_crashes_on_every_call_is_started_again_up_to_the_limit_then_tests_fail_at_once(
    project: Project, pids: Path
) -> None:
    project.configure(EVERY_CALL)
    project.tests(
        """
        import pytest
        from pytest_mcp_contract import SessionError

        def test_first(mcp_contract):
            with pytest.raises(SessionError):
                mcp_contract.call_tool("before", {"word": "a"})
            mcp_contract.call_tool("later", {"word": "a"})

        @pytest.mark.parametrize("n", range(5))
        def test_next(mcp_contract, n):
            mcp_contract.call_tool("before", {"word": "a"})
        """
    )
    result = project.run("-p", "no:randomly")
    # test_first and three restarts, each dying under its call; the last two fail in set-up, unstarted.
    result.assert_outcomes(failed=4, errors=2)
    last = "it exited with code 5 during tools/call 'before'"
    limit = (
        f"the restart limit was reached: the stdio server '{EVERY_CALL}' went away under a call and was started "
        "again 3 times this run, the most a run does, so it is not started again and every later test that needs "
        f"it fails at once. The last time, {last}. Fix that crash (the first test that failed on it shows its "
        "cause), then rerun."
    )
    result.stdout.fnmatch_lines(  # pytest shows the errors first
        [
            "*_ ERROR at setup of test_next[[]3[]] _*",
            limit,
            "*_ ERROR at setup of test_next[[]4[]] _*",
            limit,
            "*_ test_first _*",
            f"E       pytest_mcp_contract.SessionError: the server is gone: the stdio server '{EVERY_CALL}' cannot "
            f"be reached, as {last} earlier in this test (the failure of that call shows why). The next test that "
            "needs it starts it again; fix the crash, then rerun.",
            "*_ test_next[[]0[]] _*",
            *_died(EVERY_CALL, "before", 5, "fatal: out of luck"),
            f"server restarts: 3 (the stdio server '{EVERY_CALL}': {last} x3; the limit of 3 was reached: later "
            "tests that needed it failed at once)",
        ]
    )
    started = _started(pids)
    assert len(started) == 1 + MAX_RESTARTS  # none for the tests past the limit
    assert _left_running(started) == []


def test_a_server_that_stops_answering_is_started_again_but_one_with_a_stuck_tool_goes_on(
    project: Project, pids: Path
) -> None:
    project.configure(f"{CRASHING} --freezes", mcp_contract_timeout="2")
    project.tests(
        """
        FIRST = []

        def pid(mcp_contract):
            return mcp_contract.call_tool("before", {"word": "a"}).structured_content["result"]

        def test_before(mcp_contract):
            FIRST.append(pid(mcp_contract))

        def test_stuck(mcp_contract):
            mcp_contract.call_tool("stuck", {"word": "a"})

        def test_same_server(mcp_contract):
            # One tool's thread is stuck, the server still answers: no false alarm, no restart.
            assert pid(mcp_contract) == FIRST[0]

        def test_freeze(mcp_contract):
            mcp_contract.call_tool("freeze", {"word": "a"})

        def test_after(mcp_contract):
            assert pid(mcp_contract) != FIRST[0]
        """
    )
    result = project.run("-p", "no:randomly")
    result.assert_outcomes(passed=3, failed=2)
    result.stdout.fnmatch_lines(
        [
            "E       pytest_mcp_contract.ToolTimeoutError: tool 'stuck' did not answer within 2 s, so the call was "
            "abandoned and the session goes on.*",
            "E       pytest_mcp_contract.ToolTimeoutError: tool 'freeze' did not answer within 2 s, so the call was "
            "abandoned and the session goes on.*",
            f"server restarts: 1 (the stdio server '{CRASHING} --freezes': it stopped answering: tools/call 'freeze' "
            "timed out, and tools/list got no answer within 2 s)",
        ]
    )
    result.stdout.no_fnmatch_line("*did not close within*")  # the frozen server was ended in time
    started = _started(pids)
    assert len(started) == 2
    assert _left_running(started) == []


def test_restarts_on_xdist_workers_add_up_in_the_summary(project: Project, pids: Path) -> None:
    project.configure(CRASHING)
    crash_then_after = """
        def test_crash(mcp_contract):
            mcp_contract.call_tool("crash", {"word": "a"})

        def test_after(mcp_contract):
            mcp_contract.call_tool("later", {"word": "a"})
        """
    project.tests(crash_then_after, name="test_one")
    project.tests(crash_then_after, name="test_two")
    # Each file on one worker, in its order: each crash is followed by a restart, however the files are shared.
    result = project.run("-p", "no:randomly", "-n", "2", "--dist", "loadfile")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [f"server restarts: 2 (the stdio server '{CRASHING}': it exited with code 3 during tools/call 'crash' x2)"]
    )
    started = _started(pids)
    assert len(set(started)) == len(started) >= 3  # a first process per worker that ran a test, and 2 restarts
    assert _left_running(started) == []


def test_the_markdown_report_and_the_junit_xml_carry_the_restarts(project: Project, pids: Path) -> None:
    project.configure(CRASHING)
    project.tests(
        """
        def test_crash(mcp_contract):
            mcp_contract.call_tool("crash", {"word": "a"})

        def test_after(mcp_contract):
            mcp_contract.call_tool("later", {"word": "a"})
        """
    )
    result = project.run("-p", "no:randomly", "--mcp-contract-report", "contract.md", "--junitxml", "junit.xml")
    result.assert_outcomes(passed=1, failed=1)
    cause = "it exited with code 3 during tools/call 'crash'"
    report = (project.pytester.path / "contract.md").read_text()
    assert f"- Server restarts: 1 (the stdio server '{CRASHING}': {cause})\n" in report
    # On the test it was started again for, as report-and-ci.md shows it.
    junit = (project.pytester.path / "junit.xml").read_text().replace("&quot;", '"').replace("&apos;", "'")
    record = f'{{"cause": "{cause}", "kind": "restart", "server": "the stdio server \'{CRASHING}\'"}}'
    assert junit.index(record) > junit.index('name="test_after"')
    page = (ROOT / "docs" / "report-and-ci.md").read_text(encoding="utf-8")
    shown = re.search(r'`(\{"cause": [^`]*)`', page)
    assert shown is not None
    assert_says(record, shown.group(1))
    assert _left_running(_started(pids)) == []
