"""Arguments are checked against the tool's input_schema before they are sent: a mistake in the test
is the test's error (``InvalidArgumentsError``), raised at once, never a server's ``tool-error``.

The same in process and over stdio: the check reads the listed input_schema only.
"""

from __future__ import annotations

import sys

import pytest
from conftest import Project

SERVER = """
from typing import Annotated

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

mcp = MCPServer("shop", log_level="ERROR")

@mcp.tool()
def get_item(sku: str, qty: int = 1) -> dict[str, int]:
    return {sku: qty}

@mcp.tool()
def contact(email: Annotated[str, Field(json_schema_extra={"format": "email"})]) -> str:
    return email

if __name__ == "__main__":
    mcp.run()
"""

# A low-level server: an input_schema that is no valid schema, and one that takes any extra key.
LOWLEVEL = """
import json
from mcp import types
from mcp.server import Server

TOOLS = [
    types.Tool(name="broken_schema", input_schema={"type": "object", "properties": {"n": {"type": "int"}}}),
    types.Tool(name="open_schema", input_schema={"type": "object", "properties": {"n": {"type": "integer"}}}),
    types.Tool(
        name="patterned",
        input_schema={
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "patternProperties": {"^x_": {}},
            "required": ["n"],
        },
    ),
]

async def list_tools(_ctx, _params):
    return types.ListToolsResult(tools=TOOLS)

async def call_tool(_ctx, params):
    return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(params.arguments))])

server = Server("lowlevel", on_list_tools=list_tools, on_call_tool=call_tool)
"""

NEXT_STEP = (
    "E       Next step: fix the arguments in the test (or the case), or pass validate_arguments=False to send "
    "them as they are, when the test is of how the server handles bad input."
)


@pytest.fixture(params=["in process", "stdio"])
def shop(request: pytest.FixtureRequest, project: Project) -> Project:
    project.pytester.makepyfile(shop=SERVER)
    where = "shop.py:mcp" if request.param == "in process" else f"stdio:{sys.executable} shop.py"
    project.configure(where)
    return project


@pytest.mark.parametrize(
    ("given", "why"),
    [
        ("skus", "did you mean 'sku'?"),  # close to the argument the call lacks
        ("id", "its arguments are: sku, qty"),  # close to none: the ones the schema has
    ],
    ids=["misspelt", "unrelated"],
)
def test_an_unknown_argument_is_the_tests_error_naming_the_argument(shop: Project, given: str, why: str) -> None:
    shop.tests(
        f"""
        def test_item(mcp_contract):
            mcp_contract.call_tool("get_item", {{"{given}": "A1"}})
        """
    )
    result = shop.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       pytest_mcp_contract.InvalidArgumentsError: tool 'get_item' was not called: its input_schema "
            f'refuses the arguments {{"{given}": "A1"}} (2 problems):',
            f"E       - at /{given}: the input_schema has no '{given}': {why}",
            "E       - at (root): 'sku' is a required property (schema keyword 'required' at /required)",
            NEXT_STEP,
            "FAILED test_contract.py::test_item - pytest_mcp_contract.InvalidArgumentsErro*",
        ]
    )
    # Nothing was sent, so nothing was checked, and no plugin frame is shown.
    assert "[tool-error]" not in result.stdout.str()
    assert "session.py" not in result.stdout.str()


def test_a_wrong_type_names_the_place_and_the_keyword(shop: Project) -> None:
    shop.tests(
        """
        import pytest
        from pytest_mcp_contract import InvalidArgumentsError

        def test_item(mcp_contract):
            with pytest.raises(InvalidArgumentsError) as caught:
                mcp_contract.call_tool("get_item", {"sku": "A1", "qty": "two"})
            assert caught.value.name == "get_item"
            assert caught.value.problems == [
                ("/qty", "'two' is not of type 'integer' (schema keyword 'type' at /properties/qty/type)")
            ]
            assert isinstance(caught.value, TypeError)
        """
    )
    shop.run().assert_outcomes(passed=1)


def test_validate_arguments_false_sends_them_to_test_the_servers_own_handling(shop: Project) -> None:
    shop.tests(
        """
        import pytest

        def test_item(mcp_contract):
            result = mcp_contract.call_tool("get_item", {}, validate_arguments=False, expect_error=True)
            assert "sku" in result.content[0].text

        @pytest.mark.anyio
        async def test_item_async(mcp_contract_async):
            result = await mcp_contract_async.call_tool("get_item", {}, validate_arguments=False, expect_error=True)
            assert "sku" in result.content[0].text

        @pytest.fixture
        def anyio_backend():
            return "asyncio"
        """
    )
    shop.run().assert_outcomes(passed=2)


def test_the_async_face_checks_arguments_too(shop: Project) -> None:
    shop.tests(
        """
        import pytest

        @pytest.mark.anyio
        async def test_item(mcp_contract_async):
            await mcp_contract_async.call_tool("get_item", {"sku": 7})

        @pytest.fixture
        def anyio_backend():
            return "asyncio"
        """
    )
    result = shop.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       pytest_mcp_contract.InvalidArgumentsError: tool 'get_item' was not called: its input_schema "
            'refuses the arguments {"sku": 7} (1 problem):',
            "E       - at /sku: 7 is not of type 'string' (schema keyword 'type' at /properties/sku/type)",
        ]
    )


def test_a_call_without_arguments_says_so(shop: Project) -> None:
    shop.tests("def test_item(mcp_contract):\n    mcp_contract.call_tool('get_item')\n")
    result = shop.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       pytest_mcp_contract.InvalidArgumentsError: tool 'get_item' was not called: its input_schema "
            "refuses a call with no arguments (1 problem):",
            "E       - at (root): 'sku' is a required property (schema keyword 'required' at /required)",
        ]
    )


def test_formats_are_not_checked_the_server_reads_them_its_own_way(shop: Project) -> None:
    shop.tests(
        """
        def test_contact(mcp_contract):
            assert mcp_contract.call_tool("contact", {"email": "not an address"}).structured_content == {
                "result": "not an address"
            }
        """
    )
    shop.run().assert_outcomes(passed=1)


def test_a_schema_that_is_no_schema_or_takes_any_key_blames_no_test(project: Project) -> None:
    project.pytester.makepyfile(lowlevel=LOWLEVEL)
    project.configure("lowlevel.py:server")
    project.tests(
        """
        def test_broken(mcp_contract):
            assert mcp_contract.call_tool("broken_schema", {"n": "x"}).content[0].text == '{"n": "x"}'

        def test_open(mcp_contract):
            assert mcp_contract.call_tool("open_schema", {"m": 1}).content[0].text == '{"m": 1}'
        """
    )
    project.run().assert_outcomes(passed=2)


def test_names_the_schema_accepts_are_never_called_unknown(project: Project) -> None:
    # Refused for another reason, the call's extra names are not blamed: an open schema takes any
    # name, a patternProperties schema takes the names its patterns match.
    project.pytester.makepyfile(lowlevel=LOWLEVEL)
    project.configure("lowlevel.py:server")
    project.tests(
        """
        import pytest
        from pytest_mcp_contract import InvalidArgumentsError

        @pytest.mark.parametrize(("tool", "arguments"), [("open_schema", {"m": 1, "n": "one"}), ("patterned", {"x_a": 1})])
        def test_refused(mcp_contract, tool, arguments):
            with pytest.raises(InvalidArgumentsError) as caught:
                mcp_contract.call_tool(tool, arguments)
            assert "(1 problem)" in str(caught.value)
            assert "has no" not in str(caught.value)
        """
    )
    project.run().assert_outcomes(passed=2)


def test_a_case_with_a_misspelt_argument_names_its_entry(project: Project) -> None:
    project.pytester.makepyfile(shop=SERVER)
    project.pytester.path.joinpath("cases.toml").write_text(
        '[[case]]\ntool = "get_item"\narguments = { skus = "A1" }\n\n'
        '[[case]]\ntool = "get_item"\nid = "bad-input"\narguments = {}\nerror = "sku"\nvalidate_arguments = false\n'
    )
    project.configure("shop.py:mcp", suite=True, mcp_contract_cases="cases.toml")
    result = project.run("-k", "call", "-p", "no:randomly")
    # A cases file's calls are items on the first run too: only the listing is deselected.
    result.assert_outcomes(passed=1, failed=1, deselected=1)
    result.stdout.fnmatch_lines(
        [
            'tool \'get_item\' was not called: its input_schema refuses the arguments {"skus": "A1"} (2 problems):',
            "- at /skus: the input_schema has no 'skus': did you mean 'sku'?",
            "*",
            "*",
            "This call is cases.toml, case 1: fix its arguments there, or set validate_arguments = false in it.",
        ]
    )


def test_validate_arguments_in_a_case_must_be_a_bool(project: Project) -> None:
    project.pytester.makepyfile(shop=SERVER)
    project.pytester.path.joinpath("cases.toml").write_text(
        '[[case]]\ntool = "get_item"\narguments = {}\nvalidate_arguments = "no"\n'
    )
    project.configure("shop.py:mcp", suite=True, mcp_contract_cases="cases.toml")
    result = project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: mcp_contract_cases cases.toml, case 1: validate_arguments must be true or false, got 'no'."]
    )


def test_arguments_that_are_no_object_show_only_the_tests_frame(shop: Project) -> None:
    shop.tests(
        """
        import pytest

        def test_item(mcp_contract):
            mcp_contract.call_tool("get_item", ["A1"])

        @pytest.mark.anyio
        async def test_item_async(mcp_contract_async):
            await mcp_contract_async.call_tool("get_item", ["A1"])

        @pytest.fixture
        def anyio_backend():
            return "asyncio"
        """
    )
    result = shop.run()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "E       TypeError: arguments for tool 'get_item' must be a dict of argument names to values, got list: "
            "[[]'A1']",
            "test_contract.py:4: TypeError",
        ]
    )
    failures = result.stdout.str().split("FAILURES")[1].split("short test summary")[0]
    assert "pytest_mcp_contract/" not in failures  # no frame of the plugin's files
