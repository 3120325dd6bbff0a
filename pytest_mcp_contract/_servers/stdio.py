"""Servers started as a command and spoken to over stdio: ``stdio:python -m weather_service.server``.

The command is split as a POSIX shell would, but no shell runs it. ``_servers.stdio_pipe`` starts it in a
process group of its own; when the connection closes it closes the server's stdin and ends the
group only if the server itself outlives a grace period, so helpers a server left behind are
ended by ``_servers.reaper``. The server's stderr goes to a file of ours, so a failure can show
its last lines and exit code.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import sys
import tempfile
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import anyio

from pytest_mcp_contract._servers import reaper as _reaper
from pytest_mcp_contract._servers.environ import Value, reveal, revealed
from pytest_mcp_contract._servers.kinds import ExternalTarget, Language, TargetError, TargetSettings
from pytest_mcp_contract._servers.stdio_pipe import MAX_LINE, Noise, StdioPipe, size_in_words

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams

PREFIX: Final = "stdio:"
STDERR_LINES: Final = 20
SECTION_LINES: Final = 200
"""At most this many stderr lines under a failing test."""
SECTION_BYTES: Final = 64 * 1024
"""And at most this much of them: a flood of long lines must not flood the report."""
STDERR_FLOOD: Final = 1024 * 1024
"""Stderr written during one call that a timeout's verdict mentions."""


NODE_COMMANDS: Final = frozenset(
    {"node", "nodejs", "npx", "tsx", "ts-node", "bun", "bunx", "deno", "npm", "pnpm", "yarn"}
)
PYTHON_COMMANDS: Final = frozenset({"uv", "uvx", "pipx", "poetry", "hatch", "pdm", "pipenv"})


class StdioError(TargetError):
    """A stdio target or its settings cannot be used; the message is written for the user."""


@dataclass
class StdioTarget(ExternalTarget):
    """A server command, started by each session that connects (what it calls itself is in ``_servers.names``)."""

    spec: str
    command: str
    args: list[str]

    @property
    def language(self) -> Language:
        """What the command runs says (node, npx, tsx...: TypeScript; python, uv...: Python)."""
        program = Path(self.command).name.lower().removesuffix(".exe")
        if program in NODE_COMMANDS:
            return "typescript"
        if program.startswith(("python", "pypy")) or program in PYTHON_COMMANDS:
            return "python"
        return None

    env: dict[str, Value] = field(default_factory=dict)
    """The ini's ``mcp_contract_server_env``; values read from ``${VAR}`` are :class:`Secret`."""
    cwd: Path | None = None
    other_python: str = ""
    """The ``python`` on the PATH, when it is not the interpreter pytest runs on (in a venv)."""

    @property
    def name(self) -> str:
        return Path(self.command).stem

    @property
    def started_here(self) -> bool:
        return True

    @property
    def label(self) -> str:
        return f"the stdio server {self.spec!r}"

    @property
    def stable_key(self) -> str:
        """A name from the command, for a server whose own name changes: the module after ``-m``,
        else the last argument's file name without its suffix (``server`` for ``python server.py``)."""
        if "-m" in self.args[:-1]:
            return self.args[self.args.index("-m") + 1]
        words = [word for word in self.args if not word.startswith("-")]
        return Path(words[-1] if words else self.command).name.rsplit(".", 1)[0] or Path(self.command).stem

    def started_with(self, env: Mapping[str, str]) -> StdioTarget:
        # Each session starts the command: a copy whose environment has ``env`` too starts a fresh one.
        return replace(self, env={**self.env, **env})

    def connect(self, stack: AsyncExitStack) -> StdioConnection:
        """A connection whose stderr file ``stack`` closes."""
        return StdioConnection(self, stack.enter_context(ServerStderr()))


class StdioConnection:
    """One started server process: the transport to it, and what it said on stderr and how it ended."""

    def __init__(self, target: StdioTarget, errlog: ServerStderr) -> None:
        self.target = target
        self.errlog = errlog
        self.pipe: StdioPipe | None = None
        self.process: Any = None
        """The server's process (``pid``, ``returncode``), once started."""

    @asynccontextmanager
    async def transport(self) -> AsyncIterator[TransportStreams]:
        __tracebackhide__ = True  # its locals hold the revealed environment: never shown under -l
        target = self.target
        tag = _reaper.new_tag()
        # The server runs like it would from the user's shell (its venv, PYTHONPATH), plus the ini's env;
        # the tag finds the helpers it starts, even those that leave its process group.
        self.pipe = StdioPipe(target.command, target.args, target.cwd, self.errlog.file)
        pid = None
        try:
            async with self.pipe.streams({**os.environ, **revealed(target.env), _reaper.TAG: tag}) as streams:
                self.process = self.pipe.process
                pid = getattr(self.process, "pid", None)
                if pid is not None:
                    _reaper.started(pid, tag)
                yield streams
        finally:
            self.errlog.keep()  # the process is gone: what it wrote stays readable once the file closes
            if pid is not None:
                # Helpers the server left behind: ended now, without stalling the event loop.
                with anyio.CancelScope(shield=True), anyio.move_on_after(_reaper.GRACE):
                    while _reaper.closed(pid):
                        await anyio.sleep(0.05)
                _reaper.forget_or_kill(pid)

    async def hint(self, error: BaseException | None) -> str:
        """How the server ended, when it closed the connection."""
        from mcp_types import CONNECTION_CLOSED

        from pytest_mcp_contract._sdk.errors import RpcError

        if not (isinstance(error, RpcError) and error.error.code == CONNECTION_CLOSED and self.process is not None):
            return ""
        with anyio.move_on_after(EXIT_WAIT):  # the loop may not have reaped it yet
            while self.process.returncode is None:
                await anyio.sleep(0.01)
        return _ending(self.process.returncode) + _python_hint(self.target)

    def ended(self) -> str:
        returncode = getattr(self.process, "returncode", None)
        return "" if returncode is None else _ended(returncode)

    def stderr(self) -> str:
        return self.errlog.tail()

    @property
    def _noise(self) -> Noise:
        return self.pipe.noise if self.pipe is not None else Noise()

    def mark(self) -> tuple[int, int, int]:
        return self._noise.lines, self._noise.size, self.errlog.size()

    def meanwhile(self, mark: object) -> str:
        """A flood since ``mark``, in words: stray stdout lines, a stdout line without end, heaps of stderr."""
        lines, size, stderr_at = mark if isinstance(mark, tuple) else (0, 0, 0)
        noise = self._noise
        floods = []
        count = noise.lines - lines - (1 if noise.open_line else 0)  # the open line is told apart
        if count > 0:
            stray = size_in_words(noise.size - size - noise.open_line)
            floods.append(
                f"{count:,} line{'s' * (count != 1)} ({stray}) to stdout that "
                f"{'is not an MCP message' if count == 1 else 'are not MCP messages'}"
            )
        if noise.open_line:
            floods.append(
                f"a stdout line of {size_in_words(noise.open_line)} with no end yet, more than the "
                f"{size_in_words(MAX_LINE)} read: no message after it can be read until it ends"
            )
        if self.errlog.size() - stderr_at > STDERR_FLOOD:
            floods.append(f"{size_in_words(self.errlog.size() - stderr_at)} to stderr")
        return f" Meanwhile the server wrote {' and '.join(floods)}." if floods else ""

    @property
    def label(self) -> str:
        return self.target.label

    def stderr_position(self) -> int:
        return self.errlog.size()

    def stderr_since(self, position: int) -> tuple[int, str]:
        end, text = self.errlog.since(position, at_most=SECTION_BYTES)
        lines = text.splitlines()
        if len(lines) > SECTION_LINES or end - position > SECTION_BYTES:
            shown = "\n".join(lines[-SECTION_LINES:])
            return end, f"[{size_in_words(end - position - len(shown.encode()))} earlier left out]\n{shown}"
        return end, "\n".join(lines)


class ServerStderr:
    """A server's stderr, in a file of ours, read by byte offset.

    The server gets a handle of its own, in append mode, and we read through another: our reads
    never move the offset it writes at, so reading never costs it a line. Once the server is gone,
    :meth:`keep` holds the end of what it wrote, for failure reports made after the file is closed.
    """

    KEPT: Final = 64 * 1024
    """Bytes kept once the server is gone, and the most a tail reads: reports show the end."""

    def __init__(self) -> None:
        fd, path = tempfile.mkstemp(prefix="mcp-contract-stderr-")
        self._path = path
        self._reader = os.fdopen(fd, "rb")
        self.file = open(os.open(path, os.O_WRONLY | os.O_APPEND), "wb")  # noqa: SIM115 (closed by __exit__)
        """The server's handle."""
        self._kept: tuple[int, bytes] | None = None
        with contextlib.suppress(OSError):  # POSIX: gone from the folder now, readable while open
            os.unlink(path)

    def __enter__(self) -> ServerStderr:
        return self

    def __exit__(self, *_exc_info: object) -> None:
        self.file.close()
        self._reader.close()
        with contextlib.suppress(OSError):  # Windows keeps an open file's name until it closes
            os.unlink(self._path)

    def size(self) -> int:
        if self._kept is not None:
            return self._kept[0] + len(self._kept[1])
        try:
            return os.fstat(self._reader.fileno()).st_size
        except (OSError, ValueError):
            return 0

    def since(self, position: int, *, at_most: int | None = None) -> tuple[int, str]:
        """Where the file ends now, and its text from ``position`` on (its last ``at_most`` bytes)."""
        end = self.size()
        offset = position if at_most is None else max(position, end - at_most)
        if self._kept is not None:
            start, data = self._kept
            offset = max(offset, start)
            data = data[offset - start :]
        else:
            data = self._read(offset, end)
        return offset + len(data), _text(data, cut=offset > position)

    def tail(self) -> str:
        """The last lines, indented, or a note that the server wrote none."""
        start = max(self.size() - self.KEPT, 0)
        text = self.since(start)[1]
        if start > 0:
            text = text.partition("\n")[2]  # the window's first line is partial
        lines = text.splitlines()[-STDERR_LINES:]
        if not lines:
            return "\nThe server wrote nothing to stderr."
        return "\nThe server's stderr ends with:\n" + "\n".join(f"    {line}" for line in lines)

    def keep(self) -> None:
        end = self.size()
        start = max(end - self.KEPT, 0)
        self._kept = (start, self._read(start, end))

    def _read(self, start: int, end: int) -> bytes:
        if end <= start:
            return b""
        try:
            self._reader.seek(start)
            return self._reader.read(end - start)
        except (OSError, ValueError):
            return b""


def _text(data: bytes, *, cut: bool) -> str:
    """Bytes as text; after a cut, without the partial first line (it may split a character)."""
    if cut:
        data = data.partition(b"\n")[2]
    return data.decode("utf-8", errors="replace")


EXIT_WAIT: Final = 1.0
"""Seconds to wait for a server that closed its stdout to be seen exiting, for its exit code."""


def _ending(code: int | None) -> str:
    if code is None:
        return " The server closed its stdout but is still running."
    return f" The server process {_ended(code)}."


def _ended(code: int) -> str:
    """How a process ended, by its return code: ``exited with code 3``, ``was killed by SIGKILL``."""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with code {code}"


PYTHON: Final = "{python}"
"""A command's first word that stands for the interpreter pytest runs on (``sys.executable``)."""
_PYTHONS: Final = re.compile(r"python(3(\.\d+)?)?")


def _python_hint(target: StdioTarget) -> str:
    if not target.other_python:
        return ""
    rest = shlex.join(target.args)
    return (
        f" {Path(target.other_python).name!r} on the PATH is {target.other_python}, not the interpreter pytest "
        f"runs on ({sys.executable}): if the server needs this environment's packages, write "
        f"stdio:{PYTHON} {rest}."
    )


def stdio_target(spec: str, base_dir: Path, env: Mapping[str, Value], cwd: Path | None) -> StdioTarget:
    """Parse ``stdio:COMMAND ARGS…`` and find the command now, so a typo stops pytest at start-up.

    ``{python}`` as the command is the interpreter pytest runs on.
    """
    try:
        words = shlex.split(spec[len(PREFIX) :])
    except ValueError as error:
        raise StdioError(f"{spec!r} cannot be split into a command and its arguments: {error}.") from None
    if not words:
        raise StdioError(f"{spec!r} names no command; write it as stdio:COMMAND ARGS…")
    command, *args = words
    if command == PYTHON:
        return StdioTarget(spec=spec, command=sys.executable, args=args, env=dict(env), cwd=cwd)
    folder = cwd or base_dir
    path = reveal(env.get("PATH", os.environ.get("PATH", "")))
    found = shutil.which(command, path=path) if os.sep not in command else None
    if found is None and os.sep in command:
        # Not resolve(): a venv's python is a symlink, and only the link's path finds the venv.
        candidate = Path(os.path.abspath(folder / command))
        found = str(candidate) if candidate.is_file() and os.access(candidate, os.X_OK) else None
    if found is None:
        where = f"relative to {folder}" if os.sep in command else "on the PATH"
        use = f"; write stdio:{PYTHON} … for the interpreter pytest runs on" if _PYTHONS.fullmatch(command) else ""
        raise StdioError(f"the command {command!r} of {spec!r} was not found {where}{use}.")
    # In a venv not activated, `python` is another interpreter, without the project's packages.
    in_venv = sys.prefix != sys.base_prefix
    other = in_venv and _PYTHONS.fullmatch(command) is not None and os.path.abspath(found) != sys.executable
    return StdioTarget(spec=spec, command=found, args=args, env=dict(env), cwd=cwd, other_python=found if other else "")


def recognises(spec: str) -> bool:
    """Whether ``spec`` is a command (``_servers.target.KINDS``)."""
    return spec.startswith(PREFIX)


def load(spec: str, base_dir: Path, settings: TargetSettings) -> StdioTarget:
    """A command target, with the ini's ``env`` and ``cwd`` (``_servers.target.KINDS``)."""
    return stdio_target(spec, base_dir, settings.env(), settings.cwd())
