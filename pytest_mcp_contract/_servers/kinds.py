"""What kind of server a target is, and what the plugin calls it: in process, a command, a URL.

One place decides whether an object is a server, which name its snapshots are filed under and how
failure messages name it; ``Connection`` is what a started command or an open URL offers a session.
"""

from __future__ import annotations

import contextlib
import re
import weakref
from contextlib import AbstractAsyncContextManager
from pathlib import PurePath
from typing import TYPE_CHECKING, Final, Protocol

from pytest_mcp_contract._sdk.release import MAJOR
from pytest_mcp_contract._sdk.servers import HighLevelServer, LowLevelServer
from pytest_mcp_contract._servers.http import HttpTarget
from pytest_mcp_contract._servers.stdio import StdioTarget

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams

EXTERNAL: Final = (StdioTarget, HttpTarget)
"""Servers outside this process: started as a command, or behind a URL."""


class Connection(Protocol):
    """One connection to a server outside this process (``_servers.stdio``, ``_servers.http``)."""

    def transport(self) -> AbstractAsyncContextManager[TransportStreams]: ...

    async def hint(self, error: BaseException | None) -> str:
        """What the connection knows that ``error`` does not (exit code, HTTP status), with the next step."""
        ...

    def ended(self) -> str:
        """How the server's process ended (``exited with code 3``), once it has and it is ours; else ``""``."""
        ...

    def stderr(self) -> str:
        """The server's last stderr lines, for a failure message ("" when there is no stderr to show)."""
        ...

    def stderr_position(self) -> int:
        """Where the server's stderr ends now."""
        ...

    def stderr_since(self, position: int) -> tuple[int, str]:
        """Where stderr ends now, and what the server wrote since ``position`` (for a failing test's report)."""
        ...

    def mark(self) -> object:
        """Where the server's output stands now, for :meth:`meanwhile`."""
        ...

    def meanwhile(self, mark: object) -> str:
        """What the connection met since ``mark`` that a verdict should name (a flood of output, an
        HTTP error status), as a sentence, or ``""``."""
        ...

    @property
    def label(self) -> str:
        """The server, as failure messages name it."""
        ...


def is_server(candidate: object) -> bool:
    """Whether ``candidate`` is a server the plugin can connect to: in process, a command or a URL."""
    return isinstance(candidate, HighLevelServer | LowLevelServer | StdioTarget | HttpTarget) or _is_fastmcp(
        type(candidate)
    )


def is_server_class(candidate: type) -> bool:
    return issubclass(candidate, HighLevelServer | LowLevelServer) or _is_fastmcp(candidate)


def _is_fastmcp(kind: type) -> bool:
    # FastMCP is a package of its own, not a dependency: recognised by name, never imported.
    return any(cls.__module__.partition(".")[0] == "fastmcp" and cls.__name__ == "FastMCP" for cls in kind.__mro__)


def connectable(server: object) -> object:
    """What the SDK's client connects to in process: a FastMCP server's own low-level server (a
    ``mcp.server.Server``), since the client does not take a FastMCP object (nor, in mcp 1.x, the
    SDK's own high-level server); else the server itself."""
    wrapped = _is_fastmcp(type(server)) or (MAJOR < 2 and isinstance(server, HighLevelServer))
    inner = getattr(server, "_mcp_server", None) if wrapped else None
    return inner if isinstance(inner, LowLevelServer) else server


def own_name(server: object) -> str:
    """The name a server gives itself (``MCPServer("weather")`` is ``weather``), else its type's."""
    return str(getattr(server, "name", "") or type(server).__name__)


def server_name(server: object) -> str:
    """The name snapshots, fuzz records and the report file a server under: its own name, unless that
    name changes from process to process (then a folder per run would pile up); then its target."""
    name = own_name(server)
    return stable_key(server) if name_changes(server, name) else name


_GENERATED: Final = r"(?:-.+)?-[0-9a-f]{4}"
"""What FastMCP appends to its class name for a server given no name (``FastMCP-3f2a``): new every process."""


def name_changes(server: object, name: str) -> bool:
    """Whether ``name`` differs between processes: FastMCP's made-up name, or two sessions told two names."""
    if isinstance(server, EXTERNAL):
        return server.name_changes or re.fullmatch(f"FastMCP{_GENERATED}", name) is not None
    kind = type(server)
    return _is_fastmcp(kind) and re.fullmatch(re.escape(kind.__name__) + _GENERATED, name) is not None


_TARGETS: weakref.WeakKeyDictionary[object, str] = weakref.WeakKeyDictionary()
"""The target string each in-process server was loaded from."""


def remember_target(server: object, spec: str) -> None:
    with contextlib.suppress(TypeError):  # a server that takes no weak reference keeps its type's name
        _TARGETS[server] = spec


def stable_key(server: object) -> str:
    """A name from how the project points at the server, the same whichever way it runs: ``server`` for
    ``weather/server.py:mcp`` and ``stdio:python weather/server.py``, ``weather.server`` for
    ``weather.server:mcp`` and ``stdio:python -m weather.server`` (the URL's parts for an endpoint)."""
    if isinstance(server, EXTERNAL):
        return server.stable_key
    spec = _TARGETS.get(server)
    if spec is None:
        return type(server).__name__
    module = spec.rpartition(":")[0]
    return PurePath(module).stem if module.endswith(".py") else module


def server_label(server: object) -> str:
    if isinstance(server, EXTERNAL):
        return server.label
    name = getattr(server, "name", None)
    return f"{type(server).__name__} {name!r}" if name else type(server).__name__
