"""One verdict whatever SDK major the plugin runs on: the planted servers of mcp 1.x (``planted_v1``)
and 2.x (``planted_v2``) answer the same, in process and over stdio, and get the same verdicts.

These tests run on every CI leg (mcp 1.10, the newest 1.x, 2.0, the newest 2.x): each leg's servers
are written for the SDK it installs.
"""

from __future__ import annotations

import contextlib
import http.server
import importlib
import os
import sys
import threading
from collections.abc import Iterator

import pytest
from conftest import SERVERS, free_port, violations_of
from contract_servers.planted import ASKING, MAJOR_DIFFERS, RELEASE_DIFFERS, VERDICTS, WIRE_NAMES

from pytest_mcp_contract import ClientCapabilityError, McpContract, SessionError
from pytest_mcp_contract._contract.versions import OFFERED
from pytest_mcp_contract._sdk.release import MAJOR, SDK_VERSION
from pytest_mcp_contract._servers.http import http_target
from pytest_mcp_contract._servers.stdio import stdio_target

PLANTED = f"planted_v{MAJOR}"


def _open(which: str, transport: str, version: str = OFFERED[0]) -> McpContract:
    if transport == "in process":
        server = getattr(importlib.import_module(f"contract_servers.{PLANTED}"), which)
        return McpContract(server, timeout=30, version=version)
    command = f"stdio:{sys.executable} -m contract_servers.{PLANTED} {which}"
    target = stdio_target(command, SERVERS.parent, dict(os.environ), SERVERS.parent)
    return McpContract(target, timeout=30, version=version)


@pytest.fixture(scope="module", params=["in process", "stdio"])
def planted(request: pytest.FixtureRequest) -> Iterator[dict[str, McpContract]]:
    """Both planted servers, by the tool names they serve."""
    contracts = {which: _open(which, request.param) for which in ("mcp", "wire")}
    yield contracts
    for contract in contracts.values():
        contract.close()


def _contract(planted: dict[str, McpContract], tool: str) -> McpContract:
    return planted["wire" if tool in WIRE_NAMES else "mcp"]


@pytest.mark.parametrize("tool", sorted(VERDICTS))
def test_the_planted_tool_gets_the_same_verdict_under_every_sdk_major(
    planted: dict[str, McpContract], tool: str
) -> None:
    contract = _contract(planted, tool)
    expected = RELEASE_DIFFERS.get(SDK_VERSION, {}).get(tool, MAJOR_DIFFERS.get(MAJOR, {}).get(tool, VERDICTS[tool]))
    # The checks, once each: in process, the registration may add a finding of a check the wire shows too.
    assert sorted({check for check, _path in violations_of(contract, tool)}) == expected


def test_both_planted_servers_list_every_tool(planted: dict[str, McpContract]) -> None:
    assert sorted({*planted["mcp"].tools, *planted["wire"].tools}) == sorted({*VERDICTS, *ASKING})


@pytest.mark.parametrize("transport", ["in process", "stdio"])
def test_a_request_mid_call_the_client_cannot_answer_names_the_callback(transport: str) -> None:
    """Under the handshake era (mcp 1.x knows no other), a tool's ctx.elicit reaches a client without an
    elicitation callback: the SDK client refuses it, and that is the test's set-up, not the server."""
    with _open("mcp", transport, version=OFFERED[-1]) as contract, pytest.raises(ClientCapabilityError) as raised:
        contract.call_tool("confirm")
    assert str(raised.value).startswith(
        "tool 'confirm' needs the client capability elicitation, which the plugin's client does not declare"
    )


def test_an_expected_error_is_accepted_whatever_it_says(planted: dict[str, McpContract]) -> None:
    """A correct server's own error text may begin like mcp 1.x's output refusal; the test expected an error."""
    result = planted["wire"].call_tool("refused_by_server", expect_error=True)
    assert result.is_error


@pytest.fixture
def failing_endpoint() -> Iterator[str]:
    """A loopback URL that answers every request with HTTP 500."""

    class Failing(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_DELETE = do_POST

        def log_message(self, *args: object) -> None:
            pass

    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), Failing) as httpd:
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        yield f"http://127.0.0.1:{httpd.server_address[1]}/mcp"
        httpd.shutdown()


def test_an_endpoint_that_fails_the_opening_is_told_so(failing_endpoint: str) -> None:
    # mcp 1.x's transport cancels the opening it cannot serve: that must end as this error, not as
    # a CancelledError out of pytest.
    with pytest.raises(SessionError) as caught:
        McpContract(http_target(failing_endpoint, {}), timeout=10)
    assert str(caught.value).startswith(f"could not open an MCP session to the HTTP endpoint '{failing_endpoint}': ")
    assert str(caught.value).endswith(". The endpoint answered HTTP 500 Internal Server Error.")
    assert "\n" not in str(caught.value)


def test_nothing_listening_is_told_so() -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    with pytest.raises(SessionError) as caught:
        McpContract(http_target(url, {}), timeout=10)
    assert str(caught.value) == (
        f"could not open an MCP session to the HTTP endpoint '{url}': ConnectError: All connection attempts "
        f"failed. Nothing accepts connections at {url[7:-4]}: start the server, or fix the URL's host and port."
    )


CHATTY = f"""
from mcp.server{".mcpserver import MCPServer as Server" if MAJOR >= 2 else ".fastmcp import FastMCP as Server"}

mcp = Server("chatty")  # the default log level, INFO


@mcp.tool()
def crash(city: str) -> int:
    raise ValueError("no such city")
"""


def test_the_sdks_own_info_lines_print_nowhere_around_the_header_and_the_failure(pytester: pytest.Pytester) -> None:
    # mcp 1.x logs "Processing request of type ..." at INFO for each request, and its FastMCP sends INFO
    # to a stderr handler of its own: before the header (anything the plugin did at start-up), around the
    # suite's items and twice per failure.
    pytester.makepyfile(chatty=CHATTY)
    pytester.makeini("[pytest]\nmcp_contract_server = chatty.py:mcp\naddopts = -p no:cacheprovider -p no:randomly\n")
    pytester.makepyfile(test_it="def test_crash(mcp_contract):\n    mcp_contract.call_tool('crash', {'city': 'x'})\n")
    # The first run: the listing writes the tool's snapshot; the next has its schema and checks items too.
    for args, passed in ((["--snapshot-update"], 1), ([], 3)):
        result = pytester.runpytest_subprocess(*args)  # a process of its own: its logging as a user's
        result.assert_outcomes(passed=passed, failed=1)  # the suite's items, and the test
        output = result.stdout.str() + result.stderr.str()
        assert "Processing request of type" not in output
        assert "test session starts" in result.stdout.lines[0]  # nothing printed before it
        result.stdout.fnmatch_lines(
            ["E       [tool-error]", "E         the tool returned is_error=True with this text:"]
        )


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_hand_written_servers_wire_is_read_strictly_under_every_sdk_major(transport: str) -> None:
    # The tap sits on the message streams whichever major hands them to its session, and the
    # strict reading is by mcp-types, the same under both: the same findings, the same absences.
    from conftest import http_server

    defects = ("is-error-string", "read-only-string", "text-number")
    script = str(SERVERS / "strict_wire.py")
    with contextlib.ExitStack() as stack:
        if transport == "http":
            target: object = http_target(stack.enter_context(http_server(script, *defects)), {})
        else:
            target = stdio_target(
                f"stdio:{sys.executable} {script} {' '.join(defects)}", SERVERS, dict(os.environ), SERVERS
            )
        contract = stack.enter_context(contextlib.closing(McpContract(target, timeout=30)))
        wipe = contract.tools["wipe"]
        assert wipe.annotations is not None
        assert wipe.annotations.read_only_hint is None  # a string says nothing: the tool may write
        assert [(v.check, v.path, v.expected, v.found) for v in contract.session.listing_violations] == [
            ("wire-invalid", "/tools/1/annotations/readOnlyHint", "a boolean", "true")
        ]
        assert violations_of(contract, "echo") == [
            ("wire-invalid", "/content/0/text"),
            ("wire-invalid", "/isError"),
            ("text-missing", ""),
        ]
