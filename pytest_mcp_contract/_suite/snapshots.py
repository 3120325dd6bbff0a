"""Tool snapshots on disk, through syrupy: one JSON file per tool, in a folder per server.

The extension knows where a tool's file lives from the test item's path alone, which the
generated schema item sets to that file. syrupy rebuilds items from just their path and name on
the pytest-xdist controller, so this is what lets unused-snapshot detection and cleanup work
there too.

syrupy deletes, on ``--snapshot-update``, whatever an extension discovers and the run did not
use. So discovery here is narrow on purpose: only the ``*.json`` files directly in a server's
folder that read as tool snapshots, and only those of tools the server no longer lists. A listed
tool whose item did not run (``-x``, ``-k``, a crash) keeps its file, and nothing else in the
folder is ever touched. Which tools a folder's server lists is the run's :class:`UnusedSnapshots`
(``_suite.unused``), which the extension reads where syrupy calls it.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pydantic import BaseModel
from syrupy.assertion import SnapshotAssertion
from syrupy.data import SnapshotCollections
from syrupy.exceptions import FailedToLoadModuleMember
from syrupy.extensions import DEFAULT_EXTENSION
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from syrupy.location import PyTestLocation
from syrupy.utils import import_module_member

from pytest_mcp_contract._json.value import indented, writable
from pytest_mcp_contract._run.paths import SUFFIX
from pytest_mcp_contract._suite.unused import served

if TYPE_CHECKING:
    import pytest
    from mcp_types import Tool
    from syrupy.extensions.base import AbstractSyrupyExtension
    from syrupy.types import PropertyFilter, PropertyMatcher, SerializableData, SerializedData, SnapshotIndex


def document(tool: Tool, fields: tuple[str, ...]) -> dict[str, Any]:
    """What is snapshotted for a tool: the chosen fields, as JSON, ``None`` where absent."""
    values: dict[str, Any] = {}
    for name in ("output_schema", *fields):
        value = getattr(tool, name, None)
        if isinstance(value, BaseModel):
            value = value.model_dump(mode="json", by_alias=True, exclude_none=True)
        values[name] = value
    return values


def serialize(data: Any) -> str:
    """Sorted keys (protocol versions order schema keys differently), 2-space indent, non-ASCII kept but
    for what no file takes raw (a server's lone surrogate, a control character), which is escaped."""
    return writable(indented(data)) + "\n"


def assertion(item: pytest.Item, read: str | None, *, with_default: bool = False) -> SnapshotAssertion:
    """syrupy's assertion for the schema item ``item``, with this extension: what syrupy's ``snapshot``
    fixture makes, made here so that a schema item costs no fixture, and no copy (``use_extension``).
    ``read``: the text of the item's file as the item read it (``None``: none, or not UTF-8), which
    syrupy then need not read again."""
    option = item.config.option
    location = PyTestLocation(item)

    def made_with(extension_class: type[AbstractSyrupyExtension]) -> SnapshotAssertion:
        return SnapshotAssertion(  # registered with syrupy's session as it is made
            update_snapshots=option.update_snapshots,
            update_new_snapshots_only=option.update_new_snapshots_only,
            extension_class=extension_class,
            test_location=location,
            session=item.config._syrupy,  # type: ignore[attr-defined]  # set at syrupy's session start, as its fixture reads it
        )

    default = _default_extension(option) if with_default else None
    if default is not None:
        # syrupy's own fixture would have registered its default extension too: its report then looks for
        # the project's own unused snapshots (``*.ambr``) beside every collected test file, as it does
        # in a run where no test asserts a snapshot.
        made_with(default)
    made = made_with(ToolSnapshotExtension)
    extension = cast("ToolSnapshotExtension", made.extension)
    # As syrupy reads a text file: universal newlines.
    text = read.replace("\r\n", "\n").replace("\r", "\n") if read is not None else None
    extension.read_already = (os.fspath(item.path), text)
    return made


@functools.lru_cache(maxsize=4096)
def _split(filepath: str) -> tuple[str, str, bool]:
    """An item's absolute path (a schema item's is its snapshot file): its folder, its stem, and whether it is
    a snapshot file. Text, not ``Path``: syrupy asks six times per schema item."""
    folder, name = os.path.split(filepath)
    stem, suffix = os.path.splitext(name)
    return folder, stem, suffix == SUFFIX


def _default_extension(option: Any) -> type[AbstractSyrupyExtension] | None:
    """The extension syrupy's ``snapshot`` fixture uses (``--snapshot-default-extension``), as its report finds it."""
    path = getattr(option, "default_extension", None)
    try:
        found: type[AbstractSyrupyExtension] = import_module_member(path) if path else DEFAULT_EXTENSION
    except FailedToLoadModuleMember:
        return None
    return found


class Serialized(str):
    """A document already serialized (``serialize``), handed to syrupy as is: one serialization per schema item."""


class ToolSnapshotExtension(SingleFileSnapshotExtension):
    """One ``<tool>.json`` file per tool: the schema item's path, chosen by ``_run.paths.snapshot_path``.

    It chooses no path of its own; ``dirname`` and ``get_snapshot_name`` hand the item's to syrupy.
    """

    _write_mode = WriteMode.TEXT
    file_extension = SUFFIX.lstrip(".")

    def serialize(
        self,
        data: SerializableData,
        *,
        exclude: PropertyFilter | None = None,
        include: PropertyFilter | None = None,
        matcher: PropertyMatcher | None = None,
    ) -> SerializedData:
        return str(data) if isinstance(data, Serialized) else serialize(data)

    read_already: tuple[str, str | None] | None = None
    """A file this extension's schema item has read already, and its text (``assertion``)."""

    def read_snapshot_data_from_location(
        self, *, snapshot_location: str, snapshot_name: str, session_id: str
    ) -> SerializableData | None:
        if self.read_already is not None and self.read_already[0] == snapshot_location:
            return self.read_already[1]
        try:
            return super().read_snapshot_data_from_location(
                snapshot_location=snapshot_location, snapshot_name=snapshot_name, session_id=session_id
            )
        except UnicodeDecodeError:
            return None  # no usable snapshot: the item says why, and --snapshot-update rewrites it

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        folder, _stem, snapshot = _split(test_location.filepath)
        if not snapshot:
            # syrupy also asks about every other collected test file; none of them has tool
            # snapshots, so point it at a folder that does not exist rather than the test's own.
            return os.path.join(folder, "__snapshots__", ".no-mcp-contract-snapshots")
        return folder

    @classmethod
    def get_snapshot_name(cls, *, test_location: PyTestLocation, index: SnapshotIndex = 0) -> str:
        return _split(test_location.filepath)[1]

    @classmethod
    def get_location(cls, *, test_location: PyTestLocation, index: SnapshotIndex) -> str:
        # A schema item's path is its file: the folder syrupy is told, and the tool's stem.
        stem = _split(test_location.filepath)[1]
        return os.path.join(cls.dirname(test_location=test_location), stem + SUFFIX)

    @classmethod
    def discovery_dirname(cls, *, test_location: PyTestLocation) -> str:
        return cls.dirname(test_location=test_location)  # a server's folder, whatever its tools are called

    @classmethod
    def matches_test_location(cls, *, test_location: PyTestLocation, snapshot_location: str) -> bool:
        return Path(snapshot_location).resolve() == Path(test_location.filepath).resolve()

    def discover_snapshots(
        self, *, test_location: PyTestLocation, ignore_extensions: list[str] | None = None
    ) -> SnapshotCollections:
        discovered = SnapshotCollections()
        if Path(test_location.filepath).suffix == SUFFIX:
            for path in served().removed_tools(Path(test_location.filepath).parent):
                discovered.add(self.read_snapshot_collection(snapshot_location=str(path)))
        return discovered

    def delete_snapshots(self, *, snapshot_location: str, snapshot_names: set[str]) -> None:
        path = Path(snapshot_location)
        unused = served()
        if path in unused.removed_tools(path.parent):
            try:
                path.unlink()
            except OSError as error:  # told in the summary, and it fails the run (``_plugin.report``)
                unused.undeleted[path] = f"{error.strerror or error} ({type(error).__name__})"
