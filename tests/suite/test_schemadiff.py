"""The semantic schema diff: each kind of change, where it is, and who it breaks."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

import pytest

import pytest_mcp_contract
from pytest_mcp_contract._suite.schemadiff import diff_schema, diff_value


def obj(properties: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties, **extra}
    if required is not None:
        schema["required"] = required
    return schema


N = {"type": "number"}
I = {"type": "integer"}  # noqa: E741
S = {"type": "string"}

# (name, old, new, [(path, what, kind for an output schema)])
OUTPUT_CASES: list[tuple[str, Any, Any, list[tuple[str, str, str]]]] = [
    ("unchanged", obj({"a": N}, ["a"]), obj({"a": N}, ["a"]), []),
    (
        "required property removed",
        obj({"a": N, "b": S}, ["a", "b"]),
        obj({"a": N}, ["a"]),
        [("/properties/b", "removed (was required)", "breaking")],
    ),
    (
        "optional property removed",
        obj({"a": N, "b": S}, ["a"]),
        obj({"a": N}, ["a"]),
        [("/properties/b", "removed (was optional)", "breaking")],
    ),
    (
        "required to optional",
        obj({"a": N}, ["a"]),
        obj({"a": N}, []),
        [("/properties/a", "now optional (was required)", "breaking")],
    ),
    (
        "optional to required",
        obj({"a": N}, []),
        obj({"a": N}, ["a"]),
        [("/properties/a", "now required (was optional)", "additive")],
    ),
    (
        "optional property added",
        obj({"a": N}),
        obj({"a": N, "b": S}),
        [("/properties/b", "added (optional)", "additive")],
    ),
    (
        "required property added",
        obj({"a": N}),
        obj({"a": N, "b": S}, ["b"]),
        [("/properties/b", "added (required)", "additive")],
    ),
    (
        "type widened",
        obj({"a": N}),
        obj({"a": {"type": ["number", "string"]}}),
        [("/properties/a/type", 'widened from "number" to ["number", "string"]', "breaking")],
    ),
    (
        "integer to number is a widening",
        obj({"a": I}),
        obj({"a": N}),
        [("/properties/a/type", 'widened from "integer" to "number"', "breaking")],
    ),
    (
        "type narrowed",
        obj({"a": N}),
        obj({"a": I}),
        [("/properties/a/type", 'narrowed from "number" to "integer"', "additive")],
    ),
    (
        "type changed",
        obj({"a": N}),
        obj({"a": S}),
        [("/properties/a/type", 'changed from "number" to "string"', "breaking")],
    ),
    (
        "made nullable (Optional)",
        obj({"a": {"title": "A", "type": "integer"}}),
        obj({"a": {"title": "A", "anyOf": [I, {"type": "null"}]}}),
        [("/properties/a", 'widened from "integer" to "integer" | "null"', "breaking")],
    ),
    (
        "enum value added",
        obj({"a": {"enum": ["x", "y"]}}),
        obj({"a": {"enum": ["x", "y", "z"]}}),
        [("/properties/a/enum", 'value "z" added', "breaking")],
    ),
    (
        "enum value removed",
        obj({"a": {"enum": ["x", "y"]}}),
        obj({"a": {"enum": ["x"]}}),
        [("/properties/a/enum", 'value "y" removed', "additive")],
    ),
    (
        "enum reordered",
        obj({"a": {"enum": ["x", "y"]}}),
        obj({"a": {"enum": ["y", "x"]}}),
        [("/properties/a/enum", "values reordered", "cosmetic")],
    ),
    (
        "additionalProperties opened",
        obj({"a": N}, additionalProperties=False),
        obj({"a": N}),
        [("/additionalProperties", "opened (was false)", "breaking")],
    ),
    (
        "additionalProperties closed",
        obj({"a": N}),
        obj({"a": N}, additionalProperties=False),
        [("/additionalProperties", "closed: now false", "additive")],
    ),
    (
        "maximum loosened",
        obj({"a": {"type": "integer", "maximum": 10}}),
        obj({"a": {"type": "integer", "maximum": 20}}),
        [("/properties/a/maximum", "loosened from <= 10 to <= 20", "breaking")],
    ),
    (
        "minimum tightened",
        obj({"a": {"type": "integer", "minimum": 0}}),
        obj({"a": {"type": "integer", "minimum": 5}}),
        [("/properties/a/minimum", "tightened from >= 0 to >= 5", "additive")],
    ),
    (
        "constraint removed",
        obj({"a": {"type": "string", "maxLength": 3}}),
        obj({"a": S}),
        [("/properties/a/maxLength", "removed (was 3)", "breaking")],
    ),
    (
        "pattern changed",
        obj({"a": {"type": "string", "pattern": "^a"}}),
        obj({"a": {"type": "string", "pattern": "^b"}}),
        [("/properties/a/pattern", 'changed from "^a" to "^b"', "breaking")],
    ),
    (
        # Read the ECMA-262 way, \d is [0-9] and \/ is /; read as Python's re, \d takes "٣" too.
        "pattern respelled",
        obj({"a": {"type": "string", "pattern": "^\\d+\\/$"}}),
        obj({"a": {"type": "string", "pattern": "^[0-9]+/$"}}),
        [
            (
                "/properties/a/pattern",
                'rewritten from "^\\\\d+\\\\/$" to "^[0-9]+/$" (same values)',
                "cosmetic",
            )
        ],
    ),
    (
        "pattern as Python writes it, respelled for ECMA-262",
        obj({"a": {"type": "string", "pattern": "^(?P<n>a)$"}}),
        obj({"a": {"type": "string", "pattern": "^(?<n>a)$"}}),
        [("/properties/a/pattern", 'changed from "^(?P<n>a)$" to "^(?<n>a)$"', "breaking")],
    ),
    (
        "description and title are cosmetic",
        obj({"a": {"type": "number", "description": "old"}}, title="T"),
        obj({"a": {"type": "number", "description": "new"}}, title="T2"),
        [
            ("/title", 'changed from "T" to "T2"', "cosmetic"),
            ("/properties/a/description", 'changed from "old" to "new"', "cosmetic"),
        ],
    ),
    (
        "required reordered",
        obj({"a": N, "b": N}, ["a", "b"]),
        obj({"a": N, "b": N}, ["b", "a"]),
        [("/required", "reordered", "cosmetic")],
    ),
    (
        "items element widened",
        obj({"a": {"type": "array", "items": I}}),
        obj({"a": {"type": "array", "items": N}}),
        [("/properties/a/items/type", 'widened from "integer" to "number"', "breaking")],
    ),
    (
        "tuple element added",
        obj({"a": {"type": "array", "prefixItems": [I]}}),
        obj({"a": {"type": "array", "prefixItems": [I, S]}}),
        [("/properties/a/prefixItems/1", "added", "additive")],
    ),
    (
        "anyOf alternative added",
        obj({"a": {"anyOf": [I, S]}}),
        obj({"a": {"anyOf": [I, S, {"type": "boolean"}]}}),
        [("/properties/a/anyOf", 'alternative {"type": "boolean"} added', "breaking")],
    ),
    (
        "allOf part added",  # the parts of an allOf read as one schema
        obj({"a": {"allOf": [I]}}),
        obj({"a": {"allOf": [I, {"minimum": 0}]}}),
        [("/properties/a/minimum", "added: >= 0", "additive")],
    ),
]


@pytest.mark.parametrize(("name", "old", "new", "expected"), OUTPUT_CASES, ids=[case[0] for case in OUTPUT_CASES])
def test_output_changes(name: str, old: Any, new: Any, expected: list[tuple[str, str, str]]) -> None:
    changes = diff_schema(old, new, field="output")
    assert [(change.path, change.what, change.kind) for change in changes] == expected


@pytest.mark.parametrize(
    ("old", "new", "kind"),
    [
        (obj({"a": N}), obj({"a": N, "b": S}, ["b"]), "breaking"),  # a new required argument
        (obj({"a": N}), obj({"a": N, "b": S}), "additive"),  # a new optional argument
        (obj({"a": N}), obj({"a": I}), "breaking"),  # a narrowed argument type
        (obj({"a": I}), obj({"a": N}), "additive"),  # a widened argument type
        (obj({"a": N}, ["a"]), obj({"a": N}, []), "additive"),  # an argument made optional
        (obj({"a": {"enum": [1, 2]}}), obj({"a": {"enum": [1]}}), "breaking"),  # a value no longer accepted
    ],
)
def test_input_changes_are_the_mirror_image(old: Any, new: Any, kind: str) -> None:
    [change] = diff_schema(old, new, field="input")
    assert change.kind == kind


def test_refs_are_followed_and_paths_read_through_them() -> None:
    def station(id_type: str) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {"result": {"type": "array", "items": {"$ref": "#/$defs/Station"}}},
            "$defs": {"Station": obj({"id": {"type": id_type}}, ["id"])},
        }

    [change] = diff_schema(station("integer"), station("string"), field="output")
    assert change.path == "/properties/result/items/properties/id/type"
    assert change.what == 'changed from "integer" to "string"'


def test_a_ref_cycle_ends() -> None:
    def tree(extra: dict[str, Any]) -> dict[str, Any]:
        node = obj({"name": S, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}, **extra}, ["name"])
        return {"$ref": "#/$defs/Node", "$defs": {"Node": node}, "type": "object"}

    changes = diff_schema(tree({}), tree({"size": I}), field="output")
    assert [(change.path, change.what) for change in changes] == [("/properties/size", "added (optional)")]
    assert diff_schema(tree({}), tree({}), field="output") == []


def test_a_ref_to_the_root_cycle_ends() -> None:
    old = obj({"child": {"$ref": "#"}, "n": I})
    new = obj({"child": {"$ref": "#"}, "n": N})
    changes = diff_schema(old, new, field="output")
    assert [change.path for change in changes] == ["/properties/n/type"]


def test_lines_name_tool_field_path_and_kind() -> None:
    [change] = diff_schema(obj({"humidity": I}, ["humidity"]), obj({}), field="output")
    assert change.line("get_weather") == "get_weather output /properties/humidity: removed (was required) — BREAKING"


def test_other_fields_are_cosmetic() -> None:
    [change] = diff_value("Get the weather", "Get today's weather", field="description")
    assert (change.kind, change.line("w")) == (
        "cosmetic",
        'w description /: changed from "Get the weather" to "Get today\'s weather" — cosmetic',
    )
    assert diff_value({"readOnlyHint": True}, {"readOnlyHint": True}, field="annotations") == []


# --- real pydantic schemas ---------------------------------------------------------------------------

from enum import Enum  # noqa: E402
from typing import Annotated, Literal  # noqa: E402

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter  # noqa: E402


def _schema(model: Any) -> dict[str, Any]:
    return TypeAdapter(model).json_schema()


def _lines(old: Any, new: Any, field: Literal["output", "input"] = "output") -> list[str]:
    """The non-cosmetic changes (model titles differ between the two classes of each pair)."""
    changes = diff_schema(_schema(old), _schema(new), field=field)
    return [change.line("t") for change in changes if change.kind != "cosmetic"]


class Cat(BaseModel):
    kind: Literal["cat"] = "cat"
    lives: int


class Dog(BaseModel):
    kind: Literal["dog"] = "dog"
    bark: str


class Bird(BaseModel):
    kind: Literal["bird"] = "bird"


class Adoption(BaseModel):
    pet: Annotated[Cat | Dog, Field(discriminator="kind")]


def _adoption_without_bark() -> type[BaseModel]:
    class Dog(BaseModel):  # the same model name, now without `bark`
        kind: Literal["dog"] = "dog"

    class Adoption(BaseModel):
        pet: Annotated[Cat | Dog | Bird, Field(discriminator="kind")]

    return Adoption


def test_changes_inside_a_discriminated_union_are_seen() -> None:
    lines = _lines(Adoption, _adoption_without_bark())
    assert "t output /properties/pet/oneOf/1/properties/bark: removed (was required) — BREAKING" in lines
    assert any(line.startswith("t output /properties/pet/oneOf: alternative ") and "Bird" in line for line in lines)
    assert not any("discriminator" in line and "BREAKING" in line for line in lines)


class Owner(BaseModel):
    age: int


class Home(BaseModel):
    here: Owner
    there: Owner


def _home_with_float_ages() -> type[BaseModel]:
    class Owner(BaseModel):
        age: float

    class Home(BaseModel):
        here: Owner
        there: Owner

    return Home


def test_a_shared_definition_is_shown_once_and_named_where_else_it_is_used() -> None:
    lines = _lines(Home, _home_with_float_ages())
    assert lines == [
        't output /properties/here/properties/age/type: widened from "integer" to "number" — BREAKING',
        "t output /properties/there: Owner changed, as shown at /properties/here — BREAKING",
    ]


class Station(BaseModel):
    name: str
    lat: float


class Station2(BaseModel):
    name: str


class Reading(BaseModel):
    station: Station


class Reading2(BaseModel):
    station: Station2 | None


def test_a_model_made_optional_and_changed_shows_both() -> None:
    lines = _lines(Reading, Reading2)
    assert "t output /properties/station/anyOf/0/properties/lat: removed (was required) — BREAKING" in lines
    assert 't output /properties/station/anyOf: alternative {"type": "null"} added — BREAKING' in lines


class Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")
    a: int
    b: int | None = None


class Closed2(BaseModel):
    model_config = ConfigDict(extra="forbid")
    a: int


def test_a_closed_input_that_drops_an_argument_breaks_callers() -> None:
    assert _lines(Closed, Closed2, "input") == [
        "t input /properties/b: removed (was optional; the object admits no other keys) — BREAKING"
    ]


class Positive(BaseModel):
    n: Annotated[int, Field(ge=0)]


class StrictlyPositive(BaseModel):
    n: Annotated[int, Field(gt=0)]


def test_minimum_and_exclusive_minimum_are_one_bound() -> None:
    assert _lines(Positive, StrictlyPositive) == [
        "t output /properties/n/exclusiveMinimum: tightened from >= 0 to > 0 — additive"
    ]
    assert _lines(StrictlyPositive, Positive, "input") == [
        "t input /properties/n/minimum: loosened from > 0 to >= 0 — additive"
    ]


def test_any_json_value_is_still_anything() -> None:
    assert _lines(dict[str, Any], dict[str, JsonValue], "input") == []


def test_deeply_nested_unions_are_quick() -> None:
    def nest(depth: int, leaf: type) -> Any:
        model: Any = leaf
        for level in range(depth):
            model = list[model] | dict[str, model] | Annotated[model, Field(title=f"level {level}")]
        return model

    # Each level triples the schema: the work must grow with its size, not with the ways its unions
    # could pair up.
    old, new = _schema(nest(6, int)), _schema(nest(6, float))
    changes, calls = _counted(lambda: diff_schema(old, new, field="output"))
    assert changes, "int -> float at the leaves is a change"
    assert 0 < calls < 3 * len(json.dumps(old))


# --- equivalent rewrites are cosmetic, in both directions and for both fields -------------------

A_DEF = {"A": obj({"x": I}, ["x"])}


def _with_a(field: dict[str, Any]) -> dict[str, Any]:
    return {**obj({"a": field}, ["a"]), "$defs": A_DEF}


EQUIVALENT: list[tuple[str, Any, Any]] = [
    ("const beside its enum", {"const": "x", "enum": ["x"], "type": "string"}, {"const": "x", "type": "string"}),
    ("const for an enum of one", {"enum": ["x"]}, {"const": "x"}),
    ("a type the enum implies", {"enum": ["metric", "imperial"]}, {"enum": ["metric", "imperial"], "type": "string"}),
    ("int | float for float", {"anyOf": [I, N]}, N),
    ("a type list for its anyOf", {"type": ["string", "null"]}, {"anyOf": [S, {"type": "null"}]}),
    ("an anyOf of one", I, {"anyOf": [I]}),
    (
        "allOf around a $ref",
        _with_a({"allOf": [{"$ref": "#/$defs/A"}], "description": "d"}),
        _with_a({"$ref": "#/$defs/A", "description": "d"}),
    ),
    ("items that accept anything", {"type": "array", "items": {}}, {"type": "array"}),
    ("items true", {"type": "array"}, {"type": "array", "items": True}),
    ("items of annotations only", {"type": "array", "items": {"description": "any"}}, {"type": "array"}),
    ("uniqueItems false", {"type": "array", "uniqueItems": False}, {"type": "array"}),
    (
        "additionalProperties of annotations only",
        obj({}, additionalProperties={}),
        obj({}, additionalProperties={"title": "x"}),
    ),
    (
        "a $def renamed",
        _with_a({"$ref": "#/$defs/A"}),
        {**obj({"a": {"$ref": "#/$defs/B"}}, ["a"]), "$defs": {"B": A_DEF["A"]}},
    ),
]


@pytest.mark.parametrize("field", ["output", "input"])
@pytest.mark.parametrize("backwards", [False, True], ids=["forwards", "backwards"])
@pytest.mark.parametrize(("name", "one", "other"), EQUIVALENT, ids=[case[0] for case in EQUIVALENT])
def test_equivalent_rewrites_are_cosmetic(name: str, one: Any, other: Any, backwards: bool, field: Any) -> None:
    old, new = (other, one) if backwards else (one, other)
    changes = diff_schema(old, new, field=field)
    assert changes, "a differing snapshot always gets a line"
    assert [change.kind for change in changes] == ["cosmetic"] * len(changes), [change.line("t") for change in changes]


class Pets(BaseModel):
    pet: Cat | Dog


def test_a_union_given_a_discriminator_is_cosmetic_both_ways() -> None:
    for old, new, field in ((Pets, Adoption, "output"), (Adoption, Pets, "input")):
        changes = diff_schema(_schema(old), _schema(new), field=field)  # type: ignore[arg-type]
        assert [change.kind for change in changes] == ["cosmetic"] * len(changes)
    lines = [change.line("t") for change in diff_schema(_schema(Pets), _schema(Adoption), field="output")]
    assert "t output /properties/pet/oneOf: alternatives now exclusive (was anyOf) — cosmetic" in lines


def test_oneof_without_a_discriminator_is_a_narrowing() -> None:
    [change] = diff_schema({"anyOf": [I, N]}, {"oneOf": [I, N]}, field="input")
    assert change.line("t") == "t input /oneOf: alternatives now exclusive (was anyOf) — BREAKING"


def test_a_literal_narrowed_to_one_value() -> None:
    old, new = _schema(Literal["a", "b"]), _schema(Literal["a"])  # pydantic writes const for one value
    assert [change.line("t") for change in diff_schema(old, new, field="output")] == [
        't output /enum: value "b" removed — additive'
    ]
    assert [change.line("t") for change in diff_schema(old, new, field="input")] == [
        't input /enum: value "b" removed — BREAKING'
    ]


def test_a_literal_widened_to_its_type_is_one_widening() -> None:
    old, new = _schema(Literal["a", "b"]), _schema(str)
    assert [change.line("t") for change in diff_schema(old, new, field="input")] == [
        't input /enum: removed (was ["a", "b"]) — additive'
    ]


# --- every property judged on its own; unions beside other keywords -----------------------------


def test_each_property_is_judged_on_its_own() -> None:
    # Once, a cache keyed by id() handed one property's verdict to another whose temporary dict
    # took the same address, and a breaking change read as additive.
    m1 = obj({"x": I, "y": I}, ["x", "y"])
    m2 = obj({"x": I})
    old = {**obj({name: {"$ref": f"#/$defs/{model}"} for name, model in (("f0", "M1"), ("f1", "M2"), ("f2", "M2"))})}
    old["$defs"] = {"M1": m1, "M2": m2}
    new = {
        **old,
        "properties": {
            name: {"anyOf": [dict(model), {"type": "null"}]} for name, model in (("f0", m1), ("f1", m2), ("f2", m1))
        },
    }
    lines = [change.line("t") for change in diff_schema(old, new, field="input")]
    assert "t input /properties/f2/anyOf/0/properties/y: added (required) — BREAKING" in lines
    assert "t input /properties/f2/anyOf/0/properties/x: now required (was optional) — BREAKING" in lines


def test_an_anyof_beside_properties_does_not_hide_them() -> None:
    old = obj({"city": S, "station": S, "temp": N}, ["temp"], anyOf=[{"required": ["city"]}, {"required": ["station"]}])
    new = obj({"city": S, "station": S, "temp": S})
    assert [change.line("t") for change in diff_schema(old, new, field="output")] == [
        't output /properties/temp/type: changed from "number" to "string" — BREAKING',
        "t output /properties/temp: now optional (was required) — BREAKING",
        't output /anyOf: removed (was [{"required": ["city"]}, {"required": ["station"]}]) — BREAKING',
    ]


def test_a_oneof_of_one_reads_as_its_alternative() -> None:
    old = {"oneOf": [obj({"a": I}, ["a"])]}
    new = obj({"a": S}, ["a"])
    assert [change.line("t") for change in diff_schema(old, new, field="output")] == [
        't output /properties/a/type: changed from "integer" to "string" — BREAKING'
    ]


# --- size: each $def is walked once, deep nesting is safe ----------------------------------------


T = TypeVar("T")


def _counted(work: Callable[[], T]) -> tuple[T, int]:
    """What ``work`` returned, and how many calls of the plugin's own functions it made: work, not
    wall-clock time, which a busy machine stretches."""
    calls = 0
    package = str(Path(pytest_mcp_contract.__file__).parent)

    def count(frame: FrameType, event: str, _arg: object) -> None:
        nonlocal calls
        if event == "call" and frame.f_code.co_filename.startswith(package):
            calls += 1

    sys.setprofile(count)
    try:
        return work(), calls
    finally:
        sys.setprofile(None)


def _chain(length: int, *, extra: bool = False) -> dict[str, Any]:
    """$defs D0 … Dn, each using the next twice: 2**n paths to the last one."""
    defs: dict[str, Any] = {}
    for index in range(length):
        child = {"$ref": f"#/$defs/D{index + 1}"} if index + 1 < length else I
        defs[f"D{index}"] = obj({"a": child, "b": child}, ["a", "b"])
    if extra:
        defs[f"D{length - 1}"]["properties"]["c"] = S
    return {**obj({"root": {"anyOf": [{"$ref": "#/$defs/D0"}, {"type": "null"}]}}), "$defs": defs}


def test_a_definition_used_on_many_paths_is_walked_once() -> None:
    changes, calls = _counted(lambda: diff_schema(_chain(20), _chain(20, extra=True), field="output"))
    _, half = _counted(lambda: diff_schema(_chain(10), _chain(10, extra=True), field="output"))
    assert 0 < calls < 4 * half  # twice the levels, twice the work; walking every path: 1024 times
    assert len(changes) == 20  # the change itself, then "as shown at" once per level above it
    first = changes[0].path.removesuffix("/properties/c")
    assert changes[0].line("t") == f"t output {first}/properties/c: added (optional) — additive"
    up = first.removesuffix("/properties/a")  # where D18 is first used, D19 holding its a
    assert [(change.path, change.what) for change in changes[1:3]] == [
        (f"{up}/properties/b", f"D19 changed, as shown at {first}"),
        (f"{up.removesuffix('/properties/a')}/properties/b", f"D18 changed, as shown at {up}"),
    ]


def test_deep_nesting_is_no_crash() -> None:
    deep: Any = S
    for _ in range(600):
        deep = obj({"a": deep})
    changes = diff_schema({"anyOf": [deep, {"type": "null"}]}, {"anyOf": [deep, I]}, field="output")
    assert [change.line("t") for change in changes] == [
        't output /anyOf/1/type: changed from "null" to "integer" — BREAKING'
    ]


# --- a second review: pydantic edits that were misread -----------------------------------------


def _status_counts(*values: str) -> type[BaseModel]:
    status = Enum("Status", {value.upper(): value for value in values}, type=str)  # type: ignore[misc]

    class Out(BaseModel):
        counts: dict[status, int]

    return Out


def test_enum_keys_of_a_dict_are_followed_through_their_ref() -> None:
    old, new = _schema(_status_counts("open", "closed")), _schema(_status_counts("open", "closed", "archived"))
    assert _lines_of(old, new, "output") == [
        't output /properties/counts/propertyNames/enum: value "archived" added — BREAKING'
    ]
    assert _lines_of(old, new, "input") == [
        't input /properties/counts/propertyNames/enum: value "archived" added — additive'
    ]


class Tree(BaseModel):
    v: int
    kids: dict[str, Tree] = {}


class Tree2(BaseModel):
    v: int
    note: str | None = None
    kids: dict[str, Tree2] = {}


class Forest(BaseModel):
    root: Tree


class Forest2(BaseModel):
    root: Tree2


def test_a_recursive_model_behind_dict_values_is_compared_once() -> None:
    assert _lines(Forest, Forest2) == ["t output /properties/root/properties/note: added (optional) — additive"]


class Meow(BaseModel):
    kind: Literal["cat"]
    meows: int


class Woof(BaseModel):
    kind: Literal["dog"]
    barks: int


class Owner1(BaseModel):
    pet: Annotated[Meow | Woof, Field(discriminator="kind")]


class Owner2(BaseModel):
    pet: Annotated[Meow | Woof, Field(discriminator="kind")] | None = None


class Owner3(BaseModel):
    pet: Meow | Woof | None = None


class Owner4(BaseModel):
    pet: Meow | Woof | None = Field(None, discriminator="kind")


def test_a_discriminated_union_made_optional_only_widens() -> None:
    assert _lines(Owner1, Owner2, "input") == [
        't input /properties/pet/anyOf: alternative {"type": "null"} added — additive',
        "t input /properties/pet: now optional (was required) — additive",
    ]
    assert _lines(Owner2, Owner1, "output") == [
        't output /properties/pet/oneOf: alternative {"type": "null"} removed — additive',
        "t output /properties/pet: now required (was optional) — additive",
    ]
    assert _lines(Owner3, Owner4, "input") == _lines(Owner3, Owner4, "output") == []


class Score(BaseModel):
    score: int


class FloatScore(BaseModel):
    score: float | None = None


class TextScore(BaseModel):
    score: float | str


class DefaultScore(BaseModel):
    score: int = 0


def test_a_type_within_a_wider_alternative_is_one_widening() -> None:
    assert _lines(Score, FloatScore, "input") == [
        't input /properties/score: widened from "integer" to "number" | "null" — additive',
        "t input /properties/score: now optional (was required) — additive",
    ]
    assert _lines(Score, TextScore, "input") == [
        't input /properties/score: widened from "integer" to "number" | "string" — additive'
    ]
    assert _lines(FloatScore, DefaultScore, "output") == [
        't output /properties/score: narrowed from "number" | "null" to "integer" — additive'
    ]


class Left(BaseModel):
    a: int


class Right(BaseModel):
    b: int


class Left2(BaseModel):
    a: int
    x: int | None = None


class Right2(BaseModel):
    b: int
    x: int | None = None


class Either(BaseModel):
    v: Left | Right


class Either2(BaseModel):
    v: Left2 | Right2


def test_union_members_renamed_and_changed_are_paired_by_their_properties() -> None:
    for field in ("input", "output"):
        assert _lines(Either, Either2, field) == [
            f"t {field} /properties/v/anyOf/0/properties/x: added (optional) — additive",
            f"t {field} /properties/v/anyOf/1/properties/x: added (optional) — additive",
        ]


def test_integer_bounds_and_steps_are_read_by_their_values() -> None:
    class Above(BaseModel):
        n: int = Field(gt=0)

    class AtLeast(BaseModel):
        n: int = Field(ge=1)

    class Halves(BaseModel):
        n: float = Field(multiple_of=0.5)

    class Quarters(BaseModel):
        n: float = Field(multiple_of=0.25)

    assert _lines(Above, AtLeast, "input") == []  # > 0 and >= 1 admit the same integers
    assert _lines(Halves, Quarters, "input") == [
        "t input /properties/n/multipleOf: loosened from 0.5 to 0.25 — additive"
    ]
    assert _lines(Halves, Quarters) == ["t output /properties/n/multipleOf: loosened from 0.5 to 0.25 — BREAKING"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    a: int
    debug: str | None = None


class Strict2(BaseModel):
    model_config = ConfigDict(extra="forbid")
    a: int


def test_a_closed_output_that_drops_an_optional_field_only_narrows() -> None:
    assert _lines(Strict, Strict2) == [
        "t output /properties/debug: removed (was optional; the object admits no other keys) — additive"
    ]


def test_a_hand_edited_required_list_is_no_crash() -> None:
    for broken in ([["a"]], [1, None]):
        [change] = diff_schema({"required": broken}, {}, field="output")
        assert change.line("t") == "t output /required: rewritten (the same names) — cosmetic"


class Node1(BaseModel):
    val: int
    children: list[Node1] = []


class Node2(BaseModel):
    val: float
    children: list[Node2] = []


def test_a_changed_recursive_model_claims_no_sameness_at_its_cycle() -> None:
    assert [change.line("t") for change in diff_schema(_schema(Node1), _schema(Node2), field="output")] == [
        't output /properties/val/type: widened from "integer" to "number" — BREAKING',
        't output /title: changed from "Node1" to "Node2" — cosmetic',
    ]


def _lines_of(old: Any, new: Any, field: Literal["output", "input"]) -> list[str]:
    return [change.line("t") for change in diff_schema(old, new, field=field) if change.kind != "cosmetic"]
