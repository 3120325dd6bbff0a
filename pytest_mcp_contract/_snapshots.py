"""Tool snapshots on disk, through syrupy: one JSON file per tool, named after the tool.

The extension knows where a tool's file lives from the test item's path alone, which the
generated schema item sets to that file. syrupy rebuilds items from just their path and name on
the pytest-xdist controller, so this is what lets unused-snapshot detection and cleanup work
there too.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from pydantic import BaseModel
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

if TYPE_CHECKING:
    from mcp.types import Tool
    from syrupy.location import PyTestLocation
    from syrupy.types import PropertyFilter, PropertyMatcher, SerializableData, SerializedData, SnapshotIndex

FIELDS: Final = ("output_schema", "input_schema", "title", "description", "annotations", "meta")
"""What can be snapshotted; ``output_schema`` always is, the rest on request (ini ``mcp_contract_snapshot_fields``)."""

_SAFE: Final = re.compile(r"[A-Za-z0-9_\-]")
_WINDOWS_RESERVED: Final = re.compile(r"^(con|prn|aux|nul|com[0-9]|lpt[0-9])$", re.IGNORECASE)
_MAX_STEM: Final = 200


def file_stem(tool_name: str) -> str:
    """A file name for a tool's snapshot that is valid everywhere and tells tools apart.

    MCP names are usually ``[A-Za-z0-9._-]``, which stays as it is (a leading dot is encoded, so
    no file is hidden). Anything else is percent-encoded as UTF-8, so ``weather/today`` and
    ``weathertoday`` do not collide; very long names are cut and end with a hash.
    """
    stem = "".join(
        char if _SAFE.match(char) or (char == "." and index) else _percent(char) for index, char in enumerate(tool_name)
    )
    if not stem or _WINDOWS_RESERVED.match(stem):
        stem = "%" + stem.encode().hex() if not stem else stem + "%"
    if len(stem) > _MAX_STEM:
        stem = f"{stem[: _MAX_STEM - 13]}~{hashlib.sha256(tool_name.encode()).hexdigest()[:12]}"
    return stem


def _percent(char: str) -> str:
    return "".join(f"%{byte:02X}" for byte in char.encode())


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
    """Sorted keys (protocol versions order schema keys differently), 2-space indent, non-ASCII kept."""
    return json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


class ToolSnapshotExtension(SingleFileSnapshotExtension):
    """One ``<tool>.json`` file per tool, in the snapshot folder the item's path points into."""

    _write_mode = WriteMode.TEXT
    file_extension = "json"

    def serialize(
        self,
        data: SerializableData,
        *,
        exclude: PropertyFilter | None = None,
        include: PropertyFilter | None = None,
        matcher: PropertyMatcher | None = None,
    ) -> SerializedData:
        return serialize(data)

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        path = Path(test_location.filepath)
        if path.suffix != ".json":
            # syrupy also asks about every other collected test file; none of them has tool
            # snapshots, so point it at a folder that does not exist rather than the test's own.
            return str(path.parent / "__snapshots__" / ".no-mcp-contract-snapshots")
        return str(path.parent)

    @classmethod
    def get_snapshot_name(cls, *, test_location: PyTestLocation, index: SnapshotIndex = 0) -> str:
        return Path(test_location.filepath).stem

    @classmethod
    def matches_test_location(cls, *, test_location: PyTestLocation, snapshot_location: str) -> bool:
        return Path(snapshot_location).resolve() == Path(test_location.filepath).resolve()
