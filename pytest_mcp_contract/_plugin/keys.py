"""Every ``config.stash`` and ``item.stash`` key of the plugin, in one place.

State lives in the stash, never in module globals: pytester runs pytest in this very process,
and two runs must not see each other's sessions.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final

import pytest

if TYPE_CHECKING:
    from pytest_mcp_contract._client.sync_client import McpContract
    from pytest_mcp_contract._contract.coverage import Coverage
    from pytest_mcp_contract._contract.expect import Judge
    from pytest_mcp_contract._contract.shapes import ObservedShapes
    from pytest_mcp_contract._run.pool import SessionPool
    from pytest_mcp_contract._run.records import CallTally
    from pytest_mcp_contract._run.settings import Settings
    from pytest_mcp_contract._servers.kinds import Connection
    from pytest_mcp_contract._servers.lifespans import Lifespans
    from pytest_mcp_contract._servers.names import ServerNames
    from pytest_mcp_contract._suite.items import ContractSuite
    from pytest_mcp_contract._suite.unused import UnusedSnapshots

# --- per run (config.stash) ----------------------------------------------------------------------
SETTINGS: Final[pytest.StashKey[Settings]] = pytest.StashKey()
POOL: Final[pytest.StashKey[SessionPool]] = pytest.StashKey()
SERVER_NAMES: Final[pytest.StashKey[ServerNames]] = pytest.StashKey()
"""What each server outside this process called itself this run: the pool's sessions tell it, and the
snapshot folder is named from it (``_run.paths.server_folder``)."""
CURRENT_ITEM: Final[pytest.StashKey[pytest.Item | None]] = pytest.StashKey()
"""The running test, whose markers judge the calls made now."""
MARKED_SERVERS: Final[pytest.StashKey[dict[str, object]]] = pytest.StashKey()
"""Each target an ``mcp_contract_server`` marker names, loaded once per run."""
SUITE_NODE: Final[pytest.StashKey[ContractSuite]] = pytest.StashKey()
"""The suite's node pytest made at the ini file; it may make it without collecting it (its ``collected``)."""
UNUSED: Final[pytest.StashKey[UnusedSnapshots]] = pytest.StashKey()
"""Which snapshot files no listed tool uses any more, and those ``--snapshot-update`` could not delete."""
EARLIER_SERVERS: Final[pytest.StashKey[frozenset[int]]] = pytest.StashKey()
"""Server groups recorded before this run began (pytester runs in process): not this run's to end."""
RESTORE_SIGNALS: Final[pytest.StashKey[Callable[[], None]]] = pytest.StashKey()
"""Puts back the SIGTERM and SIGHUP handlers the run replaced."""
LIFESPANS: Final[pytest.StashKey[Lifespans]] = pytest.StashKey()
"""What the run keeps open for the servers its factory targets made, closed at its end."""
SHAPES: Final[pytest.StashKey[ObservedShapes]] = pytest.StashKey()
"""The shapes the run's answers had, of tools whose output schema names no key (``_contract.shapes``)."""
COVERAGE: Final[pytest.StashKey[Coverage]] = pytest.StashKey()
"""Which promises of the output schemas the run's answers kept (only when a coverage option asks)."""
SERVER_RECORDS: Final[pytest.StashKey[Path]] = pytest.StashKey()
"""On the xdist controller: the folder where workers record the servers they start (see ``_servers.reaper``)."""

# --- per test (item.stash) -----------------------------------------------------------------------
MARKED_SERVER: Final[pytest.StashKey[object]] = pytest.StashKey()
"""The server the test's ``mcp_contract_server`` marker names."""
MARKED_VERSION: Final[pytest.StashKey[str]] = pytest.StashKey()
"""The protocol version the test's ``mcp_contract_protocol_version`` marker names."""
JUDGE: Final[pytest.StashKey[Judge]] = pytest.StashKey()
"""Who judges the test's calls with its markers' expectations (made at its first call)."""
CALLS: Final[pytest.StashKey[dict[tuple[str, str], CallTally]]] = pytest.StashKey()
"""Per (server, tool): the test's checked calls and what became of their violations."""
STDERR_MARKS: Final[pytest.StashKey[dict[Connection, int]]] = pytest.StashKey()
"""Where each server's stderr stood when the test's current phase began: what follows is that phase's."""
SANDBOXED: Final[pytest.StashKey[McpContract]] = pytest.StashKey()
"""The session to the test's fresh server, while ``mcp_contract_sandbox`` holds it."""
TEST_CONNECTIONS: Final[pytest.StashKey[list[Connection]]] = pytest.StashKey()
"""The connections of the test's own sessions (``mcp_contract_async``), beside the pool's."""
