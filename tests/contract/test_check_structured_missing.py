"""``structured-missing``: a schema is declared, the call succeeded, and structured_content is absent."""

from __future__ import annotations

from conftest import Project, failing_calls, make_result, make_tool, violation_lines

from pytest_mcp_contract import check_result

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def test_failure_output(project: Project) -> None:
    result = failing_calls(project, "missing")
    result.stdout.fnmatch_lines(
        violation_lines(
            "missing",
            "structured-missing",
            "the tool declares an output_schema, but this successful result has no structured_content",
            next_step="Send structured_content with every successful result *",
        )
    )


def test_an_error_result_needs_no_structured_content() -> None:
    result = make_result(None, "upstream down", is_error=True)
    assert check_result(make_tool(SCHEMA), result, expect_error=True) == []


def test_a_tool_without_schema_needs_none() -> None:
    assert check_result(make_tool(None), make_result(None, "plain text")) == []


def test_an_empty_object_is_present() -> None:
    schema = {"type": "object"}
    assert check_result(make_tool(schema), make_result({}, "{}")) == []
