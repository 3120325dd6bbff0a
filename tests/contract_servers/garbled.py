"""A stdio server whose answers no client can read, and whose stdout floods: ``python garbled.py``.

The SDK writes only well-formed JSON, so the tools answer with markers and a filter between the
SDK and the real stdout turns each marker into the defect: a byte that is not UTF-8, a lone
surrogate escape, JSON nested 300 deep, a line cut short. Everything else passes through as it is.
"""

from __future__ import annotations

import os
import threading
import time

from mcp.server import MCPServer

server = MCPServer("garbled", log_level="WARNING")

DEFECTS = {
    b"@@BADUTF8@@": b"caf\xe9",
    b"@@SURROGATE@@": b"\\ud800",
    b'"@@DEEP@@"': b"[" * 300 + b"]" * 300,
}
CUT = b"@@CUT@@"
STDOUT = 1
"""The real stdout, once the filter sits on fd 1: floods go there straight."""


@server.tool()
def bad_utf8() -> str:
    return "@@BADUTF8@@"


@server.tool()
def lone_surrogate() -> str:
    return "@@SURROGATE@@"


@server.tool()
def too_deep() -> str:
    return "@@DEEP@@"


@server.tool()
def cut_short() -> str:
    return "@@CUT@@"


@server.tool()
def ok() -> int:
    return 1


@server.tool()
def chatty() -> int:
    """A console.log-style line on stdout during the call, then a good answer: noise, not the answer."""
    os.write(STDOUT, b"looking it up...\n")  # past the SDK's guard, as a stray write in a library would be
    return 2


@server.tool()
def glued() -> int:
    """Output without a newline, so the answer lands on the same line."""
    os.write(STDOUT, b"progress: 100%")
    return 6


@server.tool()
def flood(megabytes: int = 40) -> int:
    """Garbage lines on stdout, then no answer at all."""
    line = b"garbage " * 127 + b"\n"  # 1 KiB
    for _ in range(megabytes * 1024):
        os.write(STDOUT, line)
    time.sleep(3600)
    return 3


@server.tool()
def endless_line(megabytes: int = 80) -> int:
    """One line without end on stdout, then no answer."""
    chunk = b"x" * (1 << 20)
    for _ in range(megabytes):
        os.write(STDOUT, chunk)
    time.sleep(3600)
    return 4


@server.tool()
def stderr_flood(megabytes: int = 40) -> int:
    """Megabytes of stderr in long lines, then an answer."""
    line = b"e" * 4095 + b"\n"
    for _ in range(megabytes * 256):
        os.write(2, line)
    return 5


def _filter(source: int, sink: int) -> None:
    pending = b""
    while chunk := os.read(source, 1 << 16):
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            out = line
            for marker, defect in DEFECTS.items():
                out = out.replace(marker, defect)
            os.write(sink, out.partition(CUT)[0] + b"\n")
    os.write(sink, pending)
    os.close(sink)


if __name__ == "__main__":
    real = STDOUT = os.dup(1)
    read_end, write_end = os.pipe()
    os.dup2(write_end, 1)
    os.close(write_end)
    relay = threading.Thread(target=_filter, args=(read_end, real), daemon=True)
    relay.start()
    server.run()  # the relay is a daemon thread: it ends with the process
