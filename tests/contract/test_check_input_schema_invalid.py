"""``input-schema-invalid``: the input schema offers a default, const, enum or examples value it refuses itself.

``def f(city: str = None)`` publishes ``{"type": "string", "default": null}``: a client that fills in
the default sends arguments the tool's own schema refuses.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest
from conftest import Project, make_tool, violation_lines
from mcp_types import Tool

from pytest_mcp_contract import check_tool

SERVER = """
from typing import Optional

from mcp.server import MCPServer

mcp = MCPServer("weather", log_level="ERROR")

@mcp.tool()
def forecast(city: str = None) -> str:
    return f"sunny in {city or 'Oslo'}"

@mcp.tool()
def nullable(city: str | None = None, country: Optional[str] = None, days: int = 3) -> str:
    return "sunny"

if __name__ == "__main__":
    mcp.run()
"""

CAUSE = (
    "the default null is refused by the schema it sits in: None is not of type 'string' (schema keyword 'type' "
    "at /properties/city/type); a client that fills in the default gets a value its own validation rejects"
)
NEXT_STEP = (
    "Make each default (and const, enum and examples value) one the input schema accepts, or widen the schema. "
    "With MCPServer the schema comes from the function's signature: city: str = None publishes "
    '{"type": "string", "default": null}, which refuses its own default; write city: str | None = None '
    "(or Optional[str]) if None is a value the tool takes, or give it a default of its type."
)


@pytest.fixture(params=["in process", "stdio"])
def where(request: pytest.FixtureRequest, project: Project) -> str:
    """The planted server, in process or started as a command over stdio."""
    project.pytester.makepyfile(weather=SERVER)
    return "weather.py:mcp" if request.param == "in process" else f"stdio:{sys.executable} weather.py"


def test_the_listing_flags_a_default_its_own_schema_refuses(project: Project, where: str) -> None:
    weather = project
    weather.configure(where, suite=True)
    weather.tests("def test_plain():\n    pass\n")
    # The first run: the listing item writes the tools' snapshots, and fails with forecast's checks.
    weather.run("--snapshot-update").assert_outcomes(passed=1, failed=1)
    result = weather.run("-k", "checks", "-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1, deselected=4)  # checks[nullable] passes: None is one of its values
    result.stdout.fnmatch_lines(
        [
            "*_ checks[[]forecast[]] _*",
            "tool 'forecast' breaks its contract as listed (1 violation):",
            "[input-schema-invalid] at /properties/city/default",
            f"  {CAUSE}",
            "Next step:",
            f"- input-schema-invalid: {NEXT_STEP}",
        ]
    )
    result.stdout.fnmatch_lines(["tool checks: 1 passed, 1 failed: forecast (input-schema-invalid)"])


def test_a_call_of_the_tool_fails_with_it(project: Project, where: str) -> None:
    weather = project
    weather.configure(where)
    weather.tests(
        'def test_oslo(mcp_contract):\n    mcp_contract.call_tool("forecast", {"city": "Oslo"})\n\n'
        'def test_nullable(mcp_contract):\n    mcp_contract.call_tool("nullable")\n'
    )
    result = weather.run()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        violation_lines(
            "forecast",
            "input-schema-invalid",
            CAUSE,
            at="/properties/city/default",
            next_step=NEXT_STEP.replace("[", "[[]"),
            arguments='{"city": "Oslo"}',
        )
    )


def test_an_allow_line_and_a_marker_take_the_check_id(project: Project, where: str) -> None:
    weather = project
    weather.configure(
        where,
        suite=True,
        mcp_contract_allow="\n    forecast:input-schema-invalid  # city becomes Optional in #7",
    )
    weather.tests(
        """
        import pytest

        @pytest.mark.mcp_expect_violation("input-schema-invalid", tool="forecast")
        def test_oslo(mcp_contract):
            mcp_contract.call_tool("forecast", {"city": "Oslo"})
        """
    )
    weather.run("--snapshot-update").assert_outcomes(passed=2)  # the test, and the listing that wrote the snapshots
    result = weather.run()
    result.assert_outcomes(passed=6)  # the test, the listing, and each tool's schema and checks
    result.stdout.fnmatch_lines(["allowed violations: forecast:input-schema-invalid x1 (city becomes Optional in #7)"])


@pytest.mark.parametrize(
    ("schema", "path", "message"),
    [
        (
            {"type": "object", "properties": {"days": {"type": "integer", "minimum": 1, "default": 0}}},
            "/properties/days/default",
            "the default 0 is refused by the schema it sits in: 0 is less than the minimum of 1 (schema keyword "
            "'minimum' at /properties/days/minimum); a client that fills in the default gets a value its own "
            "validation rejects",
        ),
        (
            {"type": "object", "properties": {"unit": {"type": "string", "enum": ["C", "F", None]}}},
            "/properties/unit/enum/2",
            "the enum item null is refused by the schema it sits in: None is not of type 'string' (schema "
            "keyword 'type' at /properties/unit/type); a client that offers it as a choice offers a value its "
            "own validation rejects",
        ),
        (
            {"type": "object", "properties": {"kind": {"type": "string", "const": 1}}},
            "/properties/kind/const",
            "the const 1 is refused by the schema it sits in: 1 is not of type 'string' (schema keyword 'type' "
            "at /properties/kind/type); the schema then accepts no value at all",
        ),
        (
            {
                "type": "object",
                "properties": {"city": {"type": "string", "maxLength": 6, "examples": ["Oslo", "São Paulo"]}},
            },
            "/properties/city/examples/1",
            "the example \"São Paulo\" is refused by the schema it sits in: 'São Paulo' is too long (schema "
            "keyword 'maxLength' at /properties/city/maxLength); an example the schema refuses teaches clients "
            "and models a wrong value",
        ),
        (  # whole argument objects as examples, at the root
            {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
                "examples": [{"city": "Oslo"}, {"town": "Oslo"}],
            },
            "/examples/1",
            'the example {"town": "Oslo"} is refused by the schema it sits in: \'city\' is a required property '
            "(schema keyword 'required' at /required); an example the schema refuses teaches clients and models "
            "a wrong value",
        ),
        (  # a default reached through a $ref, judged by the $ref's target
            {
                "type": "object",
                "$defs": {"Unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                "properties": {"unit": {"$ref": "#/$defs/Unit", "default": "kelvin"}},
            },
            "/properties/unit/default",
            "the default \"kelvin\" is refused by the schema it sits in: 'kelvin' is not one of ['celsius', "
            "'fahrenheit'] (schema keyword 'enum' at /properties/unit/enum); a client that fills in the default "
            "gets a value its own validation rejects",
        ),
        (  # deep in the default: the place in the value is named
            {
                "type": "object",
                "properties": {
                    "where": {
                        "type": "object",
                        "properties": {"lat": {"type": "number"}},
                        "default": {"lat": "north"},
                    }
                },
            },
            "/properties/where/default",
            'the default {"lat": "north"} is refused by the schema it sits in: at /lat of it, \'north\' is not of '
            "type 'number' (schema keyword 'type' at /properties/where/properties/lat/type); a client that fills "
            "in the default gets a value its own validation rejects",
        ),
        (  # inside an item of an array, a branch of anyOf, and a $defs entry a $ref reaches
            {
                "type": "object",
                "$defs": {"Stop": {"type": "object", "properties": {"minutes": {"type": "integer", "default": 2.5}}}},
                "properties": {
                    "stops": {"type": "array", "items": {"anyOf": [{"$ref": "#/$defs/Stop"}, {"type": "null"}]}}
                },
            },
            "/$defs/Stop/properties/minutes/default",
            "the default 2.5 is refused by the schema it sits in: 2.5 is not of type 'integer' (schema keyword "
            "'type' at /$defs/Stop/properties/minutes/type); a client that fills in the default gets a value its "
            "own validation rejects",
        ),
        (  # a recursive $defs entry, reached again and again through its $ref, is named once
            {
                "type": "object",
                "$defs": {
                    "Node": {
                        "type": "object",
                        "properties": {"next": {"$ref": "#/$defs/Node"}, "n": {"type": "integer", "default": "one"}},
                    }
                },
                "properties": {"head": {"$ref": "#/$defs/Node"}},
            },
            "/$defs/Node/properties/n/default",
            "the default \"one\" is refused by the schema it sits in: 'one' is not of type 'integer' (schema keyword "
            "'type' at /$defs/Node/properties/n/type); a client that fills in the default gets a value its own "
            "validation rejects",
        ),
    ],
    ids=[
        "minimum",
        "enum-null",
        "const",
        "examples",
        "root-examples",
        "ref-sibling",
        "nested",
        "reached-def",
        "recursive",
    ],
)
def test_each_value_a_schema_offers_and_refuses_is_named(schema: dict[str, Any], path: str, message: str) -> None:
    violations = check_tool(_tool(schema))
    assert [(v.check, v.path, v.message) for v in violations] == [("input-schema-invalid", path, message)]


def test_every_refused_value_is_named_in_document_order() -> None:
    schema = {
        "type": "object",
        "properties": {
            "b": {"type": "string", "default": None, "examples": [1, "x", 2]},
            "a": {"type": "integer", "enum": [1, "two"]},
        },
    }
    assert [v.path for v in check_tool(_tool(schema))] == [
        "/properties/b/default",
        "/properties/b/examples/0",
        "/properties/b/examples/2",
        "/properties/a/enum/1",
    ]


CORRECT_DEFAULTS = """
import datetime
import decimal
import enum
import uuid
from typing import Annotated, Literal, Optional

from mcp.server import MCPServer
from pydantic import BaseModel, ConfigDict, Field

mcp = MCPServer("defaults", log_level="ERROR")

class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"

class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2

class Where(BaseModel):
    lat: float = 0.0
    lon: float = 0.0

class Report(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"city": "Oslo", "unit": "celsius"}]})

    city: str = Field(examples=["Oslo", "Bergen"])
    unit: Unit = Unit.CELSIUS
    level: Level = Level.LOW
    at: datetime.datetime = datetime.datetime(2024, 1, 2, 3, 4, 5)
    day: datetime.date = datetime.date(2024, 1, 2)
    window: datetime.timedelta = datetime.timedelta(hours=1)
    price: decimal.Decimal = decimal.Decimal("1.50")
    station: uuid.UUID = uuid.UUID(int=7)
    where: Where = Where()
    span: tuple[int, int] = (1, 2)
    kind: Literal["report"] = "report"
    note: Optional[str] = None
    tags: set[str] = Field(default_factory=set)

@mcp.tool()
def report(
    city: Annotated[str, Field(examples=["Oslo"])],
    unit: Unit = Unit.FAHRENHEIT,
    level: Level = Level.HIGH,
    since: datetime.datetime = datetime.datetime(2024, 1, 1),
    price: decimal.Decimal = decimal.Decimal("2.5"),
    days: Annotated[int, Field(ge=1, le=14)] = 3,
    where: Where = Where(lat=59.9, lon=10.7),
    country: str | None = None,
    raw: bytes = b"abc",
    kind: Literal["daily", "hourly"] = "daily",
) -> Report:
    return Report(city=city)
"""


def test_pydantic_defaults_of_every_kind_agree_with_their_schemas(project: Project) -> None:
    # Enum, IntEnum, datetime, Decimal, UUID, bytes, a model: pydantic writes their JSON-mode values,
    # which the schemas it writes accept (formats are annotations); examples at the root are whole objects.
    project.pytester.makepyfile(defaults=CORRECT_DEFAULTS)
    project.configure("defaults.py:mcp", suite=True)
    project.tests("def test_plain():\n    pass\n")
    project.run("--snapshot-update").assert_outcomes(passed=2)  # the test, and the listing that wrote the snapshot
    result = project.run("-k", "checks")
    result.assert_outcomes(passed=1, deselected=3)
    result.stdout.fnmatch_lines(["tool checks: 1 passed, 0 failed"])


SUSPICIOUS_BUT_CORRECT: list[Any] = [
    # A nullable default, both spellings.
    {"type": "object", "properties": {"city": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}}},
    {"type": "object", "properties": {"city": {"type": ["string", "null"], "default": None}}},
    # const and enum beside the type they are of; an integral float is an integer.
    {"type": "object", "properties": {"kind": {"type": "string", "const": "cat", "default": "cat"}}},
    {"type": "object", "properties": {"n": {"type": "integer", "enum": [1, 2.0, 3], "default": 3.0, "maximum": 3}}},
    # formats are annotations, as the result checks read them: pydantic's naive datetime default.
    {
        "type": "object",
        "properties": {"when": {"type": "string", "format": "date-time", "default": "2020-01-01T00:00:00"}},
    },
    # A $ref sibling judged through its target, and an enum default of pydantic's JSON-mode value.
    {
        "type": "object",
        "$defs": {"Unit": {"enum": ["celsius", "fahrenheit"], "title": "Unit", "type": "string"}},
        "properties": {"unit": {"$ref": "#/$defs/Unit", "default": "fahrenheit"}},
    },
    # A $defs entry no $ref reaches is not what a client meets.
    {"type": "object", "$defs": {"Unused": {"type": "string", "default": 1}}},
    # Keywords that are data, not schemas: a property named default, a default that looks like a schema,
    # an extension keyword holding one.
    {"type": "object", "properties": {"default": {"type": "string"}, "enum": {"type": "integer"}}},
    {"type": "object", "properties": {"s": {"type": "object", "default": {"type": "string", "default": 1}}}},
    {"type": "object", "x-ui": {"type": "string", "default": 1, "enum": [2]}},
    # Boolean schemas, a recursive schema, a root $id that $refs resolve against.
    {"type": "object", "properties": {"any": True, "tree": {"$ref": "#"}}, "additionalProperties": False},
    {
        "$id": "https://example.com/args",
        "type": "object",
        "$defs": {"Day": {"type": "integer", "minimum": 1}},
        "properties": {"days": {"$ref": "https://example.com/args#/$defs/Day", "default": 1}},
    },
    # Draft 7: $ref siblings are ignored by the draft, examples of the whole object; Draft 4 has no const.
    {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "definitions": {"N": {"type": "integer"}},
        "properties": {"n": {"$ref": "#/definitions/N", "default": 2}},
        "examples": [{"n": 1}],
    },
    {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object", "const": 5},
    # A pattern, read as the checks read it, on a default; a key of patternProperties.
    {"type": "object", "patternProperties": {"^x-": {"type": "string", "pattern": "^[a-z]+$", "default": "abc"}}},
]


@pytest.mark.parametrize("schema", SUSPICIOUS_BUT_CORRECT)
def test_a_schema_that_agrees_with_itself_is_clean(schema: dict[str, Any]) -> None:
    assert check_tool(_tool(schema)) == []
    assert check_tool(make_tool(schema)) == []  # the same, as an output schema


def test_an_input_schema_that_cannot_be_used_is_not_judged_here() -> None:
    # Not valid JSON Schema ("int" is no type): no validator to judge its default with, and no false verdict.
    assert check_tool(_tool({"type": "object", "properties": {"n": {"type": "int", "default": None}}})) == []


def _tool(input_schema: dict[str, Any]) -> Tool:
    return Tool(name="probe", input_schema=input_schema)


def test_a_default_python_will_not_write_as_text_is_still_named() -> None:
    # Python refuses str() of an integer of over 4,300 digits; the message shortens it instead of crashing.
    schema = {"type": "object", "properties": {"n": {"type": "string", "default": 10**5000}}}
    [violation] = check_tool(_tool(schema))
    assert (violation.check, violation.path) == ("input-schema-invalid", "/properties/n/default")
    assert violation.message.startswith(
        "the default <an integer of 5001 digits: 100000000000…000000> is refused by the schema it sits in: "
    )
    assert violation.message.endswith(
        "is not of type 'string' (schema keyword 'type' at /properties/n/type); a client that fills in the default "
        "gets a value its own validation rejects"
    )
