"""What a target is to the rest of the plugin, whatever its kind, and what the plugin calls it.

:class:`Target` is everything the plugin asks of a server: its label, its stable key, whether it is
outside this process or a process the plugin starts, how to connect. A transport's target (a
command, a URL) is an :class:`ExternalTarget`; a server object in process is adapted by
:class:`InProcess`. :func:`as_target` gives either, so no caller asks which kind a server is.
``Connection`` is what a started command or an open URL offers a session.
"""

from __future__ import annotations

import contextlib
import re
import weakref
from abc import ABC, abstractmethod
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Final, Literal, Protocol

from pytest_mcp_contract._errors import McpContractError
from pytest_mcp_contract._sdk.release import MAJOR
from pytest_mcp_contract._sdk.servers import HighLevelServer, LowLevelServer
from pytest_mcp_contract._servers.causes import Causes, causes_of, marked_call

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from contextlib import AsyncExitStack
    from pathlib import Path

    from mcp.client._transport import TransportStreams

    from pytest_mcp_contract._servers.environ import Value
    from pytest_mcp_contract._servers.lifespans import Lifespans
    from pytest_mcp_contract._servers.names import ServerNames


Language = Literal["python", "typescript"] | None
"""A server's language, where its target tells (``Target.language``)."""


class TargetError(McpContractError):
    """A target that cannot be loaded; the message is written for the user, ready for a UsageError."""


class TargetSettings(Protocol):
    """The settings a kind of target may read (``_servers.target.KINDS``). Each is read only when a
    loader asks, so a run never stops on a setting of another kind; a bad one raises ``SettingError``."""

    def env(self) -> Mapping[str, Value]:
        """The environment a started command gets beside ours (ini ``mcp_contract_server_env``)."""
        ...

    def cwd(self) -> Path | None:
        """The folder a started command runs in (ini ``mcp_contract_server_cwd``), or ``None``: ours."""
        ...

    def headers(self) -> Mapping[str, Value]:
        """The headers of every HTTP request (ini ``mcp_contract_headers``)."""
        ...

    def lifespans(self) -> Lifespans:
        """What the run keeps open for the servers a factory made (an async factory's loop, the
        lifespans entered), closed when the run ends."""
        ...


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


class Target(Protocol):
    """What the plugin asks of a server of any kind (see :func:`as_target`)."""

    @property
    def label(self) -> str:
        """The server, as failure messages name it (``the stdio server 'stdio:…'``, ``MCPServer 'weather'``)."""
        ...

    @property
    def stable_key(self) -> str:
        """A name from how the project points at the server, the same whichever way it runs (see :func:`stable_key`)."""
        ...

    @property
    def name(self) -> str:
        """What the server is called before any session told its name (in process, its own name)."""
        ...

    @property
    def external(self) -> bool:
        """Whether the server is outside this process: its name is learnt from a session, its errors are
        the transport's, and a connection carries its stderr or HTTP status."""
        ...

    @property
    def started_here(self) -> bool:
        """Whether each session starts the server's process (a command), which a new session starts again."""
        ...

    @property
    def sdk_server(self) -> object:
        """What the SDK's client is given as the server (the object it connects to in process)."""
        ...

    def made_up(self, name: str) -> bool:
        """Whether ``name`` is one the server makes up anew in every process (FastMCP's ``FastMCP-3f2a``)."""
        ...

    def connect(self, stack: AsyncExitStack) -> Connection | None:
        """A connection whose resources ``stack`` closes, or ``None`` in process (the SDK connects itself)."""
        ...

    @property
    def causes(self) -> Causes | None:
        """Where the server's crashes are read from its log (an ``MCPServer`` in process); ``None``: the
        wire says all there is."""
        ...

    def own_call(self) -> AbstractContextManager[object]:
        """Marks a call the plugin's own session makes, inside: a watch on the server's other clients
        passes it by, and its crash's cause is kept under the key it gives (in process)."""
        ...

    @property
    def language(self) -> Language:
        """The language the server is written in, as far as its target tells, for advice in its terms
        (in process, Python; over stdio, what the command runs; a URL does not tell)."""
        ...

    def started_with(self, env: Mapping[str, str]) -> object | None:
        """The same server started anew with ``env`` beside its own environment (a sandbox's fresh
        server), or ``None``: this kind cannot start one (a URL, an object in process)."""
        ...


_GENERATED: Final = r"(?:-.+)?-[0-9a-f]{4}"
"""What FastMCP appends to its class name for a server given no name (``FastMCP-3f2a``): new every process."""


class ExternalTarget(ABC):
    """A server outside this process, as a transport's module loads it (``_servers.stdio``, ``_servers.http``)."""

    spec: str
    """The target string as the user wrote it."""

    @property
    def external(self) -> bool:
        return True

    @property
    def started_here(self) -> bool:
        return False

    @property
    def sdk_server(self) -> object:
        return self  # the SDK is given a transport instead; this object only stands for the server

    def made_up(self, name: str) -> bool:
        return re.fullmatch(f"FastMCP{_GENERATED}", name) is not None

    @property
    @abstractmethod
    def label(self) -> str: ...

    @property
    @abstractmethod
    def stable_key(self) -> str: ...

    @property
    @abstractmethod
    def name(self) -> str: ...

    @abstractmethod
    def connect(self, stack: AsyncExitStack) -> Connection | None: ...

    @property
    def causes(self) -> Causes | None:
        return None  # its crashes are told on its wire, or in its stderr

    def own_call(self) -> AbstractContextManager[object]:
        return contextlib.nullcontext(None)  # no one else's calls to it are watched here

    @property
    def language(self) -> Language:
        return None

    def started_with(self, env: Mapping[str, str]) -> object | None:
        return None  # a server that runs elsewhere: a new session reaches the same one

    def __str__(self) -> str:
        return self.spec


@dataclass(frozen=True)
class InProcess:
    """A server object in this process (``MCPServer``, a low-level ``Server``, FastMCP), seen as a :class:`Target`."""

    server: object

    @property
    def label(self) -> str:
        name = getattr(self.server, "name", None)
        return f"{type(self.server).__name__} {name!r}" if name else type(self.server).__name__

    @property
    def stable_key(self) -> str:
        spec = _TARGETS.get(self.server)
        if spec is None:
            return type(self.server).__name__
        module = spec.rpartition(":")[0]
        return PurePath(module).stem if module.endswith(".py") else module

    @property
    def name(self) -> str:
        return str(getattr(self.server, "name", "") or type(self.server).__name__)

    @property
    def external(self) -> bool:
        return False

    @property
    def started_here(self) -> bool:
        return False

    @property
    def sdk_server(self) -> object:
        return connectable(self.server)

    def made_up(self, name: str) -> bool:
        kind = type(self.server)
        return _is_fastmcp(kind) and re.fullmatch(re.escape(kind.__name__) + _GENERATED, name) is not None

    def connect(self, stack: AsyncExitStack) -> Connection | None:
        return None

    @property
    def causes(self) -> Causes | None:
        return causes_of(self.server)

    def own_call(self) -> AbstractContextManager[object]:
        return marked_call()

    @property
    def language(self) -> Language:
        return "python"

    def started_with(self, env: Mapping[str, str]) -> object | None:
        return None  # one object: a factory's is made again through remade()


def as_target(server: object) -> Target:
    """``server`` as a :class:`Target`: a transport's target as it is, an object in process adapted."""
    return server if isinstance(server, ExternalTarget) else InProcess(server)


def is_server(candidate: object) -> bool:
    """Whether ``candidate`` is a server the plugin can connect to: in process, a command or a URL."""
    return isinstance(candidate, HighLevelServer | LowLevelServer | ExternalTarget) or _is_fastmcp(type(candidate))


def server_attributes(value: object) -> list[str]:
    """The attributes of ``value`` that hold a server (an app object whose ``.mcp`` is the server), read
    from its own and its class's namespace: no property is run to find them."""
    owners = [*reversed(value.__mro__)] if isinstance(value, type) else [*reversed(type(value).__mro__), value]
    found: dict[str, object] = {}
    for owner in owners:  # a class's own attributes, its bases', and then the instance's, which win
        found.update(vars(owner) if hasattr(owner, "__dict__") else {})
    return sorted(name for name, held in found.items() if not name.startswith("__") and is_server(held))


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


def own_name(server: object, names: ServerNames | None = None) -> str:
    """The name a server gives itself (``MCPServer("weather")`` is ``weather``; outside this process,
    the first name a session was told this run, in ``names``), else what its target calls it."""
    told = names.first(server) if names is not None else ""
    return told or as_target(server).name


def server_name(server: object, names: ServerNames | None = None) -> str:
    """The name snapshots, fuzz records and the report file a server under: its own name, unless that
    name changes from process to process (then a folder per run would pile up); then its target."""
    name = own_name(server, names)
    return stable_key(server) if name_changes(server, name, names) else name


def name_changes(server: object, name: str, names: ServerNames | None = None) -> bool:
    """Whether ``name`` differs between processes: a made-up name, or two sessions told two names (``names``)."""
    return (names is not None and names.changes(server)) or as_target(server).made_up(name)


_TARGETS: weakref.WeakKeyDictionary[object, str] = weakref.WeakKeyDictionary()
"""The target string each in-process server was loaded from."""
_REMAKES: weakref.WeakKeyDictionary[object, Callable[[Lifespans], object]] = weakref.WeakKeyDictionary()
"""How each server a factory made is made again (``_servers.sandbox``), its lifespans kept in the given ones."""


def remember_remake(server: object, remake: Callable[[Lifespans], object]) -> None:
    with contextlib.suppress(TypeError):  # a server that takes no weak reference is never made again
        _REMAKES[server] = remake


def remade(server: object) -> Callable[[Lifespans], object] | None:
    """How a factory's server is made again (a new call of its factory), or ``None``: not a factory's."""
    try:
        return _REMAKES.get(server)
    except TypeError:
        return None


def remember_target(server: object, spec: str) -> None:
    with contextlib.suppress(TypeError):  # a server that takes no weak reference keeps its type's name
        _TARGETS[server] = spec


def stable_key(server: object) -> str:
    """A name from how the project points at the server, the same whichever way it runs: ``server`` for
    ``weather/server.py:mcp`` and ``stdio:python weather/server.py``, ``weather.server`` for
    ``weather.server:mcp`` and ``stdio:python -m weather.server`` (the URL's parts for an endpoint)."""
    return as_target(server).stable_key


def server_label(server: object) -> str:
    return as_target(server).label
