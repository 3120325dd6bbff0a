"""Schema patterns are read one way, ECMA-262's, by every reader: the checks of a result, the
argument check and the fuzzer.

JSON Schema writes ``pattern`` in ECMA-262's dialect, and clients read it so (the TypeScript SDK,
the Inspector): ``\\d`` is ASCII, ``$`` the very end, ``\\b`` between ASCII word characters and the
rest. Python's ``re`` reads the same text otherwise, which missed violations (``"123\\n"`` for
``^\\d+$``) and raised false alarms (``"éfoo"`` for ``\\bfoo``). A pattern ECMA-262 does not have is
the server's defect: ``output-schema-invalid`` in an output schema, nothing checked in an input one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from conftest import HANG, Project, make_result, make_tool, violation_lines

from pytest_mcp_contract import check_result, check_tool
from pytest_mcp_contract._contract.schema import compile_schema, instance_errors
from pytest_mcp_contract._fuzz.strategies import Unsupported, arguments, checker

ACCEPTED, REFUSED, PYTHON_ONLY = "accepted", "refused", "python-only"

TABLE: list[tuple[str, str, str, str]] = [
    # (id, pattern, value, ECMA-262's verdict)
    ("digits", r"^\d+$", "123", ACCEPTED),
    ("digits_final_newline", r"^\d+$", "123\n", REFUSED),  # Python's $ matches before a final newline
    ("digits_arabic_indic", r"^\d+$", "٣", REFUSED),  # Python's \d is every script's digits
    ("boundary_after_accent", r"\bfoo", "éfoo", ACCEPTED),  # é is no ASCII word character: a boundary
    ("boundary_inside_word", r"\bfoo", "afoo", REFUSED),
    ("end_final_newline", r"^a$", "a\n", REFUSED),
    ("word_accented", r"^\w+$", "é", REFUSED),
    ("dot_line_separator", r"^.$", "\u2028", REFUSED),  # . stops at every line terminator
    ("space_byte_order_mark", r"^\s$", "\ufeff", ACCEPTED),  # ECMA-262's white space, not Python's
    ("space_next_line", r"^\s$", "\x85", REFUSED),
    ("not_space_in_class", r"^[\S-]+$", "a-b", ACCEPTED),
    ("brace_not_a_count", r"^a{,3}$", "aaa", REFUSED),  # a literal {,3} in ECMA-262, a count in Python
    ("unicode_code_point", r"^\u{1F600}$", "\U0001f600", ACCEPTED),  # JavaScript's escape
    ("unicode_code_point_other", r"^\u{1F600}$", "x", REFUSED),
    ("control_letter", r"^\cJ$", "\n", ACCEPTED),
    ("named_group", r"^(?<n>a)\k<n>$", "aa", ACCEPTED),
    ("empty_class_negated", r"^[^]$", "\n", ACCEPTED),
    ("empty_class", r"^[]?$", "", ACCEPTED),
    ("bracket_in_class", r"^[[]$", "[", ACCEPTED),
    ("python_named_group", r"^(?P<n>a)$", "b", PYTHON_ONLY),
]
"""A pattern, a value and what a client reading the pattern the ECMA-262 way says of it."""

IDS = [row[0] for row in TABLE]


def _schema(pattern: str) -> dict[str, Any]:
    return {"type": "object", "properties": {"s": {"type": "string", "pattern": pattern}}}


@pytest.mark.parametrize(("pattern", "value", "verdict"), [row[1:] for row in TABLE], ids=IDS)
def test_the_checks_of_a_result_give_ecmas_verdict(pattern: str, value: str, verdict: str) -> None:
    tool = make_tool(_schema(pattern))
    found = [(v.check, v.path) for v in check_result(tool, make_result({"s": value}, json.dumps({"s": value})))]
    if verdict == REFUSED:
        assert found == [("structured-invalid", "/s")]
        [violation] = check_result(tool, make_result({"s": value}, json.dumps({"s": value})))
        assert violation.message == (
            f"{value!r} does not match {pattern!r} (schema keyword 'pattern' at /properties/s/pattern)"
        )
    else:  # a pattern ECMA-262 does not have checks nothing; the listing reports it
        assert found == []
    listing = [(v.check, v.path) for v in check_tool(tool)]
    assert listing == ([("output-schema-invalid", "/properties/s/pattern")] if verdict == PYTHON_ONLY else [])


@pytest.mark.parametrize(("pattern", "value", "verdict"), [row[1:] for row in TABLE], ids=IDS)
def test_the_fuzzers_checker_gives_ecmas_verdict(pattern: str, value: str, verdict: str) -> None:
    schema = _schema(pattern)
    if verdict == PYTHON_ONLY:  # the fuzzer skips the tool, as for any pattern it cannot read
        with pytest.raises(Unsupported, match="uses syntax Python's re cannot match"):
            arguments({**schema, "required": ["s"]})
        return
    assert checker(schema)({"s": value}) is (verdict == ACCEPTED)


@pytest.mark.parametrize(("pattern", "value", "verdict"), [row[1:] for row in TABLE], ids=IDS)
def test_patternproperties_read_keys_the_same_way(pattern: str, value: str, verdict: str) -> None:
    schema = {"type": "object", "patternProperties": {pattern: {"type": "integer"}}}
    structured = {value: "x"}
    found = [
        (v.check, v.path) for v in check_result(make_tool(schema), make_result(structured, json.dumps(structured)))
    ]
    # A key the pattern matches must hold an integer: "x" is refused exactly where ECMA-262 matches.
    assert found == ([("structured-invalid", f"/{value}")] if verdict == ACCEPTED else [])


def test_the_table_is_what_javascript_says(node: str) -> None:
    # Node's RegExp with the u flag, as the TypeScript SDK's validator (ajv) reads schema patterns.
    script = """
    const rows = JSON.parse(require("fs").readFileSync(0, "utf8"));
    console.log(JSON.stringify(rows.map(([pattern, value]) => {
      for (const flags of ["u", ""]) {  // Annex B's reading where the u flag refuses (a{,3}: a brace)
        try { return new RegExp(pattern, flags).test(value) ? "accepted" : "refused"; } catch {}
      }
      return "python-only";
    })));
    """
    rows = [[pattern, value] for _id, pattern, value, _verdict in TABLE]
    said = subprocess.run(
        [node, "-e", script], input=json.dumps(rows), capture_output=True, text=True, check=True, timeout=HANG
    )
    assert json.loads(said.stdout) == [verdict for *_rest, verdict in TABLE]


@pytest.mark.parametrize(
    ("pattern", "construct", "fix"),
    [
        (r"^(?P<n>a)$", "(?P<n> at index 1, Python's named group", "write (?<name>...)"),
        (r"\Aa", "\\A at index 0, Python's start of text", "write ^"),
        (r"a\Z", "\\Z at index 1, Python's end of text", "write $ (in ECMA-262 it is the very end)"),
        (r"^a++$", "++ at index 2, a possessive quantifier", "write the quantifier without the last +"),
        (
            r"(?i)abc",
            "(?i) at index 0, an inline flag",
            "spell both cases in a class ([Aa]), or scope the flag: (?i:...)",
        ),
        (
            r"\h+",
            "\\h at index 0, an escape of Python's or PCRE's",
            "spell the characters it means as a class ([ \\t] for \\h)",
        ),
    ],
    ids=["named-group", "start-of-text", "end-of-text", "possessive", "inline-flag", "horizontal-space"],
)
def test_a_python_only_construct_is_named_with_its_place_and_the_ecma_spelling(
    pattern: str, construct: str, fix: str
) -> None:
    schema = {"type": "object", "properties": {"a": {"patternProperties": {"^x": {"pattern": pattern}}}}}
    [violation] = check_tool(make_tool(schema))
    assert (violation.check, violation.path) == ("output-schema-invalid", "/properties/a/patternProperties/^x/pattern")
    assert violation.message == (
        f"the pattern {pattern!r} uses {construct}, which ECMA-262 does not have: JSON Schema patterns are "
        f"ECMA-262, and clients refuse the schema or read the pattern otherwise. For ECMA-262, {fix}"
    )


def test_a_pattern_that_is_no_ecma_regular_expression_is_named() -> None:
    [violation] = check_tool(make_tool({"type": "object", "patternProperties": {r"^\q$": {}}}))
    assert (violation.check, violation.path) == ("output-schema-invalid", "/patternProperties/^\\q$")
    assert violation.message == (
        "the pattern '^\\\\q$' is not an ECMA-262 regular expression (\\q at index 1 is not valid there), so "
        "clients refuse the schema. Write it as ECMA-262 (JSON Schema's dialect) reads it"
    )


def test_the_rest_of_a_schema_with_an_unreadable_pattern_is_still_checked() -> None:
    schema = {
        "type": "object",
        "properties": {"s": {"type": "string", "pattern": r"\A\d+\Z"}, "n": {"type": "integer"}},
        "patternProperties": {"(?P<k>x)": {"type": "integer"}},
        "additionalProperties": False,
    }
    value = {"s": "not digits", "n": "seven", "x": "not checked: its pattern cannot be read"}
    found = [(v.check, v.path) for v in check_result(make_tool(schema), make_result(value, json.dumps(value)))]
    assert found == [("structured-invalid", "/n")]


@pytest.mark.parametrize(
    ("value", "valid"),
    [(r"^\u{1F600}$", True), (r"(?<n>a)\k<n>", True), (r"^\d+$", True), (r"(?P<n>a)", False), (r"\Aa", False)],
)
def test_format_regex_asks_for_an_ecma_pattern(value: str, valid: bool) -> None:
    schema = {"type": "object", "properties": {"re": {"type": "string", "format": "regex"}}}
    found = instance_errors(compile_schema(schema, check_formats=True), {"re": value})
    assert [(error.path, error.message) for error in found] == (
        [] if valid else [("/re", f"{value!r} is not a 'regex' (schema keyword 'format' at /properties/re/format)")]
    )


@pytest.mark.parametrize(
    "pattern",
    [
        # What correct servers publish: pydantic's Field(pattern=...), zod's .regex(), z.email(), z.iso.datetime().
        r"^[A-Z]{3}-\d{4}$",
        r"^(?!\.)(?!.*\.\.)([A-Za-z0-9_'+\-\.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$",
        r"^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]"
        r"|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))T(?:(?:"
        r"[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:Z))$",
        r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$",
        r"^\p{L}[\p{L}\p{N} ]*$",
        r"^[^\s@]+@[^\s@]+$",
        r"^https?:\/\/[\w.-]+(?:\/[\w\-./?%&=]*)?$",
        r"(?<=@)\w+",
        r"^(?i:abc)$",
    ],
)
def test_ordinary_ecma_patterns_are_no_defect(pattern: str) -> None:
    assert check_tool(make_tool(_schema(pattern))) == []


PYDANTIC_SERVER = """
from typing import Annotated

from mcp.server import MCPServer
from pydantic import BaseModel, Field

mcp = MCPServer("codes", log_level="ERROR")


class Code(BaseModel):
    sku: str = Field(pattern=r"^[A-Z]{3}-\\d{4}$")
    slug: str = Field(pattern=r"^[\\w-]+$")
    label: str = Field(pattern=r"^\\S(?:.*\\S)?$")


@mcp.tool()
def code(sku: Annotated[str, Field(pattern=r"^[A-Z]{3}-\\d{4}$")]) -> Code:
    return Code(sku=sku, slug="abc-1", label="Blue widget")
"""


def test_a_pydantic_server_with_field_patterns_is_clean(project: Project) -> None:
    project.pytester.makepyfile(codes=PYDANTIC_SERVER)
    project.configure("codes.py:mcp", suite=True)
    project.tests(
        """
        import pytest
        from pytest_mcp_contract import InvalidArgumentsError

        def test_code(mcp_contract):
            assert mcp_contract.call_tool("code", {"sku": "ABC-1234"}).structured_content["sku"] == "ABC-1234"
            with pytest.raises(InvalidArgumentsError):
                mcp_contract.call_tool("code", {"sku": "ABC-1234\\n"})
        """
    )
    project.run("--snapshot-update").assert_outcomes(passed=2)  # the call, and the listing that ran the checks
    result = project.run()
    result.assert_outcomes(passed=4)  # the call, the listing, and the generated schema and checks items of the tool


# --- through the fixtures: a planted server, in process and over stdio ------------------------------

PLANTED = """
import json
from pathlib import Path

import anyio
from mcp import types
from mcp.server import Server

ROWS = json.loads(Path(__file__).with_name("rows.json").read_text())


def _schema(pattern):
    return {"type": "object", "properties": {"s": {"type": "string", "pattern": pattern}}}


TOOLS = [
    tool
    for name, pattern, value, _verdict in ROWS
    for tool in (
        types.Tool(name="in_" + name, input_schema=_schema(pattern)),
        types.Tool(name="out_" + name, input_schema={"type": "object"}, output_schema=_schema(pattern)),
    )
]
TOOLS.append(types.Tool(name="in_backtracks", input_schema=_schema("^(a|aa)+$")))
VALUES = {name: value for name, _pattern, value, _verdict in ROWS}


async def list_tools(_ctx, _params):
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(_ctx, params):
    kind, _, name = params.name.partition("_")
    if kind == "in":
        return types.CallToolResult(content=[types.TextContent(type="text", text="called")])
    structured = {"s": VALUES[name]}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(structured))], structured_content=structured
    )


server = Server("patterns", on_list_tools=list_tools, on_call_tool=call_tool)


async def _serve_stdio():
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_serve_stdio)
"""

VERDICTS = """
import json
from pathlib import Path

import pytest
from pytest_mcp_contract import ContractViolationError, InvalidArgumentsError

ROWS = json.loads(Path(__file__).with_name("rows.json").read_text())
EXPECTED = {
    "accepted": [],
    "refused": [("structured-invalid", "/s")],
    "python-only": [("output-schema-invalid", "/properties/s/pattern")],
}


@pytest.mark.parametrize(("name", "pattern", "value", "verdict"), ROWS, ids=[row[0] for row in ROWS])
def test_result(mcp_contract, name, pattern, value, verdict):
    try:
        mcp_contract.call_tool("out_" + name)
        found = []
    except ContractViolationError as error:
        found = [(violation.check, violation.path) for violation in error.violations]
    assert found == EXPECTED[verdict]


@pytest.mark.parametrize(("name", "pattern", "value", "verdict"), ROWS, ids=[row[0] for row in ROWS])
def test_arguments(mcp_contract, name, pattern, value, verdict):
    if verdict == "refused":
        with pytest.raises(InvalidArgumentsError) as caught:
            mcp_contract.call_tool("in_" + name, {"s": value})
        assert caught.value.problems == [
            ("/s", f"{value!r} does not match {pattern!r} (schema keyword 'pattern' at /properties/s/pattern)")
        ]
    else:  # a pattern ECMA-262 does not have is the server's defect: the argument check checks nothing for it
        assert mcp_contract.call_tool("in_" + name, {"s": value}).content[0].text == "called"
"""


def _planted(project: Project, over: str) -> Project:
    project.pytester.makepyfile(planted=PLANTED)
    project.pytester.makefile(".json", rows=json.dumps(TABLE))
    project.configure("planted.py:server" if over == "in process" else f"stdio:{sys.executable} planted.py")
    return project


def test_results_and_arguments_get_ecmas_verdict_in_process(project: Project) -> None:
    _planted(project, "in process").tests(VERDICTS)
    project.run().assert_outcomes(passed=2 * len(TABLE))


def test_results_get_ecmas_verdict_over_stdio(project: Project) -> None:
    _planted(project, "stdio").tests(VERDICTS)
    project.run("-k", "test_result").assert_outcomes(passed=len(TABLE), deselected=len(TABLE))


def test_an_input_pattern_that_backtracks_without_end_checks_nothing_and_the_call_goes_out(project: Project) -> None:
    _planted(project, "in process").tests(
        """
        def test_backtracks(mcp_contract):
            result = mcp_contract.call_tool("in_backtracks", {"s": "a" * 60 + "!"})
            assert result.content[0].text == "called"
        """
    )
    project.run().assert_outcomes(passed=1)


def test_the_failure_names_the_pattern_the_place_and_the_next_step_over_stdio(project: Project) -> None:
    _planted(project, "stdio").tests(
        """
        def test_digits(mcp_contract):
            mcp_contract.call_tool("out_digits_final_newline")

        def test_python(mcp_contract):
            mcp_contract.call_tool("out_python_named_group")
        """
    )
    result = project.run()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            *violation_lines(
                "out_digits_final_newline",
                "structured-invalid",
                "'123\\n' does not match '^\\\\d+$' (schema keyword 'pattern' at /properties/s/pattern)",
                at="/s",
            ),
            *violation_lines(
                "out_python_named_group",
                "output-schema-invalid",
                "the pattern '^(?P<n>a)$' uses (?P<n> at index 1, Python's named group, which ECMA-262 does not "
                "have: JSON Schema patterns are ECMA-262, and clients refuse the schema or read the pattern "
                "otherwise. For ECMA-262, write (?<name>...)",
                at="/properties/s/pattern",
                next_step="Fix the output_schema: *",
            ),
        ]
    )
