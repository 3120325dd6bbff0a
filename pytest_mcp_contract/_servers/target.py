"""Turning a target string into a server: an object in process, a ``stdio:`` command or an ``http(s)://`` URL."""

from __future__ import annotations

import difflib
import importlib
import os
import pkgutil
import sys
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pytest_mcp_contract._errors import McpContractError
from pytest_mcp_contract._servers.http import PREFIXES, HttpError, http_target
from pytest_mcp_contract._servers.kinds import is_server, is_server_class, remember_target
from pytest_mcp_contract._servers.stdio import PREFIX, StdioError, stdio_target

if TYPE_CHECKING:
    from pytest_mcp_contract._servers.environ import Value

GRAMMAR = "'package.module:attr', 'path/to/file.py:attr', 'stdio:COMMAND ARGS…' or 'http://HOST:PORT/PATH'"


TargetKind = Literal["stdio", "http", "in process"]


def target_kind(spec: str) -> TargetKind:
    """The one place that tells a command from a URL from an object to import."""
    spec = spec.strip()
    if spec.startswith(PREFIX):
        return "stdio"
    if spec.lower().startswith(PREFIXES):
        return "http"
    return "in process"


class TargetError(McpContractError):
    """A target that cannot be loaded; the message is written for the user, ready for a UsageError."""


def load_target(
    spec: str,
    base_dir: Path,
    *,
    env: Mapping[str, Value] | None = None,
    cwd: Path | None = None,
    headers: Mapping[str, Value] | None = None,
) -> object:
    """Import the target's module and return its server (calling a factory once, if given one).

    A ``stdio:`` target is a command instead, started when a session opens (``env`` and ``cwd`` apply);
    an ``http(s)://`` target is a streamable-HTTP endpoint (``headers`` apply).
    """
    kind = target_kind(spec)
    try:
        if kind == "stdio":
            return stdio_target(spec.strip(), base_dir, env or {}, cwd)
        if kind == "http":
            return http_target(spec.strip(), dict(headers or {}))
    except (StdioError, HttpError) as error:
        raise TargetError(str(error)) from None
    module_part, colon, attribute = spec.strip().rpartition(":")
    if not colon or not module_part or not attribute:
        raise TargetError(f"{spec!r} is not a target; write it as {GRAMMAR}.")
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
    if is_server(found):
        remember_target(found, spec.strip())
        return found
    # A factory is a function (or a server class); any other class is a mistake, not a factory.
    if callable(found) and not (isinstance(found, type) and not is_server_class(found)):
        try:
            made = found()
        except Exception as error:
            raise TargetError(
                f"calling {attribute}() from {module_part} raised {type(error).__name__}:\n"
                f"{_user_traceback(error)}\n{_servers_in(module).strip()}"
            ) from None
        if is_server(made):
            remember_target(made, spec.strip())
            return made
        raise TargetError(
            f"{attribute}() from {module_part} returned {_describe(made)}, not an MCPServer, a low-level "
            "mcp.server.Server or a FastMCP server. Make it return the server object."
        )
    what = f"the class {found.__qualname__}" if isinstance(found, type) else _describe(found)
    raise TargetError(
        f"{attribute} in {module_part} is {what}, not an MCPServer, a low-level mcp.server.Server, a FastMCP "
        f"server or a zero-argument callable returning one.{_servers_in(module)}"
    )


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
    """The traceback of the user's own code: import machinery and this module left out."""
    machinery = (os.path.dirname(importlib.__file__), __file__)
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if not frame.filename.startswith(("<frozen", *machinery))
    ]
    lines = traceback.format_list(frames) + traceback.format_exception_only(type(error), error)
    return "".join(lines).rstrip()


def _describe(value: object) -> str:
    kind = type(value)
    name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    return f"{'an' if name[0].lower() in 'aeiou' else 'a'} {name}"


def _servers_in(module: Any) -> str:
    names = sorted(name for name, value in vars(module).items() if is_server(value))
    return f" Servers found in it: {', '.join(names)}." if names else ""
