"""Shared helpers for the plugin's own tests.

Most tests run an inner pytest session through ``pytester`` against a real server from
``contract_servers/`` and assert its outcomes and output lines.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import pkgutil
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

# Imported here so pytester's in-process runs keep one copy of the SDK instead of re-importing
# it (0.7 s) for every inner session: modules imported before a run survive it.
import hypothesis  # noqa: F401 (its pytest plugin imports it in every inner run: 0.6 s each, unless kept)
import mcp.client.streamable_http  # noqa: F401
import mcp_types as types
import pytest

with contextlib.suppress(ImportError):  # mcp 2.x's HTTP stack (mcp 1.x runs on httpx)
    import httpcore2  # noqa: F401 (httpx2 maps its errors by class: one copy, or ConnectError is not one)

import pytest_mcp_contract
from pytest_mcp_contract import ContractViolationError, McpContract

# Every module of the plugin too. pytester drops from sys.modules what an inner run imported, but the
# package keeps each submodule as an attribute: a later run reached the stale copy through the package
# (`from pytest_mcp_contract._servers import stdio`) and a fresh one by name, two StdioTarget classes
# that isinstance told apart (a stdio server then got advice for no language, in one order of tests).
for _module in pkgutil.walk_packages(pytest_mcp_contract.__path__, "pytest_mcp_contract."):
    importlib.import_module(_module.name)

SERVERS = Path(__file__).parent / "contract_servers"
NODE_SERVERS = SERVERS / "typescript"
"""The Node servers' folder: ours, and the npm reference servers in its node_modules."""
NODE = shutil.which("node")
REQUIRE_NODE = "MCP_CONTRACT_REQUIRE_NODE"
NO_NODE = "node is not on the PATH; install Node.js 18+ to run the Node server tests"


def node_missing() -> str | None:
    """Why the Node servers cannot run here, or None."""
    if NODE is None:
        return NO_NODE
    if not (NODE_SERVERS / "node_modules").is_dir():
        return "the Node servers' packages are not installed; run `npm ci --prefix tests/contract_servers/typescript` first"
    return None


def needs_node() -> pytest.MarkDecorator:
    """For a module's ``pytestmark``: without node, skip the module, unless CI requires node; then
    each of its tests fails with the reason, so CI can never pass by silently skipping them."""
    missing = node_missing()
    if missing is not None and os.environ.get(REQUIRE_NODE) != "1":
        pytest.skip(f"{missing} ({REQUIRE_NODE}=1 makes this a failure)", allow_module_level=True)
    return pytest.mark.usefixtures("node_servers")


def _without_node(missing: str) -> NoReturn:
    """Skip the test, or fail it where CI requires node, so CI never passes by skipping it."""
    if os.environ.get(REQUIRE_NODE) == "1":
        pytest.fail(f"{missing} ({REQUIRE_NODE}=1 is set, so this fails instead of skipping)", pytrace=False)
    pytest.skip(f"{missing} ({REQUIRE_NODE}=1 makes this a failure)")


@pytest.fixture
def node() -> str:
    """The node binary, for a test that runs JavaScript."""
    if NODE is None:
        _without_node(NO_NODE)
    return NODE


@pytest.fixture
def node_servers(node: str) -> Path:
    """The Node servers' folder, its packages installed, for a test that starts one of them."""
    missing = node_missing()
    if missing is not None:
        _without_node(missing)
    return NODE_SERVERS


EXAMPLE = Path(__file__).parents[1] / "example_project"


def edit_file(path: Path, old: str, new: str) -> None:
    """Change a file of a copied project the way a pull request would; ``old`` must be there."""
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def example_server(module: str, attribute: str) -> Any:
    """A server of the example project's ``src/``, imported as its tests import it. Its package is
    then dropped from ``sys.modules``: a pytester run of a changed copy must import the copy."""
    sys.path.insert(0, str(EXAMPLE / "src"))
    try:
        return getattr(importlib.import_module(module), attribute)
    finally:
        sys.path.remove(str(EXAMPLE / "src"))
        for name in [name for name in sys.modules if name.split(".")[0] == module.split(".", maxsplit=1)[0]]:
            del sys.modules[name]


def target(module: str, attribute: str = "server") -> str:
    """A ``path/to/file.py:attr`` target for one of the test servers."""
    return f"{SERVERS / module}.py:{attribute}"


class Project:
    """An inner pytest project in a temporary folder, configured for one server."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester

    def configure(self, server: str | None, *, suite: bool = False, **ini: str) -> None:
        """Write the ini file; the generated per-tool suite is off unless a test is about it."""
        lines = ["[pytest]", "addopts = -p no:cacheprovider"]
        if server is not None:
            lines.append(f"mcp_contract_server = {server}")
        if not suite:
            lines.append("mcp_contract_suite = false")
        lines += [f"{key} = {value}" for key, value in ini.items()]
        self.pytester.makeini("\n".join(lines) + "\n")

    def tests(self, source: str, name: str = "test_contract") -> Path:
        return self.pytester.makepyfile(**{name: textwrap.dedent(source)})

    def run(self, *args: str) -> pytest.RunResult:
        return self.pytester.runpytest(*args)


def git(project: Project, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.com", "-c", "commit.gpgsign=false", *args],
        cwd=project.pytester.path,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def commit_all(project: Project, message: str) -> None:
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", message)


GITHUB_ENV = ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE")
"""What makes an inner run write for GitHub Actions (``_plugin/github``)."""


CI_ENV = ("CI", "BUILD_NUMBER")
"""What makes pytest print every failure's whole message in its short summary (``running_on_ci``)."""


@pytest.fixture(autouse=True)
def _not_on_github(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inner runs write for GitHub Actions only where a test says so, also when this suite runs there; and
    their short summary is the same on a CI machine as on a laptop."""
    for name in (*GITHUB_ENV, *CI_ENV):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Project:
    # Inner sessions must not believe they are xdist workers when the outer run uses -n.
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.delenv("PYTEST_XDIST_TESTRUNUID", raising=False)
    return Project(pytester)


@pytest.fixture(scope="session")
def kinds() -> Iterator[McpContract]:
    """A checked session to the correct server with one tool per SDK return kind."""
    from contract_servers.sdk_kinds import mcp

    contract = McpContract(mcp, timeout=30, check_formats=False)
    yield contract
    contract.close()


@pytest.fixture(scope="session")
def broken() -> Iterator[McpContract]:
    """A checked session to the MCPServer whose tools break their contracts."""
    from contract_servers.sdk_broken import mcp

    contract = McpContract(mcp, timeout=30, check_formats=False)
    yield contract
    contract.close()


@pytest.fixture(scope="session")
def wire() -> Iterator[McpContract]:
    """A checked session to the low-level server that sends exactly what each case says."""
    from contract_servers.wire import server

    contract = McpContract(server, timeout=5, check_formats=False)
    yield contract
    contract.close()


def _over_stdio(script: str) -> Iterator[McpContract]:
    from pytest_mcp_contract._servers.stdio import stdio_target

    target = stdio_target(f"stdio:{sys.executable} {SERVERS / script}", SERVERS, dict(os.environ), None)
    contract = McpContract(target, timeout=30, check_formats=False)
    yield contract
    contract.close()


@pytest.fixture(scope="session")
def wire_over_stdio() -> Iterator[McpContract]:
    """The same low-level server as ``wire``, started as a command: the same answers over stdio."""
    yield from _over_stdio("wire.py")


@pytest.fixture(scope="session")
def kinds_over_stdio() -> Iterator[McpContract]:
    """The same server as ``kinds``, started as a command."""
    yield from _over_stdio("sdk_kinds.py")


def raw_call(contract: McpContract, name: str, arguments: dict[str, Any] | None = None) -> types.CallToolResult:
    """A ``tools/call`` through the public client, unchecked (the SDK client's own validation bypassed)."""
    request = types.CallToolRequest(params=types.CallToolRequestParams(name=name, arguments=arguments))
    result: types.CallToolResult = contract.run(contract.client.session.send_request(request, types.CallToolResult))
    return result


def violations_of(
    contract: McpContract, name: str, arguments: dict[str, Any] | None = None
) -> list[tuple[str, str | None]]:
    """``(check, path)`` of every violation a checked call raises; empty when it passes."""
    try:
        contract.call_tool(name, arguments)
    except ContractViolationError as error:
        return [(violation.check, violation.path) for violation in error.violations]
    return []


def failing_calls(project: Project, *tools: str, server: str | None = None) -> pytest.RunResult:
    """Run one test per tool, each calling it with no arguments on ``server`` (the wire server by
    default); every one must fail. The shape of each check's "failure output" test."""
    project.configure(server or target("wire"))
    calls = (
        f"def test_{index}(mcp_contract):\n    mcp_contract.call_tool({tool!r})\n\n" for index, tool in enumerate(tools)
    )
    project.tests("".join(calls))
    result = project.run()
    result.assert_outcomes(failed=len(tools))
    return result


def violation_lines(
    tool: str,
    check: str,
    *cause: str,
    at: str | None = None,
    next_step: str = "*",
    violations: int = 1,
    arguments: str | None = None,
) -> list[str]:
    """How pytest prints a ``ContractViolationError`` for a call (with no arguments, or ``arguments``
    as the message shows them) whose first (or only) violation is ``check``, ``at`` a JSON pointer, to
    fnmatch in order: the header, the check with each line of its cause, the next step for the check."""
    noun = "violation" if violations == 1 else "violations"
    called = f"with {arguments}" if arguments is not None else "with no arguments"
    return [
        f"E       pytest_mcp_contract.ContractViolationError: tool {tool!r} called {called} broke its "
        f"contract ({violations} {noun}):",
        f"E       [[]{check}[]]{f' at {at}' if at is not None else ''}",
        *(f"E         {line}" for line in cause),
        "E       Next step:",
        f"E       - {check}: {next_step}",
    ]


def make_tool(output_schema: dict[str, Any] | None, name: str = "probe") -> types.Tool:
    return types.Tool(name=name, input_schema={"type": "object"}, output_schema=output_schema)


def make_result(structured: Any, *texts: str, is_error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text) for text in texts],
        structured_content=structured,
        is_error=is_error,
    )


@pytest.fixture
def example(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the example project to change the way a pull request would."""
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    copy = pytester.path / "example_project"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    return copy


@pytest.fixture
def in_example(example: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The copy of the example project, and the working directory there, as the docs' commands run."""
    monkeypatch.chdir(example)
    return example


@pytest.fixture
def plain(project: Project) -> Project:
    """A project with one plain test, for runs whose only other item is the suite's listing."""
    project.tests("def test_plain():\n    pass\n")
    return project


def setup_error(result: pytest.RunResult, item: str) -> str:
    """What an item's set-up failed with (the suite's items open their client to the server there)."""
    lines = result.stdout.lines
    start = lines.index(next(line for line in lines if line.startswith("_") and f" ERROR at setup of {item} " in line))
    ends = ("=", "_", "--")  # the next section, the next item's, or a captured section
    end = next(index for index in range(start + 1, len(lines)) if lines[index].startswith(ends))
    return "\n".join(lines[start + 1 : end]).strip()


def listing_error(project: Project) -> str:
    """What the suite's listing item says when the server cannot be reached: the run's one error, at the
    item's set-up, where its client to the server is opened."""
    result = project.run()
    result.assert_outcomes(passed=1, errors=1)
    return setup_error(result, "listing")


PURE_PLACES = ("contract/", "suite/test_schemadiff.py", "fuzz/test_fuzz_strategies.py")
"""Where the pure checks are tested: the judge, the mirror rule, schema walks and diffs, strategies."""
SLOW_FIXTURES = frozenset({"pytester", "node", "node_servers", "wire_over_stdio", "kinds_over_stdio"})
"""Fixtures that start a pytest run or a process: a test there that uses one is not in the fast lane."""


@pytest.hookimpl(tryfirst=True)  # before -m reads the markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the fast lane, ``pure``: the pure checks, with at most an in-process session; no pytest run
    inside the test and no process started (``pytest -m pure``, a contributor's first run)."""
    here = Path(__file__).parent
    for item in items:
        place = item.path.relative_to(here).as_posix() if item.path.is_relative_to(here) else ""
        if place.startswith(PURE_PLACES) and not SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.pure)


HANG = 900
"""Seconds after which a wait gives up: a guard against a hang, never a budget. The waits end on an event
(a file written, a process ended), so a busy machine is slower to get there but does not run out of time."""


def running(pid: int) -> bool:
    """Whether a process is alive (a zombie waiting to be reaped is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def free_port() -> int:
    """A loopback port nothing listens on (the OS picks it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def http_server(*args: str, env: dict[str, str] | None = None, path: str = "/mcp") -> Iterator[str]:
    """Start ``python ARGS --port P`` on a free loopback port; yield its URL; end it afterwards."""
    port = free_port()
    # A file, not a pipe: a full pipe would stall the server.
    with (
        tempfile.TemporaryFile() as errlog,
        _ended(
            subprocess.Popen(
                [sys.executable, *args, "--port", str(port)],
                env={**os.environ, **(env or {})},
                stdout=subprocess.DEVNULL,
                stderr=errlog,
            )
        ) as process,
    ):
        deadline = time.monotonic() + HANG  # or until the process ends
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    errlog.seek(0)
                    pytest.fail(f"the HTTP server {args} did not start on port {port}:\n{errlog.read().decode()}")
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}{path}"


@contextmanager
def _ended(process: subprocess.Popen[bytes]) -> Iterator[subprocess.Popen[bytes]]:
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)  # then killed: an end, not a wait for an event
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# A planted defect of contract_servers/lifecycle.py, caught over stdio and over HTTP alike.
STALE = """
def test_stale(mcp_contract):
    mcp_contract.call_tool("stale_reading")
"""

STALE_FAILURE = [
    "E       pytest_mcp_contract.ContractViolationError: tool 'stale_reading' called with no arguments broke its "
    "contract (1 violation):",
    "E       [[]content-mismatch[]] at /temperature",
    "E         text block 0 (JSON) has 9.5 at /temperature where structured_content has 11.0",
]
