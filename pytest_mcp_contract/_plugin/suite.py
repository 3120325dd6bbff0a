"""The generated suite in a pytest run: listing the tools at the start, and its node among the collected.

The items themselves are ``_suite.items``'; this is when and where a run makes them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import pytest

from pytest_mcp_contract._plugin.keys import LISTING, POOL, SETTINGS, SUITE_NODE, UNUSED
from pytest_mcp_contract._suite.items import covers_project

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_mcp_contract._run.settings import Settings


def check_syrupy(config: pytest.Config, settings: Settings) -> None:
    """The suite snapshots schemas with syrupy: a run with it switched off must say how to go on."""
    if settings.suite and settings.target and not config.pluginmanager.hasplugin("syrupy"):
        raise pytest.UsageError(
            "pytest-mcp-contract snapshots tool schemas with syrupy, which is switched off (-p no:syrupy). "
            "Drop -p no:syrupy, or switch the generated suite off with: -o mcp_contract_suite=false"
        )


def list_tools(session: pytest.Session) -> None:
    """List the configured server's tools once, if this run has the generated suite, and tell the
    run's :class:`UnusedSnapshots` which tools exist.

    Also on the xdist controller, which collects nothing: it is where syrupy decides which
    snapshot files are unused, and only the listing says which tools are gone.
    """
    config = session.config
    settings = config.stash[SETTINGS]
    if not (settings.suite and settings.server is not None and covers_project(config)):
        return
    from pytest_mcp_contract._suite.items import list_for_suite, suite_nodeid

    updating = bool(config.getoption("update_snapshots", False))
    controller = config.pluginmanager.hasplugin("dsession")  # the xdist controller runs no test
    pool = config.stash[POOL]
    listing = list_for_suite(
        settings, pool, updating=updating, every_version=not controller, suite=suite_nodeid(config)
    )
    config.stash[LISTING] = listing
    if not isinstance(listing, str):  # the listing settled the folder: it may have learnt the name
        config.stash[UNUSED].remember_listing(listing.folder, list(listing.tools))
    if controller:
        pool.close_spares()


def suite_node(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """The suite's node at the ini file, when pytest collects it (``pytest pyproject.toml::schema[tool]``)."""
    config = parent.config
    listing = config.stash.get(LISTING, None)
    if listing is None or file_path != config.inipath:
        return None
    from pytest_mcp_contract._suite.items import make_suite, suite_anchor

    if suite_anchor(config) is None:
        return None
    node = make_suite(cast("pytest.Dir", parent), config.stash[SETTINGS], listing, config.stash[UNUSED])
    config.stash[SUITE_NODE] = node
    return node


def add_suite(session: pytest.Session, items: list[pytest.Item]) -> None:
    """Add the suite's items to those collected, unless pytest collected its node itself."""
    config = session.config
    listing = config.stash.get(LISTING, None)
    made = config.stash.get(SUITE_NODE, None)
    if listing is None or (made is not None and made.collected):
        return
    # The ini file was not among the paths collected (testpaths = tests): its suite joins them.
    from pytest_mcp_contract._suite.items import make_suite

    node = make_suite(session, config.stash[SETTINGS], listing, config.stash[UNUSED])
    suite = [item for item in node.collect() if isinstance(item, pytest.Item)]
    items.extend(suite)
    # Report them as collected, so "collected N items" counts them like any other test.
    report = pytest.CollectReport(node.nodeid, "passed", None, list(suite))
    session.ihook.pytest_collectreport(report=report)
