"""``content-mismatch``: the text for the model does not say what structured_content says."""

from __future__ import annotations

import fnmatch
import json
from typing import Any

import pytest
from conftest import Project, failing_calls, make_result, make_tool, violation_lines, violations_of
from mcp import types

from pytest_mcp_contract import ContractViolationError, McpContract, check_result

WRAPPED_LIST = {"type": "object", "properties": {"result": {"type": "array"}}, "required": ["result"]}
WRAPPED = {"type": "object", "properties": {"result": {}}, "required": ["result"]}
OBJECT = {"type": "object"}
WRAPPED_SET = {"type": "object", "properties": {"result": {"type": "array", "uniqueItems": True}}}


def test_failure_output_gives_block_index_and_both_values(project: Project) -> None:
    result = failing_calls(project, "mismatch", "mismatch_count")
    result.stdout.fnmatch_lines(
        violation_lines(
            "mismatch",
            "content-mismatch",
            "text block 0 (JSON) has 2 at /n where structured_content has 1",
            at="/n",
            next_step="Make content say what structured_content says: a text block with its JSON *",
        )
    )
    result.stdout.fnmatch_lines(
        [
            "E       [content-mismatch] at /result",
            "E         content has 2 text block(s) but structured_content /result holds 3 value(s) to mirror "
            "([1, 2, 3]): the SDK writes one text block per list item (or one block with the JSON of the whole "
            "value)",
        ]
    )


def _mismatches(schema: dict[str, Any] | None, structured: Any, *texts: str) -> list[tuple[str | None, str]]:
    violations = check_result(make_tool(schema), make_result(structured, *texts))
    return [(v.path, v.message) for v in violations if v.check == "content-mismatch"]


@pytest.mark.parametrize(
    ("schema", "structured", "texts"),
    [
        (WRAPPED, {"result": 4.0}, ["4"]),  # numbers compare by value
        (WRAPPED, {"result": "hello"}, ["hello"]),  # a string is written as it is...
        (WRAPPED, {"result": "721.80"}, ['"721.80"']),  # ...or JSON-quoted (Decimal, dates, Enum)
        (WRAPPED, {"result": ""}, [""]),
        (WRAPPED, {"result": "true"}, ["true"]),
        (WRAPPED, {"result": None}, []),  # None yields no block
        (WRAPPED_LIST, {"result": [1, None, 2]}, ["1", "2"]),  # None items dropped
        (WRAPPED_LIST, {"result": [[1, 2], [3]]}, ["1", "2", "3"]),  # nested lists flattened
        (WRAPPED_LIST, {"result": []}, []),
        (WRAPPED_LIST, {"result": [1, 2]}, ["[1,2]"]),  # FastMCP: one compact block
        (WRAPPED_LIST, {"result": [1, 2]}, ['{"result": [1, 2]}']),  # the whole, wrapped value
        (OBJECT, {"a": 1, "b": [1, 2]}, ['{\n  "b": [\n    1,\n    2\n  ],\n  "a": 1.0\n}']),  # key order, 1.0
        (OBJECT, {"a": 1}, ["Summary for the model: a is one.", '{"a": 1}']),  # a block beside the JSON
        (OBJECT, {"result": [1, 2]}, ['{"result": [1, 2]}']),  # a model whose only field is `result`
        (OBJECT, {"é": "✓"}, ['{"é": "✓"}']),
        (None, {"a": 1}, ['{"a": 1}']),  # structured content without a schema is compared too
        # A set: the SDK writes the text from the returned set and the data from a copy, in another order.
        (WRAPPED_SET, {"result": [7, 39]}, ["[\n  39,\n  7\n]"]),
        (  # an optional set
            {"properties": {"result": {"anyOf": [{"type": "array", "uniqueItems": True}, {"type": "null"}]}}},
            {"result": [7, 39]},
            ["[39, 7]"],
        ),
        (  # dict[str, set[int]]
            {"properties": {"result": {"additionalProperties": {"type": "array", "uniqueItems": True}}}},
            {"result": {"a": [7, 39], "b": [1.0, 2]}},
            ['{"a": [39, 7], "b": [2, 1]}'],
        ),
        (  # a set in a model behind $ref
            {
                "properties": {"box": {"$ref": "#/$defs/Box"}},
                "$defs": {"Box": {"properties": {"ids": {"uniqueItems": True}}}},
            },
            {"box": {"ids": [{"k": 1}, {"k": 2}]}},
            ['{"box": {"ids": [{"k": 2}, {"k": 1}]}}'],
        ),
    ],
)
def test_correct_layouts_pass(schema: dict[str, Any] | None, structured: Any, texts: list[str]) -> None:
    assert _mismatches(schema, structured, *texts) == []


@pytest.mark.parametrize(
    ("schema", "structured", "texts", "path", "message"),
    [
        (WRAPPED, {"result": 1}, ["true"], "/result", 'text block 0 says "true" but structured_content /result is 1'),
        (WRAPPED, {"result": True}, ["1"], "/result", 'text block 0 says "1" but structured_content /result is true'),
        (
            WRAPPED,
            {"result": "hi"},
            ['"bye"'],
            "/result",
            'text block 0 says "\\"bye\\"" but structured_content /result is "hi"',
        ),
        (
            WRAPPED_LIST,
            {"result": [1, 2, 3]},
            ["1", "5", "3"],
            "/result/1",
            'text block 1 says "5" but structured_content /result/1 is 2',
        ),
        (
            OBJECT,
            {"temperature": 22.0, "city": "Oslo"},
            ['{"temperature": 21.5, "city": "Oslo"}'],
            "/temperature",
            "text block 0 (JSON) has 21.5 at /temperature where structured_content has 22.0",
        ),
        (
            OBJECT,
            {"a": 1, "b": 2},
            ['{"a": 1}'],
            "/b",
            "text block 0 (JSON) lacks /b, which structured_content has (2)",
        ),
        (  # a list is no set: its order is data
            WRAPPED_LIST,
            {"result": [7, 39]},
            ["[39, 7]"],
            "/result/0",
            "text block 0 (JSON) differs from structured_content /result in 2 places:\n"
            "- has 39 at /0 where structured_content /result has 7\n"
            "- has 7 at /1 where structured_content /result has 39",
        ),
        (  # an array in a set's place is still a list: its order is data
            {"properties": {"box": {"properties": {"ranked": {"type": "array"}, "ids": {"uniqueItems": True}}}}},
            {"box": {"ranked": [1, 2], "ids": [1, 2]}},
            ['{"box": {"ranked": [2, 1], "ids": [2, 1]}}'],
            "/box/ranked/0",
            "text block 0 (JSON) differs from structured_content in 2 places:\n"
            "- has 2 at /box/ranked/0 where structured_content has 1\n"
            "- has 1 at /box/ranked/1 where structured_content has 2",
        ),
        (  # a set's items must still be the same
            WRAPPED_SET,
            {"result": [7, 39]},
            ["[39, 8]"],
            "/result/1",  # a set's items in one order: 39 before 7 and 8 as text sorts them
            "text block 0 (JSON) has 8 at /1 where structured_content /result has 7",
        ),
    ],
)
def test_mismatches_name_the_block_and_both_values(
    schema: dict[str, Any], structured: Any, texts: list[str], path: str, message: str
) -> None:
    assert _mismatches(schema, structured, *texts) == [(path, message)]


def test_a_content_block_forced_into_structured_output() -> None:
    result = types.CallToolResult(
        content=[types.TextContent(type="text", text="forced")],
        structured_content={"type": "text", "text": "forced", "annotations": None, "_meta": None},
    )
    assert check_result(make_tool(OBJECT), result) == []


def test_an_image_beside_the_text_blocks() -> None:
    image = types.ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png")
    result = types.CallToolResult(
        content=[types.TextContent(type="text", text="1"), image, types.TextContent(type="text", text="2")],
        structured_content={"result": [1, 2]},
    )
    assert check_result(make_tool(WRAPPED_LIST), result) == []


def test_error_results_are_not_compared() -> None:
    result = make_result({"a": 1}, "something else entirely", is_error=True)
    assert check_result(make_tool(OBJECT), result, expect_error=True) == []


def test_a_wrapped_list_without_schema_is_unwrapped() -> None:
    assert _mismatches(None, {"result": [1, 2]}, "1", "2") == []


def test_a_hand_built_result_may_use_prose_but_its_json_must_match(kinds: McpContract, broken: McpContract) -> None:
    # t_annotated_call_tool_result writes "The point is (1, 2)." beside {"x": 1, "y": 2}: prose is fine.
    assert violations_of(kinds, "t_annotated_call_tool_result") == []
    with pytest.raises(ContractViolationError) as caught:
        broken.call_tool("own_result_stale_json")
    [violation] = caught.value.violations
    assert (violation.check, violation.path) == ("content-mismatch", "/x")
    assert violation.message == "text block 0 (JSON) has 3 at /x where structured_content has 1"


def test_nan_on_both_sides_is_named_as_no_json_not_as_a_mismatch() -> None:
    # A wire answer with NaN literals: Python's parser reads them into both channels alike.
    result = make_result({"x": float("nan"), "y": 1}, '{"x": NaN, "y": 1}')
    violations = check_result(make_tool(OBJECT), result)
    assert [(v.check, v.path, v.message) for v in violations] == [
        (
            "structured-invalid",
            "/x",
            "structured_content has NaN at /x, which is not JSON (JSON has no NaN or Infinity): a NaN or Infinity "
            "literal makes a strict client (JavaScript's JSON.parse, for one) reject the whole answer, and a number "
            "beyond a 64-bit float is Infinity to every client",
        )
    ]


@pytest.mark.parametrize(("text", "shown"), [("NaN", "NaN"), ("Infinity", "Infinity"), ("-Infinity", "-Infinity")])
def test_nan_in_the_text_against_null_in_the_data(text: str, shown: str) -> None:
    # What MCPServer sends for a float('nan') return: NaN in the text, null in the data.
    assert _mismatches(WRAPPED, {"result": None}, text) == [
        (
            "/result",
            f"text block 0 says {shown} but structured_content /result is null: {shown} is not JSON (JSON has no "
            "NaN or Infinity); a tool that computes it must send a number or null in both",
        )
    ]


def test_every_differing_key_of_a_record_is_named() -> None:
    structured = {"name": "Ann", "role": "user", "age": 1}
    text = '{"name": "Ann", "role": "admin", "age": true, "password_hash": "x1y2"}'
    assert _mismatches(OBJECT, structured, "Ann, an admin", text) == [
        (
            "/role",
            "text block 1 (JSON) differs from structured_content in 3 places:\n"
            '- has "admin" at /role where structured_content has "user"\n'
            "- has true at /age where structured_content has 1\n"
            '- has "x1y2" at /password_hash, a key structured_content does not have',
        )
    ]


@pytest.mark.parametrize(
    ("structured", "texts"),
    [
        ({"content": "a\nb"}, ["a\nb"]),  # any one key wraps a value, shown as itself...
        ({"content": "a\nb"}, ['"a\\nb"']),  # ...or JSON-quoted
        ({"entities": [{"n": 1}, {"n": 2}]}, ['[{"n":1},{"n":2}]']),  # a wrapped list's compact JSON
        ({"entities": [{"n": 1}, {"n": 2}]}, ['{"n": 1}', '{"n": 2}']),  # one block per item
        ({"count": 3}, ["3"]),
        ({"value": None}, []),  # a wrapped null: no block
        ({"route": "LYS-CDG", "flights": 3}, ["3 flights on LYS-CDG"]),  # a record in words
        ({"route": "LYS-CDG", "flights": 3}, ["3 flights:", '{"flights": 3, "route": "LYS-CDG"}']),
        ({"user": {"name": "Ann", "id": 1}}, ["Ann is user 1"]),  # a wrapped record, in words
        ({"user": {"name": "Ann", "id": 1}}, ['{"name": "Ann", "id": 1}']),  # or as the JSON it wraps
    ],
)
def test_layouts_of_other_sdks_pass(structured: Any, texts: list[str]) -> None:
    assert _mismatches(OBJECT, structured, *texts) == []


@pytest.mark.parametrize(
    ("structured", "texts", "path"),
    [
        ({"result": 17}, ["About 20 degrees"], "/result"),  # words instead of a value
        ({"entities": [1, 2]}, ["two of them"], "/entities"),
        ({"ok": True}, ["done"], "/ok"),
        ({"route": "LYS-CDG", "flights": 3}, ["3 flights", '{"flights": 4, "route": "LYS-CDG"}'], "/flights"),
        ({"user": {"name": "Ann"}}, ['{"name": "Bo"}'], "/user/name"),
        ({"a": 1, "b": 2}, ["<app.Thing object at 0x7f3a2c1d9e80>"], None),  # a default repr is never words
    ],
)
def test_defects_on_any_sdk_are_caught(structured: Any, texts: list[str], path: str | None) -> None:
    assert [found_path for found_path, _message in _mismatches(OBJECT, structured, *texts)] == [path]


def test_content_prose_is_a_violation_only_on_request() -> None:
    result = make_result({"route": "LYS-CDG", "flights": 3}, "3 flights on LYS-CDG")
    assert check_result(make_tool(OBJECT), result) == []
    [violation] = check_result(make_tool(OBJECT), result, require_json_text=True)
    assert violation.check == "content-prose"


def test_a_default_repr_of_a_class_defined_in_a_function_is_caught() -> None:
    repr_text = "<app.make.<locals>.Thing object at 0x7f3a2c1d9e80>"
    [(path, message)] = _mismatches(OBJECT, {"a": 1, "b": 2}, repr_text)
    assert (path, message.split(":")[0]) == (
        None,
        f"text block 0 is {repr_text}, the default repr of a Python object (app.make.<locals>.Thing)",
    )


def test_a_set_of_huge_integers_is_compared_without_a_crash() -> None:
    schema = {"properties": {"result": {"type": "array", "uniqueItems": True}}}
    assert _mismatches(schema, {"result": [1, 10**5000]}, "[1, 1" + "0" * 5000 + "]") == []
    [(path, message)] = _mismatches(schema, {"result": [1, 10**5000]}, "[1, 2" + "0" * 5000 + "]")
    assert path == "/result/1"
    assert message == (
        "text block 0 (JSON) has <an integer of 5001 digits: 200000000000…000000> at /1 where structured_content "
        "/result has <an integer of 5001 digits: 100000000000…000000>"
    )


def test_a_number_beyond_a_float_is_named_as_it_was_written() -> None:
    assert _mismatches(WRAPPED, {"result": None}, "1e999") == [
        (
            "/result",
            "text block 0 says 1e999 but structured_content /result is null: 1e999 is beyond a 64-bit float "
            "(Python reads it as Infinity)",
        )
    ]


def test_two_long_strings_that_differ_only_at_the_end_are_shown_where_they_differ() -> None:
    head = "The forecast for the coming week: " + "sunny, " * 30
    structured = {"summary": head + "then rain", "days": 7}
    text = json.dumps({"summary": head + "then snow", "days": 7})
    [(place, message)] = _mismatches(OBJECT, structured, text)
    assert place == "/summary"
    said, held = message.removeprefix("text block 0 (JSON) has ").split(" at /summary where structured_content has ")
    assert said.endswith(" (from character 249 on)")
    assert said.startswith('"…')
    assert "then snow" in said
    assert held.startswith('"…')
    assert "then rain" in held


# A list of records, or a scalar, told in words (the amended mirror rule): what passes, what does not.
USERS = [
    {"id": "1", "name": "Alice", "email": "alice@example.com"},
    {"id": "2", "name": "Bob", "email": "bob@example.com"},
]
USERS_TEXT = "Found 2 users: Alice (alice@example.com) and Bob (bob@example.com)."
ARRAY = {"type": "array", "items": {"type": "object"}}


def _checks(schema: dict[str, Any] | None, structured: Any, *texts: str) -> list[tuple[str, str | None, str]]:
    violations = check_result(make_tool(schema), make_result(structured, *texts), require_json_text=True)
    return [(v.check, v.path, v.message) for v in violations]


@pytest.mark.parametrize(
    ("schema", "structured", "texts", "told"),
    [
        (ARRAY, USERS, [USERS_TEXT], "structured_content is a list of 2 records"),  # the spec's example
        (OBJECT, {"users": USERS}, [USERS_TEXT], "structured_content /users is a list of 2 records"),
        (OBJECT, {"users": USERS}, ["Found 2 users:", "Alice (alice@example.com)", "Bob"], "*"),  # across blocks
        (  # numbers need not be named when the strings are, and compare by value when they are
            ARRAY,
            [{"route": "LYS-CDG", "flights": 3}, {"route": "LYS-NCE", "flights": 1}],
            ["LYS-CDG: 3 flights; LYS-NCE: 1 flight"],
            "structured_content is a list of 2 records",
        ),
        (ARRAY, [{"x": 1.5, "y": 2}, {"x": 3, "y": 4}], ["Points (1.50, 2) and (3, 4)."], "*"),  # no strings
        (ARRAY, [{"name": "Ann", "role": "", "note": None}], ["Ann"], "*"),  # blank strings and nulls say nothing
        (WRAPPED, {"result": 17}, ["It is 17 degrees."], "structured_content /result is 17, told in words"),
        (WRAPPED, {"result": 17.0}, ["It is 17 degrees."], "*"),  # a number by value
        (WRAPPED, {"result": -5}, ["Low of -5 tonight"], "*"),
        (WRAPPED, {"result": "Oslo"}, ["The forecast is for Oslo."], 'structured_content /result is "Oslo", *'),
        (WRAPPED, {"result": "a\nb"}, ["Here it is:\na\nb"], "*"),
        (WRAPPED, {"result": True}, ["Saved: true"], "*"),
    ],
)
def test_a_list_of_records_or_a_scalar_may_be_told_in_words(
    schema: dict[str, Any], structured: Any, texts: list[str], told: str
) -> None:
    assert check_result(make_tool(schema), make_result(structured, *texts)) == []  # noted, not failing
    [(check, path, message)] = _checks(schema, structured, *texts)
    assert (check, path) == ("content-prose", None)
    assert fnmatch.fnmatchcase(message, told + "*")
    assert message.endswith(
        "no text block holds it alone: the model reads about the data in words only (the spec recommends a text "
        "block with the JSON of structured_content)"
        if not isinstance(structured, list) and not isinstance(next(iter(structured.values())), list)
        else "no text block holds its JSON: the model reads about the data in words only (the spec recommends a "
        "text block with the JSON of structured_content)"
    )


@pytest.mark.parametrize(
    ("schema", "structured", "texts", "path", "message"),
    [
        (
            WRAPPED,
            {"result": 17},
            ["About 20 degrees"],
            "/result",
            'text block 0 says "About 20 degrees" but structured_content /result is 17: a value that is not an '
            "object must be shown to the model as it is (its text or its JSON), or told in words that hold it",
        ),
        (  # a number within a longer one is not that number
            WRAPPED,
            {"result": 17},
            ["It is 170 degrees, version 2.17"],
            "/result",
            'text block 0 says "It is 170 degrees, version 2.17" but structured_content /result is 17: *',
        ),
        (  # a string within a longer word is not that string
            WRAPPED,
            {"result": "Paris"},
            ["Parisian weather"],
            "/result",
            'text block 0 says "Parisian weather" but structured_content /result is "Paris": *',
        ),
        (WRAPPED, {"result": True}, ["done"], "/result", 'text block 0 says "done" but structured_content /result *'),
        (  # an empty string is no word: it must be shown
            WRAPPED,
            {"result": ""},
            ["nothing"],
            "/result",
            'text block 0 says "nothing" but structured_content /result is "": *, not told in words',
        ),
        (  # a list of scalars is not a list of records: it must be shown
            WRAPPED_LIST,
            {"result": [17, 18]},
            ["17 and 18"],
            "/result",
            "content has 1 text block(s) but structured_content /result holds 2 value(s) to mirror *",
        ),
        (  # a record named by a lesser part of its values
            ARRAY,
            [{"name": "Ada", "kind": "person"}, {"name": "Paris", "kind": "city"}],
            ["Two entities: a person and a city."],
            "/0",
            "text block 0 tells the 2 records of structured_content in words that name none of them:\n"
            '- /0 {"name": "Ada", "kind": "person"}: the words hold "person" but not "Ada"\n'
            '- /1 {"name": "Paris", "kind": "city"}: the words hold "city" but not "Paris"\n'
            "words may tell a list of records when they name each record by most of its text values (more than "
            'half of its strings), as "Alice (alice@example.com)" names {"id": "1", "name": "Alice", "email": '
            '"alice@example.com"}',
        ),
        (  # a different count: the words leave a record out
            OBJECT,
            {"users": [*USERS, {"id": "3", "name": "Carol", "email": "carol@example.com"}]},
            ["Found 2 users:", "Alice (alice@example.com) and Bob (bob@example.com)."],
            "/users/2",
            "the text blocks tell the 3 records of structured_content /users in words that name 2 of them:\n"
            '- /users/2 {"id": "3", "name": "Carol", "email": "carol@example.com"}: the words hold none of "3", '
            '"Carol", "carol@example.com"\n*',
        ),
        (  # a record with no strings is named by its numbers
            ARRAY,
            [{"x": 1, "y": 2}, {"x": 3, "y": 4}],
            ["Two points: (1, 2) and (5, 6)."],
            "/1",
            "text block 0 tells the 2 records of structured_content in words that name 1 of them:\n"
            '- /1 {"x": 3, "y": 4}: the words hold none of 3, 4\n*',
        ),
        (  # a record with nothing words could hold
            ARRAY,
            [{"tags": ["a"]}],
            ["One record."],
            "/0",
            "text block 0 tells the one record of structured_content in words that do not name it:\n"
            '- /0 {"tags": [[]"a"[]]}: it has no value words could hold\n*',
        ),
        (  # JSON beside the words is compared as ever, and the words do not excuse it
            OBJECT,
            {"users": USERS},
            [USERS_TEXT, json.dumps([USERS[0], {**USERS[1], "name": "Rob"}])],
            "/users/1/name",
            'text block 1 (JSON) has "Rob" at /1/name where structured_content /users has "Bob"',
        ),
        (  # a default repr is never words
            ARRAY,
            USERS,
            ["<app.Users object at 0x7f3a2c1d9e80>"],
            None,
            "text block 0 is <app.Users object at 0x7f3a2c1d9e80>, the default repr of a Python object *",
        ),
    ],
)
def test_words_that_do_not_hold_the_data_are_a_mismatch(
    schema: dict[str, Any], structured: Any, texts: list[str], path: str | None, message: str
) -> None:
    [(check, found_path, found)] = _checks(schema, structured, *texts)
    assert (check, found_path) == ("content-mismatch", path)
    assert fnmatch.fnmatchcase(found, message), found
