"""Under a failing phase of a test, what each server outside this process wrote to stderr in it.

pytest captures the test process's own output; a server started as a command writes into a file
of the connection (``_servers.stdio``), which only the plugin can cut into the phases of a test.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from pytest_mcp_contract._json.value import writable
from pytest_mcp_contract._plugin.keys import POOL, STDERR_MARKS, TEST_CONNECTIONS

if TYPE_CHECKING:
    from collections.abc import Generator

    from pytest_mcp_contract._servers.kinds import Connection


class StderrPlugin:
    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, object, object]:
        item.stash[STDERR_MARKS] = {connection: connection.stderr_position() for connection in _connections(item)}
        try:
            return (yield)
        finally:
            # Items live until the run ends; the connections (and the stderr they keep) need not.
            item.stash[STDERR_MARKS] = {}
            item.stash[TEST_CONNECTIONS] = []

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
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
                report.sections.append((f"Captured stderr {call.when} from {connection.label}", writable(text)))
        return report


def _connections(item: pytest.Item) -> list[Connection]:
    """The connections to servers outside this process that a test may have used."""
    pool = item.config.stash.get(POOL, None)
    pooled = [contract.connection for contract in pool.sessions()] if pool is not None else []
    return [connection for connection in [*pooled, *item.stash.get(TEST_CONNECTIONS, [])] if connection is not None]


def add_test_connection(item: pytest.Item, connection: Connection) -> None:
    """A connection of the test's own session (``mcp_contract_async``), whose stderr its report shows too."""
    item.stash.setdefault(TEST_CONNECTIONS, []).append(connection)
