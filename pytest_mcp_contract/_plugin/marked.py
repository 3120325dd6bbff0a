"""What a test's markers say, read once at collection: a malformed one stops the run before any test.

``mcp_expect_*`` markers are read again when the test runs (``_run.marks``); the server and the
protocol version a test's markers name are kept in its stash for the fixtures.
"""

from __future__ import annotations

import pytest

from pytest_mcp_contract._plugin.keys import LIFESPANS, MARKED_SERVER, MARKED_SERVERS, MARKED_VERSION, POOL
from pytest_mcp_contract._plugin.options import marked_version
from pytest_mcp_contract._run.marks import expectations


def read_markers(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Check every test's ``mcp_expect_*`` markers; keep the server and version its markers name."""
    for item in items:
        expectations(item)  # only to stop the run on a malformed marker; read again when the test runs
        marker = item.get_closest_marker("mcp_contract_server")
        if marker is not None:
            item.stash[MARKED_SERVER] = _marked_server(config, item, marker)
        marker = item.get_closest_marker("mcp_contract_protocol_version")
        if marker is not None:
            item.stash[MARKED_VERSION] = marked_version(item.nodeid, marker)


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
        where = f"@pytest.mark.mcp_contract_server on {item.nodeid}"
        loaded[target] = load_server(config, target, where, config.stash[LIFESPANS])
        config.stash[POOL].callbacks(loaded[target])  # as for the configured server: a wrong answer stops the run
    return loaded[target]
