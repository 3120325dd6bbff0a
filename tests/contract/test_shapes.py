"""Observed shapes, as values: which answers give one, the shape inferred from them, and the schema to
publish it suggests. Whole runs are ``tests/suite/test_observed.py``'s."""

from __future__ import annotations

import json
import random
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_types import CallToolResult, ImageContent, TextContent
from pydantic import TypeAdapter

from pytest_mcp_contract._contract.answer import Answer
from pytest_mcp_contract._contract.shapes import ObservedShapes, answer_value, is_open
from pytest_mcp_contract._json.shape import MAX_DEPTH, Shape, infer
from pytest_mcp_contract._suite.shapes import changes, recorded, settle, unseen_before
from pytest_mcp_contract._suite.suggest import python_types

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=3),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.sampled_from("abcd"), children, max_size=3),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(st.lists(JSON, min_size=1, max_size=6), st.randoms(use_true_random=False))
def test_no_value_contradicts_the_shape_inferred_from_it_and_order_never_matters(
    values: list[Any], shuffler: random.Random
) -> None:
    shape = infer(values)
    for value in values:
        jsonschema.validate(value, shape)
    shuffled = values[:]
    shuffler.shuffle(shuffled)
    assert json.dumps(infer(shuffled), sort_keys=True) == json.dumps(shape, sort_keys=True)


@settings(max_examples=100, deadline=None)
@given(st.lists(JSON, min_size=2, max_size=6), st.integers(min_value=1, max_value=5))
def test_shapes_merged_from_two_workers_are_the_shape_of_all_their_values(values: list[Any], cut: int) -> None:
    cut = min(cut, len(values) - 1)
    first, second = Shape(), Shape()
    for value in values[:cut]:
        first.add(value)
    for value in values[cut:]:
        second.add(value)
    merged = Shape()
    merged.merge(second.for_merge(), second.values)
    merged.merge(first.for_merge(), first.values)
    assert merged.schema() == infer(values)
    assert merged.values == len(values)


def test_a_shape_holds_keys_types_required_items_and_nulls_never_values() -> None:
    shape = infer([{"id": 1, "note": None, "tags": ["a"]}, {"id": 2.5, "note": "zq", "tags": [], "extra": True}])
    assert shape == {
        "type": "object",
        "properties": {
            "extra": {"type": "boolean"},
            "id": {"type": "number"},
            "note": {"type": ["null", "string"]},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["id", "note", "tags"],
    }
    assert "zq" not in json.dumps(shape)
    assert "2.5" not in json.dumps(shape)


def test_an_object_with_more_keys_than_names_have_is_a_map_of_one_shape() -> None:
    days = {f"2026-{day:03}": {"high": day, "low": None if day % 2 else day - 5} for day in range(1, 41)}
    more = {f"2027-{day:03}": {"high": day, "low": 1} for day in range(1, 41)}
    shape = infer([{"days": days}, {"days": more, "unit": "C"}])
    assert shape["properties"]["days"] == {
        "type": "object",
        "additionalProperties": {
            "type": "object",
            "properties": {"high": {"type": "integer"}, "low": {"type": ["integer", "null"]}},
            "required": ["high", "low"],
        },
    }
    assert shape["required"] == ["days"]  # the names of the outer object stay names


def test_a_value_nested_beyond_the_bound_gives_no_shape() -> None:
    deep: Any = 1
    for _ in range(MAX_DEPTH + 5):
        deep = [deep]
    shape = Shape()
    assert shape.add(deep) is False
    assert shape.values == 0
    assert shape.add({"a": 1}) is True


@pytest.mark.parametrize(
    ("schema", "open_"),
    [
        (None, True),
        ({}, True),
        ({"type": "object"}, True),
        ({"type": "object", "additionalProperties": True, "title": "find_usersDictOutput"}, True),
        ({"type": "object", "properties": {}, "additionalProperties": True}, True),  # zod's z.object({}).passthrough()
        ({"type": "object", "properties": {"a": {"type": "string"}}}, False),
        ({"type": "object", "additionalProperties": {"type": "integer"}}, False),
        ({"$ref": "#/$defs/M", "$defs": {"M": {"type": "object"}}}, False),
        ({"type": "array"}, False),
    ],
)
def test_an_output_schema_is_open_when_it_names_no_key(schema: Any, open_: bool) -> None:
    assert is_open(schema) is open_


def _result(*texts: str, structured: Any = None, error: bool = False) -> CallToolResult:
    blocks: list[Any] = [TextContent(type="text", text=text) for text in texts]
    return CallToolResult(content=blocks, structured_content=structured, is_error=error)


def test_the_value_is_the_structured_content_else_the_one_text_block_of_json() -> None:
    assert answer_value(_result('{"a": 1}', structured={"b": 2})) == {"b": 2}
    assert answer_value(_result('{"a": 1}')) == {"a": 1}
    assert answer_value(_result("[1, 2]")) == [1, 2]
    image = ImageContent(type="image", data="aGk=", mime_type="image/png")
    assert answer_value(CallToolResult(content=[image, TextContent(type="text", text='{"a": 1}')])) == {"a": 1}
    # Prose, a scalar in text, or two JSON blocks (which one is the data?) give none.
    assert answer_value(_result("Ada is 36")) is None
    assert answer_value(_result("36")) is None
    assert answer_value(_result('{"a": 1}', '{"b": 2}')) is None


def test_only_results_of_tools_without_a_key_in_their_schema_count_once_each() -> None:
    shapes = ObservedShapes()
    answer = Answer(_result('{"a": 1}'), None)
    shapes.answered("s", "t", None, answer)
    shapes.answered("s", "t", None, answer)  # the same answer, read by another version's session
    shapes.answered("s", "t", None, Answer(_result("oops", error=True), None))  # a tool error: no output
    shapes.answered("s", "t", None, Answer(_result("prose"), None))
    shapes.answered("s", "closed", {"type": "object", "properties": {"a": {}}}, answer)
    assert shapes.tools[("s", "t")].shape.values == 1
    assert shapes.tools[("s", "t")].without == 1
    assert ("s", "closed") not in shapes.tools
    schema = shapes.schema("s", "t")
    assert schema is not None
    assert schema["$comment"].startswith("Observed: inferred by pytest-mcp-contract")
    assert shapes.schema("s", "unknown") is None


def test_a_new_type_or_a_key_gone_from_some_answers_breaks_and_a_key_not_seen_does_not() -> None:
    before = infer([{"a": 1, "b": "x", "c": True}, {"a": 2, "b": "y"}])
    now = infer([{"a": "1", "b": "x"}, {"a": "2"}])
    lines = [change.line("t") for change in changes(before, now)]
    assert lines == [
        't observed output /properties/a/type: changed from "integer" to "string" — BREAKING',
        "t observed output /properties/b: now missing from some answers (it was in every one) — BREAKING",
        "t observed output /properties/c: not seen (it was in some answers) — cosmetic",
    ]
    # A run that saw fewer answers, all of which fit, finds nothing the recorded shape does not say.
    assert unseen_before(before, infer([{"a": 3, "b": "z"}])) == []


def test_the_suggested_typed_dict_publishes_a_schema_the_answers_keep() -> None:
    answers = [
        {"id": 1, "name": "Ada", "email": "a@example.com", "address": {"city": "L", "zip": None}, "tags": ["x"]},
        {"id": 2, "name": "Bo", "address": {"city": "P", "zip": "1000"}, "tags": [], "user-id": 7},
    ]
    classes, annotation = python_types("get_user", infer(answers))
    assert annotation == "GetUserResult"
    assert "class GetUserResultAddress(TypedDict):\n    city: str\n    zip: str | None" in classes
    assert '    "email": NotRequired[str],' in classes  # a key no Python name spells: the functional form
    namespace: dict[str, Any] = {}
    exec("from typing import Any\nfrom typing_extensions import NotRequired, TypedDict\n" + classes, namespace)
    published = TypeAdapter(namespace[annotation]).json_schema()
    for answer in answers:
        jsonschema.validate(answer, published)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**answers[0], "id": "1"}, published)


@pytest.mark.parametrize(
    "edited",
    [
        {"type": "object", "properties": {"tags": True}},
        {"type": "foo"},
        {"type": "array", "items": True},
        {"type": "object", "properties": ["tags"]},
        {"anyOf": 3},
        {"type": "object", "required": [["x"]]},
        {"type": "object", "$ref": "#/x"},
    ],
)
def test_a_recorded_shape_edited_into_another_schema_reads_as_none(edited: dict[str, Any], tmp_path: Any) -> None:
    assert recorded({"observed_output_schema": edited}) is None
    path = tmp_path / "tool.json"
    path.write_text(json.dumps({"observed_output_schema": edited, "output_schema": None}))
    settled = settle(path, infer([{"tags": ["a"]}]), updating=False, whole=True)
    assert settled is not None
    assert settled.state == "not recorded"


def test_what_this_run_saw_nothing_of_is_no_change() -> None:
    before = infer([{"tags": ["a"], "days": {f"d{day}": {"high": day} for day in range(70)}}])
    now = infer([{"tags": [], "days": {"d1": {"high": 3}}}])
    assert changes(before, now) == []
    assert unseen_before(before, now) == []
    # What it did see still counts: a type changed under the map's keys.
    later = infer([{"tags": [], "days": {"d1": {"high": "hot"}}}])
    assert [change.line("t") for change in changes(before, later) if change.kind == "breaking"] == [
        't observed output /properties/days/additionalProperties/properties/high/type: changed from "integer" to '
        '"string" — BREAKING'
    ]


def test_an_object_keyed_by_many_ids_is_folded_into_a_map_as_it_is_read() -> None:
    shape = infer([{"ids": {f"id{index}": {"n": index} for index in range(5000)}}])
    assert shape["properties"]["ids"] == {
        "type": "object",
        "additionalProperties": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    }
    # Forty names in every answer stay names.
    names = infer([{f"k{index}": index for index in range(40)}] * 2)
    assert len(names["properties"]) == 40
    assert len(names["required"]) == 40
