"""What the annotations promise, judged from three reads (``_contract.checks.hint_kept``): a change is a
finding; what changes on its own, or under a key named volatile, is none. Whole sequences are
``tests/fuzz/test_sequences.py``'s."""

from __future__ import annotations

from typing import Any

import pytest
from mcp_types import CallToolResult, TextContent, Tool, ToolAnnotations

from pytest_mcp_contract._contract.answer import Answer, NoAnswer
from pytest_mcp_contract._contract.checks import hint_kept
from pytest_mcp_contract._contract.hints import Observation, hint_of, observation

pytestmark = pytest.mark.pure


def _read(structured: Any = None, *texts: str, error: bool = False) -> Observation:
    result = CallToolResult(
        content=[TextContent(type="text", text=text) for text in texts], structured_content=structured, is_error=error
    )
    found = observation(Answer(result, None))
    assert found is not None
    return found


def _kept(*reads: Observation, names: tuple[str, ...] = (), hint: Any = "readOnlyHint") -> list[str]:
    first, before, after = reads
    found = hint_kept("archive", hint, {"id": "n1"}, ("list", {}), (first, before, after), volatile_names=names)
    return [f"[{violation.check}] at {violation.path}: {violation.message}" for violation in found]


def test_a_read_that_changed_after_the_call_is_a_finding_that_names_hint_place_and_values() -> None:
    notes = {"notes": [{"id": "n1"}]}
    assert _kept(_read(notes), _read(notes), _read({"notes": []})) == [
        '[hint-violated] at /notes: \'archive\' says readOnlyHint: true, yet calling it with {"id": "n1"} changed '
        'what \'list\' called with no arguments answers: at /notes: before [{"id": "n1"}], after []'
    ]


def test_idempotent_words_say_one_call_and_two() -> None:
    once, twice = {"title": "a"}, {"title": "a (edited)"}
    assert _kept(_read(once), _read(once), _read(twice), hint="idempotentHint") == [
        "[hint-violated] at /title: 'archive' says idempotentHint: true, yet a second call with the same arguments "
        '({"id": "n1"}) changed what \'list\' called with no arguments answers: at /title: after one call "a", '
        'after two "a (edited)"'
    ]


def test_what_changes_between_two_reads_with_nothing_between_is_no_finding() -> None:
    # A clock beside the data: it moved between the two reads before the call, so it proves nothing.
    reads = [_read({"count": 1, "checked_at": at}) for at in (1, 2, 3)]
    assert _kept(*reads) == []
    # ... but the data beside it still counts.
    assert _kept(reads[0], reads[1], _read({"count": 0, "checked_at": 3}))[0].startswith("[hint-violated] at /count:")


@pytest.mark.parametrize("names", [("checked_at",), ("/stats/checked_at",)])
def test_a_key_or_pointer_named_volatile_is_left_out(names: tuple[str, ...]) -> None:
    # Still between the two first reads (a clock at second resolution), moved by the call's time.
    still, moved = {"stats": {"checked_at": 1}}, {"stats": {"checked_at": 2}}
    assert _kept(_read(still), _read(still), _read(moved)) != []
    assert _kept(_read(still), _read(still), _read(moved), names=names) == []


def test_words_are_compared_as_words_and_a_tool_error_as_a_tool_error() -> None:
    assert _kept(_read(None, "2 notes"), _read(None, "2 notes"), _read(None, "2 notes")) == []
    assert _kept(_read(None, "2 notes"), _read(None, "2 notes"), _read(None, "1 note")) == [
        '[hint-violated] at /0: \'archive\' says readOnlyHint: true, yet calling it with {"id": "n1"} changed what '
        '\'list\' called with no arguments answers: at /0: before "2 notes", after "1 note"'
    ]
    found = _kept(_read({"id": "n1"}), _read({"id": "n1"}), _read(None, "no note n1", error=True))
    assert found[0].startswith("[hint-violated] at None: ")
    assert found[0].endswith("answers: a result before, a tool error after (and 1 other place)")


def test_no_answer_shows_nothing_and_a_malformed_hint_promises_nothing() -> None:
    assert observation(NoAnswer("timed out")) is None
    said = Tool(name="t", input_schema={"type": "object"}, annotations=ToolAnnotations(read_only_hint=True))
    assert hint_of(said) == "readOnlyHint"
    both = ToolAnnotations(read_only_hint=False, idempotent_hint=True)
    assert hint_of(Tool(name="t", input_schema={"type": "object"}, annotations=both)) == "idempotentHint"
    assert hint_of(Tool(name="t", input_schema={"type": "object"})) is None
