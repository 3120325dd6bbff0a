"""The pytest entry point (``-p no:mcp_contract`` switches it off): options, start-up checks and fixtures.

The work happens in the small modules beside this one; nothing heavy (not even ``mcp``) is
imported until a server is configured or a fixture is used.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._client import note_exit_status
from pytest_mcp_contract._plugin import calls, clients, coverage, github, heap, marked, shapes, suite, xdist
from pytest_mcp_contract._plugin.keys import (
    EARLIER_SERVERS,
    LIFESPANS,
    MARKED_SERVER,
    POOL,
    RESTORE_SIGNALS,
    SANDBOXED,
    SERVER_NAMES,
    SETTINGS,
    UNUSED,
)
from pytest_mcp_contract._plugin.options import add_markers, add_options
from pytest_mcp_contract._plugin.report import ReportPlugin, header
from pytest_mcp_contract._plugin.stderr import StderrPlugin
from pytest_mcp_contract._run.pool import SessionPool
from pytest_mcp_contract._run.settings import read_settings
from pytest_mcp_contract._servers import reaper
from pytest_mcp_contract._servers.lifespans import Lifespans
from pytest_mcp_contract._servers.names import ServerNames
from pytest_mcp_contract._suite.items import CLIENTS_FIXTURE, FOLDER_FIXTURE, POOL_FIXTURE
from pytest_mcp_contract._suite.unused import UnusedSnapshots, serving

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Generator, Iterator

    from pytest_mcp_contract._client.async_client import AsyncMcpContract
    from pytest_mcp_contract._client.sync_client import McpContract


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Add the plugin's own hooks (``_plugin/hooks``): ``pytest_mcp_contract_callbacks``."""
    from pytest_mcp_contract._plugin import hooks

    pluginmanager.add_hookspecs(hooks)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register ``--mcp-contract-*`` options and ``mcp_contract_*`` ini keys (``_plugin/options``)."""
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    """Check the configuration and load the server, so a bad one stops pytest before any test runs."""
    # `pytest --help` also configures plugins; importing the user's server there would only be slow.
    load = not (config.getoption("help", False) or config.getoption("version", False))
    # First: a run that stops on a wrong setting must still tell its servers from an outer run's.
    config.stash[EARLIER_SERVERS] = reaper.recorded()
    config.stash[LIFESPANS] = lifespans = Lifespans()  # a factory target's server may hold things open
    # xdist's controller runs no test: it loads the server (the SDK's import, mostly) only once its workers
    # have started, in pytest_sessionstart, so that it loads while they load theirs; a bad one still stops
    # the run there with the same usage error.
    settings = read_settings(config, lifespans, load=load, defer=xdist.distributes(config))
    add_markers(config)
    suite.check_syrupy(config, settings)
    suite.check_cases(settings)
    config.stash[SETTINGS] = settings
    config.stash[UNUSED] = UnusedSnapshots()
    config.stash[RESTORE_SIGNALS] = reaper.interrupt_on_termination()
    xdist.start_worker(config)
    report = ReportPlugin(settings, config.stash[UNUSED])
    for name, plugin in [
        ("mcp_contract_report", report),
        ("mcp_contract_calls", calls.CallsPlugin()),
        ("mcp_contract_stderr", StderrPlugin()),
        ("mcp_contract_xdist", xdist.XdistPlugin()),
    ]:
        config.pluginmanager.register(plugin, name)
    github.register(config, report)  # under GitHub Actions only
    config.stash[POOL] = SessionPool(
        settings,
        coverage=coverage.start(config, settings),  # when a coverage option asks
        shapes=shapes.start(config),
        triage=lambda *call: calls.triage(config, *call),
        callbacks=lambda server: config.hook.pytest_mcp_contract_callbacks(server=server, config=config),
        names=config.stash.setdefault(SERVER_NAMES, ServerNames()),
    )


@pytest.hookimpl(wrapper=True)
def pytest_sessionstart(session: pytest.Session) -> Generator[None, None, None]:
    """Check the callbacks the hook gives the configured server, and watch its answers to any client (in
    process). Nothing starts it: the generated suite is collected from the snapshots (``_plugin/suite``).
    On xdist's controller, first load the server, after xdist's own sessionstart started the workers.
    Then freeze the heap the start built (``_plugin/heap``)."""
    config = session.config
    settings = config.stash[SETTINGS]
    deferred = settings.target is not None and settings.server is None
    if not deferred:
        _serve(config, settings.server)
    yield
    if deferred:
        try:
            settings.load(config, config.stash[LIFESPANS])
        except pytest.UsageError:
            xdist.stop_workers(config)
            raise
        report = config.pluginmanager.get_plugin("mcp_contract_report")
        if isinstance(report, ReportPlugin):
            report.know_server(config)
        _serve(config, settings.server)
    heap.freeze(settings.freeze_heap and settings.server is not None)


def _serve(config: pytest.Config, server: object | None) -> None:
    if server is not None:
        # A wrong answer of the callbacks hook stops the run here, as a usage error, not in every test.
        config.stash[POOL].callbacks(server)
        config.stash[POOL].observed.watch(server)  # its answers to the tests' own clients are judged too


@pytest.hookimpl(tryfirst=True)  # before -m/-k deselection and syrupy's bookkeeping see the items
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Read every test's markers (a malformed one stops the run), then add the suite."""
    marked.read_markers(config, items)
    suite.add_suite(session, items)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The snapshot folder holds snapshots alone (a folder with code is refused at start-up): not walked."""
    return suite.snapshot_folder(collection_path, config)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """The ini file, when pytest collects it (``pytest pyproject.toml::schema[tool]``): the suite's node."""
    return suite.suite_node(file_path, parent)


@pytest.hookimpl(wrapper=True)  # around every other implementation: syrupy and the report set the status
def pytest_sessionfinish(session: pytest.Session) -> Generator[None, None, None]:
    # syrupy finds and deletes unused snapshots in its own sessionfinish: the extension reads this run's.
    with serving(session.config.stash.get(UNUSED, None)):
        yield
    note_exit_status(int(session.exitstatus))


def pytest_unconfigure(config: pytest.Config) -> None:
    pool = config.stash.get(POOL, None)
    if pool is not None:
        pool.close_all()
    clients.end_lifespans(config)  # after the sessions on their servers closed
    # What a closed session left behind (a server's helper, a session Ctrl-C cut short); the
    # xdist controller's plugin ends what its workers left.
    earlier = config.stash.get(EARLIER_SERVERS, None)
    if earlier is not None:  # a run that never configured started nothing: every group is someone else's
        reaper.end_all(set(reaper.recorded() - earlier))
    config.stash.get(RESTORE_SIGNALS, lambda: None)()


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    """The server, the protocol versions and fuzzing, under pytest's header (``_plugin/report``)."""
    return header(config)


@pytest.fixture
def mcp_contract_server(request: pytest.FixtureRequest) -> object:
    """The MCP server under test: the one configured with ``mcp_contract_server`` / ``--mcp-contract-server``.

    A ``@pytest.mark.mcp_contract_server(target)`` marker on the test, its class or module picks
    another one. Or override this fixture in a ``conftest.py`` (any scope) to return the server
    object yourself; a different server in a sub-folder gets its own session. The generated suite's
    items take their server from this fixture too (the shallowest conftest's override), so no target
    is needed for it.
    """
    named = request.node.stash.get(MARKED_SERVER, None)
    if named is not None:
        return named
    server = request.config.stash[SETTINGS].server
    if server is None:
        pytest.fail(messages.NO_SERVER, pytrace=False)
    return server


@pytest.fixture
def mcp_contract(request: pytest.FixtureRequest, mcp_contract_server: object) -> McpContract:
    """A checked MCP client for sync tests: ``mcp_contract.call_tool(name, arguments)``.

    Every result is checked against the tool's contract before it is returned. The session behind
    it lives for ``mcp_contract_scope`` (one per test session by default); a test that also asks for
    ``mcp_contract_sandbox`` gets a session to its fresh server instead.
    """
    clients.check_server(mcp_contract_server)
    if "mcp_contract_sandbox" in request.fixturenames:
        request.getfixturevalue("mcp_contract_sandbox")
        sandboxed: McpContract = request.node.stash[SANDBOXED]
        return sandboxed
    return clients.pooled(request, mcp_contract_server)


@pytest.fixture
def mcp_contract_sandbox(request: pytest.FixtureRequest, mcp_contract_server: object) -> Iterator[Path]:
    """A fresh server for this test, in private HOME, TMPDIR and XDG folders removed after it: the folder
    that holds them. ``mcp_contract`` then talks to that server. A command is started anew; a factory
    target (``module:build()``) is called anew, with those variables set in ``os.environ`` meanwhile. A
    server that cannot be made anew (a module-level object, a URL) fails the test, saying why.
    """
    yield from clients.sandboxed(request, mcp_contract_server)


@pytest.fixture
async def mcp_contract_async(
    request: pytest.FixtureRequest, mcp_contract_server: object, anyio_backend: object
) -> AsyncIterator[AsyncMcpContract]:
    """The async twin of ``mcp_contract`` for anyio tests: ``await mcp_contract_async.call_tool(...)``.

    Its session is opened on the test's own event loop, once per test.
    """
    async with clients.own_session(request, mcp_contract_server) as contract:
        yield contract


@pytest.fixture(name=CLIENTS_FIXTURE)
def _mcp_contract_suite_clients(request: pytest.FixtureRequest) -> dict[str, McpContract | str]:
    """The generated suite's clients, to its server (``clients.suite_server``), one per protocol version
    offered: the first's opens or fails the item; a later one that could not open stands as the reason
    (the ``listing`` item fails). A version the first client's server answered with already gets no
    session of its own. One fixture, and no other unless a conftest overrides the server: each costs
    every item."""
    return clients.suite_clients(request, clients.suite_server(request))


@pytest.fixture(name=POOL_FIXTURE)
def _mcp_contract_suite_pool(request: pytest.FixtureRequest) -> SessionPool:
    """The run's session pool: the generated sequences open sessions to fresh servers through it."""
    return request.config.stash[POOL]


@pytest.fixture(name=FOLDER_FIXTURE)
def _mcp_contract_suite_folder(
    request: pytest.FixtureRequest, _mcp_contract_suite_clients: dict[str, McpContract | str]
) -> Path:
    """The generated suite's snapshot folder, named once its server's session told the name."""
    return clients.suite_folder(request, _mcp_contract_suite_clients)
