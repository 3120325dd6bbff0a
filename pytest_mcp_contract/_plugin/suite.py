"""The generated suite in a pytest run: whether it has one, and its node among the collected.

The items themselves are ``_suite.items``'; this is when and where a run makes them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import pytest

from pytest_mcp_contract._plugin.keys import SETTINGS, SUITE_NODE, UNUSED

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_mcp_contract._run.settings import Settings
    from pytest_mcp_contract._suite.items import ContractSuite


def check_syrupy(config: pytest.Config, settings: Settings) -> None:
    """The suite snapshots schemas with syrupy: a run with it switched off must say how to go on."""
    if config.pluginmanager.hasplugin("syrupy") or not settings.suite:
        return
    from pytest_mcp_contract._suite.known import server_fixtures

    # A conftest read before the run starts that overrides mcp_contract_server gives the suite its server too.
    if settings.target or server_fixtures(config):
        raise pytest.UsageError(
            "pytest-mcp-contract snapshots tool schemas with syrupy, which is switched off (-p no:syrupy). "
            "Drop -p no:syrupy, or switch the generated suite off with: -o mcp_contract_suite=false"
        )


def check_cases(settings: Settings) -> None:
    """A broken cases file stops the run at start-up, as a usage error (also on the xdist controller,
    which collects nothing); which tools its cases name is for their items to check, at run time."""
    if settings.suite and settings.cases is not None:
        from pytest_mcp_contract._suite.cases import load_cases

        load_cases(settings.cases, settings.cases_shown)


def has_suite(config: pytest.Config) -> bool:
    """Whether this run has the generated suite: it is on, the run covers the project, and a server is
    configured or a conftest overrides ``mcp_contract_server``."""
    from pytest_mcp_contract._suite.items import covers_project
    from pytest_mcp_contract._suite.known import server_fixtures

    settings = config.stash[SETTINGS]
    if not settings.suite or not covers_project(config):
        return False
    return settings.server is not None or bool(server_fixtures(config))


def snapshot_folder(path: Path, config: pytest.Config) -> bool | None:
    """``True`` for the snapshot folder, which pytest need not walk file by file (a file per tool, none of
    them a test: settings refuse a folder that holds code or tests); ``None`` lets the others decide."""
    settings = config.stash.get(SETTINGS, None)
    folder = settings.snapshot_dir if settings is not None else None
    if folder is None or path.name != folder.name:
        return None
    return path == folder or path.resolve() == folder or None


def suite_node(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """The suite's node at the ini file, when pytest collects it (``pytest pyproject.toml::schema[tool]``).

    Made from the committed snapshots alone: collecting starts no server."""
    config = parent.config
    if file_path != config.inipath or SETTINGS not in config.stash or not has_suite(config):
        return None
    from pytest_mcp_contract._suite.items import make_suite, suite_anchor
    from pytest_mcp_contract._suite.known import known

    if suite_anchor(config) is None:
        return None
    settings = config.stash[SETTINGS]
    node = make_suite(cast("pytest.Dir", parent), settings, known(config, settings), config.stash[UNUSED])
    config.stash[SUITE_NODE] = node
    return node


def add_suite(session: pytest.Session, items: list[pytest.Item]) -> None:
    """Add the suite's items to those collected, unless pytest collected its node itself; then let them
    see the fixtures of the folder whose conftest overrides ``mcp_contract_server``."""
    config = session.config
    if not has_suite(config):
        return
    from pytest_mcp_contract._suite.items import ContractItem, fixtures_folder, make_suite, server_overridden

    made = config.stash.get(SUITE_NODE, None)
    if made is None or not made.collected:
        # The ini file was not among the paths collected (testpaths = tests): its suite joins them.
        from pytest_mcp_contract._suite.known import known

        settings = config.stash[SETTINGS]
        node = make_suite(session, settings, known(config, settings), config.stash[UNUSED])
        suite = [item for item in node.collect() if isinstance(item, pytest.Item)]
        items.extend(suite)
        # Report them as collected, so "collected N items" counts them like any other test.
        report = pytest.CollectReport(node.nodeid, "passed", None, list(suite))
        session.ihook.pytest_collectreport(report=report)
    # Where another's mcp_contract_server is in sight, the items ask for it: a sub-folder's conftest
    # (with that folder's fixtures), or one the suite's own node sees (the rootdir conftest, a plugin module).
    folder = fixtures_folder(session, items)
    generated = [item for item in items if isinstance(item, ContractItem)]
    seen_from: pytest.Collector | None = folder
    if seen_from is None and generated and server_overridden(cast("ContractSuite", generated[0].parent)):
        seen_from = cast("ContractSuite", generated[0].parent)  # every item's parent: the suite's one node
    if seen_from is not None:
        for item in generated:
            item.ask_for_server(seen_from)
