"""The pytest entry point (``-p no:mcp_contract`` switches it off): options, start-up checks and fixtures.

The work happens in the small modules beside this one; nothing heavy (not even ``mcp``) is
imported until a server is configured or a fixture is used.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import pytest

from pytest_mcp_contract._contract.expect import EXPECTATIONS, MARKERS, Referee, expectations
from pytest_mcp_contract._plugin.options import add_options
from pytest_mcp_contract._plugin.report import ReportPlugin
from pytest_mcp_contract._run.pool import SessionPool
from pytest_mcp_contract._run.records import record
from pytest_mcp_contract._run.settings import (
    Settings,
    read_settings,
)
from pytest_mcp_contract._servers import reaper as _reaper
from pytest_mcp_contract._suite.items import CLIENT_FIXTURE, MARKER, SUITE, covers_project

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Generator

    from pytest_mcp_contract._client.async_client import AsyncMcpContract
    from pytest_mcp_contract._client.sync_client import McpContract
    from pytest_mcp_contract._contract.answer import Answer
    from pytest_mcp_contract._contract.violations import Violation
    from pytest_mcp_contract._servers.kinds import Connection
    from pytest_mcp_contract._suite.items import Listing

SETTINGS: Final = pytest.StashKey[Settings]()
POOL: Final = pytest.StashKey[SessionPool]()
CURRENT_ITEM: Final = pytest.StashKey["pytest.Item | None"]()
CALLS: Final = pytest.StashKey["dict[tuple[str, str], CallCounts]"]()
"""Per test, per (server, tool): its checked calls and what became of their violations."""
REFEREE: Final = pytest.StashKey[Referee]()
"""Per test: who judges its calls with its markers' expectations."""
MARKED_SERVER: Final = pytest.StashKey[object]()
MARKED_SERVERS: Final = pytest.StashKey[dict[str, object]]()
"""Per test, the server its ``mcp_contract_server`` marker names; per run, each such target loaded once."""
LISTING: Final[pytest.StashKey[Listing | str]] = pytest.StashKey()
"""The configured server's tools for the generated suite, or why they could not be listed."""
EARLIER_SERVERS: Final = pytest.StashKey[frozenset[int]]()
"""Server groups recorded before this run began (pytester runs in process): not this run's to end."""
SERVER_RECORDS: Final = pytest.StashKey[Path]()
RESTORE_SIGNALS: Final = pytest.StashKey[Callable[[], None]]()
"""Puts back the SIGTERM and SIGHUP handlers the run replaced."""
"""On the xdist controller: the folder where workers record the servers they start (see ``_servers.reaper``)."""
RECORDS: Final = "mcp_contract_server_records"
"""The workerinput key of that folder."""
STDERR_MARKS: Final = pytest.StashKey["dict[Connection, int]"]()
"""Per test, where each server's stderr stood when its current phase began: what follows is that phase's."""
TEST_CONNECTIONS: Final = pytest.StashKey["list[Connection]"]()
"""Per test, the connections of its own sessions (``mcp_contract_async``), beside the pool's."""

NO_SERVER = (
    "no MCP server is configured for pytest-mcp-contract. Set it in one line, e.g. in pyproject.toml:\n"
    "    [tool.pytest.ini_options]\n"
    '    mcp_contract_server = "your_package.server:mcp"\n'
    "or pass --mcp-contract-server TARGET, or override the mcp_contract_server fixture in conftest.py."
)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register ``--mcp-contract-*`` options and ``mcp_contract_*`` ini keys (``_plugin/options``)."""
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    """Check the configuration and load the server, so a bad one stops pytest before any test runs."""
    # `pytest --help` also configures plugins; importing the user's server there would only be slow.
    load = not (config.getoption("help", False) or config.getoption("version", False))
    settings = read_settings(config, load=load)
    config.addinivalue_line(
        "markers", f"{MARKER}: an item of the generated MCP contract suite (deselect with -m 'not {MARKER}')"
    )
    for text in MARKERS.values():
        config.addinivalue_line("markers", text)
    config.addinivalue_line(
        "markers",
        "mcp_contract_server(target): this test, class or module uses another MCP server, named as for "
        "--mcp-contract-server ('package.module:attr' or 'path/to/file.py:attr' relative to the ini file, "
        "'stdio:COMMAND ARGS...' or 'http://HOST:PORT/PATH').",
    )
    if settings.suite and settings.target and not config.pluginmanager.hasplugin("syrupy"):
        raise pytest.UsageError(
            "pytest-mcp-contract snapshots tool schemas with syrupy, which is switched off (-p no:syrupy). "
            "Drop -p no:syrupy, or switch the generated suite off with: -o mcp_contract_suite=false"
        )
    config.stash[SETTINGS] = settings
    config.stash[RESTORE_SIGNALS] = _reaper.interrupt_on_termination()
    config.stash[EARLIER_SERVERS] = _reaper.recorded()
    workerinput = getattr(config, "workerinput", {})
    if RECORDS in workerinput:  # an xdist worker: record started servers where the controller looks
        _reaper.record_in(Path(workerinput[RECORDS]))
    config.pluginmanager.register(ReportPlugin(settings), "mcp_contract_report")
    config.stash[CURRENT_ITEM] = None
    config.stash[POOL] = SessionPool(settings, referee=lambda *call: _judge_call(config, *call))


def pytest_sessionstart(session: pytest.Session) -> None:
    """List the configured server's tools once, if this run has the generated suite.

    Also on the xdist controller, which collects nothing: it is where syrupy decides which
    snapshot files are unused, and only the listing says which tools are gone.
    """
    config = session.config
    settings = config.stash[SETTINGS]
    if settings.suite and settings.server is not None and covers_project(config):
        from pytest_mcp_contract._suite.items import list_for_suite

        updating = bool(config.getoption("update_snapshots", False))
        config.stash[LISTING] = list_for_suite(settings, config.stash[POOL], updating=updating)
        if config.pluginmanager.hasplugin("dsession"):  # the xdist controller runs no test: close it now
            config.stash[POOL].close_spares()


@pytest.hookimpl(tryfirst=True)  # before -m/-k deselection and syrupy's bookkeeping see the items
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Read every test's ``mcp_expect_*`` markers (a malformed one stops the run), then add the suite."""
    for item in items:
        expectations(item)  # only to stop the run on a malformed marker; read again when the test runs
        marker = item.get_closest_marker("mcp_contract_server")
        if marker is not None:
            item.stash[MARKED_SERVER] = _marked_server(config, item, marker)
    listing = config.stash.get(LISTING, None)
    if listing is None:
        return
    from pytest_mcp_contract._suite.items import failing_item, make_items

    settings = config.stash[SETTINGS]
    if isinstance(listing, str):
        suite = [failing_item(session, settings, listing)]
    else:
        suite = make_items(session, settings, listing)
    items.extend(suite)
    # Report them as collected, so "collected N items" counts them like any other test.
    report = pytest.CollectReport(SUITE, "passed", None, list(suite))
    session.ihook.pytest_collectreport(report=report)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    """Know which test is running, so its checked calls are judged by its markers and recorded on it."""
    if REFEREE in item.stash:  # made at its first call: markers a fixture adds count too
        del item.stash[REFEREE]
    item.config.stash[CURRENT_ITEM] = item
    item.stash[STDERR_MARKS] = {connection: connection.stderr_position() for connection in _connections(item)}
    try:
        return (yield)
    finally:
        item.config.stash[CURRENT_ITEM] = None
        # Items live until the run ends; the connections (and the stderr they keep) need not.
        item.stash[STDERR_MARKS] = {}
        item.stash[TEST_CONNECTIONS] = []


@pytest.hookimpl(wrapper=True, specname="pytest_runtest_makereport")  # a second one; pytest reads pytest_* names only
def pytest_runtest_makereport_server_stderr(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Under a failing phase of a test, what each server outside this process wrote to stderr in it."""
    report = yield
    marks = item.stash.setdefault(STDERR_MARKS, {})
    # Also those of earlier phases: a session that closed in this teardown is no longer in the pool.
    for connection in dict.fromkeys([*_connections(item), *marks]):
        if not report.failed:
            marks[connection] = connection.stderr_position()
            continue
        marks[connection], text = connection.stderr_since(marks.get(connection, 0))
        if text:
            # "stderr" in the title: pytest's --show-capture applies to it as to its own sections.
            report.sections.append((f"Captured stderr {call.when} from {connection.label}", text))
    return report


def _connections(item: pytest.Item) -> list[Connection]:
    """The connections to servers outside this process that a test may have used."""
    pool = item.config.stash.get(POOL, None)
    pooled = [contract.connection for contract in pool.sessions()] if pool is not None else []
    return [connection for connection in [*pooled, *item.stash.get(TEST_CONNECTIONS, [])] if connection is not None]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """An expectation no call met fails the test here, in its call phase (not as a teardown error)."""
    outcome = yield
    unmet = _referee(item).unmet()
    if unmet:
        pytest.fail("\n".join(unmet), pytrace=False)
    return outcome


def _referee(item: pytest.Item) -> Referee:
    """The test's referee, made at its first use from its markers (or its generated case)."""
    referee = item.stash.get(REFEREE, None)
    if referee is None:
        expected = item.stash[EXPECTATIONS] if EXPECTATIONS in item.stash else expectations(item)
        settings = item.config.stash[SETTINGS]
        referee = item.stash[REFEREE] = Referee(expected, settings.allow, settings.noted)
    return referee


def _marked_server(config: pytest.Config, item: pytest.Item, marker: pytest.Mark) -> object:
    """The server a ``mcp_contract_server`` marker names, loaded once per target for the whole run."""
    from pytest_mcp_contract._run.settings import load_server

    if len(marker.args) != 1 or marker.kwargs or not isinstance(marker.args[0], str):
        raise pytest.UsageError(
            f"{item.nodeid}: @pytest.mark.mcp_contract_server takes one target string, "
            "e.g. @pytest.mark.mcp_contract_server('weather_service.gateway:server')"
        )
    loaded = config.stash.setdefault(MARKED_SERVERS, {})
    target = marker.args[0]
    if target not in loaded:
        loaded[target] = load_server(config, target, f"@pytest.mark.mcp_contract_server on {item.nodeid}")
    return loaded[target]


def _judge_call(
    config: pytest.Config, server: str, tool: str, answer: Answer | None, found: list[Violation]
) -> list[Violation]:
    """Sort a call's violations by the running test's markers and the allow list; count them for the report."""
    item = config.stash.get(CURRENT_ITEM, None)
    # Outside any test (a session fixture's set-up) only the allow list applies.
    settings = config.stash[SETTINGS]
    referee = _referee(item) if item is not None else Referee([], settings.allow, settings.noted)
    verdict = referee.judge(tool, answer, found)
    if item is not None:
        # Counted here and written once per tool when the test ends: a test making thousands of
        # calls must not pile up thousands of entries (the garbage collector slowed every call).
        counts = item.stash.setdefault(CALLS, {}).setdefault((server, tool), CallCounts())
        counts.calls += 1
        if found:
            counts.violations.update(violation.check for violation in verdict.failing)
            counts.expected.update(violation.check for violation in verdict.expected)
            counts.allowed.update(violation.check for violation in verdict.allowed)
            counts.noted.update(violation.check for violation in verdict.noted)
    return verdict.failing


@pytest.hookimpl(tryfirst=True)  # before pytest builds the teardown report from user_properties
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> None:
    if call.when == "teardown":
        for (server, tool), counts in item.stash.get(CALLS, {}).items():
            record(
                item,
                "calls",
                server=server,
                tool=tool,
                count=counts.calls,
                violations=dict(counts.violations),
                expected=dict(counts.expected),
                allowed=dict(counts.allowed),
                **({"noted": dict(counts.noted)} if counts.noted else {}),  # rare: kept out of every record
            )
        item.stash[CALLS] = {}


@dataclass
class CallCounts:
    """One test's checked calls of one tool, and their violations: failing, expected, allowed."""

    calls: int = 0
    violations: Counter[str] = field(default_factory=Counter)
    expected: Counter[str] = field(default_factory=Counter)
    allowed: Counter[str] = field(default_factory=Counter)
    noted: Counter[str] = field(default_factory=Counter)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist, on the controller: give each worker a folder where it records the servers it starts."""
    records = node.config.stash.get(SERVER_RECORDS, None)
    if records is None:
        records = node.config.stash[SERVER_RECORDS] = Path(tempfile.mkdtemp(prefix="mcp-contract-servers-"))
    folder = records / node.gateway.id
    folder.mkdir(exist_ok=True)
    node.workerinput[RECORDS] = str(folder)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """xdist, on the controller: a worker died: end the servers it left running.

    Not for a worker that finished (``error`` None) or was interrupted: it is still closing its own
    sessions gracefully; the controller's unconfigure sweeps up after it.
    """
    records = node.config.stash.get(SERVER_RECORDS, None)
    if records is not None and error not in (None, "keyboard-interrupt"):
        _reaper.end_recorded(records / node.gateway.id)


@pytest.hookimpl(wrapper=True)  # around every other implementation: syrupy and the report set the status
def pytest_sessionfinish(session: pytest.Session) -> Generator[None, None, None]:
    yield
    sync = sys.modules.get("pytest_mcp_contract._client.sync_client")  # only if a sync session was ever opened
    if sync is not None:
        sync.note_exit_status(int(session.exitstatus))


def pytest_unconfigure(config: pytest.Config) -> None:
    pool = config.stash.get(POOL, None)
    if pool is not None:
        pool.close_all()
    # What a closed session left behind (a server's helper, a session Ctrl-C cut short), and on the
    # xdist controller, what workers recorded and never closed (a worker that died).
    earlier: frozenset[int] = config.stash.get(EARLIER_SERVERS, frozenset())
    _reaper.end_all(set(_reaper.recorded() - earlier))
    records = config.stash.get(SERVER_RECORDS, None)
    if records is not None:
        for folder in records.iterdir():
            _reaper.end_recorded(folder)
        shutil.rmtree(records, ignore_errors=True)
    config.stash.get(RESTORE_SIGNALS, lambda: None)()
    # Only if loaded: importing it would import syrupy into runs that never touched a snapshot.
    snapshots = sys.modules.get("pytest_mcp_contract._suite.snapshots")
    if snapshots is not None:
        snapshots.forget_listings()


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    settings = config.stash.get(SETTINGS, None)
    if settings is None or settings.target is None:
        return None
    lines = [
        f"mcp-contract: server {settings.target} ({settings.target_source}), "
        f"scope={settings.scope}, timeout={settings.timeout:g}s"
    ]
    if settings.suite and not covers_project(config):
        lines.append(
            "mcp-contract: contract suite not collected, as this run names test paths "
            "(run pytest without paths, or pytest -m mcp_contract, to include it)"
        )
    return lines


@pytest.fixture
def mcp_contract_server(request: pytest.FixtureRequest) -> object:
    """The MCP server under test: the one configured with ``mcp_contract_server`` / ``--mcp-contract-server``.

    A ``@pytest.mark.mcp_contract_server(target)`` marker on the test, its class or module picks
    another one. Or override this fixture in a ``conftest.py`` (any scope) to return the server
    object yourself; a different server in a sub-folder gets its own session.
    """
    marked = request.node.stash.get(MARKED_SERVER, None)
    if marked is not None:
        return marked
    server = request.config.stash[SETTINGS].server
    if server is None:
        pytest.fail(NO_SERVER, pytrace=False)
    return server


@pytest.fixture
def mcp_contract(request: pytest.FixtureRequest, mcp_contract_server: object) -> McpContract:
    """A checked MCP client for sync tests: ``mcp_contract.call_tool(name, arguments)``.

    Every result is checked against the tool's contract before it is returned. The session behind
    it lives for ``mcp_contract_scope`` (one per test session by default).
    """
    _check_server(mcp_contract_server)
    return _pooled(request, mcp_contract_server)


def _pooled(request: pytest.FixtureRequest, server: object) -> McpContract:
    """The pool's session for this test; one that cannot open fails the test with its reason."""
    from pytest_mcp_contract._client.session import SessionError

    try:
        return request.config.stash[POOL].get(request, server)
    except SessionError as error:  # opening wraps every failure, timeouts too
        problem = str(error)
    pytest.fail(problem, pytrace=False)  # outside the except: a chained traceback would bury the message


@pytest.fixture
async def mcp_contract_async(
    request: pytest.FixtureRequest, mcp_contract_server: object, anyio_backend: object
) -> AsyncIterator[AsyncMcpContract]:
    """The async twin of ``mcp_contract`` for anyio tests: ``await mcp_contract_async.call_tool(...)``.

    Its session is opened on the test's own event loop, once per test.
    """
    from pytest_mcp_contract._client.async_client import open_async_contract
    from pytest_mcp_contract._client.session import SessionError, single

    _check_server(mcp_contract_server)
    pool = request.config.stash[POOL]
    refused = None
    try:
        pool.check_not_failed(mcp_contract_server)
    except SessionError as error:
        refused = str(error)
    if refused is not None:
        pytest.fail(refused, pytrace=False)  # outside the except, as below
    stack = AsyncExitStack()
    opening = open_async_contract(mcp_contract_server, **pool.session_options())
    problem: BaseException | None = None
    try:
        contract = await stack.enter_async_context(opening)
    except BaseException as error:
        problem = single(error)
        if not isinstance(problem, SessionError):
            raise
    if problem is not None:
        pool.failed(mcp_contract_server, f"test {request.node.nodeid}", problem)
        pytest.fail(str(problem), pytrace=False)  # outside the except, as in mcp_contract
    if contract.connection is not None:
        request.node.stash.setdefault(TEST_CONNECTIONS, []).append(contract.connection)
    async with stack:
        yield contract


@pytest.fixture(name=CLIENT_FIXTURE)
def _mcp_contract_suite_client(request: pytest.FixtureRequest) -> McpContract:
    """The generated suite's client: the configured server, whatever a conftest overrides."""
    server = request.config.stash[SETTINGS].server
    if server is None:
        pytest.fail(NO_SERVER, pytrace=False)
    return _pooled(request, server)


def _check_server(server: object) -> None:
    from pytest_mcp_contract._servers.kinds import is_server

    if not is_server(server):
        pytest.fail(
            f"the mcp_contract_server fixture returned a {type(server).__qualname__}; it must return an "
            "MCPServer, a low-level mcp.server.Server or a FastMCP server object (a server started as a command "
            "or behind a URL is set with ini mcp_contract_server or the mcp_contract_server marker)",
            pytrace=False,
        )
