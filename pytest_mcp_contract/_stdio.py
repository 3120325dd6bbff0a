"""Servers started as a command and spoken to over stdio: ``stdio:python -m weather_service.server``.

The command is split as a POSIX shell would, but no shell runs it. The SDK's ``stdio_client``
starts it in a session of its own and ends the whole process tree when the connection closes;
the server's stderr goes to a file of ours, so a failure can show its last lines and exit code.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import tempfile
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO

import anyio

from pytest_mcp_contract import _reaper

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams

PREFIX: Final = "stdio:"
STDERR_LINES: Final = 20
SECTION_LINES: Final = 200
"""At most this many stderr lines under a failing test."""


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

    @property
    def label(self) -> str:
        return f"the stdio server {self.spec!r}"

    def connect(self, stack: AsyncExitStack) -> StdioConnection:
        """A connection whose stderr file ``stack`` closes."""
        errlog = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115 (stack closes it)
        stack.enter_context(errlog)
        return StdioConnection(self, errlog)

    def __str__(self) -> str:
        return self.spec


class StdioConnection:
    """One started server process: the transport to it, and what it said on stderr and how it ended."""

    def __init__(self, target: StdioTarget, errlog: TextIO) -> None:
        self.target = target
        self.errlog = errlog
        self.process: Any = None
        """The SDK's process object (``pid``, ``returncode``), when it can be found."""

    @asynccontextmanager
    async def transport(self) -> AsyncIterator[TransportStreams]:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        # The server runs like it would from the user's shell (its venv, PYTHONPATH), plus the ini's env.
        target = self.target
        parameters = StdioServerParameters(
            command=target.command, args=target.args, env={**os.environ, **target.env}, cwd=target.cwd
        )
        manager = stdio_client(parameters, errlog=self.errlog)
        pid = None
        try:
            async with manager as streams:
                # The SDK keeps its process object to itself; its pid and exit code are worth a look in the frame.
                frame = getattr(getattr(manager, "gen", None), "ag_frame", None)
                self.process = frame.f_locals.get("process") if frame is not None else None
                pid = getattr(self.process, "pid", None)
                if pid is not None:
                    _reaper.started(pid)
                yield streams
        finally:
            if pid is not None:
                _reaper.closed(pid)

    async def hint(self, error: BaseException | None) -> str:
        """How the server ended, when it closed the connection."""
        from mcp.shared.exceptions import MCPError
        from mcp.types import CONNECTION_CLOSED

        if not (isinstance(error, MCPError) and error.error.code == CONNECTION_CLOSED and self.process is not None):
            return ""
        with anyio.move_on_after(EXIT_WAIT):  # the loop may not have reaped it yet
            while self.process.returncode is None:
                await anyio.sleep(0.01)
        return _ending(self.process.returncode)

    def stderr(self) -> str:
        return stderr_tail(self.errlog)

    def stderr_position(self) -> int:
        """Where the server's stderr ends now (a test's share starts there)."""
        try:
            return self.errlog.seek(0, os.SEEK_END)
        except (OSError, ValueError):
            return 0

    def stderr_since(self, position: int) -> str:
        """What the server wrote to stderr since ``position``, its last lines if that is a lot."""
        try:
            self.errlog.seek(position)
            # Read to the end: the server writes at the offset the file shares with it.
            lines = self.errlog.read().splitlines()
        except (OSError, ValueError):
            return ""
        if len(lines) > SECTION_LINES:
            lines = [f"[{len(lines) - SECTION_LINES} earlier lines left out]", *lines[-SECTION_LINES:]]
        return "\n".join(lines)


EXIT_WAIT: Final = 1.0
"""Seconds to wait for a server that closed its stdout to be seen exiting, for its exit code."""


def _ending(code: int | None) -> str:
    if code is None:
        return " The server closed its stdout but is still running."
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f" The server process was killed by {name}."
    return f" The server process exited with code {code}."


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


def stderr_tail(errlog: TextIO) -> str:
    """The server's last stderr lines, indented, or a note that it wrote none."""
    try:
        errlog.flush()
        errlog.seek(0)
        lines = errlog.read().splitlines()[-STDERR_LINES:]
    except (OSError, ValueError):
        return ""
    if not lines:
        return "\nThe server wrote nothing to stderr."
    return "\nThe server's stderr ends with:\n" + "\n".join(f"    {line}" for line in lines)
