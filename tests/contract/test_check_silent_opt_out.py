"""``silent-opt-out``: a tool annotated with a return type publishes no output_schema by accident."""

from __future__ import annotations

import datetime
from typing import Any

import anyio
import pytest
from conftest import Project, failing_calls, make_result, make_tool, violation_lines
from mcp.server import MCPServer
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel

from pytest_mcp_contract import check_result, check_tool

SERVER = """
import datetime
from mcp.server import MCPServer

mcp = MCPServer("opt-outs")

class Report:
    def __init__(self):
        self.ok = True

@mcp.tool()
def last_sync() -> datetime.datetime:
    return datetime.datetime(2024, 1, 2, 3, 4, 5)

@mcp.tool()
def report() -> Report:
    return Report()
"""


def test_failure_output(project: Project) -> None:
    project.pytester.makepyfile(opt_outs=SERVER)
    result = failing_calls(project, "last_sync", "report", server="opt_outs.py:mcp")
    result.stdout.fnmatch_lines(
        violation_lines(
            "last_sync",
            "silent-opt-out",
            "the function is annotated -> datetime, yet the tool publishes no output_schema: the SDK could not "
            "describe that type and silently fell back to unstructured text, so clients get no structured_content",
            next_step="Return a type the SDK can describe *",
        )
    )
    result.stdout.fnmatch_lines(
        [
            *violation_lines("report", "silent-opt-out", "the function is annotated -> Report, *", violations=2)[:3],
            "E       [silent-opt-out]",
            "E         the tool publishes no output_schema and text block 0 is <opt_outs.Report object at 0x*>, the "
            "default repr of a Python object (opt_outs.Report): the SDK could not serialize it, so the model "
            "reads a memory address instead of data",
        ]
    )


class Point(BaseModel):
    x: int


def _server() -> MCPServer:
    server = MCPServer("deliberate")

    @server.tool(structured_output=False)
    def text_only_model() -> Point:
        return Point(x=1)

    @server.tool(structured_output=False)
    def text_only_str() -> str:
        return "2024-01-02"

    @server.tool(structured_output=False)
    def text_only_datetime() -> datetime.datetime:
        return datetime.datetime(2024, 1, 2)

    @server.tool()
    def blocks() -> list[TextContent]:
        return [TextContent(type="text", text="a")]

    @server.tool()
    def own_result() -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text="a")])

    @server.tool()
    def no_annotation():  # type: ignore[no-untyped-def]
        return 1

    return server


@pytest.mark.parametrize("tool", ["text_only_model", "text_only_str", "blocks", "own_result", "no_annotation"])
def test_deliberate_opt_outs_pass(tool: str) -> None:
    server = _server()
    listed = {t.name: t for t in anyio.run(server.list_tools)}
    assert listed[tool].output_schema is None
    assert check_tool(listed[tool], server=server) == []


def test_opt_out_the_sdk_cannot_tell_from_a_silent_one_is_reported() -> None:
    """structured_output=False on a type the SDK cannot describe anyway: docs/checks.md says to annotate -> str."""
    server = _server()
    listed = {t.name: t for t in anyio.run(server.list_tools)}
    violations = check_tool(listed["text_only_datetime"], server=server)
    assert [v.check for v in violations] == ["silent-opt-out"]


def test_without_the_server_only_the_text_can_tell() -> None:
    tool = make_tool(None)
    assert check_tool(tool) == []
    repr_text = make_result(None, '"<weather.Report object at 0x7f3a2c1d9e80>"')
    assert [v.check for v in check_result(tool, repr_text)] == ["silent-opt-out"]


@pytest.mark.parametrize(
    "text",
    [
        "The station <weather.Report object at 0x7f3a> is offline",  # prose that mentions a repr
        "<b>bold</b>",
        "<weather.Report at 0x7f3a>",
        "",
    ],
)
def test_text_that_only_resembles_a_repr_passes(text: str) -> None:
    assert check_result(make_tool(None), make_result(None, text)) == []


def test_error_results_are_not_judged_for_reprs() -> None:
    result: Any = make_result(None, "<weather.Report object at 0x7f3a>", is_error=True)
    assert check_result(make_tool(None), result, expect_error=True) == []
