"""Collecting the suite starts no server: it is read from the committed snapshots, and its items get the
server through the ``mcp_contract_server`` fixture, so a conftest's override sets it up (issue 37)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Project

NOTES = """
import contextlib
from pathlib import Path
from pydantic import BaseModel
from mcp.server import MCPServer

@contextlib.asynccontextmanager
async def lifespan(server):
    # What the notes app did at start-up: a database in the user's home.
    home = Path.home() / ".notes"
    home.mkdir(exist_ok=True)
    (home / "notes.db").write_text("started", encoding="utf-8")
    yield {}

mcp = MCPServer("notes", lifespan=lifespan)

class Note(BaseModel):
    title: str
    body: str

@mcp.tool()
def read_note(title: str) -> Note:
    return Note(title=title, body="hello")

@mcp.tool()
def count_notes() -> int:
    return 3
"""

OVERRIDE = """
from pathlib import Path
import pytest

@pytest.fixture(scope="session")
def mcp_contract_server():
    # The repo's own set-up: the server runs against a home of the tests' own.
    home = Path(__file__).parent / "test-home"
    home.mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))
        from notes import mcp
        yield mcp
"""


@pytest.fixture
def notes(project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A repo whose server's lifespan writes into HOME; the returned folder is the user's real home."""
    real = tmp_path / "real-home"
    real.mkdir()
    monkeypatch.setenv("HOME", str(real))
    project.pytester.makepyfile(notes=NOTES)
    project.pytester.mkdir("tests")
    project.pytester.path.joinpath("tests", "conftest.py").write_text(OVERRIDE, encoding="utf-8")
    project.pytester.path.joinpath("tests", "test_notes.py").write_text(
        "def test_count(mcp_contract):\n    assert mcp_contract.call_tool('count_notes').structured_content\n",
        encoding="utf-8",
    )
    return real


@pytest.mark.parametrize("target", [None, "notes.py:mcp"], ids=["fixture-only", "target-too"])
def test_collecting_writes_nothing_and_the_override_keeps_every_item(
    project: Project, notes: Path, target: str | None
) -> None:
    project.configure(target, suite=True, pythonpath=".")
    snapshots = project.pytester.path / "mcp_contract_snapshots"

    collected = project.run("--collect-only", "-q")
    collected.stdout.fnmatch_lines(["tests/test_notes.py::test_count", "tox.ini::listing", "2 tests collected*"])
    assert not (notes / ".notes").exists()
    assert not snapshots.exists()

    # The first run: no snapshots yet; the listing item records every tool the live listing has.
    first = project.run("--snapshot-update", "-p", "no:randomly")
    first.assert_outcomes(passed=2)
    assert not (notes / ".notes").exists(), "the server ran against the real HOME"
    files = sorted(path.name for path in snapshots.rglob("*.json"))
    assert files == ["count_notes.json", "read_note.json"]

    # From then on every tool has its items, run under the override's HOME.
    collected = project.run("--collect-only", "-q")
    collected.stdout.fnmatch_lines(
        [
            "tests/test_notes.py::test_count",
            "tox.ini::listing",
            "tox.ini::schema[count_notes]",
            "tox.ini::checks[count_notes]",
            "tox.ini::schema[read_note]",
            "tox.ini::checks[read_note]",
            "6 tests collected*",
        ]
    )
    again = project.run("-p", "no:randomly")
    again.assert_outcomes(passed=6)
    assert not (notes / ".notes").exists()
    assert (project.pytester.path / "tests" / "test-home" / ".notes" / "notes.db").exists()  # it ran, at home


STDIO = """
import sys
from pathlib import Path
from mcp.server import MCPServer

Path(sys.argv[1]).open("a").write("started\\n")  # each start of the process, counted
mcp = MCPServer("tally")  # not its file's name

@mcp.tool()
def count() -> int:
    return 1

@mcp.tool()
def name() -> str:
    return "counter"

if __name__ == "__main__":
    mcp.run()
"""


def test_a_command_is_started_only_by_the_items_that_run(project: Project) -> None:
    """A server outside the process: collecting starts no process; the first run's listing finds its folder,
    and a clean checkout (no pytest cache) collects from the only folder of tool snapshots."""
    import sys

    project.pytester.makepyfile(counter=STDIO)
    starts = project.pytester.path / "starts.txt"
    # One protocol version: each version offered has a process of its own.
    project.configure(
        f"stdio:{sys.executable} counter.py {starts}", suite=True, mcp_contract_protocol_versions="2026-07-28"
    )

    project.run("--collect-only", "-q").stdout.fnmatch_lines(["tox.ini::listing", "1 test collected*"])
    assert not starts.exists()

    project.run("--snapshot-update").assert_outcomes(passed=1)
    assert sorted(path.name for path in (project.pytester.path / "mcp_contract_snapshots" / "tally").iterdir()) == [
        "count.json",
        "name.json",
    ]
    started = starts.read_text().count("started")

    collected = project.run("--collect-only", "-q")
    collected.stdout.fnmatch_lines(["tox.ini::listing", "tox.ini::schema[count]", "*5 tests collected*"])
    assert starts.read_text().count("started") == started  # collecting started nothing
    project.run("-k", "schema and count").assert_outcomes(passed=1, deselected=4)
    assert starts.read_text().count("started") == started + 1  # one session, for the item that ran
    # With the listing left out, the report still files the items under the name the session was told.
    checks = project.run("-k", "checks")
    checks.assert_outcomes(passed=2, deselected=3)
    checks.stdout.fnmatch_lines(["count  *passed*", "name   *passed*"])
    checks.stdout.no_fnmatch_line("server *:")


NEW_TOOL = """

@mcp.tool()
def delete_note(title: str) -> bool:
    return True
"""


def test_a_tool_added_since_the_snapshots_is_the_listing_items(project: Project) -> None:
    project.pytester.makepyfile(notes=NOTES.replace("lifespan=lifespan", ""))
    project.configure("notes.py:mcp", suite=True)
    project.run("--snapshot-update").assert_outcomes(passed=1)
    notes = project.pytester.path / "notes.py"
    notes.write_text(notes.read_text() + NEW_TOOL)

    result = project.run("-p", "no:randomly")
    result.assert_outcomes(passed=4, failed=1)  # the two known tools' items, and the listing
    result.stdout.fnmatch_lines(
        [
            "*_ listing _*",
            "tool 'delete_note' has no schema snapshot in mcp_contract_snapshots/notes yet (its tool checks ran here).",
            "Record it with: pytest --snapshot-update tox.ini::listing; from then on it has items of its own.",
        ]
    )
    project.run("--snapshot-update", "tox.ini::listing").assert_outcomes(passed=1)
    project.run().assert_outcomes(passed=7)
