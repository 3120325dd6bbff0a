"""A server whose tools misbehave at the process level, for the stdio and HTTP lifecycle tests.

python lifecycle.py                     over stdio
python lifecycle.py --banner            over stdio, printing a banner to stdout first (a defect;
                                        once it runs, the SDK keeps a tool's prints off the wire)
python lifecycle.py --port P [--token T]
                                        over streamable HTTP on 127.0.0.1:P; with a token, every
                                        request must carry "Authorization: Bearer T"
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel

server = MCPServer("lifecycle", log_level="WARNING")


@server.tool()
def ok() -> int:
    return 1


@server.tool()
def chatty() -> int:
    """Writes to stderr and answers; its stderr belongs under a test that fails."""
    print("chatty: looking things up", file=sys.stderr, flush=True)
    return 2


class Reading(BaseModel):
    station: str
    temperature: float


@server.tool()
def stale_reading() -> Annotated[CallToolResult, Reading]:
    """A planted defect the SDK lets through: the text is the JSON of an older reading."""
    return CallToolResult(
        content=[TextContent(type="text", text='{"station": "Oslo", "temperature": 9.5}')],
        structured_content={"station": "Oslo", "temperature": 11.0},
    )


@server.tool()
def spawn() -> list[int]:
    """Starts a helper process in the server's group, as servers do; returns both pids."""
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    return [os.getpid(), helper.pid]


@server.tool()
def spawn_detached() -> list[int]:
    """Starts a helper that leaves the server's group and session (setsid), as daemons do; returns both pids."""
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True)
    return [os.getpid(), helper.pid]


@server.tool()
async def hang() -> int:
    """Blocks the server far past any timeout, ignoring SIGTERM: only SIGKILL ends it. Async, so it runs in
    the main thread, the only one that may set a signal's handler (a sync tool runs in a worker thread)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    import pathlib
    import time

    if os.environ.get("LIFECYCLE_HANGING"):  # the test waits for this, not for a guess at how long a call takes
        pathlib.Path(os.environ["LIFECYCLE_HANGING"]).touch()
    time.sleep(3600)  # blocking the loop on purpose: nothing but SIGKILL may end it
    return 0


@server.tool()
def die() -> int:
    """Crashes the whole server in the middle of the call."""
    print("fatal: the disk is on fire", file=sys.stderr, flush=True)
    os._exit(3)


def gated(app: Any, token: str) -> Any:
    """``app`` behind a bearer token: 401 for a request without it."""
    expected = f"Bearer {token}".encode()

    async def gate(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != expected:
            await send({"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"unauthorized"})
            return
        await app(scope, receive, send)

    return gate


def failing_calls(app: Any) -> Any:
    """``app``, but a call of the tool ``http_500`` gets an HTTP 500 instead of an answer (a crashing proxy)."""

    async def fail(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        if b'"http_500"' in body:
            await send({"type": "http.response.start", "status": 500, "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"upstream exploded"})
            return
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await app(scope, replay, send)

    return fail


@server.tool()
def http_500() -> int:
    """Over HTTP with --fail-calls, its calls get HTTP 500."""
    return 500


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int)
    parser.add_argument("--token")
    parser.add_argument("--banner", action="store_true")
    parser.add_argument("--fail-calls", action="store_true")
    parser.add_argument("--die-on-list", action="store_true")
    options = parser.parse_args()
    if options.banner:
        print("lifecycle server 1.0 starting...", flush=True)
    if options.die_on_list:

        async def crash(*_args: object) -> None:
            print("fatal: no tools table", file=sys.stderr, flush=True)
            os._exit(4)

        server.list_tools = crash  # type: ignore[method-assign,assignment]
    exits = os.environ.get("LIFECYCLE_EXIT_LOG")
    if exits:  # how this process ended: after its stdin closed, or on a signal
        exit_log: str = exits

        def terminated(*_args: object) -> None:
            with open(exit_log, "a") as log:
                log.write("sigterm\n")
            os._exit(1)

        signal.signal(signal.SIGTERM, terminated)
    if options.port is None:
        server.run()
        if exits:
            with open(exits, "a") as log:
                log.write("clean\n")
    else:
        import uvicorn

        app = server.streamable_http_app()
        app = failing_calls(app) if options.fail_calls else app
        uvicorn.run(gated(app, options.token) if options.token else app, port=options.port, log_level="warning")
