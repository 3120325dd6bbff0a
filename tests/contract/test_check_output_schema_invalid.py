"""``output-schema-invalid``: the published schema is not valid JSON Schema, points nowhere, is not an object,
or offers a default, const, enum or examples value it refuses itself."""

from __future__ import annotations

import http.server
import json
import sys
import threading
import warnings
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from conftest import Project, failing_calls, make_result, make_tool, violation_lines

from pytest_mcp_contract import check_result, check_tool
from pytest_mcp_contract._contract.schema import compile_schema


def test_failure_names_the_place_and_the_cause(project: Project) -> None:
    result = failing_calls(project, "schema_remote_ref")
    result.stdout.fnmatch_lines(
        violation_lines(
            "schema_remote_ref",
            "output-schema-invalid",
            "$ref 'https://schemas.example.com/n.json' points outside the schema; remote references are never fetched",
            at="/properties/n/$ref",
            next_step="Fix the output_schema: *",
        )
    )


@pytest.mark.parametrize(
    ("schema", "path", "message"),
    [
        (
            {"type": "object", "properties": {"n": {"type": "int"}}},
            "/properties/n/type",
            "not a valid Draft 2020-12 schema: 'int' is not valid under any of the given schemas (metaschema keyword 'anyOf')",
        ),
        (
            {"type": "object", "properties": {"n": {"$ref": "#/$defs/Missing"}}},
            "/properties/n/$ref",
            "$ref '#/$defs/Missing' resolves nowhere in the schema",
        ),
        (
            {"type": "array"},
            "",
            'the root must say "type": "object", but it has type "array": MCP 2025-11-25 requires an object '
            "there, and clients on that version reject the whole tool listing",
        ),
        (
            {"properties": {"n": {}}},
            "",
            'the root must say "type": "object", but it has no type: MCP 2025-11-25 requires an object '
            "there, and clients on that version reject the whole tool listing",
        ),
        (
            {"type": ["object", "null"]},
            "",
            'the root must say "type": "object", but it has type ["object", "null"]: MCP 2025-11-25 requires '
            "an object there, and clients on that version reject the whole tool listing",
        ),
        (
            {"$ref": "#/$defs/Root", "$defs": {"Root": {"type": "object"}}},
            "",
            'the root must say "type": "object", but it has no type: MCP 2025-11-25 requires an object '
            "there, and clients on that version reject the whole tool listing",
        ),
        (
            {"$schema": "https://example.com/my-dialect", "type": "object"},
            "/$schema",
            '$schema "https://example.com/my-dialect" names no JSON Schema draft this checker knows '
            "(Draft 2020-12, Draft 2019-09, Draft 7, Draft 6, Draft 4, Draft 3)",
        ),
        (
            {"type": "object", "properties": {"code": {"type": "string", "pattern": "(unclosed"}}},
            "/properties/code/pattern",
            "the pattern '(unclosed' cannot be read as an ECMA-262 regular expression: missing ), so clients refuse "
            "the schema and values are not checked against it. Write it as ECMA-262 reads it",
        ),
        (
            # A $ref relative to a sub-schema's own $id looks in that sub-schema, not at the root.
            {
                "$id": "https://example.com/root",
                "type": "object",
                "$defs": {"z": {}},
                "properties": {"a": {"$id": "sub", "properties": {"b": {"$ref": "#/$defs/z"}}}},
            },
            "/properties/a/properties/b/$ref",
            "$ref '#/$defs/z' resolves nowhere in the schema",
        ),
    ],
)
def test_broken_schemas(schema: dict[str, Any], path: str, message: str) -> None:
    violations = check_tool(make_tool(schema))
    assert [(v.check, v.path, v.message) for v in violations] == [("output-schema-invalid", path, message)]


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object"},
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "definitions": {"n": {}},
            "properties": {"n": {"$ref": "#/definitions/n"}},
        },
        {"type": "object", "properties": {"child": {"$ref": "#"}}},  # recursive
        {"type": "object", "properties": {"$ref": {"type": "string"}}},  # a property named $ref
        {"type": "object", "default": {"$ref": "#/not/a/schema"}},  # data, not a reference
        {"type": "object", "x-fastmcp-wrap-result": True, "discriminator": {"propertyName": "kind"}},
        {
            "$id": "https://example.com/root",
            "type": "object",
            "properties": {"a": {"$ref": "https://example.com/root"}},
        },
        {"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}}},
    ],
)
def test_valid_schemas_that_look_unusual(schema: dict[str, Any]) -> None:
    assert check_tool(make_tool(schema)) == []


class _Recorder(http.server.BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.hits.append(self.path)
        body = b'{"type": "integer"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture
def schema_host() -> Iterator[str]:
    httpd = http.server.HTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_remote_ref_is_reported_and_never_fetched(schema_host: str) -> None:
    _Recorder.hits.clear()
    schema = {"type": "object", "properties": {"n": {"$ref": f"{schema_host}/n.json"}}}
    tool = make_tool(schema)
    assert [v.path for v in check_tool(tool)] == ["/properties/n/$ref"]
    # The result is not validated against an unusable schema, and nothing is fetched either way.
    assert check_result(tool, make_result({"n": "not an integer"}, '{"n": "not an integer"}')) == []
    assert _Recorder.hits == []


def test_schemas_are_compiled_once() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert compile_schema(schema) is compile_schema(schema)
    assert compile_schema(dict(schema)) is compile_schema(schema)  # same content, new object
    assert compile_schema(schema, check_formats=True) is not compile_schema(schema)


def test_a_root_without_an_object_type_still_has_its_values_validated() -> None:
    tool = make_tool({"properties": {"n": {"type": "integer"}}, "required": ["n"]})
    assert [(v.check, v.path) for v in check_tool(tool)] == [("output-schema-invalid", "")]
    # The wire rule does not stop validation: a bad value is still named.
    assert [(v.check, v.path) for v in check_result(tool, make_result({"n": "x"}, '{"n": "x"}'))] == [
        ("structured-invalid", "/n")
    ]


def test_a_fastmcp_tool_is_not_held_to_the_2025_root_rule() -> None:
    # FastMCP gives clients on 2025-11-25 an object root and newer ones the schema as written.
    tool = make_tool({"properties": {"n": {"type": "integer"}}, "required": ["n"]})
    fastmcp_tool = tool.model_copy(update={"meta": {"fastmcp": {"tags": []}}})
    assert check_tool(fastmcp_tool) == []
    # Every other problem still counts for it.
    broken = make_tool({"type": "object", "properties": {"n": {"$ref": "#/$defs/Missing"}}})
    assert [v.path for v in check_tool(broken.model_copy(update={"meta": {"fastmcp": {}}}))] == ["/properties/n/$ref"]


LOOP = "checking any value against it never ends. Make the recursion descend into a property or an item"


@pytest.mark.parametrize(
    ("schema", "path", "loop"),
    [
        (
            {"type": "object", "$defs": {"n": {"$ref": "#/$defs/n"}}, "properties": {"x": {"$ref": "#/$defs/n"}}},
            "/$defs/n",
            "/$defs/n -> /$defs/n",
        ),
        (
            {"type": "object", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}},
            "/$defs/a",
            "/$defs/a -> /$defs/b -> /$defs/a",
        ),
        (  # a base case beside the loop does not help: the validator tries the loop first, forever
            {"type": "object", "$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}, {"type": "string"}]}}},
            "/$defs/a",
            "/$defs/a -> /$defs/a/anyOf/0 -> /$defs/a",
        ),
        ({"type": "object", "allOf": [{"$ref": "#"}]}, "", "# -> /allOf/0 -> #"),
    ],
)
def test_a_ref_loop_with_no_base_case_is_named(schema: dict[str, Any], path: str, loop: str) -> None:
    [violation] = check_tool(make_tool(schema))
    assert (violation.check, violation.path) == ("output-schema-invalid", path)
    assert violation.message == f"its $refs loop with no base case ({loop}): {LOOP}"
    # The result checks skip a schema they cannot use (the tool check fails every call of it), and no
    # longer walk the loop until Python gives up and warn that the data is nested too deeply.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = check_result(make_tool(schema), make_result({"x": 1}, '{"x": 1}'))
    assert found == []
    assert [str(warning.message) for warning in caught] == []


def test_a_recursive_schema_with_a_base_case_is_validated() -> None:
    tree = {
        "type": "object",
        "$defs": {"t": {"type": "object", "properties": {"c": {"$ref": "#/$defs/t"}, "n": {"type": "integer"}}}},
        "properties": {"x": {"$ref": "#/$defs/t"}},
    }
    assert check_tool(make_tool(tree)) == []
    [violation] = check_result(make_tool(tree), make_result({"x": {"c": {"n": "5"}}}, '{"x": {"c": {"n": "5"}}}'))
    assert (violation.check, violation.path) == ("structured-invalid", "/x/c/n")


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"s": {"type": "string", "pattern": "^(a|aa)+$"}}},
        {
            "type": "object",
            "properties": {"s": {"patternProperties": {"^(a|aa)+$": {}}, "additionalProperties": False}},
        },
        {"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"s": {"pattern": "^(a|aa)+$"}}},
    ],
    ids=["pattern", "patternProperties", "draft-07"],
)
def test_a_pattern_that_backtracks_without_end_is_a_verdict_within_its_budget(schema: dict[str, Any]) -> None:
    text = "a" * 60 + "!"
    value = {"s": {text: 1}} if "patternProperties" in schema["properties"]["s"] else {"s": text}
    # The budget ended the search (no wall clock asserted: the message says it took over its 1 s).
    [violation] = check_result(make_tool(schema), make_result(value, json.dumps(value)))
    where = (
        "/properties/s/patternProperties/^(a|aa)+$"
        if "patternProperties" in schema["properties"]["s"]
        else "/properties/s/pattern"
    )
    assert (violation.check, violation.path) == ("output-schema-invalid", where)
    assert violation.message.startswith(
        "the pattern '^(a|aa)+$' took over 1 s on a string of 61 characters, so structured_content was not checked "
        "against the schema: a pattern with nested or overlapping repeats backtracks without end on some input."
    )


# --- a schema that agrees with itself -----------------------------------------------------------------

REFUSES_ITS_DEFAULTS = """
from typing import Literal

from mcp.server import MCPServer
from pydantic import BaseModel, Field

mcp = MCPServer("reports", log_level="ERROR")

class Report(BaseModel):
    city: str = None
    level: Literal["low", "high"] = Field("medium", examples=["low", "extreme"])

@mcp.tool()
def report(city: str) -> Report:
    return Report(city=city, level="low")

if __name__ == "__main__":
    mcp.run()
"""

REFUSED = [
    "[[]output-schema-invalid[]] at /properties/city/default",
    "  the default null is refused by the schema it sits in: None is not of type 'string' (schema keyword 'type' "
    "at /properties/city/type); a client that fills in the default gets a value its own validation rejects",
    "[[]output-schema-invalid[]] at /properties/level/default",
    "  the default \"medium\" is refused by the schema it sits in: 'medium' is not one of ['low', 'high'] (schema "
    "keyword 'enum' at /properties/level/enum); a client that fills in the default gets a value its own validation "
    "rejects",
    "[[]output-schema-invalid[]] at /properties/level/examples/1",
    "  the example \"extreme\" is refused by the schema it sits in: 'extreme' is not one of ['low', 'high'] (schema "
    "keyword 'enum' at /properties/level/enum); an example the schema refuses teaches clients and models a wrong "
    "value",
    "Next step:",
    "- output-schema-invalid: Fix the output_schema: * A default, const, enum or examples value must be one the "
    "schema accepts: change the value, or widen the schema.",
]


@pytest.mark.parametrize("transport", ["in process", "stdio"])
def test_a_default_the_output_schema_refuses_is_flagged_at_the_listing(project: Project, transport: str) -> None:
    project.pytester.makepyfile(reports=REFUSES_ITS_DEFAULTS)
    where = "reports.py:mcp" if transport == "in process" else f"stdio:{sys.executable} reports.py"
    project.configure(where, suite=True)
    project.tests('def test_oslo(mcp_contract):\n    mcp_contract.call_tool("report", {"city": "Oslo"})\n')
    # The first run: the listing item writes the new tool's snapshot and runs its checks, and fails with them.
    recorded = project.run("--snapshot-update", "-p", "no:randomly")
    recorded.assert_outcomes(failed=2)  # the listing, and the call
    recorded.stdout.fnmatch_lines(
        ["*_ listing _*", "tool 'report' breaks its contract as listed (3 violations):", *REFUSED]
    )
    result = project.run("-p", "no:randomly")
    result.assert_outcomes(passed=2, failed=2)  # the call fails on the tool's listing too; its result is fine
    result.stdout.fnmatch_lines(
        ["*_ checks[[]report[]] _*", "tool 'report' breaks its contract as listed (3 violations):", *REFUSED]
    )
    result.stdout.fnmatch_lines(
        [
            'E       pytest_mcp_contract.ContractViolationError: tool \'report\' called with {"city": "Oslo"} broke '
            "its contract (3 violations):",
            *(f"E       {line}" for line in REFUSED),
        ]
    )


@pytest.mark.parametrize(
    ("schema", "path", "message"),
    [
        (
            {"type": "object", "properties": {"temperature": {"type": "number", "default": "n/a"}}},
            "/properties/temperature/default",
            "the default \"n/a\" is refused by the schema it sits in: 'n/a' is not of type 'number' (schema keyword "
            "'type' at /properties/temperature/type); a client that fills in the default gets a value its own "
            "validation rejects",
        ),
        (
            {"type": "object", "properties": {"level": {"type": "integer", "enum": [1, 2, "3"]}}},
            "/properties/level/enum/2",
            "the enum item \"3\" is refused by the schema it sits in: '3' is not of type 'integer' (schema keyword "
            "'type' at /properties/level/type); a client that offers it as a choice offers a value its own "
            "validation rejects",
        ),
        (
            {"type": "object", "properties": {"kind": {"type": "string", "minLength": 5, "const": "cat"}}},
            "/properties/kind/const",
            "the const \"cat\" is refused by the schema it sits in: 'cat' is too short (schema keyword 'minLength' "
            "at /properties/kind/minLength); the schema then accepts no value at all",
        ),
        (
            {
                "type": "object",
                "properties": {"temperature": {"type": "number"}},
                "required": ["temperature"],
                "additionalProperties": False,
                "examples": [{"temperature": 11.5, "unit": "C"}],
            },
            "/examples/0",
            'the example {"temperature": 11.5, "unit": "C"} is refused by the schema it sits in: at /unit of it, '
            "Additional properties are not allowed ('unit' was unexpected) (schema keyword 'additionalProperties' at "
            "/additionalProperties); an example the schema refuses teaches clients and models a wrong value",
        ),
    ],
    ids=["default", "enum", "const", "root-examples"],
)
def test_a_value_the_output_schema_refuses_is_named_with_its_pointer(
    schema: dict[str, Any], path: str, message: str
) -> None:
    violations = check_tool(make_tool(schema))
    assert [(v.check, v.path, v.message) for v in violations] == [("output-schema-invalid", path, message)]


def test_a_refused_value_is_found_beside_the_2025_root_rule() -> None:
    # A root without "type": "object" still has its values judged (the validator exists), and both are said.
    tool = make_tool({"properties": {"n": {"type": "integer", "default": "none"}}})
    assert [(v.check, v.path, v.versions) for v in check_tool(tool, version="2025-11-25")] == [
        ("output-schema-invalid", "", ("2025-11-25",)),
        ("output-schema-invalid", "/properties/n/default", ()),
    ]
