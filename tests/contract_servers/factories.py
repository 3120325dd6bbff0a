"""Servers that a function builds, as many published servers are: no server exists until a factory is
called with its settings (a time zone, a repository folder, a journal file). The plugin names them
with factory targets, ``contract_servers.factories:create_server(local_tz='Asia/Tokyo')``.

Run as a script, ``create_server`` serves over stdio with the time zone given as its argument.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

from mcp.server import MCPServer
from pydantic import BaseModel

VERSION = "1.0"
"""Not a factory: naming it as one is a mistake the plugin explains."""


class Zone(BaseModel):
    timezone: str
    label: str


class Status(BaseModel):
    repository: str
    files: list[str]


def create_server(local_tz: str = "UTC") -> MCPServer:
    """A clock server for one time zone (no clock is read: the answers stay the same from run to run)."""
    server = MCPServer("clock")

    @server.tool()
    def zone() -> Zone:
        """The time zone this server answers in."""
        return Zone(timezone=local_tz, label=f"times are given in {local_tz}")

    @server.tool()
    def shift(hours: int) -> dict[str, int]:
        """How many minutes ``hours`` is."""
        return {"minutes": hours * 60}

    return server


def serve(repository: str) -> MCPServer:
    """A server over one folder, given as the repository to serve."""
    root = Path(repository).resolve()
    server = MCPServer("folder")

    @server.tool()
    def status() -> Status:
        """The folder served and the files in it."""
        return Status(repository=str(root), files=sorted(path.name for path in root.iterdir() if path.is_file()))

    return server


async def create_async_server(name: str) -> MCPServer:
    """An async factory: it awaits before the server exists (as one that opens a connection would)."""
    await asyncio.sleep(0)
    server = MCPServer(name)

    @server.tool()
    def made_by() -> str:
        return "an async factory"

    return server


@asynccontextmanager
async def open_server(journal: str) -> AsyncIterator[MCPServer]:
    """A server with a lifespan: it is open while the context is, and writes to ``journal`` when it
    is entered and left, saying whether it was left on the loop and in the task that entered it."""
    loop, task = asyncio.get_running_loop(), asyncio.current_task()
    path = Path(journal)
    ticks = 0

    async def tick() -> None:  # a task the lifespan runs for as long as it is open
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.01)

    ticker = asyncio.create_task(tick())
    path.write_text("entered\n", encoding="utf-8")
    server = MCPServer("journal")

    @server.tool()
    def is_open() -> bool:
        return not ticker.done()

    try:
        yield server
    finally:
        ticker.cancel()
        same = asyncio.get_running_loop() is loop and asyncio.current_task() is task
        where = "the loop and the task that entered it" if same else "another loop or task"
        with path.open("a", encoding="utf-8") as file:
            file.write(f"left on {where}, ticking: {ticks > 0}\n")


@asynccontextmanager
async def yields_no_server(journal: str) -> AsyncIterator[dict[str, str]]:
    """A lifespan that gives a settings dict instead of the server: the plugin leaves it at once."""
    try:
        yield {"name": "journal"}
    finally:
        Path(journal).write_text("left\n", encoding="utf-8")


@asynccontextmanager
async def fails_on_leaving() -> AsyncIterator[MCPServer]:
    """A lifespan whose clean-up raises: the run's tests stand, and the failure is told."""
    yield create_server()
    raise OSError("the socket /tmp/clock.sock is gone")


@contextmanager
def sync_lifespan() -> Iterator[MCPServer]:
    """A lifespan written with @contextmanager: not entered (the plugin's loop awaits), and said so."""
    yield create_server()


def broken_server() -> MCPServer:
    raise RuntimeError("no database at /nowhere/db.sqlite")


async def broken_async_server() -> MCPServer:
    await asyncio.sleep(0)
    raise ConnectionRefusedError("nothing listens at 127.0.0.1:5432")


def no_server() -> dict[str, str]:
    return {"name": "clock"}


if __name__ == "__main__":
    create_server(sys.argv[1]).run()


class App:
    """A web app that holds its MCP server as ``.mcp``, as many repositories build one."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.mcp = create_server("Asia/Tokyo")


def create_app(name: str = "web") -> App:
    return App(name)


application = App("module-level")


class Registry:
    """Holds its server as a class attribute, inherited by its subclasses."""

    mcp = create_server()


class LocalRegistry(Registry):
    pass
