"""No process a server started outlives the run: after a normal end, Ctrl-C, SIGTERM or SIGHUP, a failing fixture, a dead xdist worker.

The lifecycle server's ``spawn`` tool starts a helper process in the server's own process group and
returns both pids; each test writes them to a file before the run is cut short.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import HANG, SERVERS, Project, running

from pytest_mcp_contract._servers import reaper as _reaper

LIFECYCLE = f"stdio:{sys.executable} {SERVERS / 'lifecycle.py'}"

BLOCKS = "import signal\nsignal.pause()"
"""What a process runs to wait until a signal ends it: no sleep whose length a slow machine could outlast."""

SPAWN = """
import json, os, pathlib

def spawn(mcp_contract, tool="spawn"):
    pids = mcp_contract.call_tool(tool).structured_content["result"]
    # Whole or not at all: a signal sent once the file is there must not find it empty.
    pathlib.Path("pids.tmp").write_text(json.dumps(pids))
    os.replace("pids.tmp", "pids.json")
    return pids
"""


def _left_running(project: Project) -> list[int]:
    pids = json.loads((project.pytester.path / "pids.json").read_text())
    assert len(pids) == 2
    # A SIGTERM takes a moment to land (and the reaper gives 2 s before SIGKILL): polled until they end.
    deadline = time.monotonic() + HANG
    while any(running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [pid for pid in pids if running(pid)]


pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX; Windows uses job objects")


@pytest.fixture
def lifecycle(project: Project) -> Project:
    project.configure(LIFECYCLE)
    return project


def test_a_helper_the_server_started_ends_with_the_run(lifecycle: Project) -> None:
    lifecycle.tests(SPAWN + "\ndef test_spawn(mcp_contract):\n    spawn(mcp_contract)\n")
    lifecycle.run().assert_outcomes(passed=1)
    assert _left_running(lifecycle) == []


def test_a_helper_that_left_the_servers_group_ends_with_the_session(lifecycle: Project) -> None:
    # setsid() takes it out of the group the server's close ends: it is found by its environment.
    lifecycle.tests(
        SPAWN
        + """
def test_detached(mcp_contract):
    server, helper = spawn(mcp_contract, "spawn_detached")
    assert os.getpgid(helper) != os.getpgid(server)
"""
    )
    lifecycle.run().assert_outcomes(passed=1)
    assert _left_running(lifecycle) == []


def test_a_failing_fixture_leaves_nothing_running(lifecycle: Project) -> None:
    lifecycle.tests(
        SPAWN
        + """
import pytest

@pytest.fixture
def broken(mcp_contract):
    spawn(mcp_contract)
    raise RuntimeError("the fixture fails after the server started a helper")

def test_uses_it(broken):
    pass
"""
    )
    lifecycle.run().assert_outcomes(errors=1)
    assert _left_running(lifecycle) == []


@pytest.mark.parametrize(
    ("sent", "tool"),
    [
        (signal.SIGINT, "spawn"),
        (signal.SIGTERM, "spawn"),
        (signal.SIGHUP, "spawn"),
        (signal.SIGTERM, "spawn_detached"),
    ],
    ids=lambda value: value.name if isinstance(value, signal.Signals) else value,
)
def test_ctrl_c_or_a_termination_signal_leaves_nothing_running(
    lifecycle: Project, sent: signal.Signals, tool: str
) -> None:
    # SIGTERM is what timeout(1) and CI cancellation send; SIGHUP what a closed terminal sends.
    lifecycle.tests(
        SPAWN
        + f"\nimport time\n\ndef test_waits(mcp_contract):\n    spawn(mcp_contract, {tool!r})\n    while True:\n        time.sleep(1)\n"
    )
    process = _started_until(lifecycle, "pids.json")  # the test waits for the signal from then on, however late
    process.send_signal(sent)
    assert process.wait(timeout=HANG) == pytest.ExitCode.INTERRUPTED
    assert _left_running(lifecycle) == []


def test_an_xdist_worker_that_dies_leaves_nothing_running(lifecycle: Project) -> None:
    lifecycle.tests(SPAWN + "\nimport os\n\ndef test_dies(mcp_contract):\n    spawn(mcp_contract)\n    os._exit(1)\n")
    result = lifecycle.run("-n", "1")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*worker 'gw0' crashed while running 'test_contract.py::test_dies'*"])
    assert _left_running(lifecycle) == []


def test_sigterm_ends_a_server_blocked_in_a_tool_that_ignores_it(
    lifecycle: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The call's timeout is past the guard: only the signal ends the test.
    lifecycle.configure(LIFECYCLE, mcp_contract_timeout=str(2 * HANG))
    monkeypatch.setenv("LIFECYCLE_HANGING", str(lifecycle.pytester.path / "hanging"))  # the tool says it is in
    lifecycle.tests("def test_blocks(mcp_contract):\n    mcp_contract.call_tool('hang')\n")
    process = _started_until(lifecycle, "hanging")
    servers = _servers_of(process.pid)
    assert len(servers) == 1
    process.send_signal(signal.SIGTERM)
    # The server's 2 s to exit, 2 s after SIGTERM, then SIGKILL: it ends.
    assert process.wait(timeout=HANG) == pytest.ExitCode.INTERRUPTED
    assert not any(running(pid) for pid in servers)


def _started_until(project: Project, written: str) -> Any:
    """A pytest process of ``project``'s, once its test has written the file ``written`` (failing the test if
    the process ended first)."""
    process = project.pytester.popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"], stdout=sys.stdout, stderr=sys.stderr
    )
    deadline = time.monotonic() + HANG
    while not (project.pytester.path / written).exists() and time.monotonic() < deadline:
        assert process.poll() is None, f"the run ended (exit code {process.returncode}) before it wrote {written}"
        time.sleep(0.05)
    return process


def _servers_of(pid: int) -> list[int]:
    """The server processes a pytest process started (its children running lifecycle.py)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(child) for child in children if "lifecycle.py" in Path(f"/proc/{child}/cmdline").read_text()]


def test_a_run_ends_only_the_servers_it_started(lifecycle: Project) -> None:
    # A server of an outer run (here: a sleeping process in a group of its own), recorded before
    # an inner run in the same process, as pytester's in-process runs are.
    outer = subprocess.Popen([sys.executable, "-c", BLOCKS], start_new_session=True)
    _reaper.started(outer.pid, _reaper.new_tag())
    try:
        lifecycle.tests(SPAWN + "\ndef test_spawn(mcp_contract):\n    spawn(mcp_contract)\n")
        lifecycle.run().assert_outcomes(passed=1)
        assert _left_running(lifecycle) == []
        assert running(outer.pid)
    finally:
        _reaper.end_all({outer.pid})
        outer.wait(timeout=HANG)
    assert not running(outer.pid)


def test_a_run_stopped_by_a_wrong_setting_ends_no_outer_server(project: Project) -> None:
    # A usage error stops the inner run in its configure step: it started nothing, so it ends nothing
    # (it ended every server the process had, an outer run's session-wide one among them).
    outer = subprocess.Popen([sys.executable, "-c", BLOCKS], start_new_session=True)
    _reaper.started(outer.pid, _reaper.new_tag())
    try:
        project.configure(None, mcp_contract_scope="forever")
        project.tests("def test_plain():\n    pass\n")
        assert project.run().ret == pytest.ExitCode.USAGE_ERROR
        assert running(outer.pid)
    finally:
        _reaper.end_all({outer.pid})
        outer.wait(timeout=HANG)


def test_workers_close_their_servers_gracefully(lifecycle: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    # Each worker opens a session of its own for the test it runs, and closes it itself at its end
    # (stdin closed), not the controller with a signal. Nothing else starts the server: the controller
    # runs no test, and collecting the suite (on each worker) lists no tools.
    exits = lifecycle.pytester.path / "exits.log"
    monkeypatch.setenv("LIFECYCLE_EXIT_LOG", str(exits))
    lifecycle.configure(LIFECYCLE, suite=True)
    lifecycle.tests("def test_ok(mcp_contract):\n    mcp_contract.call_tool('ok')\n", name="test_one")
    lifecycle.tests("def test_ok(mcp_contract):\n    mcp_contract.call_tool('ok')\n", name="test_two")
    # loadfile gives each of the two workers one file; the suite's listing is left out (-m).
    result = lifecycle.run("-n", "2", "--dist", "loadfile", "-m", "not mcp_contract")
    result.assert_outcomes(passed=2)
    # One session per worker (a test's own calls: the first protocol version only), each closed cleanly.
    assert exits.read_text().splitlines() == ["clean"] * 2
