"""The pytest entry point (``-p no:mcp_contract`` switches it off): options, start-up checks and fixtures.

The work happens in the small modules beside this one; nothing heavy (not even ``mcp``) is
imported until a server is configured or a fixture is used.
"""

from __future__ import annotations

import sys
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING, cast

import pytest

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._plugin import calls, xdist
from pytest_mcp_contract._plugin.keys import (
    EARLIER_SERVERS,
    LISTING,
    MARKED_SERVER,
    MARKED_SERVERS,
    MARKED_VERSION,
    POOL,
    RESTORE_SIGNALS,
    SERVER_NAMES,
    SETTINGS,
)
from pytest_mcp_contract._plugin.options import add_markers, add_options, marked_version
from pytest_mcp_contract._plugin.report import ReportPlugin
from pytest_mcp_contract._plugin.stderr import StderrPlugin, add_test_connection
from pytest_mcp_contract._run.marks import expectations
from pytest_mcp_contract._run.pool import SessionPool
from pytest_mcp_contract._run.settings import close_lifespans, read_settings
from pytest_mcp_contract._servers import reaper
from pytest_mcp_contract._servers.names import ServerNames
from pytest_mcp_contract._suite.items import CLIENT_FIXTURE, CLIENTS_FIXTURE, COLLECTED, covers_project

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Generator

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
    settings = read_settings(config, load=load)
    add_markers(config)
    if settings.suite and settings.target and not config.pluginmanager.hasplugin("syrupy"):
        raise pytest.UsageError(
            "pytest-mcp-contract snapshots tool schemas with syrupy, which is switched off (-p no:syrupy). "
            "Drop -p no:syrupy, or switch the generated suite off with: -o mcp_contract_suite=false"
        )
    config.stash[SETTINGS] = settings
    config.stash[RESTORE_SIGNALS] = reaper.interrupt_on_termination()
    config.stash[EARLIER_SERVERS] = reaper.recorded()
    xdist.start_worker(config)
    for name, plugin in [
        ("mcp_contract_report", ReportPlugin(settings)),
        ("mcp_contract_calls", calls.CallsPlugin()),
        ("mcp_contract_stderr", StderrPlugin()),
        ("mcp_contract_xdist", xdist.XdistPlugin()),
    ]:
        config.pluginmanager.register(plugin, name)
    config.stash[POOL] = SessionPool(
        settings,
        triage=lambda *call: calls.triage(config, *call),
        callbacks=lambda server: config.hook.pytest_mcp_contract_callbacks(server=server, config=config),
        names=config.stash.setdefault(SERVER_NAMES, ServerNames()),
    )


def pytest_sessionstart(session: pytest.Session) -> None:
    """Check the callbacks the hook gives the configured server, and list its tools once, if this run
    has the generated suite.

    Also on the xdist controller, which collects nothing: it is where syrupy decides which
    snapshot files are unused, and only the listing says which tools are gone.
    """
    config = session.config
    settings = config.stash[SETTINGS]
    if settings.server is not None:
        # A wrong answer of the callbacks hook stops the run here, as a usage error, not in every test.
        config.stash[POOL].callbacks(settings.server)
    if settings.suite and settings.server is not None and covers_project(config):
        from pytest_mcp_contract._suite.items import list_for_suite, suite_nodeid

        updating = bool(config.getoption("update_snapshots", False))
        controller = config.pluginmanager.hasplugin("dsession")  # the xdist controller runs no test
        listing = list_for_suite(
            settings, config.stash[POOL], updating=updating, every_version=not controller, suite=suite_nodeid(config)
        )
        config.stash[LISTING] = listing
        if controller:
            config.stash[POOL].close_spares()


@pytest.hookimpl(tryfirst=True)  # before -m/-k deselection and syrupy's bookkeeping see the items
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Read every test's ``mcp_expect_*`` markers (a malformed one stops the run), then add the suite."""
    for item in items:
        expectations(item)  # only to stop the run on a malformed marker; read again when the test runs
        marker = item.get_closest_marker("mcp_contract_server")
        if marker is not None:
            item.stash[MARKED_SERVER] = _marked_server(config, item, marker)
        marker = item.get_closest_marker("mcp_contract_protocol_version")
        if marker is not None:
            item.stash[MARKED_VERSION] = marked_version(item.nodeid, marker)
    listing = config.stash.get(LISTING, None)
    if listing is None or config.stash.get(COLLECTED, False):
        return
    # The ini file was not among the paths collected (testpaths = tests): its suite joins them.
    from pytest_mcp_contract._suite.items import make_suite

    node = make_suite(session, config.stash[SETTINGS], listing)
    suite = [item for item in node.collect() if isinstance(item, pytest.Item)]
    items.extend(suite)
    # Report them as collected, so "collected N items" counts them like any other test.
    report = pytest.CollectReport(node.nodeid, "passed", None, list(suite))
    session.ihook.pytest_collectreport(report=report)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """The ini file, when pytest collects it (``pytest pyproject.toml::schema[tool]``): the suite's node."""
    config = parent.config
    listing = config.stash.get(LISTING, None)
    if listing is None or file_path != config.inipath:
        return None
    from pytest_mcp_contract._suite.items import make_suite, suite_anchor

    if suite_anchor(config) is None:
        return None
    return make_suite(cast("pytest.Dir", parent), config.stash[SETTINGS], listing)


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
        config.stash[POOL].callbacks(loaded[target])  # as for the configured server: a wrong answer stops the run
    return loaded[target]


@pytest.hookimpl(wrapper=True)  # around every other implementation: syrupy and the report set the status
def pytest_sessionfinish(session: pytest.Session) -> Generator[None, None, None]:
    yield
    loop = sys.modules.get("pytest_mcp_contract._client.loop")  # only if a sync session was ever opened
    if loop is not None:
        loop.note_exit_status(int(session.exitstatus))


def pytest_unconfigure(config: pytest.Config) -> None:
    pool = config.stash.get(POOL, None)
    if pool is not None:
        pool.close_all()
    # A factory's lifespan outlives the sessions on its server, and exits on the loop that entered it.
    for factory, error in close_lifespans(config):
        sys.stderr.write(messages.lifespan_exit_failed(factory, f"{type(error).__name__}: {error}") + "\n")
    # What a closed session left behind (a server's helper, a session Ctrl-C cut short); the
    # xdist controller's plugin ends what its workers left.
    earlier: frozenset[int] = config.stash.get(EARLIER_SERVERS, frozenset())
    reaper.end_all(set(reaper.recorded() - earlier))
    config.stash.get(RESTORE_SIGNALS, lambda: None)()
    # Only if loaded: importing it would import syrupy into runs that never touched a snapshot.
    snapshots = sys.modules.get("pytest_mcp_contract._suite.snapshots")
    if snapshots is not None:
        snapshots.forget_listings()


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    settings = config.stash.get(SETTINGS, None)
    if settings is None:
        return None
    if settings.target is None:
        from pytest_mcp_contract._suite.items import server_fixtures

        places = server_fixtures(config) if settings.suite else []  # the conftest.py files read so far
        return [f"mcp-contract: contract suite {messages.suite_lost_to_fixture(places)}"] if places else None
    lines = [
        f"mcp-contract: server {settings.target} ({settings.target_source}), "
        f"scope={settings.scope}, timeout={settings.timeout:g}s",
        f"mcp-contract: protocol versions offered: {', '.join(settings.protocol_versions)} "
        "(a test's own calls: the first)",
    ]
    if settings.fuzz:
        how = "chosen for this run" if settings.fuzz_seed_chosen else "given"
        lines.append(
            f"mcp-contract: fuzzing {settings.fuzz} calls per tool, seed {settings.fuzz_seed} ({how}; "
            f"--mcp-contract-fuzz-seed {settings.fuzz_seed} searches the same way again)"
        )
        listing = config.stash.get(LISTING, None)
        if listing is not None and not isinstance(listing, str):  # the tools are listed before the header
            from pytest_mcp_contract._fuzz.fuzzer import fuzzed

            count = sum(fuzzed(tool, settings) for tool in listing.tools.values())
            lines.append(messages.fuzz_header(count, len(listing.tools) - count, writes=settings.fuzz_writes))
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
    object yourself; a different server in a sub-folder gets its own session. With no target
    configured, an override has no generated suite (the suite lists the tools at collection, before
    fixtures run), and the header and summary say so: a factory target keeps it.
    """
    marked = request.node.stash.get(MARKED_SERVER, None)
    if marked is not None:
        return marked
    server = request.config.stash[SETTINGS].server
    if server is None:
        pytest.fail(messages.NO_SERVER, pytrace=False)
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
        version = request.node.stash.get(MARKED_VERSION, None)
        contract: McpContract = request.config.stash[POOL].get(request, server, version)
        return contract
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
    from pytest_mcp_contract._client.session import SessionError

    _check_server(mcp_contract_server)
    version = request.node.stash.get(MARKED_VERSION, None)
    opening = request.config.stash[POOL].open_async(mcp_contract_server, f"test {request.node.nodeid}", version)
    stack = AsyncExitStack()
    problem = None
    try:
        contract = await stack.enter_async_context(opening)
    except SessionError as error:
        problem = str(error)
    if problem is not None:
        pytest.fail(problem, pytrace=False)  # outside the except, as in mcp_contract
    if contract.connection is not None:
        add_test_connection(request.node, contract.connection)
    async with stack:
        yield contract


@pytest.fixture(name=CLIENT_FIXTURE)
def _mcp_contract_suite_client(request: pytest.FixtureRequest) -> McpContract:
    """The generated suite's client: the configured server, whatever a conftest overrides."""
    server = request.config.stash[SETTINGS].server
    if server is None:
        pytest.fail(messages.NO_SERVER, pytrace=False)
    return _pooled(request, server)


@pytest.fixture(name=CLIENTS_FIXTURE)
def _mcp_contract_suite_clients(
    request: pytest.FixtureRequest, _mcp_contract_suite_client: McpContract
) -> dict[str, McpContract | str]:
    """The generated suite's clients, one per protocol version offered: the first is the suite's
    client; one that could not open stands as the reason (its ``listing[version]`` item fails). A
    version the first client's server answered with already gets no session of its own."""
    from pytest_mcp_contract._client.session import SessionError

    settings = request.config.stash[SETTINGS]
    first, *others = settings.protocol_versions
    clients: dict[str, McpContract | str] = {first: _mcp_contract_suite_client}
    for version in others:
        if version == _mcp_contract_suite_client.protocol_version:  # answered already, by the first
            continue
        try:
            clients[version] = request.config.stash[POOL].get(request, settings.server, version)
        except SessionError as error:
            clients[version] = str(error)
    return clients


def _check_server(server: object) -> None:
    from pytest_mcp_contract._servers.kinds import is_server

    if not is_server(server):
        pytest.fail(messages.not_a_server(type(server).__qualname__), pytrace=False)
