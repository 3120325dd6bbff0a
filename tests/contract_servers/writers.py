"""Tools that write files, as a git or file server's do, beside one that only reads and says so.

They work in the folder ``written`` of the current directory: the test's own folder, in process and
over stdio alike (a server started as a command runs in pytest's working directory). Only
``read_notes`` says ``readOnlyHint: true``; fuzzing must call no other tool unless the project opts
it in.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

mcp = MCPServer("writers", log_level="WARNING")

NOTES = "notes.txt"


def _folder() -> Path:
    return Path.cwd() / "written"


@mcp.tool()
def append_note(text: str) -> str:
    """Appends a line to the notes (no annotations: the spec presumes it may write and destroy)."""
    with (_folder() / NOTES).open("a", encoding="utf-8") as notes:
        notes.write(text.replace("\n", " ") + "\n")
    return "noted"


@mcp.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
def create_file(name: Annotated[str, Field(examples=["draft"])], body: str) -> str:
    """Creates a file (says it writes, but destroys nothing)."""
    if not name.isascii() or not name.isalnum():  # never a path: only a plain name inside the folder
        raise ToolError(f"{name!r} is not a plain file name")
    (_folder() / name).write_text(body, encoding="utf-8")
    return f"created {name}"


@mcp.tool(annotations=ToolAnnotations(destructive_hint=True))
def delete_notes(keep_lines: int) -> int:
    """Deletes the notes but their first lines (says destructiveHint: true)."""
    path = _folder() / NOTES
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True) if path.exists() else []
    path.write_text("".join(lines[: max(keep_lines, 0)]), encoding="utf-8")
    return len(lines) - max(keep_lines, 0)


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
def read_notes(first: int) -> str:
    """The first lines of the notes: it only reads, and says so."""
    path = _folder() / NOTES
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return "\n".join(lines[: max(first, 0)])


if __name__ == "__main__":  # the same tools over stdio
    mcp.run()
