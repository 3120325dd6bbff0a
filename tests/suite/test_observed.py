"""Observed shapes: a tool whose output schema names no key gets the shape its answers had in its snapshot,
and the gate (``--mcp-contract-against``) compares that shape with the base revision's, in real git
repositories made in temp folders, in process, over stdio and under pytest-xdist."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import pytest
from conftest import Project, commit_all, git
from docs_text import assert_says, quoted

# JSON text and no output schema (structured_output=False), a dict and an open schema, prose, a closed schema.
USERS_V1 = '''
import json
from typing import Any
from mcp.server import MCPServer

mcp = MCPServer("users")

USERS = {
    1: {"id": 1, "name": "Ada", "email": "ada@example.com", "age": 36, "tags": ["admin"]},
    2: {"id": 2, "name": "Bo", "email": "bo@example.com", "age": 41, "tags": []},
}

@mcp.tool(structured_output=False)
def get_user(user_id: int) -> str:
    """One user, as JSON text."""
    return json.dumps(USERS[user_id])

@mcp.tool()
def find_users(name: str) -> dict[str, Any]:
    """Users whose name starts so: an object schema that names no key."""
    found = [user for user in USERS.values() if user["name"].startswith(name)]
    return {"users": found, "count": len(found)}

@mcp.tool(structured_output=False)
def ping() -> str:
    return "pong"

@mcp.tool()
def user_count() -> int:
    return len(USERS)

if __name__ == "__main__":
    mcp.run()
'''
# The pull request of the issue: email dropped, age now a string.
USERS_V2 = USERS_V1.replace('"email": "ada@example.com", "age": 36', '"age": "36"').replace(
    '"email": "bo@example.com", "age": 41', '"age": "41"'
)
WITH_PHONE = USERS_V1.replace('"tags": ["admin"]}', '"tags": ["admin"], "phone": "1"}').replace(
    '"tags": []}', '"tags": [], "phone": "2"}'
)
TESTS = """
import json

def test_get_user(mcp_contract):
    for user_id in (1, 2):
        user = json.loads(mcp_contract.call_tool("get_user", {"user_id": user_id}).content[0].text)
        assert user["id"] == user_id

def test_find_users(mcp_contract):
    assert mcp_contract.call_tool("find_users", {"name": "A"}).structured_content["count"] == 1

def test_count(mcp_contract):
    assert mcp_contract.call_tool("user_count").structured_content == {"result": 2}
"""
FOLDER = Path("mcp_contract_snapshots/users")


def make(project: Project, *, target: str = "users.py:mcp", **ini: str) -> None:
    project.pytester.makepyfile(users=USERS_V1)
    project.tests(TESTS, "test_users")
    project.configure(target, suite=True, **ini)


def snapshot(project: Project, tool: str) -> dict[str, object]:
    data: dict[str, object] = json.loads((project.pytester.path / FOLDER / f"{tool}.json").read_text())
    return data


def observed(project: Project, tool: str) -> dict[str, object]:
    shape = snapshot(project, tool)["observed_output_schema"]
    assert isinstance(shape, dict)
    return shape


@pytest.fixture
def repo(project: Project) -> Project:
    """The users server and its snapshots (with the shapes observed) committed on main, a branch checked out."""
    make(project)
    git(project, "init", "-q", "-b", "main")
    project.run("--snapshot-update").assert_outcomes(passed=4)  # the listing item writes every tool's snapshot
    commit_all(project, "users server and its snapshots")
    git(project, "checkout", "-q", "-b", "change")
    return project


def change(project: Project, source: str) -> None:
    """What a pull request does: change the server, update its snapshots, commit them."""
    project.pytester.makepyfile(users=source)
    project.run("--snapshot-update").assert_outcomes(passed=12)
    commit_all(project, "change the server")


def test_the_snapshot_records_the_shape_the_answers_had_marked_as_observed(project: Project) -> None:
    make(project)
    result = project.run("--snapshot-update")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["observed shapes (no output schema names their keys): 2 recorded, 1 no answer seen"])
    shape = observed(project, "get_user")
    assert shape == {
        "$comment": "Observed: inferred by pytest-mcp-contract from the answers its runs saw. The server publishes "
        "none of it; no client may rely on it.",
        "type": "object",
        "properties": {
            "age": {"type": "integer"},
            "email": {"type": "string"},
            "id": {"type": "integer"},
            "name": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["age", "email", "id", "name", "tags"],
    }
    assert snapshot(project, "get_user")["output_schema"] is None
    assert (project.pytester.path / FOLDER / "get_user.json").read_text() == quoted("observed-snapshot") + "\n"
    # Every answer the run saw validates against the shape inferred from it.
    users = [
        {"id": 1, "name": "Ada", "email": "ada@example.com", "age": 36, "tags": ["admin"]},
        {"id": 2, "name": "Bo", "email": "bo@example.com", "age": 41, "tags": []},
    ]
    for user in users:
        jsonschema.validate(user, shape)
    jsonschema.validate({"users": users[:1], "count": 1}, observed(project, "find_users"))
    # An open object schema is published: the shape sits beside it. A closed one, and prose, get none.
    assert snapshot(project, "find_users")["output_schema"] == {
        "additionalProperties": True,
        "title": "find_usersDictOutput",
        "type": "object",
    }
    assert "observed_output_schema" not in snapshot(project, "user_count")
    assert "observed_output_schema" not in snapshot(project, "ping")
    # The next run reads the snapshots back as they are: nothing differs.
    again = project.run()
    again.assert_outcomes(passed=12)
    again.stdout.fnmatch_lines(["observed shapes (no output schema names their keys): 2 matched, 1 no answer seen"])


def test_the_same_answers_give_byte_identical_snapshots_serially_and_under_xdist(project: Project) -> None:
    make(project)
    project.run("--snapshot-update").assert_outcomes(passed=4)
    folder = project.pytester.path / FOLDER
    first = {path.name: path.read_bytes() for path in folder.iterdir()}
    project.run("--snapshot-update").assert_outcomes(passed=12)
    assert {path.name: path.read_bytes() for path in folder.iterdir()} == first
    for path in folder.iterdir():
        path.unlink()
    project.run("--snapshot-update", "-n", "2").assert_outcomes(passed=4)
    assert {path.name: path.read_bytes() for path in folder.iterdir()} == first


def test_over_stdio_the_shape_is_the_one_seen_in_process(project: Project) -> None:
    make(project)
    project.run("--snapshot-update").assert_outcomes(passed=4)
    in_process = (project.pytester.path / FOLDER / "get_user.json").read_bytes()
    (project.pytester.path / FOLDER / "get_user.json").unlink()
    project.configure(f"stdio:{sys.executable} users.py", suite=True)
    project.run("--snapshot-update").assert_outcomes(passed=10)  # get_user's items are not collected
    assert (project.pytester.path / FOLDER / "get_user.json").read_bytes() == in_process


def test_a_run_that_leaves_tests_out_widens_the_shape_and_never_narrows_it(project: Project) -> None:
    make(project)
    # Bo has no email: a whole run sees it in some answers only.
    project.pytester.makepyfile(users=USERS_V1.replace('"email": "bo@example.com", ', ""))
    project.tests(TESTS.replace("for user_id in (1, 2)", "for user_id in (2,)") + ONLY_ADA, "test_users")
    project.run("--snapshot-update").assert_outcomes(passed=5)
    assert observed(project, "get_user")["required"] == ["age", "id", "name", "tags"]
    before = (project.pytester.path / FOLDER / "get_user.json").read_bytes()
    # Only Ada, who has an email: this run alone would call it required.
    result = project.run("--snapshot-update", "-k", "ada or schema")  # the schema items run: the files are read
    result.assert_outcomes(passed=5, deselected=8)
    assert (project.pytester.path / FOLDER / "get_user.json").read_bytes() == before
    # A whole run replaces it: without Bo's call, every answer has an email.
    project.tests(TESTS.replace("for user_id in (1, 2)", "for user_id in ()") + ONLY_ADA, "test_users")
    project.run("--snapshot-update").assert_outcomes(passed=13)
    assert observed(project, "get_user")["required"] == ["age", "email", "id", "name", "tags"]


ONLY_ADA = """
def test_ada(mcp_contract):
    mcp_contract.call_tool("get_user", {"user_id": 1})
"""


def test_a_plain_run_says_a_recorded_shape_is_out_of_date_and_passes(repo: Project) -> None:
    repo.pytester.makepyfile(users=USERS_V2)
    result = repo.run()
    result.assert_outcomes(passed=12)
    result.stdout.fnmatch_lines(
        [
            "observed shapes (no output schema names their keys): 2 out of date, 1 no answer seen",
            "  find_users is out of date: *",
            "  get_user is out of date: this run's answers had what its recorded shape does not say "
            "(pytest --snapshot-update records it, for the review to see):",
            '    get_user observed output /properties/age/type: changed from "integer" to "string" — BREAKING',
            "    get_user observed output /properties/email: gone (it was in every answer) — BREAKING",
        ]
    )
    assert result.ret == 0
    assert_says(result.stdout.str(), quoted("observed-out-of-date"))
    quiet = repo.run("-q")
    quiet.stdout.fnmatch_lines(
        [
            "mcp contract: 4 tools; *",
            "observed shapes out of date: find_users, get_user (pytest --snapshot-update records them; the summary "
            "without -q says what changed)",
        ]
    )


@pytest.mark.parametrize("xdist", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_a_dropped_key_and_a_changed_type_fail_the_gate_once_the_snapshots_are_updated(
    repo: Project, xdist: tuple[str, ...]
) -> None:
    change(repo, USERS_V2)
    plain = repo.run(*xdist)
    plain.assert_outcomes(passed=12)  # the updated snapshots match: a plain run cannot see the break
    plain.stdout.no_fnmatch_line("*out of date*")
    result = repo.run("--mcp-contract-against", "main", *xdist)
    result.assert_outcomes(passed=16)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # find_users answers with the same records: its shape broke too, at the items' pointers.
    result.stdout.fnmatch_lines(
        [
            "changes against main (???????): 4 breaking",
            "  find_users observed output /properties/users/items/properties/age/type: changed from "
            '"integer" to "string" — BREAKING',
            "  find_users observed output /properties/users/items/properties/email: gone (it was in every "
            "answer) — BREAKING",
            '  get_user observed output /properties/age/type: changed from "integer" to "string" — BREAKING',
            "  get_user observed output /properties/email: gone (it was in every answer) — BREAKING",
            "compared with main (???????): 1 tool by output schema, 2 by observed shape, 1 not compared",
            "  ping (no answers seen in this run)",
            "FAILED tool 'find_users' has 2 breaking changes *",
            "FAILED tool 'get_user' has 2 breaking changes against main (???????) in the shape of its answers "
            "(observed, not published: it has no output schema that names a key):",
            "[[]breaking-change[]] at /observed_output_schema/properties/age/type",
            '  changed from "integer" to "string"; a client that read the answers as they were at main can now get '
            "one it does not expect (observed, not published: no schema promised it)",
            "[[]breaking-change[]] at /observed_output_schema/properties/email",
            "  gone (it was in every answer); *",
            "Next step: undo the change, so clients that read the answers keep working (the shape at the base: "
            "git show main:mcp_contract_snapshots/users/get_user.json); or, if it is intended, acknowledge it with a line "
            "in mcp_contract_allow:",
            "    get_user:breaking-change  # why clients can take it",
        ]
    )
    assert_says(result.stdout.str(), quoted("observed-break"))


def test_an_added_key_passes_the_gate_and_is_named(repo: Project) -> None:
    change(repo, WITH_PHONE)
    result = repo.run("--mcp-contract-against", "main")
    result.assert_outcomes(passed=16)
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "changes against main (???????): 2 additive",
            "  find_users observed output /properties/users/items/properties/phone: new (in every answer) — additive",
            "  get_user observed output /properties/phone: new (in every answer) — additive",
            "compared with main (???????): 1 tool by output schema, 2 by observed shape, 1 not compared",
        ]
    )


def test_an_unchanged_server_says_what_it_did_not_compare(repo: Project) -> None:
    result = repo.run("--mcp-contract-against", "main")
    result.assert_outcomes(passed=16)
    result.stdout.fnmatch_lines(
        [
            "changes against main (???????): none in what was compared",
            "compared with main (???????): 1 tool by output schema, 2 by observed shape, 1 not compared",
            "  ping (no answers seen in this run)",
        ]
    )
    assert_says(result.stdout.str(), quoted("observed-compared"))
    # A tool called in neither revision is told as such, whichever side lacks answers.
    result = repo.run("--mcp-contract-against", "main", "-k", "not test_find_users")
    result.stdout.fnmatch_lines(
        ["compared with main (???????): 1 tool by output schema, 1 by observed shape, 2 not compared"]
    )
    result.stdout.fnmatch_lines(["  find_users (no answers seen in this run)", "  ping (no answers seen in this run)"])


def test_an_acknowledged_break_of_the_shape_passes_with_its_reason(repo: Project) -> None:
    change(repo, USERS_V2)
    allow = "\n  find_users:breaking-change  # v2 clients read age\n  get_user:breaking-change  # v2 clients read age"
    repo.configure("users.py:mcp", suite=True, mcp_contract_allow=allow)
    result = repo.run("--mcp-contract-against", "main")
    result.assert_outcomes(passed=16)
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "  get_user observed output /properties/email: gone (it was in every answer) — BREAKING, acknowledged: "
            "v2 clients read age",
            "breaking changes acknowledged in mcp_contract_allow: find_users (v2 clients read age); get_user (v2 "
            "clients read age)",
        ]
    )
    result.stdout.no_fnmatch_line("FAILED*")
    result.stdout.no_fnmatch_line("*stale mcp_contract_allow*")


def test_contract_coverage_counts_the_recorded_shape_labelled_as_observed(project: Project) -> None:
    make(project)
    project.run("--snapshot-update").assert_outcomes(passed=4)
    result = project.run("--mcp-contract-coverage", "--mcp-contract-coverage-json", "coverage.json")
    result.assert_outcomes(passed=12)
    # Ada's tags were empty in no answer, Bo's in one: the recorded shape's arrays, empty and not.
    result.stdout.fnmatch_lines(
        [
            "tool                         promises  unseen  cover  calls",
            "find_users (observed shape)         5       2   60 %      1",
            "get_user (observed shape)           3       0  100 %      2",
            "ping                                1       1    0 %      0",
            "user_count                          1       0  100 %      1",
            "find_users (observed shape): 2 unseen",
            '  /users never empty (seen: with an item, from {"name": "A"})',
            '  /users/items/tags never empty (seen: with an item, from {"name": "A"})',
        ]
    )
    written = json.loads((project.pytester.path / "coverage.json").read_text())
    assert {tool["tool"]: tool["observed"] for tool in written["tools"]} == {
        "find_users": True,
        "get_user": True,
        "ping": False,
        "user_count": False,
    }


def test_suggested_schemas_are_printed_for_each_tool_without_one(project: Project) -> None:
    make(project)
    project.run("--snapshot-update").assert_outcomes(passed=4)
    result = project.run("-q", "--mcp-contract-suggest-schemas")
    result.assert_outcomes(passed=12)
    result.stdout.fnmatch_lines(
        [
            "*- mcp contract: output schemas to publish -*",
            "find_users (the shape its answers had, as observed: *",
            "    class FindUsersResultUsersItem(TypedDict):",
            "    class FindUsersResult(TypedDict):",
            "        count: int",
            "        users: list[FindUsersResultUsersItem]",
            "get_user (the shape its answers had, as observed: *",
            "  Any SDK: list the tool with this outputSchema:",
            '        "age": {',
            "no shape seen yet: ping (no answer with JSON, in this run or recorded; *",
        ]
    )
    result.stdout.no_fnmatch_line("user_count (*")  # it publishes a schema that names its key
    assert_says(result.stdout.str(), quoted("suggest-schemas"))


def test_under_github_actions_a_break_of_the_shape_is_annotated_at_its_snapshot(
    repo: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    change(repo, USERS_V2)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_WORKSPACE", str(repo.pytester.path))
    result = repo.run("--mcp-contract-against", "main")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "::error file=mcp_contract_snapshots/users/get_user.json,title=observed shape of get_user "
            "(breaking-change)::tool 'get_user' has 2 breaking changes against main (???????) in the shape of its "
            "answers*",
        ]
    )
    written = summary.read_text()
    assert "## Breaking changes against `main (" in written
    assert "- get_user observed output /properties/email: gone (it was in every answer) — BREAKING" in written
    assert "Compared: 1 tool by output schema, 2 by observed shape, 1 not compared" in written


def test_a_tool_that_stops_publishing_its_schema_is_compared_by_that_schema(repo: Project) -> None:
    change(
        repo,
        USERS_V1.replace(
            "def user_count() -> int:\n    return len(USERS)",
            'def user_count() -> dict[str, Any]:\n    return {"result": len(USERS)}',
        ),
    )
    result = repo.run("--mcp-contract-against", "main")
    result.assert_outcomes(passed=15, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ against[[]user_count[]] _*",
            "tool 'user_count' has 1 breaking change against main (???????), from a client's side:",
            "compared with main (???????): 1 tool by output schema, 2 by observed shape, 1 not compared",
        ]
    )
