"""A failing sequence printed as a test (``_fuzz.replay``): values taken from the answers that gave
them, a value read from JSON text, a tool error expected where it came, a comparison at the place
that changed when the reads hold places that change on their own. Whole runs that paste the test and
run it are ``test_sequences.py``'s."""

from __future__ import annotations

import pytest

from pytest_mcp_contract._contract.violations import Violation
from pytest_mcp_contract._fuzz.replay import STRUCTURED, replay_test
from pytest_mcp_contract._fuzz.sequences import Call, Comparison, Failure, names_match

BROKE = [Violation("content-mismatch", "get", "differs")]


@pytest.mark.parametrize(
    ("argument", "key", "match"),
    [
        ("id", "id", True),
        ("note_id", "id", True),
        ("noteId", "id", True),
        ("id", "note_id", True),
        ("Note-ID", "note_id", True),
        ("paid", "id", False),
        ("title", "id", False),
        ("video", "id", False),
    ],
)
def test_an_answer_key_feeds_an_argument_of_the_same_name_or_its_id(argument: str, key: str, match: bool) -> None:
    assert names_match(argument, key) is match


def test_a_value_is_taken_from_the_first_answer_that_returned_it() -> None:
    calls = [
        Call("create_note", {"title": "a"}, error=False, value={"id": "n1", "title": "a"}),
        Call("list_notes", {}, error=False, value={"notes": [{"id": "n1"}]}, read=True),
        Call("get", {"id": "n1", "title": "a", "count": 3}, error=True),
        Call("get", {"id": "n1"}, error=False),
    ]
    assert replay_test(Failure(calls, BROKE), sandboxed=True) == [
        "def test_sequence(mcp_contract_sandbox, mcp_contract):",
        f'    note = mcp_contract.call_tool("create_note", {{"title": "a"}}).{STRUCTURED}',
        '    mcp_contract.call_tool("get", {"id": note["id"], "title": note["title"], "count": 3}, expect_error=True)',
        '    mcp_contract.call_tool("get", {"id": note["id"]})',
    ]


def test_a_value_from_json_text_is_read_with_json_loads_and_names_do_not_clash() -> None:
    calls = [
        Call("add-item", {}, error=False, value={"item": {"id": 7}}, text_block=1),
        Call("add_item", {}, error=False, value={"id": 8}),
        Call("json", {"id": 7, "other_id": 8}, error=False),
    ]
    lines = replay_test(Failure(calls, BROKE), sandboxed=False, name="test_seed_3")
    assert lines == [
        "import json",
        "",
        "",
        "def test_seed_3(mcp_contract):",
        '    item = json.loads(mcp_contract.call_tool("add-item", {}).content[1].text)',
        f'    item_2 = mcp_contract.call_tool("add_item", {{}}).{STRUCTURED}',
        '    mcp_contract.call_tool("json", {"id": item["item"]["id"], "other_id": item_2["id"]})',
    ]
    compile("\n".join(lines), "pasted", "exec")


@pytest.mark.parametrize(
    ("place", "masked", "compared"),
    [
        ("/notes", False, "after == before"),
        ("/notes/0/title", True, 'after["notes"][0].get("title") == before["notes"][0].get("title")'),
        ("/notes/1", True, 'after["notes"] == before["notes"]'),
        ("/by_year/2024", True, 'after["by_year"].get("2024") == before["by_year"].get("2024")'),
        ("/count", True, 'after.get("count") == before.get("count")'),
    ],
)
def test_a_broken_promise_ends_in_an_assert_on_the_two_reads(place: str, masked: bool, compared: str) -> None:
    listed = {"notes": [{"id": "n1", "title": "a"}], "by_year": {"2024": 1}, "count": 1}
    calls = [
        Call("create", {}, error=False, value={"id": "n1"}),
        Call("list", {}, error=False, value=listed, read=True),
        Call("stats", {}, error=False, value={"at": 1}, read=True),
        Call("archive", {"id": "n1"}, error=False, value={"id": "n1"}),
        Call("list", {}, error=True, read=True),
    ]
    comparison = Comparison("readOnlyHint", "archive", {"id": "n1"}, 1, 4, place, structured=True, masked=masked)
    lines = replay_test(Failure(calls, BROKE, comparison), sandboxed=True)
    assert lines[1:] == [
        f'    create = mcp_contract.call_tool("create", {{}}).{STRUCTURED}',
        f'    before = mcp_contract.call_tool("list", {{}}).{STRUCTURED}',
        '    mcp_contract.call_tool("archive", {"id": create["id"]})',
        f'    after = mcp_contract.call_tool("list", {{}}).{STRUCTURED}',
        f'    assert {compared}, "hint-violated: archive says readOnlyHint: true"',
    ]
    compile("\n".join(lines), "pasted", "exec")


def test_the_read_after_expects_what_the_read_before_got_so_a_kept_promise_passes() -> None:
    # Before the call the read answered; after it, an error: the printed read after does not expect one,
    # so on the broken server it fails there, and on a mended one both reads answer and compare equal.
    calls = [
        Call("get", {"id": "n1"}, error=False, value={"id": "n1"}, read=True),
        Call("archive", {"id": "n1"}, error=False),
        Call("get", {"id": "n1"}, error=True, read=True),
    ]
    comparison = Comparison("readOnlyHint", "archive", {"id": "n1"}, 0, 2, "", structured=True)
    assert replay_test(Failure(calls, BROKE, comparison), sandboxed=True)[-2:] == [
        f'    after = mcp_contract.call_tool("get", {{"id": before["id"]}}).{STRUCTURED}',
        '    assert after == before, "hint-violated: archive says readOnlyHint: true"',
    ]
