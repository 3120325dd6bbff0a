"""Servers started as a command (stdio:...): real subprocesses, the same suite and snapshots, clear failures."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SERVERS, STALE, STALE_FAILURE, Project, listing_error, running
from docs_text import assert_says, quoted, quoted_rows

from pytest_mcp_contract._servers.stdio import ServerStderr

PYTHON = sys.executable
LIFECYCLE = f"stdio:{PYTHON} {SERVERS / 'lifecycle.py'}"


def test_the_example_server_over_stdio_matches_its_in_process_snapshots(
    pytester: pytest.Pytester, example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The command targets.md gives, where it says, with the set-up command's venv active.
    cd, folder, then, pytest_, *args = shlex.split(quoted("stdio-command").replace("\\\n", " "))
    assert [cd, folder, then, pytest_] == ["cd", "example_project", "&&", "pytest"]
    monkeypatch.chdir(example)
    active = pytester.mkdir("venv-bin")  # an active venv: its python first on the PATH
    (active / "python").write_text(f'#!/bin/sh\nexec {shlex.quote(PYTHON)} "$@"\n')
    (active / "python").chmod(0o755)
    monkeypatch.setenv("PATH", f"{active}{os.pathsep}{os.environ['PATH']}")
    result = pytester.runpytest("-p", "no:cacheprovider", *args)
    # Collection cannot tell which of the two snapshot folders (weather, weather-v1) is this command's (no
    # cache): the listing compares every tool with its file and runs its checks; then the cases file's 7 calls.
    result.assert_outcomes(passed=8)  # every snapshot matched the committed files, every check and call passed
    result.stdout.fnmatch_lines(
        [
            "mcp-contract: server stdio:python -m weather_service.server (--mcp-contract-server), scope=session, "
            "timeout=30s",
            "get_weather        matched  passed      6           0         0        0",  # each call under 2 versions
            "schema snapshots: 7 matched",
            "tool checks: 7 passed, 0 failed",
        ]
    )


def test_a_command_that_is_not_found_stops_pytest(plain: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(plain.pytester.mkdir("empty-bin")))  # whatever this machine has installed
    plain.configure("stdio:weather-mcp", suite=True)
    result = plain.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: pytest-mcp-contract cannot load the MCP server 'stdio:weather-mcp' (mcp_contract_server in "
            "tox.ini): the command 'weather-mcp' of 'stdio:weather-mcp' was not found on the PATH."
        ]
    )
    assert_says(result.stderr.str(), quoted_rows("when-it-goes-wrong")["the command is not on the PATH"])


def test_a_python_that_is_not_pytests_gets_a_hint_naming_pytests(
    plain: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A venv not activated: the PATH's python3 is another interpreter, without the project's packages.
    assert sys.prefix != sys.base_prefix, "the plugin's tests run in a virtual environment"
    bin_dir = plain.pytester.mkdir("other-bin")
    other = bin_dir / "python3"
    other.write_text("#!/bin/sh\necho \"No module named 'shop'\" >&2\nexit 1\n")
    other.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    plain.configure("stdio:python3 -m shop.server", suite=True)
    assert listing_error(plain) == (
        "could not open an MCP session to the stdio server 'stdio:python3 -m shop.server': JSON-RPC error -32000: "
        f"Connection closed. The server process exited with code 1. 'python3' on the PATH is {other}, not the "
        f"interpreter pytest runs on ({sys.executable}): if the server needs this environment's packages, write "
        "stdio:{python} -m shop.server.\nThe server's stderr ends with:\n    No module named 'shop'"
    )


def test_python_in_braces_is_the_interpreter_pytest_runs_on(plain: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")  # nothing else could be found
    plain.pytester.makepyfile(which="import sys\nprint(sys.executable, file=sys.stderr)\nsys.exit(4)\n")
    plain.configure("stdio:{python} which.py", suite=True)
    assert listing_error(plain).endswith(f"exited with code 4.\nThe server's stderr ends with:\n    {sys.executable}")


def test_a_python_not_on_the_path_points_to_the_placeholder(plain: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    plain.configure("stdio:python -m shop", suite=True)
    result = plain.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*the command 'python' of 'stdio:python -m shop' was not found on the PATH; write stdio:{python} … for the "
            "interpreter pytest runs on."
        ]
    )


def test_a_command_that_exits_at_once_shows_its_stderr(plain: Project) -> None:
    script = plain.pytester.makepyfile(crash="import sys\nprint('config file missing', file=sys.stderr)\nsys.exit(3)\n")
    plain.configure(f"stdio:{PYTHON} {script.name}", suite=True)
    text = listing_error(plain)
    assert text == (
        f"could not open an MCP session to the stdio server 'stdio:{PYTHON} {script.name}': JSON-RPC error -32000: "
        "Connection closed. The server process exited with code 3.\nThe server's stderr ends with:\n"
        "    config file missing"
    )
    assert_says(text, quoted_rows("when-it-goes-wrong")["the command exits at once"])


def test_a_server_that_never_answers_hits_the_startup_timeout(plain: Project) -> None:
    pid_file = plain.pytester.path / "pid.txt"
    script = plain.pytester.makepyfile(
        silent=f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(120)\n"
    )
    plain.configure(f"stdio:{PYTHON} {script.name}", suite=True, mcp_contract_startup_timeout="2")
    text = listing_error(plain)  # "took over 2 s": the startup timeout ended the wait, not the server
    assert (
        f"opening a session to the stdio server 'stdio:{PYTHON} {script.name}' took over 2 s: the server did not "
        "finish the MCP handshake (initialize, then tools/list). If it only starts slowly, raise ini "
        "mcp_contract_startup_timeout.\nThe server wrote nothing to stderr."
    ) in text
    assert not running(int(pid_file.read_text()))  # no orphan left behind


@pytest.mark.parametrize("suite", [False, True], ids=["tests only", "with the suite's listing"])
def test_a_server_that_cannot_start_is_not_started_again_for_every_test(project: Project, suite: bool) -> None:
    starts = project.pytester.path / "starts.txt"
    script = project.pytester.makepyfile(
        silent=f"import time\nopen({str(starts)!r}, 'a').write('started\\n')\ntime.sleep(120)\n"
    )
    target = f"stdio:{PYTHON} {script.name}"
    project.configure(target, suite=suite, mcp_contract_startup_timeout="2")
    project.tests(
        "\n".join(f"def test_{index}(mcp_contract):\n    mcp_contract.call_tool('x')\n" for index in range(5))
        + "\nasync def test_async(mcp_contract_async):\n    await mcp_contract_async.call_tool('x')\n"
        + "\nimport pytest\npytestmark = pytest.mark.anyio\n"
        # One backend, so one async test: anyio before 4.12 also runs it under trio, installed or not.
        + "\n@pytest.fixture\ndef anyio_backend():\n    return 'asyncio'\n"
    )
    result = project.run("-p", "no:randomly")
    result.assert_outcomes(errors=6 + int(suite))  # the fixtures' set-up fails; with the suite, its listing's too
    # Started once, whatever the number of tests: one startup timeout waited for, not six (counted, not timed).
    assert starts.read_text() == "started\n"
    result.stdout.fnmatch_lines(
        [
            f"*{target}' could not be opened for test test_contract.py::test_0, so it is not started again: opening a "
            f"session to the stdio server '{target}' took over 2 s: the server did not finish the MCP handshake "
            "(initialize, then tools/list). If it only starts slowly, raise ini mcp_contract_startup_timeout. That "
            "failure shows the whole story; fix it, then rerun."
        ]
    )
    refused = [
        line for line in result.stdout.lines if line.startswith("the stdio server") and "not started again" in line
    ]
    assert len(refused) == 5 + int(suite)  # every test after the first failure (and the listing), told at once
    if suite:
        result.stdout.fnmatch_lines(["*_ ERROR at setup of listing _*", "the stdio server * not started again: *"])
    assert_says(result.stdout.str(), quoted_rows("when-it-goes-wrong")["it never answers initialize"])


def test_under_x_the_first_test_tells_why_the_server_could_not_open_and_the_listing_points_to_it(
    project: Project,
) -> None:
    # testpaths: the suite's items come after the tests; nothing opened the server before the first test did.
    script = project.pytester.makepyfile(broken='raise SystemExit("config file missing: /etc/weather.toml")\n')
    target = f"stdio:{PYTHON} {script.name}"
    project.configure(target, suite=True, testpaths="tests")
    project.pytester.makepyfile(**{"tests/test_a": "def test_a(mcp_contract):\n    mcp_contract.call_tool('x')\n"})
    result = project.run("-x", "-p", "no:randomly")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*_ ERROR at setup of test_a _*",
            f"could not open an MCP session to the stdio server '{target}': *The server process exited with code 1.",
            "The server's stderr ends with:",
            "    config file missing: /etc/weather.toml",
            "*stopping after 1 failures*",
        ]
    )
    # Without -x the second test and the listing item are each refused in one line, pointing to the first.
    project.pytester.makepyfile(**{"tests/test_b": "def test_b(mcp_contract):\n    pass\n"})
    result = project.run("-p", "no:randomly")
    result.assert_outcomes(errors=3)
    assert result.stdout.str().count("    config file missing: /etc/weather.toml") == 1  # the first test's
    refused = (
        f"the stdio server '{target}' could not be opened for test tests/test_a.py::test_a, so it is not started "
        "again: could not open*That failure shows the whole story; *"
    )
    result.stdout.fnmatch_lines(["*_ ERROR at setup of test_b _*", refused, "*_ ERROR at setup of listing _*", refused])


ENV_SERVER = """
import os
from mcp.server import MCPServer

mcp = MCPServer("env")

@mcp.tool()
def token() -> str:
    return os.environ["API_TOKEN"]

if __name__ == "__main__":
    mcp.run()
"""


def test_the_environment_takes_variables_from_pytests(plain: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    script = plain.pytester.makepyfile(env_server=ENV_SERVER)
    plain.configure(f"stdio:{PYTHON} {script.name}", mcp_contract_server_env="\n    API_TOKEN=${SECRET}")
    plain.tests(
        "def test_token(mcp_contract):\n    assert mcp_contract.call_tool('token').structured_content == {'result': 's3'}\n"
    )
    monkeypatch.setenv("SECRET", "s3")
    plain.run().assert_outcomes(passed=1)
    monkeypatch.delenv("SECRET")
    result = plain.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: mcp_contract_server_env line 1 ('API_TOKEN=${SECRET}') uses ${SECRET}, which is not set in the "
            "environment. Set SECRET before running pytest."
        ]
    )
    assert_says(result.stderr.str(), quoted_rows("when-it-goes-wrong")["${VAR} is not set"])


def test_an_in_process_server_never_reads_the_stdio_settings(plain: Project) -> None:
    plain.pytester.makepyfile(env_server=ENV_SERVER)
    plain.configure("env_server.py:mcp", mcp_contract_server_env="\n    API_TOKEN=${NOT_SET_ANYWHERE}")
    plain.run().assert_outcomes(passed=1)


def test_the_server_starts_once_per_protocol_version_for_the_listing_and_the_tests(plain: Project) -> None:
    starts = plain.pytester.path / "starts.txt"
    script = plain.pytester.makepyfile(
        counted=f"open({str(starts)!r}, 'a').write('started\\n')\n"
        + ENV_SERVER.replace('os.environ["API_TOKEN"]', '"t"')
    )
    plain.configure(f"stdio:{PYTHON} {script.name}", suite=True)
    plain.tests(
        "def test_token(mcp_contract):\n    assert mcp_contract.call_tool('token').structured_content == {'result': 't'}\n"
    )
    plain.run("--snapshot-update").assert_outcomes(passed=2)  # the test and the listing, which wrote token's file
    # One per version (2026-07-28, 2025-11-25); writing a new snapshot folder, one more checks that
    # the server's name lasts.
    assert starts.read_text() == "started\n" * 3
    starts.unlink()
    plain.run().assert_outcomes(passed=4)  # the listing, schema[token] and checks[token] as well
    assert starts.read_text() == "started\n" * 2
    starts.unlink()
    plain.run("-o", "mcp_contract_protocol_versions=2026-07-28").assert_outcomes(passed=4)
    assert starts.read_text() == "started\n"


BANNER = (
    "the stdio server '{target}' wrote a line to stdout that is not an MCP message while starting: "
    "'lifecycle server 1.0 starting...'. Later ones on this session are not reported again."
)


def test_a_banner_on_stdout_is_reported_once_and_every_tool_is_still_checked(project: Project) -> None:
    project.configure(f"{LIFECYCLE} --banner")
    project.tests(
        """
        def test_first(mcp_contract):
            assert mcp_contract.call_tool("ok").structured_content == {"result": 1}

        def test_broken_tool(mcp_contract):
            mcp_contract.call_tool("stale_reading")

        def test_again(mcp_contract):
            assert mcp_contract.call_tool("ok").structured_content == {"result": 1}
        """
    )
    result = project.run()
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*_ test_first _*",
            "E       [[]stdout-noise[]]",
            "E         " + BANNER.format(target=f"{LIFECYCLE} --banner"),
            "E       Next step:",
            "E       - stdout-noise: Over stdio, stdout carries MCP messages only: send logs and banners to stderr "
            "(Python: print(..., file=sys.stderr) or logging; Node: console.error).",
            "*_ test_broken_tool _*",
            "E       [[]content-mismatch[]] at /temperature",
        ]
    )
    assert result.stdout.str().count("E       [stdout-noise]") == 1  # once, however wide the summary
    assert_says(result.stdout.str(), quoted_rows("when-it-goes-wrong")["it prints a banner to stdout"])


def test_a_banner_is_told_by_the_first_generated_tool_check(project: Project) -> None:
    project.configure(f"{LIFECYCLE} --banner", suite=True)
    project.tests("def test_plain():\n    pass\n")
    first = project.run("--snapshot-update")  # no snapshots yet: the listing item runs every tool's checks
    first.assert_outcomes(passed=1, failed=1)
    first.stdout.fnmatch_lines(
        [
            "*_ listing _*",
            "tool 'chatty' breaks its contract as listed (1 violation):",
            "[[]stdout-noise[]]",
            "  " + BANNER.format(target=f"{LIFECYCLE} --banner"),
        ]
    )
    assert first.stdout.str().count("[stdout-noise]") == 1
    result = project.run("-k", "checks or plain")
    result.assert_outcomes(passed=8, failed=1)  # the banner, told by the first tool check; no other fails
    result.stdout.no_fnmatch_line("server *:")  # the listing left out, its tools still filed under one server
    result.stdout.fnmatch_lines(
        [
            "*_ checks[[]chatty[]] _*",
            "[[]stdout-noise[]]",
            "  " + BANNER.format(target=f"{LIFECYCLE} --banner"),
        ]
    )


def test_a_failing_test_shows_what_the_server_wrote_to_stderr_during_it(plain: Project) -> None:
    plain.configure(LIFECYCLE)
    plain.tests(
        """
        def test_quiet_pass(mcp_contract):
            mcp_contract.call_tool("chatty")

        def test_fails(mcp_contract):
            mcp_contract.call_tool("chatty")
            mcp_contract.call_tool("chatty")
            assert False, "the test's own failure"
        """
    )
    result = plain.run()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       AssertionError: the test's own failure",
            f"*- Captured stderr call from the stdio server '{LIFECYCLE}' -*",
            "chatty: looking things up",
            "chatty: looking things up",
            "=*= short test summary info =*=",
        ]
    )
    # Only this test's share: the passing test's line is not repeated, nor shown for it.
    assert result.stdout.str().count("chatty: looking things up") == 2


def test_each_failing_phase_shows_its_own_share_of_stderr(plain: Project) -> None:
    plain.configure(LIFECYCLE)
    plain.tests(
        """
        import pytest

        @pytest.fixture
        def breaks_on_teardown(mcp_contract):
            yield
            mcp_contract.call_tool("chatty")
            raise RuntimeError("teardown fails")

        def test_quiet_pass(mcp_contract):
            mcp_contract.call_tool("chatty")

        def test_fails_twice(mcp_contract, breaks_on_teardown):
            mcp_contract.call_tool("chatty")
            mcp_contract.call_tool("chatty")
            assert False, "the call phase fails"
        """
    )
    result = plain.run()
    result.assert_outcomes(passed=1, failed=1, errors=1)
    text = result.stdout.str()
    call = text.split(f"Captured stderr call from the stdio server '{LIFECYCLE}'")[1].split("\n_")[0]
    teardown = text.split(f"Captured stderr teardown from the stdio server '{LIFECYCLE}'")[1].split("\n=")[0]
    assert call.count("chatty: looking things up") == 2
    assert teardown.count("chatty: looking things up") == 1  # the teardown's one call, nothing earlier


def test_the_async_fixture_shows_the_servers_stderr_too(plain: Project) -> None:
    plain.configure(LIFECYCLE)
    plain.tests(
        """
        import pytest

        pytestmark = pytest.mark.anyio

        @pytest.fixture
        def anyio_backend():
            return "asyncio"

        async def test_fails(mcp_contract_async):
            await mcp_contract_async.call_tool("chatty")
            assert False, "the test's own failure"
        """
    )
    result = plain.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [f"*- Captured stderr call from the stdio server '{LIFECYCLE}' -*", "chatty: looking things up"]
    )


def test_a_planted_defect_is_caught_over_stdio(plain: Project) -> None:
    plain.configure(LIFECYCLE)
    plain.tests(STALE)
    result = plain.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(STALE_FAILURE)


def test_reading_the_servers_stderr_never_costs_it_a_line() -> None:
    # The server writes through a descriptor that shares the file's offset with ours: reading while
    # it writes must not move that offset under it (which would write over earlier lines).
    writer = "import sys\nfor n in range(200000):\n    sys.stderr.write(f'line {n:08}\\n')\n"
    with ServerStderr() as errlog:
        process = subprocess.Popen([PYTHON, "-c", writer], stderr=errlog.file)
        position = 0
        while process.poll() is None:
            position, _text = errlog.since(position // 2)
            errlog.tail()
        assert process.wait() == 0
        lines = errlog.since(0)[1].splitlines()
    assert lines == [f"line {n:08}" for n in range(200000)]


def test_a_server_that_dies_while_listing_its_tools_shows_how_it_ended(plain: Project) -> None:
    plain.configure(f"{LIFECYCLE} --die-on-list", suite=True)
    assert listing_error(plain) == (
        f"the stdio server '{LIFECYCLE} --die-on-list' closed the connection during tools/list: it crashed or "
        "exited. The server process exited with code 4.\nThe server's stderr ends with:\n    fatal: no tools table"
    )


def test_what_the_server_wrote_stays_readable_once_it_is_gone() -> None:
    with ServerStderr() as errlog:
        errlog.file.write(b"\xc3\xa9" * 40000 + b"\n" + b"last words\n")  # more than is kept
        errlog.file.flush()
        size = errlog.size()
        errlog.keep()
        end, text = errlog.since(0)
        # The kept window starts mid-line (mid-character, even): that partial line is left out.
        assert (end, text) == (size, "last words\n")
        assert errlog.since(end) == (size, "")
        assert errlog.tail() == "\nThe server's stderr ends with:\n    last words"
