"""Turning a target string into a server: one table of kinds, each a row naming who recognises the
string and who loads it (an object in process, a ``stdio:`` command, an ``http(s)://`` URL).

The table is the one place a target's kind is decided: ``_run.settings`` loads through it, and a new
transport is a module of its own (its target an ``ExternalTarget``, with ``recognises`` and ``load``)
plus a row in :data:`KINDS`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import difflib
import importlib
import inspect
import os
import pkgutil
import re
import sys
import traceback
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import anyio

from pytest_mcp_contract._messages import article
from pytest_mcp_contract._servers import factory, http, lifespans, stdio
from pytest_mcp_contract._servers.kinds import (
    TargetError,
    TargetSettings,
    is_server,
    is_server_class,
    remember_remake,
    remember_target,
    server_attributes,
)
from pytest_mcp_contract._servers.lifespans import Lifespans

if TYPE_CHECKING:
    from pytest_mcp_contract._servers.environ import Value

__all__ = ["GRAMMAR", "KINDS", "GivenSettings", "Kind", "TargetError", "load_target", "target_kind"]

GRAMMAR = (
    "'package.module:attr', 'path/to/file.py:attr', a factory call 'package.module:create_server(ARGS…)', "
    "'stdio:COMMAND ARGS…' or 'http://HOST:PORT/PATH'"
)


@dataclass(frozen=True)
class Kind:
    """A row of :data:`KINDS`: a kind of target, who recognises its string and who loads it."""

    name: str
    recognises: Callable[[str], bool]
    """Whether a (stripped) target string is of this kind."""
    load: Callable[[str, Path, TargetSettings], object]
    """The server, from the stripped string, the folder relative paths start from and the settings;
    raises :class:`TargetError` (or ``SettingError`` for a bad setting) saying what to write instead."""


_SCHEME: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def _other_scheme(spec: str) -> bool:
    return _SCHEME.match(spec) is not None


def _refuse_scheme(spec: str, base_dir: Path, settings: TargetSettings) -> object:
    scheme = spec.partition("://")[0]
    raise TargetError(
        f"{spec!r} names the scheme {scheme}://, which is no transport of pytest-mcp-contract; write the target "
        f"as {GRAMMAR} (a streamable-HTTP endpoint is an http:// or https:// URL)."
    )


def _load_object(spec: str, base_dir: Path, settings: TargetSettings) -> object:
    """Import the target's module and return its server: an object, or what a factory makes, called
    with the target's literal arguments (``pkg.server:serve(repository='.')``) or none."""
    module_part, attribute, call_text = factory.split(spec)
    if not module_part or not attribute.strip():
        raise TargetError(f"{spec!r} is not a target; write it as {GRAMMAR}.")
    call = factory.parse(attribute, call_text) if call_text else None
    attribute = attribute.strip()
    module = _import(module_part, base_dir)
    found: Any = module
    for index, part in enumerate(attribute.split(".")):
        try:
            found = getattr(found, part)
        except AttributeError:
            owner = module_part if index == 0 else ".".join([module_part, *attribute.split(".")[:index]])
            raise TargetError(
                f"{owner} has no attribute {part!r}.{_servers_in(module)}"
                f" Point the target at the server object, as {GRAMMAR}."
            ) from None
    if call is not None:
        if not callable(found):
            raise TargetError(
                f"{attribute} in {module_part} is {_describe(found)}, which cannot be called; point the "
                f"target at the function that makes the server, or at the server itself.{_servers_in(module)}"
            )
        return _made(found, call, module_part, settings.lifespans())
    if is_server(found):
        remember_target(found, spec)
        return found
    # A factory is a function (or a server class); any other class is a mistake, not a factory.
    if callable(found) and not (isinstance(found, type) and not is_server_class(found)):
        return _made(found, factory.Call(f"{attribute}()", attribute), module_part, settings.lifespans())
    what = f"the class {found.__qualname__}" if isinstance(found, type) else _describe(found)
    held = server_attributes(found)
    raise TargetError(
        f"{attribute} in {module_part} is {what}, not an MCPServer, a low-level mcp.server.Server, a FastMCP "
        f"server or a zero-argument callable returning one."
        + (_held(held, f"{module_part}:{attribute}") if held else _servers_in(module))
    )


def _held(names: list[str], written: str) -> str:
    """The next step for an object that holds a server in an attribute: the target that names it."""
    shown = " and ".join(repr(name) for name in names)
    verb = "holds" if len(names) == 1 else "hold"
    return f" Its attribute {shown} {verb} one: name it in the target, {written}.{names[0]}"


SERVER_KINDS: Final = "an MCPServer, a low-level mcp.server.Server or a FastMCP server"


def _made(found: Callable[..., object], call: factory.Call, module_part: str, lifespans: Lifespans) -> object:
    """The server ``call`` of ``found`` makes: what it returns, awaited if it is a coroutine (on the run's
    loop), entered for the run if it is an async context manager (a server with a lifespan)."""
    shown = f"{call.text} from {module_part}"
    step = "calling"
    try:
        made = found(*call.args, **call.kwargs)
        if inspect.isawaitable(made):
            step = "awaiting"
            made = lifespans.run(made)
        gave = "returned"
        if not is_server(call.follow(made)) and isinstance(made, AbstractAsyncContextManager):
            step, gave = "entering what", "returned an async context manager that gave"
            made = lifespans.enter(made, shown, lambda entered: is_server(call.follow(entered)))
    except Exception as error:
        doing = f"entering what {shown} returned (its lifespan)" if step == "entering what" else f"{step} {shown}"
        raise TargetError(f"{doing} raised {type(error).__name__}:\n{_user_traceback(error)}") from None
    try:
        server = call.follow(made)
    except Exception as error:  # a property that raises: the author's code, told as a factory's failure is
        read = ".".join(call.attributes)
        raise TargetError(
            f"reading .{read} of what {shown} {gave} raised {type(error).__name__}:\n{_user_traceback(error)}"
        ) from None
    if not is_server(server):
        read = ".".join(call.attributes)
        what = "yield" if gave != "returned" else "return"
        sync = isinstance(made, contextlib.AbstractContextManager) and not isinstance(made, AbstractAsyncContextManager)
        entered = " (only an async context manager is entered: make it an @asynccontextmanager)" if sync else ""
        whose = f", whose .{read} is {'nothing' if server is None else _describe(server)}," if read else ","
        held = server_attributes(made)
        step = "Name the attribute that holds the server." if read else f"Make it {what} the server object{entered}."
        written = f"{module_part}:{call.text.removesuffix('.' + read) if read else call.text}"
        raise TargetError(
            f"{shown} {gave} {_describe(made)}{whose} not {SERVER_KINDS}. "
            + (_held(held, written).lstrip() if held else step)
        )
    remember_target(server, f"{module_part}:{call.name}")  # the snapshot folder's stable key: the module
    remember_remake(server, lambda again: _made(found, call, module_part, again))  # a sandbox's fresh server
    return server


KINDS: Final[tuple[Kind, ...]] = (
    Kind("stdio", stdio.recognises, stdio.load),
    Kind("http", http.recognises, http.load),
    Kind("unknown transport", _other_scheme, _refuse_scheme),  # ws://, sse://…: never taken for a file path
    Kind("in process", lambda _spec: True, _load_object),  # last: whatever no transport claims
)
"""Every kind of target, tried in order: the first row that recognises a target string loads it."""


def target_kind(spec: str) -> Kind:
    """The row of :data:`KINDS` that ``spec`` is of: the one place that tells a command from a URL from an object."""
    spec = spec.strip()
    return next(kind for kind in KINDS if kind.recognises(spec))


@dataclass(frozen=True)
class GivenSettings:
    """Target settings given as values (a script, a test), for :func:`load_target`."""

    given_env: Mapping[str, Value] = field(default_factory=dict)
    given_cwd: Path | None = None
    given_headers: Mapping[str, Value] = field(default_factory=dict)
    given_lifespans: Lifespans = field(default_factory=Lifespans)
    """What a factory's server keeps open; the caller closes it when done with the server."""

    def env(self) -> Mapping[str, Value]:
        return self.given_env

    def cwd(self) -> Path | None:
        return self.given_cwd

    def headers(self) -> Mapping[str, Value]:
        return self.given_headers

    def lifespans(self) -> Lifespans:
        return self.given_lifespans


def load_target(spec: str, base_dir: Path, settings: TargetSettings | None = None) -> object:
    """The server ``spec`` names, loaded by its row of :data:`KINDS`.

    A ``stdio:`` target is a command, started when a session opens (``settings.env()`` and ``cwd()``
    apply); an ``http(s)://`` target is a streamable-HTTP endpoint (``settings.headers()`` apply);
    anything else is an object to import. Raises :class:`TargetError` saying what to write instead.
    """
    spec = spec.strip()
    return target_kind(spec).load(spec, base_dir, settings if settings is not None else GivenSettings())


def _import(module_part: str, base_dir: Path) -> Any:
    if module_part.endswith(".py") or "/" in module_part or "\\" in module_part:
        path = (base_dir / module_part).resolve()
        if not path.is_file():
            raise TargetError(f"the file {module_part!r} does not exist (looked for {path}).")
        name, root = _module_name(path)
        if str(root) not in sys.path:
            sys.path.insert(0, str(root))
    else:
        name = module_part
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name is not None and (name == error.name or name.startswith(error.name + ".")):
            raise TargetError(
                f"no module named {error.name!r}{_sibling_meant(error.name) or '.'} If the server lives in this "
                "repository, add its folder "
                'to sys.path with the ini option pythonpath (e.g. pythonpath = ["src"]), or install the '
                "package into this environment."
            ) from None
        raise TargetError(f"importing {name} failed:\n{_user_traceback(error)}") from None
    except BaseException as error:
        if isinstance(error, KeyboardInterrupt):
            raise
        raise TargetError(f"importing {name} raised {type(error).__name__}:\n{_user_traceback(error)}") from None


def _sibling_meant(missing: str) -> str:
    """For ``pkg.sever`` when ``pkg`` imported: ``: did you mean 'pkg.server' (in FOLDER)?``, naming
    the folder, since an installed copy of ``pkg`` may shadow the one in the repository; or ``""``."""
    parent, _, last = missing.rpartition(".")
    package = sys.modules.get(parent)  # importing pkg.sever imported pkg first, if it could
    folders = list(getattr(package, "__path__", None) or [])
    try:
        names = [found.name for found in pkgutil.iter_modules(folders)]
    except OSError:
        return ""
    close = difflib.get_close_matches(last, names, n=1)
    return f": did you mean '{parent}.{close[0]}' (in {folders[0]})?" if close else ""


def _module_name(path: Path) -> tuple[str, Path]:
    """The dotted name of a file inside its packages, and the folder that must be on sys.path.

    The file is imported under the same name the user's tests import it by, so there is one
    server object, not two copies with separate state.
    """
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts), folder


def _user_traceback(error: BaseException) -> str:
    """The traceback of the user's own code: import machinery, the event loop an async factory ran on,
    and this package's modules left out."""
    machinery = (
        *(os.path.dirname(package.__file__ or "") for package in (importlib, asyncio, concurrent.futures, anyio)),
        contextlib.__file__,
        __file__,
        lifespans.__file__,
    )
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if not frame.filename.startswith(("<frozen", *machinery))
    ]
    lines = traceback.format_list(frames) + traceback.format_exception_only(type(error), error)
    return "".join(lines).rstrip()


def _describe(value: object) -> str:
    kind = type(value)
    return article(kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}")


def _servers_in(module: Any) -> str:
    names = sorted(name for name, value in vars(module).items() if is_server(value))
    return f" Servers found in it: {', '.join(names)}." if names else ""
