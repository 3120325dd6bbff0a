"""What the generated suite knows before any server starts: the committed snapshot files, and the cases file.

pytest collects the suite from this alone (``--collect-only``, ``-k`` and ``--lf`` start nothing they do not
run). What only the live listing tells (a new tool, a tool gone, the first run, a schema's examples whose
input schema is not snapshotted) is the ``listing`` item's to find at run time (``_suite.items``).

The server's folder is known without a session for a target in process (its own name), unless a conftest
overrides ``mcp_contract_server`` (the items then take that fixture's server). Otherwise (a server outside
this process is named from what it calls itself at ``initialize``) it is the folder an earlier run found,
kept in pytest's cache; else the folder under its target's stable key; else the only folder holding tool
snapshots. None of those: no tool is known yet, and the listing item does the first run.
"""

from __future__ import annotations

import contextlib
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import unquote

from pytest_mcp_contract._run.paths import SUFFIX, file_stem
from pytest_mcp_contract._suite.unused import is_tool_snapshot

if TYPE_CHECKING:
    import pytest

    from pytest_mcp_contract._run.pool import SessionPool
    from pytest_mcp_contract._run.settings import Settings
    from pytest_mcp_contract._suite.cases import Case

FOLDERS: Final = "mcp_contract/folders"
"""pytest's cache entry: per server (its target's stable key, or ``FIXTURE``), the snapshot folder a run found."""
FIXTURE: Final = "(the mcp_contract_server fixture)"
"""The cache's key for the server a conftest's override gives the suite: no target names it."""


@dataclass(frozen=True)
class Known:
    """The suite as collected: the server's folder (``None``: not known yet), its tools' snapshots, its cases."""

    folder: Path | None
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Tool name -> its snapshot file's data, for each file whose name tells the tool's."""
    cases: list[Case] = field(default_factory=list)
    """The cases file's, and the examples of each known tool's snapshotted ``input_schema``."""

    def case_ids(self) -> set[tuple[str, str]]:
        return {(case.tool, case.id) for case in self.cases}


def known(config: pytest.Config, settings: Settings) -> Known:
    """What the committed files say about the configured (or fixture-given) server. Starts nothing."""
    from pytest_mcp_contract._suite.cases import load_cases, schema_cases, unique

    folder, tools = collected_folder(config, settings)
    cases: list[Case] = []
    if "input_schema" in settings.snapshot_fields:
        cases += [case for name in sorted(tools) for case in schema_cases(name, tools[name].get("input_schema"))]
    if settings.cases is not None:
        cases += load_cases(settings.cases, settings.cases_shown)
    return Known(folder, tools, unique(cases))


def cache_key(settings: Settings, *, overridden: bool) -> str:
    """Which server a cached folder belongs to: how the project points at it, never a name it was told
    (``overridden``: a conftest overrides ``mcp_contract_server``, whose server the suite takes)."""
    if settings.server is None or overridden:
        return FIXTURE
    from pytest_mcp_contract._servers.kinds import as_target

    return as_target(settings.server).stable_key


def collected_folder(config: pytest.Config, settings: Settings) -> tuple[Path | None, dict[str, dict[str, Any]]]:
    """The server's snapshot folder as far as collection can know it (see the module's docstring), and the
    tools it holds snapshots of (:func:`read_tools`)."""
    base = settings.snapshot_dir
    overridden = bool(server_fixtures(config))
    server = settings.server if not overridden else None  # an override's server: not the target's
    if server is not None:
        from pytest_mcp_contract._servers.kinds import as_target

        if not as_target(server).external:
            from pytest_mcp_contract._run.paths import server_folder
            from pytest_mcp_contract._servers.names import ServerNames

            folder = server_folder(base, server, ServerNames())
            return folder, read_tools(folder)
    key = cache_key(settings, overridden=overridden)
    cached = _cached(config).get(key)
    if isinstance(cached, str) and Path(cached).name == cached and (base / cached).is_dir():
        return base / cached, read_tools(base / cached)
    if key != FIXTURE and (base / file_stem(key)).is_dir():
        return base / file_stem(key), read_tools(base / file_stem(key))
    holding = (
        {folder: tools for folder in sorted(base.iterdir()) if (tools := read_tools(folder))} if base.is_dir() else {}
    )
    return next(iter(holding.items())) if len(holding) == 1 else (None, {})


def remember_folder(config: pytest.Config, settings: Settings, folder: Path) -> None:
    """Keep the folder the live server's name gave, for the next collection (no cache, no memory)."""
    cache = getattr(config, "cache", None)
    if cache is None or folder.parent != settings.snapshot_dir:
        return
    folders = _cached(config)
    key = cache_key(settings, overridden=bool(server_fixtures(config)))
    if folders.get(key) != folder.name:
        cache.set(FOLDERS, {**folders, key: folder.name})


def _cached(config: pytest.Config) -> dict[str, Any]:
    cache = getattr(config, "cache", None)  # -p no:cacheprovider
    value = cache.get(FOLDERS, {}) if cache is not None else {}
    return value if isinstance(value, dict) else {}


def read_tools(folder: Path) -> dict[str, dict[str, Any]]:
    """The tools a folder holds snapshots of, by name. A file whose name does not give the tool's back
    (a long name cut and hashed) is left to the listing item, which finds the tool by the file's stem."""
    tools: dict[str, dict[str, Any]] = {}
    if not folder.is_dir():
        return tools
    for path in sorted(folder.glob(f"*{SUFFIX}")):
        name = unquote(path.stem)
        if file_stem(name) != path.stem or not path.is_file():
            continue
        data = is_tool_snapshot(path)
        if data is not None:
            tools[name] = data
    return tools


def settle_folder(
    config: pytest.Config, settings: Settings, server: object, pool: SessionPool, *, updating: bool
) -> Path:
    """The server's snapshot folder, once a session told its name; kept for the next collection.

    Before a server outside this process names a new folder, its name is seen to last: a folder already
    there (or one under the stable key, from an earlier run that fell back to it) settles it for free;
    otherwise, on a run that writes snapshots, a second session tells whether the name is the same twice (a
    run that writes none creates no folder to get wrong).
    """
    from pytest_mcp_contract._client.session import SessionError
    from pytest_mcp_contract._run.paths import server_folder
    from pytest_mcp_contract._servers.kinds import as_target

    base = settings.snapshot_dir
    target = as_target(server)
    if target.external and not server_folder(base, server, pool.names).is_dir():
        if (base / file_stem(target.stable_key)).is_dir():
            pool.names.name_changes(server)
        elif updating:
            # Its session compares the name it is told with the first; a failure to start is for the tests to report.
            with contextlib.suppress(SessionError):
                pool.open(server).close()
    folder = server_folder(base, server, pool.names)
    remember_folder(config, settings, folder)
    return folder


def server_fixtures(config: pytest.Config) -> list[Path]:
    """The files that override the ``mcp_contract_server`` fixture (``tests/conftest.py``), among the
    conftest files and plugins pytest has read so far, shallowest first."""
    places = []
    for plugin in config.pluginmanager.get_plugins():
        name = getattr(plugin, "__name__", "")
        if not isinstance(plugin, types.ModuleType) or name.startswith(("pytest_mcp_contract.", "_pytest.")):
            continue
        if any(_fixture_name(value) == "mcp_contract_server" for value in list(vars(plugin).values())):
            places.append(Path(plugin.__file__ or name).resolve())
    return sorted(places, key=lambda path: (len(path.parts), path))


def _fixture_name(value: object) -> str | None:
    """The fixture ``value`` defines, if it is one: pytest 8.4 wraps the function in an object holding
    its marker, earlier versions mark the function itself (no public API tells either)."""
    marker = getattr(value, "_fixture_function_marker", None) or getattr(value, "_pytestfixturefunction", None)
    if type(marker).__name__ != "FixtureFunctionMarker":
        return None
    given = getattr(marker, "name", None)
    return given if isinstance(given, str) else getattr(value, "__name__", None)
