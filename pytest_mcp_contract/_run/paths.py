"""Where a run's files go: a server's snapshot folder, a tool's file name, how a path is shown.

A snapshot's path is ``<mcp_contract_snapshot_dir>/<server folder>/<tool stem>.json``: the folder
comes from :func:`server_folder` (named from the run's record of server names, ``_servers.names``),
the stem from :func:`file_stem`, the whole from :func:`snapshot_path`.
Fuzz records are filed under the same stems.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import pytest

    from pytest_mcp_contract._servers.names import ServerNames

SUFFIX: Final = ".json"
"""Every snapshot file's suffix."""


def snapshot_path(folder: Path, tool_name: str) -> Path:
    """The file a tool's snapshot lives in, in its server's folder (:func:`server_folder`)."""
    return folder / f"{file_stem(tool_name)}{SUFFIX}"


def server_folder(base: Path, server: object, names: ServerNames) -> Path:
    """Each server's snapshots in a folder of their own, named after the server: for one outside this
    process, by what the run's record ``names`` says it called itself."""
    from pytest_mcp_contract._servers.kinds import server_name

    return base / file_stem(server_name(server, names))


_SAFE: Final = re.compile(r"[A-Za-z0-9_\-]")
_WINDOWS_RESERVED: Final = re.compile(r"^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$", re.IGNORECASE)
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
    if not stem:
        stem = "%"
    elif _WINDOWS_RESERVED.match(stem):
        stem = _percent(stem[0]) + stem[1:]  # "con" and "nul.x" are not file names on Windows
    if len(stem) > _MAX_STEM:
        stem = f"{stem[: _MAX_STEM - 13]}~{hashlib.sha256(tool_name.encode()).hexdigest()[:12]}"
    return stem


def _percent(char: str) -> str:
    return "".join(f"%{byte:02X}" for byte in char.encode())


def shown_path(path: Path, config: pytest.Config) -> str:
    """A file as messages show it: relative to pytest's rootdir when it lies inside."""
    return str(path.relative_to(config.rootpath)) if path.is_relative_to(config.rootpath) else str(path)
