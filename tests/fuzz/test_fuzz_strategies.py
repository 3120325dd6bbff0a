"""The fuzzer's own JSON-Schema strategies: every value allowed, little thrown away, known values drawn.

Every value passes the schema's validator by construction (a last filter in ``arguments``), so the
validity assertions here guard that filter. What proves the strategy builds what the schema asks is
Hypothesis's health check, left on: a strategy whose values the filter mostly rejects fails it
(``filter_too_much``), as the mutation of any keyword's generation shows.
"""

from __future__ import annotations

import datetime as dt
import enum
import json
import re
import subprocess
import uuid
from typing import Annotated, Any, Literal

import anyio
import pytest
from conftest import HANG
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema.validators import validator_for
from mcp.server import MCPServer
from pydantic import AnyUrl, BaseModel, Field

from pytest_mcp_contract._fuzz.strategies import Unsupported, arguments, checker


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Address(BaseModel):
    street: str
    number: int = Field(ge=1)


class Tree(BaseModel):
    label: str
    children: list[Tree] = []


def _pydantic_schemas() -> dict[str, dict[str, Any]]:
    """The input schemas MCPServer writes for parameters of every common kind."""
    server = MCPServer("kinds")

    # Only their parameters matter: the schemas are read, the tools never called.
    def scalars(name: str, count: Annotated[int, Field(ge=0, le=10)], ratio: float, on: bool = False) -> str:
        raise NotImplementedError

    def bounded(
        price: Annotated[float, Field(gt=0, lt=1)], half: Annotated[float, Field(multiple_of=0.5, ge=1, le=4)]
    ) -> str:
        raise NotImplementedError

    def choices(colour: Colour, mode: Literal["fast", "slow"], maybe: int | None = None) -> str:
        raise NotImplementedError

    def collections(
        words: Annotated[list[str], Field(min_length=1, max_length=3)],
        counts: dict[str, int],
        pair: tuple[int, str],
        ids: set[int],
    ) -> str:
        raise NotImplementedError

    def nested(home: Address, others: list[Address]) -> str:
        raise NotImplementedError

    def recursive(tree: Tree) -> str:
        raise NotImplementedError

    def formats(when: dt.datetime, day: dt.date, key: uuid.UUID, link: AnyUrl, span: dt.timedelta) -> str:
        raise NotImplementedError

    def patterned(code: Annotated[str, Field(pattern=r"^[A-Z]{3}-\d{2}$")], either: int | str) -> str:
        raise NotImplementedError

    for function in (scalars, bounded, choices, collections, nested, recursive, formats, patterned):
        server.tool()(function)
    return {tool.name: tool.input_schema for tool in anyio.run(server.list_tools)}


PYDANTIC = _pydantic_schemas()
ZOD_DATETIME = (
    r"^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]"
    r"|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))T(?:(?:[01]\d"
    r"|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:Z))$"
)
"""What zod 4 writes for z.iso.datetime(), beside format: date-time (TypeScript SDK 1.32)."""
HANDWRITTEN: dict[str, dict[str, Any]] = {
    "draft-07 closed (zod)": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"q": {"type": "string", "minLength": 2}, "n": {"type": "number", "exclusiveMinimum": 0}},
        "required": ["q"],
        "additionalProperties": False,
    },
    "draft-04 boolean exclusive bounds": {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 0, "exclusiveMinimum": True, "maximum": 3}},
        "required": ["n"],
    },
    "allOf and anyOf": {
        "type": "object",
        "allOf": [
            {"properties": {"a": {"type": "integer"}}, "required": ["a"]},
            {"properties": {"b": {"type": "string", "maxLength": 2}}},
        ],
        "anyOf": [{"required": ["b"]}, {"properties": {"a": {"minimum": 5}}}],
    },
    "no types at all": {"type": "object", "properties": {"anything": {}, "text": {"maxLength": 3}}},
    "patternProperties": {"type": "object", "patternProperties": {"^x-[a-z]+$": {"type": "boolean"}}},
    "a digest: a pattern with lengths": {
        "type": "object",
        "properties": {"sha": {"type": "string", "pattern": "^[a-f0-9]+$", "minLength": 40, "maxLength": 40}},
        "required": ["sha"],
    },
    "zod's datetime: a format and a pattern": {
        "type": "object",
        "properties": {"when": {"type": "string", "format": "date-time", "pattern": ZOD_DATETIME}},
        "required": ["when"],
    },
    "key names with no type": {
        "type": "object",
        "properties": {
            "m": {
                "type": "object",
                "additionalProperties": {"type": "integer"},
                "propertyNames": {"not": {"const": "x"}},
            }
        },
        "required": ["m"],
    },
    "a pattern that searches, and a longer minimum": {
        "type": "object",
        "properties": {"s": {"type": "string", "pattern": "[a-z]{3}", "minLength": 5}},
        "required": ["s"],
    },
    "more keys than it names": {
        "type": "object",
        "properties": {"m": {"type": "object", "properties": {"a": {"type": "integer"}}, "minProperties": 3}},
        "required": ["m"],
    },
    "a tuple cut short by maxItems": {
        "type": "object",
        "properties": {"t": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "maxItems": 1}},
        "required": ["t"],
    },
    "a map with at least one key": {
        "type": "object",
        "properties": {"tags": {"type": "object", "additionalProperties": True, "minProperties": 1}},
        "required": ["tags"],
    },
    "a linked list through allOf (draft-07 generators)": {
        "type": "object",
        "definitions": {
            "Node": {
                "type": "object",
                "properties": {"v": {"type": "integer"}, "next": {"allOf": [{"$ref": "#/definitions/Node"}]}},
            }
        },
        "properties": {"head": {"$ref": "#/definitions/Node"}},
        "required": ["head"],
    },
    "empty": {},
}


@pytest.mark.parametrize("name", [*PYDANTIC, *HANDWRITTEN])
def test_every_value_is_allowed_and_few_are_thrown_away(name: str) -> None:
    schema = PYDANTIC.get(name) or HANDWRITTEN[name]
    validator = validator_for(schema)(schema)

    @settings(max_examples=60, database=None)
    @given(arguments(schema))
    def check(value: dict[str, Any]) -> None:
        assert validator.is_valid(value), list(validator.iter_errors(value))

    check()


def _draws(strategy: st.SearchStrategy[Any], count: int = 200) -> list[Any]:
    values: list[Any] = []

    @settings(max_examples=count, database=None)
    @given(strategy)
    def collect(value: Any) -> None:
        values.append(value)

    collect()
    return values


def test_keys_the_schema_does_not_name_are_not_generated_but_a_maps_keys_are() -> None:
    values = _draws(arguments(PYDANTIC["nested"]) | arguments(PYDANTIC["collections"]))
    named = {"home", "others", "words", "counts", "pair", "ids"}
    assert all(set(value) <= named for value in values)
    assert any(value.get("counts") for value in values), "no dict[str, int] with keys"


def test_optional_keys_come_and_go() -> None:
    values = _draws(arguments(PYDANTIC["scalars"]))
    assert any("on" in value for value in values)
    assert any("on" not in value for value in values)


def test_examples_defaults_and_known_calls_are_drawn() -> None:
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "examples": ["Lisbon"]},
            "units": {"type": "string", "default": "metric"},
            "days": {"type": "integer"},
        },
        "required": ["city"],
    }
    values = _draws(arguments(schema, [{"city": "Kraków", "days": 3}]))
    cities = {value["city"] for value in values}
    assert {"Lisbon", "Kraków"} <= cities
    assert any(value.get("units") == "metric" for value in values)
    assert any(value.get("days") == 3 for value in values)


def test_a_recursive_schema_nests() -> None:
    values = _draws(arguments(PYDANTIC["recursive"]), 300)
    assert any(child.get("children") for value in values for child in value["tree"].get("children", []))


def test_formats_make_values_of_their_kind() -> None:
    for value in _draws(arguments(PYDANTIC["formats"]), 50):
        dt.datetime.fromisoformat(value["when"])
        dt.date.fromisoformat(value["day"])
        uuid.UUID(value["key"])
        assert value["link"].startswith(("http://", "https://"))


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"$ref": "https://example.com/a.json"}, "points outside"),
        ({"$ref": "#/$defs/Missing"}, "points at nothing"),
        ({"type": "string", "pattern": "(?<x"}, "pattern '(?<x' uses syntax Python's re cannot match"),
        ({"type": "string", "pattern": "\\p{L}+"}, "pattern '\\\\p{L}+' uses syntax Python's re cannot match"),
    ],
)
def test_a_required_argument_that_cannot_be_generated_says_why(schema: dict[str, Any], message: str) -> None:
    with pytest.raises(Unsupported, match=re.escape(message)):
        _draws(arguments({"type": "object", "properties": {"a": schema}, "required": ["a"]}), 1)


def test_an_optional_argument_that_cannot_be_generated_is_left_out() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": "\\p{L}+"}, "b": {"type": "integer"}}}
    values = _draws(arguments(schema), 50)
    assert values
    assert all("a" not in value for value in values)


def test_a_model_that_cannot_be_generated_is_left_out_of_an_optional_argument() -> None:
    # pydantic takes \p{L} (its regex engine is Rust's), Python's re does not: Filter | None = None.
    schema = {
        "type": "object",
        "$defs": {
            "Filter": {
                "type": "object",
                "properties": {"name": {"type": "string", "pattern": "^\\p{L}+$"}},
                "required": ["name"],
            }
        },
        "properties": {
            "query": {"type": "string"},
            "filter": {"anyOf": [{"$ref": "#/$defs/Filter"}, {"type": "null"}], "default": None},
        },
        "required": ["query"],
    }
    values = _draws(arguments(schema), 100)
    assert {repr(value.get("filter", "absent")) for value in values} == {"None", "'absent'"}
    required = {**schema, "properties": {"filter": {"$ref": "#/$defs/Filter"}}, "required": ["filter"]}
    with pytest.raises(Unsupported, match="uses syntax Python's re cannot match"):
        arguments(required)  # known before the search starts, not while drawing


def test_a_schema_that_is_not_json_schema_says_so() -> None:
    with pytest.raises(Unsupported, match="the input schema is not valid JSON Schema: 5 is not valid under any"):
        arguments({"type": "object", "properties": {"a": {"type": 5}}})


def test_patterns_are_read_as_json_schema_reads_them() -> None:
    # ECMA-262: \d is ASCII only and $ is the very end; Python alone would allow "٣٤٥" and "123\n".
    schema = {
        "type": "object",
        "properties": {
            "code": {"type": "string", "pattern": "^\\d{3}$"},
            "year": {"type": "string", "pattern": "^(?<y>\\d{4})$"},
        },
        "required": ["code", "year"],
    }
    for value in _draws(arguments(schema)):
        assert re.fullmatch("[0-9]{3}", value["code"]), value
        assert re.fullmatch("[0-9]{4}", value["year"]), value


def test_a_lone_date_time_format_is_written_in_utc_with_z() -> None:
    values = _draws(arguments(PYDANTIC["formats"]), 50)
    assert all(value["when"].endswith("Z") for value in values)
    assert any(re.search(r"\.\d+Z$|:\d\dZ$", value["when"]) for value in values)


def test_a_map_gets_keys_and_a_cycle_through_all_of_nests() -> None:
    maps = _draws(arguments(HANDWRITTEN["a map with at least one key"]))
    assert all(value["tags"] for value in maps)
    lists = _draws(arguments(HANDWRITTEN["a linked list through allOf (draft-07 generators)"]))
    assert any("next" in value["head"] and "next" in value["head"]["next"] for value in lists)


JS_PATTERNS = [
    r"^.+$",
    r"^.{1,20}$",
    r"^\S+$",
    r"^[^\s]+$",
    r"^[^\s@]+@[^\s@]+$",
    r"^\d{3}$",
    r"^\w+$",
    r"^[A-Z]{3}-\d{2}$",
    r"^(?<year>\d{4})-\d{2}$",
    r"^[[(a-z]+$",
    r"^[a-f0-9]{40}$",
    r"[a-z]{3}",
    r"^\s*x\s*$",
    r"^\u{1F600}+$",  # JavaScript's own escapes and classes, spelled for Python
    r"^(?<a>[xy])\k<a>$",
    r"^[^]{2}$",
    r"^\cJ?a$",
]
CHECK_IN_JS = """
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
const wrong = [];
for (const [pattern, values] of cases) {
  const re = new RegExp(pattern, "u");
  for (const value of values) if (!re.test(value)) wrong.push([pattern, value]);
}
console.log(JSON.stringify(wrong));
"""


def test_every_generated_string_matches_its_pattern_as_javascript_reads_it(node: str) -> None:
    # A TypeScript server checks arguments with JavaScript's RegExp; Python's re alone is more lenient
    # (\d, \w and \s are Unicode, . crosses \r and \u2028, $ matches before a final newline).
    cases = []
    for pattern in JS_PATTERNS:
        schema = {"type": "object", "properties": {"v": {"type": "string", "pattern": pattern}}, "required": ["v"]}
        cases.append([pattern, [value["v"] for value in _draws(arguments(schema), 150)]])
    checked = subprocess.run(
        [node, "-e", CHECK_IN_JS], input=json.dumps(cases), capture_output=True, text=True, check=True, timeout=HANG
    )
    assert json.loads(checked.stdout) == []
    assert sum(len(values) for _pattern, values in cases) > 1000


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"s": {"type": "string", "pattern": "^(a|aa)+$"}}},
        {"type": "object", "patternProperties": {"^(a|aa)+$": {"type": "integer"}}},
    ],
    ids=["pattern", "patternProperties"],
)
def test_a_pattern_that_backtracks_without_end_rejects_the_draw_within_its_budget(schema: dict[str, Any]) -> None:
    text = "a" * 60 + "!"
    value = {"s": text} if "properties" in schema else {text: 1}
    assert checker(schema)(value) is False  # refused, not searched without end: the run would hang
