"""Which snapshot files no listed tool uses any more: one :class:`UnusedSnapshots` per run.

The plugin keeps it in ``config.stash``, so a later pytest run in the same process (pytester)
starts from nothing. syrupy gives its extension neither the config nor the item when it deletes
(on the pytest-xdist controller it even rebuilds the extension from its name), so the extension
reads the run's instance from :func:`serving`, which binds it for the length of the two places
syrupy calls it: a schema item's comparison and syrupy's ``pytest_sessionfinish``.

Imports no syrupy: the report reads it in runs that never compare a snapshot.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_mcp_contract._contract.shapes import OBSERVED_KEY
from pytest_mcp_contract._run.paths import SUFFIX
from pytest_mcp_contract._run.settings import FIELDS


@dataclass
class UnusedSnapshots:
    """One run's knowledge of the snapshot folders: what each lists, what is left over, what stayed."""

    listed: dict[Path, frozenset[str]] = field(default_factory=dict)
    """Per server folder, the file stems of the tools the server lists in this run."""
    removed: dict[Path, list[Path]] = field(default_factory=dict)
    """Per server folder, :meth:`removed_tools` once worked out (syrupy asks once per tool)."""
    undeleted: dict[Path, str] = field(default_factory=dict)
    """Snapshot files ``--snapshot-update`` should have deleted and could not, with the OS error."""

    asserted: bool = False
    """A schema item made its syrupy assertion in this process (``first_assertion``)."""
    resolved: dict[Path, Path] = field(default_factory=dict)
    """Each folder asked about, resolved (every schema item asks; resolving reads the file system)."""

    def remember_listing(self, folder: Path, stems: Iterable[str]) -> None:
        """Which tools exist (their files' stems, ``_run.paths.file_stem``): only removed tools' files are unused."""
        listed, key = frozenset(stems), self._key(folder)
        if self.listed.get(key) != listed:
            self.listed[key] = listed
            self.removed.pop(key, None)

    def first_assertion(self) -> bool:
        """Whether this is the run's first schema assertion in this process (then syrupy's default extension
        is registered beside it, as syrupy's fixture would have registered it)."""
        first, self.asserted = not self.asserted, True
        return first

    def knows(self, folder: Path) -> bool:
        """Whether a listing told which tools ``folder``'s server lists."""
        return self._key(folder) in self.listed

    def _key(self, folder: Path) -> Path:
        key = self.resolved.get(folder)
        if key is None:
            key = self.resolved[folder] = folder.resolve()
        return key

    def removed_tools(self, folder: Path) -> list[Path]:
        """Snapshot files of tools the server no longer lists (empty while the listing is unknown).

        Only files that read as tool snapshots count: another JSON file someone put in the folder
        is never reported, nor deleted by ``--snapshot-update``.
        """
        key = self._key(folder)
        listed = self.listed.get(key)
        if listed is None or not folder.is_dir():
            return []
        if key not in self.removed:
            self.removed[key] = sorted(
                path
                for path in folder.glob(f"*{SUFFIX}")
                if path.stem not in listed and path.is_file() and is_tool_snapshot(path) is not None
            )
        return self.removed[key]


def is_tool_snapshot(path: Path) -> dict[str, Any] | None:
    """The file's data, if it reads as a tool's snapshot (``output_schema`` and other snapshotted fields only)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    readable = isinstance(data, dict) and "output_schema" in data and data.keys() <= {*FIELDS, OBSERVED_KEY}
    return data if readable else None


# Not run state: a binding, set and reset around one call, so each run (and a pytester run inside
# another) sees its own instance, and none is left behind when the call ends.
_SERVED: ContextVar[UnusedSnapshots | None] = ContextVar("mcp_contract_unused_snapshots", default=None)


@contextmanager
def serving(unused: UnusedSnapshots | None) -> Iterator[None]:
    """Let the syrupy extension read ``unused`` while the block runs."""
    token = _SERVED.set(unused)
    try:
        yield
    finally:
        _SERVED.reset(token)


def served() -> UnusedSnapshots:
    """The instance bound now; outside a binding an empty one, which knows no listing and so finds
    nothing unused (nothing is deleted)."""
    return _SERVED.get() or UnusedSnapshots()
