"""pytest-xdist: each worker records the servers it starts, so the controller can end those of a worker that died,
and fuzzes with the controller's seed.

A worker that finishes, or is interrupted, closes its own sessions; one that crashes cannot, and
its servers (and their helpers, in process groups of their own) would outlive the run.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any, Final

import pytest

from pytest_mcp_contract._plugin.keys import SERVER_RECORDS, SETTINGS
from pytest_mcp_contract._run.settings import FUZZ_SEED
from pytest_mcp_contract._servers import reaper

RECORDS: Final = "mcp_contract_server_records"
"""The workerinput key of the folder where a worker records its servers."""


def start_worker(config: pytest.Config) -> None:
    """On an xdist worker: record the servers it starts where the controller looks."""
    workerinput = getattr(config, "workerinput", {})
    if RECORDS in workerinput:
        reaper.record_in(Path(workerinput[RECORDS]))


def distributes(config: pytest.Config) -> bool:
    """Whether this process is pytest-xdist's controller, which hands every test to its workers and runs
    none: a distribution mode with workers to start, and not ``--collect-only`` (xdist's own test)."""
    option = config.option
    return (
        not hasattr(config, "workerinput")
        and getattr(option, "dist", "no") != "no"
        and bool(getattr(option, "tx", None))
        and not getattr(option, "collectonly", False)
    )


def stop_workers(config: pytest.Config) -> None:
    """End the workers xdist started: after a usage error in ``pytest_sessionstart``, pytest skips the
    ``pytest_sessionfinish`` in which xdist would end them."""
    # What xdist's own DSession.pytest_sessionfinish does; its signature changed between 3.5 and 3.8.
    nodemanager = getattr(config.pluginmanager.get_plugin("dsession"), "nodemanager", None)
    if nodemanager is not None:
        nodemanager.teardown_nodes()


class XdistPlugin:
    """On the controller: a records folder per worker, swept when a worker dies and when the run ends."""

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        records = node.config.stash.get(SERVER_RECORDS, None)
        if records is None:
            records = node.config.stash[SERVER_RECORDS] = Path(tempfile.mkdtemp(prefix="mcp-contract-servers-"))
        folder = records / node.gateway.id
        folder.mkdir(exist_ok=True)
        node.workerinput[RECORDS] = str(folder)
        settings = node.config.stash.get(SETTINGS, None)
        if settings is not None and settings.fuzz_seed is not None:
            node.workerinput[FUZZ_SEED] = settings.fuzz_seed

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """Not for a worker that finished (``error`` None) or was interrupted: it is still closing its
        own sessions gracefully; :meth:`pytest_unconfigure` sweeps up after it."""
        records = node.config.stash.get(SERVER_RECORDS, None)
        if records is not None and error not in (None, "keyboard-interrupt"):
            reaper.end_recorded(records / node.gateway.id)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        """What workers recorded and never closed."""
        records = config.stash.get(SERVER_RECORDS, None)
        if records is not None:
            for folder in records.iterdir():
                reaper.end_recorded(folder)
            shutil.rmtree(records, ignore_errors=True)
