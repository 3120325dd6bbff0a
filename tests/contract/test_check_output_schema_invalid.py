"""``output-schema-invalid``: the published schema is not valid JSON Schema, points nowhere, or is not an object."""

from __future__ import annotations

import http.server
import json
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
