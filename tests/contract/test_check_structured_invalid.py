"""``structured-invalid``: structured_content does not validate against the tool's output_schema."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import Project, failing_calls, make_result, make_tool, target, violation_lines

from pytest_mcp_contract import check_result

SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "humidity": {"type": "integer", "minimum": 0, "maximum": 100},
        "when": {"type": "string", "format": "date-time"},
    },
    "required": ["city", "humidity"],
}


def test_failure_output(project: Project) -> None:
    result = failing_calls(project, "bad_type")
    result.stdout.fnmatch_lines(
        violation_lines(
            "bad_type",
            "structured-invalid",
            "'x' is not of type 'integer' (schema keyword 'type' at /properties/n/type)",
            at="/n",
            next_step="Make the tool return data that matches its output_schema, *",
        )
    )


def _check(structured: Any, **options: Any) -> list[tuple[str, str | None, str]]:
    result = make_result(structured, "(text not compared here)")
    violations = check_result(make_tool(SCHEMA), result, **options)
    return [(v.check, v.path, v.message) for v in violations if v.check == "structured-invalid"]


def test_every_error_is_listed_most_relevant_first() -> None:
    assert _check({"city": 7, "humidity": 140}) == [
        ("structured-invalid", "/city", "7 is not of type 'string' (schema keyword 'type' at /properties/city/type)"),
        (
            "structured-invalid",
            "/humidity",
            "140 is greater than the maximum of 100 (schema keyword 'maximum' at /properties/humidity/maximum)",
        ),
    ]


def test_missing_required_property_points_at_the_object() -> None:
    assert _check({"city": "Oslo"}) == [
        ("structured-invalid", "", "'humidity' is a required property (schema keyword 'required' at /required)")
    ]


def test_a_long_value_is_trimmed() -> None:
    [(_check_id, path, message)] = _check({"city": "x" * 5000, "humidity": 1, "extra": 1} | {"city": ["y"] * 3000})
    assert path == "/city"
    assert len(message) < 250
    assert message.endswith("is not of type 'string' (schema keyword 'type' at /properties/city/type)")


@pytest.mark.parametrize(
    "value",
    [
        {"city": "Oslo", "humidity": 40.0},  # an integral float is an integer in JSON Schema
        {"city": "Oslo", "humidity": 40, "when": "2024-01-02T03:04:05"},  # naive: not RFC 3339, formats are notes
        {"city": "Oslo", "humidity": 40, "unknown": [1, 2]},  # additional properties are allowed unless forbidden
    ],
)
def test_values_that_look_wrong_but_validate(value: dict[str, Any]) -> None:
    assert _check(value) == []


def test_formats_are_asserted_when_asked() -> None:
    value = {"city": "Oslo", "humidity": 40, "when": "yesterday"}
    assert _check(value) == []
    assert _check(value, check_formats=True) == [
        (
            "structured-invalid",
            "/when",
            "'yesterday' is not a 'date-time' (schema keyword 'format' at /properties/when/format)",
        )
    ]


def test_format_option_from_the_ini(project: Project, pytester: Any) -> None:
    pytester.makepyfile(
        dated="""
from mcp.server import Server
import mcp.types as types

SCHEMA = {"type": "object", "properties": {"day": {"type": "string", "format": "date"}}}

async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name="day", input_schema={"type": "object"}, output_schema=SCHEMA)])

async def call_tool(ctx, params):
    return types.CallToolResult(content=[types.TextContent(type="text", text='{"day": "Monday"}')],
                                structured_content={"day": "Monday"})

server = Server("dated", on_list_tools=list_tools, on_call_tool=call_tool)
"""
    )
    project.configure("dated.py:server", mcp_contract_check_formats="true")
    project.tests("def test_it(mcp_contract):\n    mcp_contract.call_tool('day')\n")
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["E         'Monday' is not a 'date' (schema keyword 'format' at /properties/day/format)"]
    )


def test_not_a_number_breaks_the_sdks_own_schema(project: Project) -> None:
    project.configure(target("sdk_broken", "mcp"))
    project.tests("def test_it(mcp_contract):\n    mcp_contract.call_tool('not_a_number')\n")
    result = project.run()
    result.stdout.fnmatch_lines(
        [
            "E       [structured-invalid] at /result",
            "E         None is not of type 'number' (schema keyword 'type' at /properties/result/type)",
            "E       [content-mismatch] at /result",
            "E         text block 0 says NaN but structured_content /result is null: NaN is not JSON (JSON has no NaN or Infinity); a tool that computes it must send a number or null in both",
        ]
    )


@pytest.mark.parametrize(
    ("schema_format", "good", "bad"),
    [
        ("date-time", "2024-01-02T03:04:05Z", "2024-01-02T03:04:05"),
        ("date-time", "2024-01-02T03:04:05.5+01:00", "2024-13-02T03:04:05Z"),
        ("time", "03:04:05+00:00", "noon"),
        ("duration", "P1DT2H", "1 day"),
        ("uri", "https://example.com/a?b=c", "example.com/a b"),
        ("json-pointer", "/a/b~1c", "a/b"),
        ("uuid", "12345678-1234-5678-1234-567812345678", "1234"),
    ],
)
def test_asserted_formats(schema_format: str, good: str, bad: str) -> None:
    tool = make_tool({"type": "object", "properties": {"v": {"type": "string", "format": schema_format}}})
    assert check_result(tool, make_result({"v": good}, f'{{"v": "{good}"}}'), check_formats=True) == []
    bad_result = make_result({"v": bad}, f'{{"v": "{bad}"}}')
    [violation] = check_result(tool, bad_result, check_formats=True)
    assert violation.message == f"'{bad}' is not a '{schema_format}' (schema keyword 'format' at /properties/v/format)"


def test_unknown_formats_stay_annotations() -> None:
    tool = make_tool({"type": "object", "properties": {"v": {"type": "string", "format": "binary"}}})
    assert check_result(tool, make_result({"v": "\u0000ab"}, '{"v": "\\u0000ab"}'), check_formats=True) == []


def test_a_declared_draft_is_the_one_that_judges_and_the_failure_names_it() -> None:
    items = {"properties": {"pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]}}}
    value = {"pair": ["a", 1]}
    draft7 = make_tool({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", **items})
    # Draft 7 has no prefixItems: a server declaring it promised nothing about the pair's items.
    assert check_result(draft7, make_result(value, '{"pair": ["a", 1]}')) == []
    bad = {"pair": "ab"}
    [violation] = check_result(draft7, make_result(bad, '{"pair": "ab"}'))
    assert violation.message == (
        "'ab' is not of type 'array' (schema keyword 'type' at /properties/pair/type; Draft 7, as its $schema says)"
    )
    # Without $schema, MCP's default (2020-12) applies, and says nothing about the draft.
    violations = check_result(make_tool({"type": "object", **items}), make_result(value, '{"pair": ["a", 1]}'))
    assert [(violation.path, violation.message) for violation in violations] == [
        ("/pair/0", "'a' is not of type 'integer' (schema keyword 'type' at /properties/pair/prefixItems/0/type)"),
        ("/pair/1", "1 is not of type 'string' (schema keyword 'type' at /properties/pair/prefixItems/1/type)"),
    ]


# mcp 1.x's low-level Server checks a result against the tool's outputSchema itself and answers an error
# instead ("Output validation error: …"): an error the test did not expect is named for what it is.
REFUSED = "Output validation error: 'x' is not of type 'integer'"
SCHEMA_N = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def test_a_result_the_server_refused_against_its_own_schema_is_structured_invalid() -> None:
    [violation] = check_result(make_tool(SCHEMA_N), make_result(None, REFUSED, is_error=True))
    assert violation.check == "structured-invalid"
    assert violation.message == (
        "the tool's structured_content does not match its output_schema: the server refused its own result "
        f"and answered is_error=True instead ({REFUSED!r})"
    )


def test_a_result_the_server_refused_for_lacking_structured_content_is_structured_missing() -> None:
    text = "Output validation error: outputSchema defined but no structured output returned"
    [violation] = check_result(make_tool(SCHEMA_N), make_result(None, text, is_error=True))
    assert violation.check == "structured-missing"
    assert violation.message.startswith("the tool declares an output_schema, but its result had no structured_content")


@pytest.mark.parametrize(
    ("schema", "texts"),
    [
        (None, [REFUSED]),  # no schema the server could have checked against
        (SCHEMA_N, ["upstream said: " + REFUSED]),  # the words, but not as the server's own answer
        (SCHEMA_N, [REFUSED, "and more"]),  # the server's refusal is a single text block
    ],
    ids=["no-schema", "quoted", "two-blocks"],
)
def test_an_error_that_only_mentions_output_validation_is_a_tool_error(
    schema: dict[str, Any] | None, texts: list[str]
) -> None:
    [violation] = check_result(make_tool(schema), make_result(None, *texts, is_error=True))
    assert violation.check == "tool-error"


@pytest.mark.parametrize("text", [REFUSED, "Output validation error: column 'price' is not a number in row 3"])
def test_an_expected_error_is_accepted_whatever_it_says(text: str) -> None:
    """A correct server's own error may begin with these words too (a low-level 2.x server writes what it likes)."""
    assert check_result(make_tool(SCHEMA_N), make_result(None, text, is_error=True), expect_error=True) == []
