"""A server run as a command whose tool ``crash`` ends its process under the call, for the restart tests.

python crashing.py                  ``crash`` exits with code 3; ``before`` and ``later`` answer
python crashing.py --every-call     every tool's call exits with code 5
python crashing.py --freezes        also lists ``freeze``, which blocks the whole server for good, and
                                    ``stuck``, which blocks only its own worker thread

Every process started appends its pid to the file ``$CRASHING_PIDS`` (when set), so a test can see how
often it was started and that none outlives the run. Each tool's input schema has an example, so the
generated suite calls it too.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Annotated

from mcp.server import MCPServer
from pydantic import Field

server = MCPServer("crashing", log_level="WARNING")
EVERY_CALL = "--every-call" in sys.argv
Word = Annotated[str, Field(examples=["hello"])]


def _dies_on_every_call() -> None:
    if EVERY_CALL:
        print("fatal: out of luck", file=sys.stderr, flush=True)
        os._exit(5)


@server.tool()
def before(word: Word) -> int:
    """Answers with the pid of the server's process."""
    _dies_on_every_call()
    return os.getpid()


@server.tool()
def crash(word: Word) -> int:
    """Ends the server's process in the middle of the call."""
    print("fatal: the disk is on fire", file=sys.stderr, flush=True)
    os._exit(3)


@server.tool()
def later(word: Word) -> int:
    """Answers with the pid of the server's process."""
    _dies_on_every_call()
    return os.getpid()


async def freeze(word: Word) -> int:
    """Blocks the server's event loop, so it answers nothing more (a sync tool would block only its thread)."""
    time.sleep(3600)
    return 0


def stuck(word: Word) -> int:
    """Blocks the worker thread a sync tool runs in: the server goes on answering other calls."""
    time.sleep(3600)
    return 0


if "--freezes" in sys.argv:
    server.tool()(freeze)
    server.tool()(stuck)


if __name__ == "__main__":
    pids = os.environ.get("CRASHING_PIDS")
    if pids:
        with open(pids, "a") as log:
            log.write(f"{os.getpid()}\n")
    server.run()
