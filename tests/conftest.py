"""Shared helpers for the plugin's own tests.

Most tests run an inner pytest session through ``pytester`` against a real server from
``contract_servers/`` and assert its outcomes and output lines.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

# Imported here so pytester's in-process runs keep one copy of the SDK instead of re-importing
# it (0.7 s) for every inner session: modules imported before a run survive it.
import mcp.server
import mcp.server.mcpserver
import pytest

import pytest_mcp_contract._async
import pytest_mcp_contract._checks
import pytest_mcp_contract._sync  # noqa: F401

SERVERS = Path(__file__).parent / "contract_servers"


def target(module: str, attribute: str = "server") -> str:
    """A ``path/to/file.py:attr`` target for one of the test servers."""
    return f"{SERVERS / module}.py:{attribute}"


class Project:
    """An inner pytest project in a temporary folder, configured for one server."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester

    def configure(self, server: str | None, **ini: str) -> None:
        lines = ["[pytest]", "addopts = -p no:cacheprovider"]
        if server is not None:
            lines.append(f"mcp_contract_server = {server}")
        lines += [f"{key} = {value}" for key, value in ini.items()]
        self.pytester.makeini("\n".join(lines) + "\n")

    def tests(self, source: str, name: str = "test_contract") -> Path:
        return self.pytester.makepyfile(**{name: textwrap.dedent(source)})

    def run(self, *args: str) -> pytest.RunResult:
        return self.pytester.runpytest(*args)


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    # Inner sessions must not believe they are xdist workers when the outer run uses -n.
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.delenv("PYTEST_XDIST_TESTRUNUID", raising=False)
    yield Project(pytester)
