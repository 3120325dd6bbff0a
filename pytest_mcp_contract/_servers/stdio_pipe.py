"""A server command started, and its stdin and stdout as the session's message streams: the stdio transport.

Ours, not the SDK's ``stdio_client``, because a contract checker must read what a client cannot.
The SDK's reader ends the whole connection at the first byte that is not UTF-8, holds a line of any
length in memory and logs a traceback for each line that is not JSON; a request whose answer it
could not read waits for its timeout. Here each line is read as bytes, at most ``MAX_LINE`` of them:
a line that no client could read fails, at once, the request it answers (found by its top-level
``id``) and says why; any other stray line is noise, counted, and handed to the session once.
Closing follows the spec: close stdin, wait, then end the server's process group.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Final

import anyio
import anyio.abc
import pydantic
from mcp.shared.message import SessionMessage

from pytest_mcp_contract._sdk import messages as sdk_messages
from pytest_mcp_contract._sdk.tap import NotAMessage, Unanswered

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
    from mcp.client._transport import TransportStreams

MAX_LINE: Final = 64 * 1024 * 1024
"""The longest line read (64 MiB): a flood without newlines costs this much memory, no more."""
CHUNK: Final = 256 * 1024
JSON_DEPTH: Final = 200
"""How deep the SDK's JSON reader (pydantic-core) goes: an answer nested deeper cannot be read."""
TAIL: Final = 1024 * 1024
"""Bytes kept of the end of a line past ``MAX_LINE``, where a message glued to it would be."""
SAMPLE: Final = 200
"""Characters of a stray line kept to show it."""
MAX_TOKENS: Final = 200_000
"""Strings and brackets looked at to find an unreadable line's ``id``: bounds the time a hostile line costs."""
CLOSE_WAIT: Final = 2.0
"""Seconds a server gets to exit once its stdin is closed, and again after SIGTERM (the SDK's figures)."""


@dataclass
class Noise:
    """Stray stdout so far: counted, never kept."""

    lines: int = 0
    size: int = 0
    open_line: int = 0
    """Bytes so far of a line past ``MAX_LINE`` that has not ended: no message after it can be read yet."""


class StdioPipe:
    """One server process and the two tasks that carry messages over its pipes."""

    def __init__(self, command: str, args: list[str], cwd: Path | None, stderr: IO[bytes]) -> None:
        self._argv = [command, *args]
        self._cwd = cwd
        self._stderr = stderr
        self.process: anyio.abc.Process | None = None
        self.noise = Noise()
        self._pending: dict[str, Any] = {}
        """Requests sent and not yet answered, by their id as text: which a bad line may answer."""

    @asynccontextmanager
    async def streams(self, env: Mapping[str, str]) -> AsyncIterator[TransportStreams]:
        """Start the server with ``env``, revealed: an argument, never an attribute, so no repr holds it."""
        __tracebackhide__ = True  # its locals hold the revealed environment: never shown under -l
        process = await anyio.open_process(
            self._argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=dict(env),
            cwd=self._cwd,
            start_new_session=hasattr(os, "killpg"),  # its own group, which ends with it (POSIX)
        )
        self.process = process
        reader_sink, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write_stream, writer_source = anyio.create_memory_object_stream[SessionMessage](0)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._read, process, reader_sink)
            tasks.start_soon(self._write, process, writer_source, reader_sink)
            try:
                yield read_stream, write_stream
            finally:
                with anyio.CancelScope(shield=True):  # a cancelled caller must not leave the server running
                    read_stream.close()
                    write_stream.close()
                    await _stop(process)
                tasks.cancel_scope.cancel()

    async def _read(self, process: anyio.abc.Process, sink: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
        assert process.stdout is not None
        buffer = bytearray()
        tail = b""  # the end of a line past MAX_LINE: a message may be glued to it
        overlong = False  # skipping the rest of a line past MAX_LINE
        listening = True  # the session takes messages; after it is gone, stdout is drained so the server can exit
        with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            while True:
                chunk = await process.stdout.receive(CHUNK)
                start = 0
                while True:
                    end = chunk.find(b"\n", start)
                    piece = chunk[start:] if end < 0 else chunk[start:end]
                    if overlong:
                        self.noise.size += len(piece)
                        self.noise.open_line += len(piece)
                        tail = (tail + piece)[-TAIL:]
                    elif len(buffer) + len(piece) > MAX_LINE:
                        overlong = True
                        self.noise.open_line = len(buffer) + len(piece)
                        item = self._overlong(bytes(buffer[:SAMPLE]))
                        self.noise.size += self.noise.open_line - SAMPLE
                        tail = (bytes(buffer[-TAIL:]) + piece)[-TAIL:]
                        buffer.clear()
                        listening = listening and await _send(sink, item)
                    else:
                        buffer += piece
                    if end < 0:
                        break
                    if overlong:
                        overlong = False
                        item = self._glued(tail, f"a stdout line of {size_in_words(self.noise.open_line)}")
                        self.noise.open_line = 0
                        listening = listening and await _send(sink, item)
                    else:
                        item = self._message(bytes(buffer))
                        buffer.clear()
                        listening = listening and await _send(sink, item)
                    start = end + 1
        await sink.aclose()

    async def _write(
        self,
        process: anyio.abc.Process,
        source: MemoryObjectReceiveStream[SessionMessage],
        reader_sink: MemoryObjectSendStream[SessionMessage | Exception],
    ) -> None:
        assert process.stdin is not None
        try:
            async with source:
                async for session_message in source:
                    request = sdk_messages.request_id(session_message)
                    if request is not None:
                        self._pending[str(request)] = request
                    await process.stdin.send(sdk_messages.dump(session_message).encode() + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            # The server closed its stdin but may still run: the session must see the end, not wait.
            await reader_sink.aclose()

    def _message(self, line: bytes) -> SessionMessage | Exception | None:
        """What the session gets for a line: the message, an error for the request it answers, a fault, nothing."""
        try:
            message = sdk_messages.read(line)
        except ValueError as error:
            refusal = error  # ``error`` is unbound once the block ends; the lambda runs later
            return self._unreadable(line, lambda: why_unreadable(line, refusal))
        answered = sdk_messages.answered_id(message)
        if answered is not None:
            self._pending.pop(str(answered), None)
        return message

    def _overlong(self, head: bytes) -> SessionMessage | Exception | None:
        return self._unreadable(head, lambda: f"it is a line longer than {size_in_words(MAX_LINE)}, the most read")

    def _unreadable(self, line: bytes, why: Callable[[], str]) -> SessionMessage | Exception | None:
        """``why`` is asked only when it is told: a flood of stray lines costs no diagnosis past the first."""
        answers = answer_id(line)
        if answers is not None and answers in self._pending:
            return self._fail(answers, why())
        glued = self._glued(line)
        if glued is not None:
            return glued
        self.noise.lines += 1
        self.noise.size += len(line)
        return NotAMessage(line, why()) if self.noise.lines == 1 else None  # reported once per session anyway

    def _glued(self, line: bytes, before: str | None = None) -> Unanswered | None:
        """The failure of a request whose answer ends ``line``, after other output (a print without newline);
        ``before`` says what that output was, else a sample of it is shown."""
        for start in _ANSWER_STARTS:
            at = line.rfind(start)
            answers = answer_id(line[at:]) if at > 0 else None
            if answers is not None and answers in self._pending:
                before = before or repr(line[: min(at, 60)].decode("utf-8", "replace"))
                why = f"it came on one line after other output ({before}): every message needs a line of its own"
                return self._fail(answers, why)
        return None

    def _fail(self, answers: str, why: str) -> Unanswered:
        """The request's answer came, and cannot be read: said as a value, for the tap to end its wait."""
        return Unanswered(self._pending.pop(answers), why)


Item = SessionMessage | Exception
"""What the session reads: a message, or a fault its message handler hears of."""


async def _send(sink: MemoryObjectSendStream[Item], item: Item | None) -> bool:
    """Hand ``item`` to the session; False once the session is gone."""
    if item is None:
        return True
    try:
        await sink.send(item)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        return False
    return True


async def _stop(process: anyio.abc.Process) -> None:
    """The spec's shutdown: close stdin and wait; then SIGTERM to the group, wait, SIGKILL."""
    assert process.stdin is not None
    assert process.stdout is not None
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    for ending in (signal.SIGTERM, getattr(signal, "SIGKILL", signal.SIGTERM), None):
        # Not process.wait(): on asyncio it also waits for the pipes, which a helper may hold open.
        with anyio.move_on_after(CLOSE_WAIT):
            while process.returncode is None:
                await anyio.sleep(0.01)
        if process.returncode is not None or ending is None:
            break
        _signal(process, ending)
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdout.aclose()
    # The asyncio transport stays open (and warns when collected) while a helper holds a pipe end.
    transport = getattr(getattr(process, "_process", None), "_transport", None)
    with contextlib.suppress(Exception):
        transport.close()  # type: ignore[union-attr]


def _signal(process: anyio.abc.Process, number: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if hasattr(os, "killpg"):
            os.killpg(process.pid, number)
        elif number == signal.SIGTERM:  # Windows: no process groups; the server alone
            process.terminate()
        else:
            process.kill()


# --- why a line cannot be read, and which request it answers: pure functions of the bytes --------------

_ANSWER_STARTS: Final = (b'{"jsonrpc"', b'{"result"', b'{"error"', b'{"id"')
"""How the SDKs begin an answer (Python: jsonrpc first; TypeScript: result or error first)."""
_LONE_SURROGATE: Final = re.compile(
    rb"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)
_TOKEN: Final = re.compile(rb'"(?:[^"\\]|\\.)*+"|[\[\]{}]', re.DOTALL)
_ID_VALUE: Final = re.compile(rb'\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*+")')
_KEY: Final = re.compile(rb"\s*:")
_TAIL_ID: Final = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*+")\s*}\s*$')


def why_unreadable(line: bytes, error: ValueError) -> str:
    """What is wrong with a stdout line the SDK's reader refused, in words (``error`` is that refusal)."""
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as bad:
        return f"byte {bad.start:,} (0x{line[bad.start]:02x}) is not UTF-8: {bad.reason}"
    lone = _LONE_SURROGATE.search(line)
    if lone is not None:
        return (
            f"it holds a lone surrogate escape ({lone.group().decode()}) at byte {lone.start():,}, "
            "which stands for no Unicode character"
        )
    problem = _first_problem(error)
    if "recursion limit" in problem:
        return f"its JSON nests deeper than {JSON_DEPTH} levels, more than the SDK's JSON reader goes"
    if problem.startswith("Invalid JSON: "):
        return f"it is not JSON ({problem.removeprefix('Invalid JSON: ')})"
    if not line.strip():
        return "it is an empty line"
    return f"it is JSON but not a JSON-RPC message ({problem})"


def _first_problem(error: ValueError) -> str:
    if isinstance(error, pydantic.ValidationError) and error.errors():
        first = error.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        return f"{where}: {first['msg']}" if where and first["type"] != "json_invalid" else first["msg"]
    return str(error)


def answer_id(line: bytes) -> str | None:
    """The top-level ``id`` of a line shaped as a JSON-RPC answer (``result`` or ``error`` beside it),
    as text, whatever else is wrong with the line; None when it has none or the search runs out."""
    stripped = line.lstrip()
    if not stripped.startswith(b"{"):
        return None
    found: str | None = None
    answers = False
    depth = 0
    for count, token in enumerate(_TOKEN.finditer(line)):
        if count > MAX_TOKENS:
            return _tail_id(stripped)
        text = token.group()
        if text in (b"{", b"["):
            depth += 1
        elif text in (b"}", b"]"):
            depth -= 1
        elif depth == 1 and _KEY.match(line, token.end()):
            if text == b'"id"':
                value = _ID_VALUE.match(line, token.end())
                found = _id_text(value.group(1)) if value else None
            elif text in (b'"result"', b'"error"'):
                answers = True
    return found if answers else None


def _tail_id(line: bytes) -> str | None:
    """For a line too big to walk: an answer whose ``id`` comes last (the TypeScript SDK writes it there)."""
    if not (line.startswith((b'{"result"', b'{"error"'))):
        return None
    value = _TAIL_ID.search(line[-256:])
    return _id_text(value.group(1)) if value else None


def _id_text(raw: bytes) -> str | None:
    try:
        value: Any = json.loads(raw)
    except ValueError:
        return None
    return str(value)


def size_in_words(size: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}".replace(".0 ", " ")
    return f"{size} byte{'s' * (size != 1)}"
