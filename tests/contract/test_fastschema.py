"""The quick validator agrees with jsonschema on every value, or steps aside.

Only its yes/no answer is used (jsonschema explains failures), so agreement is all that matters;
this test mutates real results and compares both answers on each mutation.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
import referencing
from conftest import raw_call

from pytest_mcp_contract import McpContract
from pytest_mcp_contract._contract.fastschema import compile_predicate

REPLACEMENTS: list[Any] = [None, "x", "", 0, 1, -1, 1.0, 1.5, True, False, [], [1], {}, {"k": "v"}, 10**30]


def walk(value: Any) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """Every node of a JSON value with its path, parents first (iterative)."""
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), value)]
    while stack:
        path, node = stack.pop()
        yield path, node
        if isinstance(node, dict):
            stack.extend(((*path, key), node[key]) for key in reversed(list(node)))
        elif isinstance(node, list):
            stack.extend(((*path, i), node[i]) for i in reversed(range(len(node))))


def mutations(value: Any) -> Iterator[Any]:
    """The value itself, then one change at a time: every node replaced, keys dropped and added."""
    yield value
    for path, node in list(walk(value)):
        for replacement in REPLACEMENTS:
            yield _replaced(value, path, replacement)
        if isinstance(node, dict):
            for key in list(node):
                changed = copy.deepcopy(value)
                del _at(changed, path)[key]
                yield changed
            changed = copy.deepcopy(value)
            _at(changed, path)["unexpected"] = 1
            yield changed
        if isinstance(node, list) and node:
            changed = copy.deepcopy(value)
            _at(changed, path).append(copy.deepcopy(node[0]))
            yield changed


def _at(value: Any, path: tuple[str | int, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


def _replaced(value: Any, path: tuple[str | int, ...], replacement: Any) -> Any:
    if not path:
        return replacement
    changed = copy.deepcopy(value)
    _at(changed, path[:-1])[path[-1]] = replacement
    return changed


def _agree(schema: dict[str, Any], values: Iterator[Any]) -> int:
    quick = compile_predicate(schema)
    assert quick is not None, "this schema should compile"
    reference = jsonschema.Draft202012Validator(schema, registry=referencing.Registry())
    count = 0
    for value in values:
        assert quick(value) == reference.is_valid(value), value
        count += 1
    return count


def test_agrees_on_every_sdk_schema(kinds: McpContract) -> None:
    checked, left_to_jsonschema = 0, []
    for name, tool in sorted(kinds.tools.items()):
        if tool.output_schema is None or name in ("t_large_list", "t_huge_int"):
            continue
        if compile_predicate(tool.output_schema) is None:
            left_to_jsonschema.append(name)
            continue
        arguments = {"city": "Oslo"} if name == "t_with_args" else None
        structured = raw_call(kinds, name, arguments).structured_content
        checked += _agree(tool.output_schema, mutations(structured))
    assert checked > 1000
    assert left_to_jsonschema == [  # uniqueItems is jsonschema's alone
        "t_dict_of_sets",
        "t_frozenset_str",
        "t_list_of_dicts_of_sets",
        "t_list_of_sets",
        "t_model_with_set_from_dict",
        "t_optional_set",
        "t_set",
        "t_tuple_with_set",
        "t_typeddict_with_set",
    ]


HAND_WRITTEN: list[tuple[dict[str, Any], Any]] = [
    (
        {
            "type": "object",
            "properties": {
                "n": {"type": "integer", "minimum": 0, "exclusiveMaximum": 10},
                "s": {"type": "string", "minLength": 2, "maxLength": 3, "pattern": "^[a-z]+$"},
            },
            "required": ["n"],
            "additionalProperties": False,
        },
        {"n": 3, "s": "ab"},
    ),
    (
        {
            "type": "object",
            "properties": {"kind": {"const": "a"}, "tag": {"enum": ["x", 1, None, True]}},
            "patternProperties": {"^x-": {"type": "string"}},
            "additionalProperties": {"type": "number"},
            "minProperties": 1,
            "maxProperties": 4,
        },
        {"kind": "a", "tag": 1, "x-note": "n", "extra": 2.5},
    ),
    (
        {
            "type": "object",
            "properties": {
                "pair": {
                    "type": "array",
                    "prefixItems": [{"type": "integer"}, {"type": "string"}],
                    "items": False,
                    "minItems": 2,
                },
                "either": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "one": {"oneOf": [{"type": "number"}, {"type": "integer"}]},
                "both": {"allOf": [{"type": "number"}, {"minimum": 1}]},
                "nope": {"not": {"type": "boolean"}},
                "many": {"type": ["string", "array"], "items": {"type": "integer"}},
            },
        },
        {"pair": [1, "a"], "either": None, "one": 1.5, "both": 2, "nope": "x", "many": [1, 2]},
    ),
    (
        {"type": "object", "properties": {"child": {"$ref": "#"}, "name": {"type": "string"}}, "required": ["name"]},
        {"name": "root", "child": {"name": "leaf", "child": {"name": "deeper"}}},
    ),
    (  # references through each other (a tree and its forest), one referenced twice, a type alone
        {
            "type": "object",
            "$defs": {
                "Tree": {
                    "type": "object",
                    "properties": {"leaf": {"$ref": "#/$defs/Leaf"}, "forest": {"$ref": "#/$defs/Forest"}},
                    "required": ["leaf"],
                },
                "Forest": {"type": "array", "items": {"$ref": "#/$defs/Tree"}},
                "Leaf": {"type": "object"},
            },
            "properties": {
                "tree": {"$ref": "#/$defs/Tree"},
                "other": {"$ref": "#/$defs/Leaf"},
                "list": {"type": "array"},
            },
        },
        {"tree": {"leaf": {"a": 1}, "forest": [{"leaf": {}}, {"leaf": {}, "forest": []}]}, "other": {}, "list": [1]},
    ),
]


@pytest.mark.parametrize(("schema", "value"), HAND_WRITTEN)
def test_agrees_on_hand_written_schemas(schema: dict[str, Any], value: Any) -> None:
    assert _agree(schema, mutations(value)) > 20


SLOW = "^(a|aa)+$"
"""Backtracks without end on "aaa…!": run on it, a pattern takes its time limit and raises."""


@pytest.mark.parametrize(
    ("schema", "value", "valid"),
    [
        ({"anyOf": [{"type": "object", "pattern": SLOW}, {"type": "string"}]}, "a" * 60 + "!", True),
        (
            {"type": "object", "enum": [{"a": "x"}], "properties": {"a": {"pattern": SLOW}}},
            {"a": "a" * 60 + "!"},
            False,
        ),
        ({"type": "array", "properties": {"a": {"pattern": SLOW}}}, {"a": "a" * 60 + "!"}, False),
    ],
)
def test_a_keyword_after_one_that_failed_is_never_run(schema: dict[str, Any], value: Any, valid: bool) -> None:
    # The checks run in order: a failed type (or enum) skips what follows it, a slow pattern among them.
    quick = compile_predicate(schema)
    assert quick is not None
    assert quick(value) is valid


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"n": {"multipleOf": 0.1}}},
        {"type": "object", "properties": {"s": {"type": "array", "uniqueItems": True}}},
        {"type": "object", "if": {"required": ["a"]}, "then": {"required": ["b"]}},
        {"type": "object", "unevaluatedProperties": False},
        {"$id": "https://example.com/s", "type": "object"},
        {"type": "object", "properties": {"a": {"$ref": "other.json"}}},
        # jsonschema percent-decodes pointers: #/$defs/A%20B names "A B", not "A%20B".
        {"type": "object", "$defs": {"A%20B": {}, "A B": {}}, "properties": {"x": {"$ref": "#/$defs/A%20B"}}},
        {"type": "object", "$defs": {"a/b": {}}, "properties": {"x": {"$ref": "#/$defs/a~1b"}}},
    ],
)
def test_steps_aside_for_what_it_does_not_implement(schema: dict[str, Any]) -> None:
    assert compile_predicate(schema) is None


def test_formats_are_left_to_jsonschema_when_asserted() -> None:
    schema = {"type": "object", "properties": {"d": {"type": "string", "format": "date"}}}
    assert compile_predicate(schema) is not None
    assert compile_predicate(schema, check_formats=True) is None
