"""A server whose state lives on disk, as a git repository's or a spreadsheet's does: a second call
of a tool that writes finds what the first one left, whichever process or protocol version sends it.

python stateful.py              over stdio
stateful.py:mcp                 in process

Its folder is ``$STATEFUL_DIR``; every call is logged to ``calls.log`` there (one tool name a line),
so a test can count what reached the server.
"""

from __future__ import annotations

import os
from pathlib import Path

from mcp.server import MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel

mcp = MCPServer("stateful", log_level="ERROR")


class Branch(BaseModel):
    name: str
    commits: int


def _folder(tool: str) -> Path:
    folder = Path(os.environ["STATEFUL_DIR"])
    with (folder / "calls.log").open("a", encoding="utf-8") as log:
        log.write(tool + "\n")
    return folder


@mcp.tool()
def create_branch(name: str) -> Branch:
    """Creates a branch; a second create of the same name fails, as git's does."""
    path = _folder("create_branch") / f"{name}.branch"
    if path.exists():
        raise ValueError(f"branch {name!r} already exists")
    path.write_text("0", encoding="utf-8")
    return Branch(name=name, commits=0)


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
def show_branch(name: str) -> Branch:
    """Reads a branch: it says readOnlyHint, so each version's client may ask it."""
    path = _folder("show_branch") / f"{name}.branch"
    return Branch(name=name, commits=int(path.read_text(encoding="utf-8")))


@mcp.tool(annotations=ToolAnnotations(idempotent_hint=True))
def reset_branch(name: str) -> Branch:
    """Writes, but a second call with the same arguments changes nothing more (idempotentHint)."""
    path = _folder("reset_branch") / f"{name}.branch"
    path.write_text("0", encoding="utf-8")
    return Branch(name=name, commits=0)


if __name__ == "__main__":
    mcp.run()
