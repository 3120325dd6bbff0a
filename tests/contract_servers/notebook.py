"""A notebook that keeps its notes in ``$HOME/.notebook/notes.json``, with three defects that no single
call shows, only a chain of calls:

* after ``create_note`` then ``delete_note``, ``get_note`` tells the model the note as it was (a cache
  the delete forgets) while its structured content says it is deleted: a content mismatch;
* ``archive_note`` says ``readOnlyHint: true``, yet it hides the note from ``list_notes``;
* ``retitle_note`` says ``idempotentHint: true``, yet a second call with the same title appends a mark.

``build(fixed=True)`` (``--fixed`` over stdio) is the same notebook with the three mended: it must pass
every sequence. ``stats`` answers a timestamp that changes on its own (no finding), and a second
``delete_note`` answers ``false`` where the first answered ``true`` (no finding either: the promise is
about the state, not the answer).

python notebook.py [--fixed]       over stdio
notebook.py:build()                in process: a factory, so a sandbox can make a fresh one
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel

READS: ToolAnnotations = ToolAnnotations(read_only_hint=True)
AGAIN: ToolAnnotations = ToolAnnotations(idempotent_hint=True)


class Note(BaseModel):
    id: str
    title: str
    deleted: bool = False


class Notes(BaseModel):
    notes: list[Note]


class Stats(BaseModel):
    notes: int
    checked_at: int


def _store() -> Path:
    return Path.home() / ".notebook" / "notes.json"  # read at each call: HOME may have moved


def _load() -> dict[str, dict[str, Any]]:
    path = _store()
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _save(notes: dict[str, dict[str, Any]]) -> None:
    path = _store()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(notes), encoding="utf-8")


def _note(record: dict[str, Any]) -> Note:
    return Note(id=record["id"], title=record["title"], deleted=record["deleted"])


def _found(notes: dict[str, dict[str, Any]], note_id: str) -> dict[str, Any]:
    if note_id not in notes:
        raise ValueError(f"no note {note_id!r}")
    return notes[note_id]


def build(fixed: bool = False) -> MCPServer:
    mcp = MCPServer("notebook", log_level="CRITICAL")  # a tool error is no news here
    shown: dict[str, str] = {}
    """Each note's text as last told: a cache that the broken delete forgets to update."""

    def told(note: Note) -> str:
        shown[note.id] = text = json.dumps(note.model_dump())
        return text

    @mcp.tool()
    def create_note(title: str) -> Note:
        notes = _load()
        note_id = f"n{len(notes) + 1}"
        notes[note_id] = {"id": note_id, "title": title, "deleted": False, "archived": False}
        _save(notes)
        note = _note(notes[note_id])
        told(note)
        return note

    @mcp.tool(annotations=READS)
    def get_note(id: str) -> Annotated[CallToolResult, Note]:
        note = _note(_found(_load(), id))
        text = told(note) if fixed else shown.get(id) or told(note)
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=note.model_dump())

    @mcp.tool(annotations=READS)
    def list_notes() -> Notes:
        live = [record for record in _load().values() if not record["deleted"] and not record["archived"]]
        return Notes(notes=[_note(record) for record in live])

    @mcp.tool(annotations=READS)
    def stats() -> Stats:
        return Stats(notes=len(_load()), checked_at=time.monotonic_ns())

    @mcp.tool(annotations=ToolAnnotations(destructive_hint=True, idempotent_hint=True))
    def delete_note(id: str) -> bool:
        notes = _load()
        record = notes.get(id)
        if record is None or record["deleted"]:
            return False  # already gone: a second delete says so, and changes nothing
        record["deleted"] = True
        _save(notes)
        if fixed:
            told(_note(record))
        return True

    @mcp.tool(annotations=AGAIN if fixed else READS)
    def archive_note(note_id: str) -> Note:
        """Hides a note from the listing (the broken notebook says it only reads)."""
        notes = _load()
        record = _found(notes, note_id)
        record["archived"] = True
        _save(notes)
        return _note(record)

    @mcp.tool(annotations=AGAIN)
    def retitle_note(note_id: str, title: str) -> Note:
        notes = _load()
        record = _found(notes, note_id)
        # The broken notebook marks a title set twice as edited: a second call changes it again.
        record["title"] = title if fixed or record["title"] != title else title + " (edited)"
        _save(notes)
        note = _note(record)
        told(note)
        return note

    return mcp


mended = build(fixed=True)
"""One object for the whole run: no sandbox can make it anew."""

if __name__ == "__main__":
    build(fixed="--fixed" in sys.argv).run()
