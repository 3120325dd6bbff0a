"""What the fixtures hand a test: the pool's session, a test's own async session, the suite's clients.

A session that cannot open fails the test with its reason alone: ``pytest.fail`` is raised outside
the ``except``, as a chained traceback would bury the message.
"""

from __future__ import annotations

import sys
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING, cast

import pytest

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._plugin.keys import LIFESPANS, MARKED_VERSION, POOL, SANDBOXED, SETTINGS
from pytest_mcp_contract._plugin.stderr import add_test_connection

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator
    from pathlib import Path

    from pytest_mcp_contract._client.async_client import AsyncMcpContract
    from pytest_mcp_contract._client.sync_client import McpContract


def end_lifespans(config: pytest.Config) -> None:
    """Exit what the run's factory targets entered, each on the loop and task that entered it; an exit
    that raises is told on stderr, and the run's result stands."""
    lifespans = config.stash.get(LIFESPANS, None)
    for factory, error in lifespans.close() if lifespans is not None else []:
        sys.stderr.write(messages.lifespan_exit_failed(factory, f"{type(error).__name__}: {error}") + "\n")


def check_server(server: object) -> None:
    """Fail the test if what ``mcp_contract_server`` gave is no server."""
    from pytest_mcp_contract._servers.kinds import is_server, server_attributes

    if not is_server(server):
        pytest.fail(messages.not_a_server(type(server).__qualname__, server_attributes(server)), pytrace=False)


def pooled(request: pytest.FixtureRequest, server: object) -> McpContract:
    """The pool's session for this test; one that cannot open fails the test with its reason."""
    from pytest_mcp_contract._client.session import SessionError

    try:
        version = request.node.stash.get(MARKED_VERSION, None)
        contract: McpContract = request.config.stash[POOL].get(request, server, version)
        return contract
    except SessionError as error:  # opening wraps every failure, timeouts too
        problem = str(error)
    pytest.fail(problem, pytrace=False)


@asynccontextmanager
async def own_session(request: pytest.FixtureRequest, server: object) -> AsyncIterator[AsyncMcpContract]:
    """A session of the test's own, opened on its event loop (``mcp_contract_async``); its server's
    stderr goes under the test's failure like the pool's."""
    from pytest_mcp_contract._client.session import SessionError

    check_server(server)
    version = request.node.stash.get(MARKED_VERSION, None)
    opening = request.config.stash[POOL].open_async(server, f"test {request.node.nodeid}", version)
    stack = AsyncExitStack()
    problem = None
    try:
        contract = await stack.enter_async_context(opening)
    except SessionError as error:
        problem = str(error)
    if problem is not None:
        pytest.fail(problem, pytrace=False)
    if contract.connection is not None:
        add_test_connection(request.node, contract.connection)
    async with stack:
        yield contract


def sandboxed(request: pytest.FixtureRequest, server: object) -> Iterator[Path]:
    """A fresh server in a sandbox for the test (``mcp_contract_sandbox``): its session in the test's
    stash while the test runs, the sandbox's folder given; closed and removed after."""
    from pytest_mcp_contract._errors import McpContractError
    from pytest_mcp_contract._servers.kinds import server_label
    from pytest_mcp_contract._servers.sandbox import fresh, sandbox

    check_server(server)
    making = fresh(server)
    if isinstance(making, str):
        pytest.fail(messages.no_sandbox(server_label(server), making), pytrace=False)
    if "mcp_contract_async" in request.fixturenames:
        pytest.fail(messages.SANDBOX_NOT_ASYNC, pytrace=False)
    # pytest's own temporary folder made now, not inside the sandbox (whose TMPDIR goes with it).
    request.getfixturevalue("tmp_path_factory").getbasetemp()
    version = request.node.stash.get(MARKED_VERSION, None)
    opening = request.config.stash[POOL].opener(server, version)
    with sandbox() as box, making(box) as made:
        problem = None
        try:
            contract = opening(made)
        except McpContractError as error:  # a session that did not open, a factory that made nothing fresh
            problem = str(error)
        if problem is not None:
            pytest.fail(problem, pytrace=False)
        if contract.connection is not None:
            add_test_connection(request.node, contract.connection)
        request.node.stash[SANDBOXED] = contract
        try:
            yield box.folder
        finally:
            del request.node.stash[SANDBOXED]
            contract.close()


def suite_server(request: pytest.FixtureRequest) -> object:
    """The generated suite's server: a conftest's override of ``mcp_contract_server`` where the item asks
    for it (``_suite.items``), else the configured one, as the plugin's own fixture gives a suite item."""
    if "mcp_contract_server" in request.fixturenames:
        return request.getfixturevalue("mcp_contract_server")
    server = request.config.stash[SETTINGS].server
    if server is None:
        pytest.fail(messages.NO_SERVER, pytrace=False)
    return server


def suite_clients(request: pytest.FixtureRequest, server: object) -> dict[str, McpContract | str]:
    """The suite's clients, one per protocol version offered: the first a session, or the item fails with
    why it could not open; a later one that could not open stands as the reason; a version the first's
    server answered with gets no other."""
    from pytest_mcp_contract._client.session import SessionError

    check_server(server)
    first_client = pooled(request, server)
    settings = request.config.stash[SETTINGS]
    first, *others = settings.protocol_versions
    clients: dict[str, McpContract | str] = {first: first_client}
    for version in others:
        if version == first_client.protocol_version:  # answered already, by the first
            continue
        try:
            clients[version] = request.config.stash[POOL].get(request, server, version)
        except SessionError as error:
            clients[version] = str(error)
    return clients


def suite_folder(request: pytest.FixtureRequest, suite: dict[str, McpContract | str]) -> Path:
    """The suite's server's snapshot folder, now that its session told its name (kept for the next collection).
    ``suite``: its clients (the first one opened, or the item failed)."""
    from pytest_mcp_contract._run.settings import writes_snapshots
    from pytest_mcp_contract._suite.known import settle_folder

    config = request.config
    server = cast("McpContract", next(iter(suite.values()))).server
    return settle_folder(config, config.stash[SETTINGS], server, config.stash[POOL], updating=writes_snapshots(config))
