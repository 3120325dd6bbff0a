"""Servers started as a command and spoken to over stdio: ``stdio:python -m weather_service.server``.

The command is split as a POSIX shell would, but no shell runs it. The SDK's ``stdio_client``
starts it in a session of its own and ends the whole process tree when the connection closes;
the server's stderr goes to a file of ours, so a failure can show its last lines.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final, TextIO

if TYPE_CHECKING:
    from mcp.client._transport import Transport

PREFIX: Final = "stdio:"
STDERR_LINES: Final = 20


class StdioError(Exception):
    """A stdio target or its settings cannot be used; the message is written for the user."""


@dataclass
class StdioTarget:
    """A server command; ``name`` is what the server calls itself, once a session has told us."""

    spec: str
    command: str
    args: list[str]
    env: dict[str, str] = field(default_factory=dict)
    cwd: Path | None = None
    reported_name: str = ""

    @property
    def name(self) -> str:
        return self.reported_name or Path(self.command).stem

    def transport(self, errlog: TextIO) -> Transport:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        # The server runs like it would from the user's shell (its venv, PYTHONPATH), plus the ini's env.
        parameters = StdioServerParameters(
            command=self.command, args=self.args, env={**os.environ, **self.env}, cwd=self.cwd
        )
        return stdio_client(parameters, errlog=errlog)

    def __str__(self) -> str:
        return self.spec


def stdio_target(spec: str, base_dir: Path, env: Mapping[str, str], cwd: Path | None) -> StdioTarget:
    """Parse ``stdio:COMMAND ARGS…`` and find the command now, so a typo stops pytest at start-up."""
    try:
        words = shlex.split(spec[len(PREFIX) :])
    except ValueError as error:
        raise StdioError(f"{spec!r} cannot be split into a command and its arguments: {error}.") from None
    if not words:
        raise StdioError(f"{spec!r} names no command; write it as stdio:COMMAND ARGS…")
    command, *args = words
    folder = cwd or base_dir
    path = env.get("PATH", os.environ.get("PATH", ""))
    found = shutil.which(command, path=path) if os.sep not in command else None
    if found is None and os.sep in command:
        # Not resolve(): a venv's python is a symlink, and only the link's path finds the venv.
        candidate = Path(os.path.abspath(folder / command))
        found = str(candidate) if candidate.is_file() and os.access(candidate, os.X_OK) else None
    if found is None:
        where = f"relative to {folder}" if os.sep in command else "on the PATH"
        raise StdioError(f"the command {command!r} of {spec!r} was not found {where}.")
    return StdioTarget(spec=spec, command=found, args=args, env=dict(env), cwd=cwd)


_VARIABLE: Final = re.compile(r"\$\{(\w+)\}")


def environment(lines: Iterable[str], setting: str) -> dict[str, str]:
    """``NAME=value`` lines with ``${VAR}`` taken from the environment (a token never sits in the repo)."""
    values: dict[str, str] = {}
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            continue
        name, equals, value = line.partition("=")
        if not equals or not name.strip().isidentifier():
            raise StdioError(f"{setting} line {number} ({line!r}) is not NAME=value.")
        missing = [variable for variable in _VARIABLE.findall(value) if variable not in os.environ]
        if missing:
            raise StdioError(
                f"{setting} line {number} ({line!r}) uses ${{{missing[0]}}}, which is not set in the environment. "
                f"Set {missing[0]} before running pytest."
            )
        values[name.strip()] = _VARIABLE.sub(lambda match: os.environ[match.group(1)], value.strip())
    return values


def stderr_tail(errlog: TextIO | None) -> str:
    """The server's last stderr lines, indented, or a note that it wrote none."""
    if errlog is None:
        return ""
    try:
        errlog.flush()
        errlog.seek(0)
        lines = errlog.read().splitlines()[-STDERR_LINES:]
    except (OSError, ValueError):
        return ""
    if not lines:
        return "\nThe server wrote nothing to stderr."
    return "\nThe server's stderr ends with:\n" + "\n".join(f"    {line}" for line in lines)
