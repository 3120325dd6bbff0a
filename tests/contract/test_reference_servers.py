"""Real servers written by others: the MCP reference servers as published on npm, over stdio.

They keep their promises, in layouts of their own: the filesystem server wraps every answer as
``{"content": <text>}`` and sends that text as the one block; the memory server wraps lists
(``{"entities": [...]}``) and sends the JSON of the list, and answers a deletion with a record
told in words. None of them may be flagged, neither by a call nor by the generated suite.

Needs node and the packages of ``contract_servers/typescript`` (``npm ci``); skipped without them
unless MCP_CONTRACT_REQUIRE_NODE=1, as in ``servers/test_typescript.py``.
"""

from __future__ import annotations

import shlex

import pytest
from conftest import NODE, NODE_SERVERS, Project, needs_node

pytestmark = needs_node()


def _target(server: str, *args: str) -> str:
    return "stdio:" + shlex.join([NODE or "node", str(NODE_SERVERS / "node_modules" / ".bin" / server), *args])


CALLS = """
import pytest

@pytest.mark.parametrize(("tool", "arguments"), CALLS, ids=[tool for tool, _ in CALLS])
def test_call(mcp_contract, tool, arguments):
    mcp_contract.call_tool(tool, arguments)
"""


def _run(project: Project, target: str, calls: list[tuple[str, dict[str, object]]], env: str = "") -> pytest.RunResult:
    if env:
        project.configure(target, suite=True, mcp_contract_server_env=env)
    else:
        project.configure(target, suite=True)
    project.tests(f"CALLS = {calls!r}\n" + CALLS)
    # The first run makes no call: its listing item writes every tool's snapshot and runs its tool checks, so
    # the run under test has each tool's items.
    project.run("--snapshot-update", "-k", "listing").assert_outcomes(passed=1, deselected=len(calls))
    return project.run()


def test_the_filesystem_server(project: Project) -> None:
    root = project.pytester.mkdir("root")
    (root / "notes.txt").write_text("line one\nline two\n")
    (root / "sub").mkdir()
    notes = str(root / "notes.txt")
    calls: list[tuple[str, dict[str, object]]] = [
        ("read_text_file", {"path": notes}),
        ("read_text_file", {"path": notes, "head": 1}),
        ("read_multiple_files", {"paths": [notes]}),
        ("list_directory", {"path": str(root)}),
        ("list_directory_with_sizes", {"path": str(root)}),
        ("directory_tree", {"path": str(root)}),
        ("search_files", {"path": str(root), "pattern": "*.txt"}),
        ("get_file_info", {"path": notes}),
        ("list_allowed_directories", {}),
        ("read_media_file", {"path": notes}),
        ("write_file", {"path": str(root / "new.txt"), "content": "written"}),
        ("edit_file", {"path": str(root / "new.txt"), "edits": [{"oldText": "written", "newText": "edited"}]}),
        ("create_directory", {"path": str(root / "made")}),
        ("move_file", {"source": str(root / "new.txt"), "destination": str(root / "moved.txt")}),
    ]
    result = _run(project, _target("mcp-server-filesystem", str(root)), calls)
    listed = 14  # every tool: its schema snapshot and its tool checks
    result.assert_outcomes(passed=len(calls) + 1 + 2 * listed)  # and the listing
    result.stdout.fnmatch_lines([f"tool calls checked: {len(calls)}, violations: 0"])


def test_the_memory_server(project: Project) -> None:
    ada = {"name": "Ada", "entityType": "person", "observations": ["maths"]}
    paris = {"name": "Paris", "entityType": "city", "observations": []}
    calls: list[tuple[str, dict[str, object]]] = [
        ("create_entities", {"entities": [ada, paris]}),
        ("create_relations", {"relations": [{"from": "Ada", "to": "Paris", "relationType": "visited"}]}),
        ("add_observations", {"observations": [{"entityName": "Ada", "contents": ["engines"]}]}),
        ("read_graph", {}),
        ("search_nodes", {"query": "Ada"}),
        ("open_nodes", {"names": ["Ada", "Paris"]}),
        ("delete_observations", {"deletions": [{"entityName": "Ada", "observations": ["engines"]}]}),
        ("delete_relations", {"relations": [{"from": "Ada", "to": "Paris", "relationType": "visited"}]}),
        ("delete_entities", {"entityNames": ["Paris"]}),
    ]
    memory = project.pytester.path / "memory.jsonl"
    result = _run(project, _target("mcp-server-memory"), calls, env=f"MEMORY_FILE_PATH={memory}")
    result.assert_outcomes(passed=len(calls) + 1 + 2 * 9)  # the listing, each tool's schema and checks
    result.stdout.fnmatch_lines(
        [
            f"tool calls checked: {len(calls)}, violations: 0",
        ]
    )
    # A deletion answers {"success": true, "message": ...} and tells the model the message: words.
    result.stdout.fnmatch_lines(
        [
            "text in prose only, no JSON for the model: delete_entities (1 call), delete_observations (1 call), "
            "delete_relations (1 call); *"
        ]
    )


def test_the_everything_server(project: Project) -> None:
    calls: list[tuple[str, dict[str, object]]] = [
        ("echo", {"message": "hi"}),
        ("get-sum", {"a": 1, "b": 2}),
        ("get-structured-content", {"location": "New York"}),
        ("get-annotated-message", {"messageType": "error", "includeImage": True}),
        ("get-resource-links", {"count": 2}),
        ("get-resource-reference", {"resourceType": "Text", "resourceId": 1}),
        ("get-tiny-image", {}),
    ]
    # Its research tool needs task augmentation, which this client does not offer: a tool error, not ours.
    result = _run(project, _target("mcp-server-everything"), calls)
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0, result.stdout.str()
    assert outcomes["passed"] >= len(calls) + 1 + 2 * 12
    result.stdout.fnmatch_lines([f"tool calls checked: {len(calls)}, violations: 0"])
