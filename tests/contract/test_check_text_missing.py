"""``text-missing``: structured data that no text tells (no block, no text block, or only empty ones).

MCP 2025-11-25 says a tool returning structured content SHOULD also return its JSON as text; the
structured-output proposal for the next revision (SEP-3279) would forbid mirroring that was not
asked for. So it is a check of its own, failing by default, that one allow line carries.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import Project, failing_calls, make_result, make_tool, target, violation_lines
from mcp import types

from pytest_mcp_contract import check_result

N = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
WRAPPED = {"type": "object", "properties": {"result": {}}, "required": ["result"]}
WRAPPED_LIST = {"type": "object", "properties": {"result": {"type": "array"}}, "required": ["result"]}
IMAGE = types.ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png")


def _found(schema: dict[str, Any], structured: Any, blocks: list[Any]) -> list[tuple[str, str | None, str]]:
    result = types.CallToolResult(content=blocks, structured_content=structured)
    return [(v.check, v.path, v.message) for v in check_result(make_tool(schema), result)]


def _text(text: str) -> types.TextContent:
    return types.TextContent(type="text", text=text)


@pytest.mark.parametrize(
    ("schema", "structured", "blocks", "at", "said"),
    [
        (N, {"n": 1}, [], "", 'content is empty, but structured_content holds {"n": 1}'),
        (N, {"n": 1}, [_text("")], "", 'content\'s only text block is empty, but structured_content holds {"n": 1}'),
        (N, {"n": 1}, [_text(" \n")], "", 'content\'s only text block is blank, but structured_content holds {"n": 1}'),
        (N, {"n": 1}, [_text(""), _text("")], "", "content's text blocks are all empty, but *"),
        (N, {"n": 1}, [IMAGE], "", 'content has no text block, but structured_content holds {"n": 1}'),
        (WRAPPED, {"result": 7}, [], "", 'content is empty, but structured_content holds {"result": 7}'),
        (WRAPPED, {"result": 7}, [_text("")], "", "content's only text block is empty, but *"),
        (WRAPPED_LIST, {"result": [{"a": 1}]}, [_text("")], "", "content's only text block is empty, but *"),
    ],
    ids=["no-block", "empty", "blank", "two-empty", "image-only", "wrapped-no-block", "wrapped-empty", "records-empty"],
)
def test_structured_data_no_text_tells_is_text_missing(
    schema: dict[str, Any], structured: Any, blocks: list[Any], at: str, said: str
) -> None:
    [(check, path, message)] = _found(schema, structured, blocks)
    assert (check, path) == ("text-missing", at)
    assert message.endswith(": the model sees none of the data")
    assert message.startswith(said.removesuffix("*"))


@pytest.mark.parametrize(
    ("structured", "blocks"),
    [
        ({"result": None}, [_text("")]),  # no data: the SDK change that sends one empty text block
        ({"result": []}, [_text("")]),
        ({}, []),
        ({"a": None, "b": []}, [_text("")]),
        ({"image": IMAGE.model_dump(mode="json", by_alias=True), "caption": None}, [IMAGE]),  # null says nothing
    ],
    ids=["wrapped-null", "wrapped-empty-list", "empty-object", "nothing-but-nulls", "image-with-null-caption"],
)
def test_data_that_holds_nothing_to_tell_owes_no_text(structured: Any, blocks: list[Any]) -> None:
    assert _found({"type": "object"}, structured, blocks) == []


@pytest.mark.parametrize(
    ("schema", "structured", "texts"),
    [
        (WRAPPED, {"result": None}, []),  # None is written as no block: nothing to tell
        (WRAPPED_LIST, {"result": []}, []),  # an empty list is no block at all
        (WRAPPED, {"result": ""}, [""]),  # an empty string, as itself
        (N, {"n": 1}, ["", '{"n": 1}']),  # an empty block beside the JSON
    ],
    ids=["none", "empty-list", "empty-string", "empty-beside-json"],
)
def test_no_text_where_none_is_owed_is_not_text_missing(
    schema: dict[str, Any], structured: Any, texts: list[str]
) -> None:
    assert check_result(make_tool(schema), make_result(structured, *texts)) == []


def test_text_that_says_something_else_stays_content_mismatch() -> None:
    assert [(check, path) for check, path, _m in _found(N, {"n": 1}, [_text('{"n": 2}')])] == [
        ("content-mismatch", "/n")
    ]


@pytest.mark.parametrize(
    "server", [target("wire"), f"stdio:{{python}} {target('wire').split(':')[0]}"], ids=["in-process", "stdio"]
)
def test_failure_output_says_no_text_tells_the_data(project: Project, server: str) -> None:
    result = failing_calls(project, "empty_text", "no_text", server=server)
    for tool, what in (("empty_text", "content's only text block is empty"), ("no_text", "content is empty")):
        result.stdout.fnmatch_lines(
            violation_lines(
                tool,
                "text-missing",
                f'{what}, but structured_content holds {{"n": 1}}: the model sees none of the data',
                at="(root)",
                next_step="Return a text block with the JSON of structured_content beside it, as MCP 2025-11-25 asks *",
            )
        )


def test_one_allow_line_carries_it_for_every_tool(project: Project) -> None:
    project.configure(
        target("wire"),
        mcp_contract_allow="\n    *:text-missing  # our clients read structured_content only (SEP-3279)",
    )
    project.tests(
        """
        def test_empty(mcp_contract):
            assert mcp_contract.call_tool("empty_text").structured_content == {"n": 1}

        def test_none(mcp_contract):
            assert mcp_contract.call_tool("no_text").structured_content == {"n": 1}

        def test_other_text(mcp_contract):
            mcp_contract.call_tool("mismatch")  # a text that says otherwise is not carried
        """
    )
    result = project.run()
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*[[]content-mismatch[]] at /n*"])
    result.stdout.fnmatch_lines(
        [
            "allowed violations: empty_text:text-missing x1 (our clients read structured_content only (SEP-3279)); "
            "no_text:text-missing x1 (our clients read structured_content only (SEP-3279))"
        ]
    )


def test_a_line_for_every_tool_that_no_finding_needed_is_named_stale(project: Project) -> None:
    # empty_text's own line carries its finding: the line for every tool carried nothing.
    project.configure(
        target("wire"),
        mcp_contract_allow="\n    empty_text:text-missing  # one tool's own\n    *:text-missing  # every tool's",
    )
    project.tests('def test_empty(mcp_contract):\n    mcp_contract.call_tool("empty_text")\n')
    result = project.run()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "allowed violations: empty_text:text-missing x1 (one tool's own)",
            "stale mcp_contract_allow lines (nothing needed them; remove them): *:text-missing",
        ]
    )
