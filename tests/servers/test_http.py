"""Servers behind a streamable-HTTP endpoint (http://...): real servers on loopback ports, clear failures."""

from __future__ import annotations

import http.server
import shlex
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import HANG, SERVERS, STALE, STALE_FAILURE, Project, free_port, http_server, listing_error, setup_error
from docs_text import assert_says, quoted, quoted_rows

LIFECYCLE = str(SERVERS / "lifecycle.py")


def test_the_example_server_over_http_matches_its_in_process_snapshots(
    pytester: pytest.Pytester, example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The commands targets.md gives, on a free port instead of 8000.
    cd, start, run = (shlex.split(line) for line in quoted("http-commands").splitlines())
    assert cd == ["cd", "example_project"]
    assert start[:2] == ["PYTHONPATH=src", "python"]
    assert start[-3:] == ["--port", "8000", "&"]
    assert run[0] == "pytest"
    monkeypatch.chdir(example)
    with http_server(*start[2:-3], env={"PYTHONPATH": str(example / "src")}) as url:
        args = [arg.replace("127.0.0.1:8000", url.removeprefix("http://").removesuffix("/mcp")) for arg in run[1:]]
        result = pytester.runpytest("-p", "no:cacheprovider", *args)
    # Collection cannot tell which of the two snapshot folders (weather, weather-v1) is this URL's (no cache):
    # the listing compares every tool with its file and runs its checks; then the cases file's 7 calls.
    result.assert_outcomes(passed=8)  # every snapshot matched the committed files, every check and call passed
    result.stdout.fnmatch_lines(
        [
            f"mcp-contract: server {url} (--mcp-contract-server), scope=session, timeout=30s",
            "get_weather        matched  passed      6           0         0        0",
            "schema snapshots: 7 matched",
            "tool checks: 7 passed, 0 failed",
        ]
    )


def test_nothing_listening_says_to_start_the_server(plain: Project) -> None:
    port = free_port()
    plain.configure(f"http://127.0.0.1:{port}/mcp", suite=True)
    text = listing_error(plain)
    assert text == (
        f"could not open an MCP session to the HTTP endpoint "
        f"'http://127.0.0.1:{port}/mcp': ConnectError: All connection attempts failed. Nothing accepts "
        f"connections at 127.0.0.1:{port}: start the server, or fix the URL's host and port."
    )
    assert_says(text, quoted_rows("when-it-goes-wrong")["nothing listens at the URL"])


def test_a_wrong_path_is_a_404_with_the_path_named(plain: Project) -> None:
    with http_server(LIFECYCLE, path="/api") as url:
        plain.configure(url, suite=True)
        text = listing_error(plain)
        assert text.endswith(
            "The endpoint answered HTTP 404 Not Found: no MCP endpoint at the path '/api'. "
            "Check the URL's path (an MCPServer serves /mcp by default)."
        )
        assert_says(text, quoted_rows("when-it-goes-wrong")["HTTP 404"])


@pytest.fixture(scope="module")
def token_server() -> Iterator[str]:
    with http_server(LIFECYCLE, "--token", "s3cret") as url:
        yield url


def test_a_401_says_how_to_send_credentials(plain: Project, token_server: str) -> None:
    plain.configure(token_server, suite=True)
    text = listing_error(plain)
    assert text.endswith(
        "The endpoint answered HTTP 401 Unauthorized: give credentials with ini mcp_contract_headers, "
        "e.g. Authorization: Bearer ${MCP_TOKEN}"
    )
    assert_says(text, quoted_rows("when-it-goes-wrong")["HTTP 401 or 403"])


def test_headers_take_the_token_from_the_environment(
    plain: Project, token_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LIFECYCLE_TOKEN", "s3cret")
    plain.configure(token_server, suite=True, mcp_contract_headers="Authorization: Bearer ${LIFECYCLE_TOKEN}")
    created = plain.run("-m", "mcp_contract", "--snapshot-update")
    created.assert_outcomes(passed=1, deselected=1)  # the listing, which wrote the eight tools' snapshots
    created.stdout.fnmatch_lines(["schema snapshots: 8 created", "tool checks: 8 passed, 0 failed"])
    result = plain.run("-m", "mcp_contract")
    result.assert_outcomes(passed=17, deselected=1)  # the listing, and schema and checks items of the eight tools
    result.stdout.fnmatch_lines(["schema snapshots: 8 matched", "tool checks: 8 passed, 0 failed"])
    monkeypatch.setenv("LIFECYCLE_TOKEN", "wrong")
    refused = plain.run("-m", "mcp_contract")
    refused.assert_outcomes(errors=17, deselected=1)
    assert setup_error(refused, "listing").endswith(
        "The endpoint answered HTTP 401 Unauthorized to the headers from mcp_contract_headers (Authorization): "
        "check the credentials they carry."
    )


def test_headers_naming_an_unset_variable_stop_pytest(plain: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_SUCH_TOKEN", raising=False)
    plain.configure("http://127.0.0.1:9/mcp", mcp_contract_headers="Authorization: Bearer ${NO_SUCH_TOKEN}")
    result = plain.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: mcp_contract_headers line 1 ('Authorization: Bearer ${NO_SUCH_TOKEN}') uses ${NO_SUCH_TOKEN}, "
            "which is not set in the environment. Set NO_SUCH_TOKEN before running pytest."
        ]
    )


def test_a_header_line_without_a_colon_stops_pytest(plain: Project) -> None:
    plain.configure("http://127.0.0.1:9/mcp", mcp_contract_headers="Authorization Bearer x")
    result = plain.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: mcp_contract_headers line 1 ('Authorization Bearer x') is not 'Name: value'; "
            "e.g. Authorization: Bearer ${MCP_TOKEN}"
        ]
    )


def test_a_url_without_a_host_stops_pytest(plain: Project) -> None:
    plain.configure("http:///mcp")
    result = plain.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: pytest-mcp-contract cannot load the MCP server 'http:///mcp' (mcp_contract_server in tox.ini): "
            "'http:///mcp' names no host; write it as http://HOST:PORT/PATH, e.g. http://127.0.0.1:8000/mcp"
        ]
    )


class _WebPage(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = b"<html><body>Welcome</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST

    def log_message(self, *_args: object) -> None:
        pass


def test_a_web_page_is_not_an_mcp_endpoint(plain: Project) -> None:
    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _WebPage)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    try:
        plain.configure(f"http://127.0.0.1:{site.server_port}/", suite=True)
        text = listing_error(plain)
        assert text.endswith(
            "JSON-RPC error -32600: Unexpected content type: text/html. The URL does not answer as an MCP "
            "endpoint: check that it is the server's MCP URL, not a web page."
        )
        assert_says(text, quoted_rows("when-it-goes-wrong")["the URL is a web page"])
    finally:
        site.shutdown()
        site.server_close()


def test_a_server_that_dies_mid_call_fails_that_test_and_the_next_connects_again(project: Project) -> None:
    project.tests(
        """
        def test_crash(mcp_contract):
            mcp_contract.call_tool("die")

        def test_after(mcp_contract):
            mcp_contract.call_tool("ok")
        """
    )
    with http_server(LIFECYCLE) as url:
        project.configure(url)
        result = project.run("-p", "no:randomly")
    # An endpoint the plugin did not start is not started again: the next test's new session finds nothing there.
    result.assert_outcomes(failed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*_ ERROR at setup of test_after _*",
            f"could not open an MCP session to the HTTP endpoint '{url}': ConnectError: *. Nothing accepts "
            "connections at 127.0.0.1:*: start the server, or fix the URL's host and port.",
            f"E       pytest_mcp_contract.SessionError: the connection to the HTTP endpoint '{url}' broke during tool "
            "'die': RemoteProtocolError: Server disconnected without sending a response. The server may have "
            "crashed or restarted. Later calls in this test fail the same way; the next test that needs the server "
            "opens a new session to it (at most 3 times a run). Fix the crash, then rerun.",
            f"server restarts: 1 (the HTTP endpoint '{url}': the connection broke during tool 'die')",
        ]
    )


def test_the_async_fixture_names_the_tool_when_the_server_dies_mid_call(project: Project) -> None:
    project.tests(
        """
        import pytest

        pytestmark = pytest.mark.anyio

        @pytest.fixture
        def anyio_backend():
            return "asyncio"

        async def test_crash(mcp_contract_async):
            assert (await mcp_contract_async.call_tool("ok")).structured_content == {"result": 1}
            await mcp_contract_async.call_tool("die")
        """
    )
    with http_server(LIFECYCLE) as url:
        project.configure(url)
        result = project.run()
    result.assert_outcomes(failed=1)  # no teardown error, no cancellation leaking into the test
    result.stdout.fnmatch_lines(
        [
            f"E       pytest_mcp_contract.SessionError: the HTTP endpoint '{url}' closed the connection during "
            "tools/call 'die': the tool crashed or killed the server. Later calls on this session fail the same "
            "way; fix the crash, then rerun.",
        ]
    )


def test_a_planted_defect_is_caught_over_http(project: Project) -> None:
    project.tests(STALE)
    with http_server(LIFECYCLE) as url:
        project.configure(url)
        result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(STALE_FAILURE)


HELD = str(SERVERS / "held.py")
_NOISE = ("Traceback", "aclose()", "cancel scope", "Task exception", "Warning", "Exception ignored")
_HELD_TESTS = {
    "listing": ("def test_nothing():\n    pass\n", True),
    "sync fixture": ("def test_call(mcp_contract):\n    mcp_contract.call_tool('anything')\n", False),
    "async fixture": (
        "import pytest\n\n@pytest.fixture\ndef anyio_backend():\n    return 'asyncio'\n\n"
        "@pytest.mark.anyio\nasync def test_call(mcp_contract_async):\n"
        "    await mcp_contract_async.call_tool('anything')\n",
        False,
    ),
}


@pytest.mark.parametrize("opener", list(_HELD_TESTS))
def test_a_handshake_that_times_out_ends_with_its_error_and_nothing_else(project: Project, opener: str) -> None:
    # Each answer is held 3 s and the opening may take 5: the first answer comes, the next does not,
    # so the opening is cancelled with a session begun and a request in flight (see held.py).
    source, suite = _HELD_TESTS[opener]
    project.tests(source)
    with http_server(HELD) as url:
        project.configure(url, suite=suite, mcp_contract_startup_timeout="5", mcp_contract_timeout="2")
        # A process of its own, so that all it prints is seen, even at exit; the timeout bounds the run.
        result = project.pytester.runpytest_subprocess("-p", "no:randomly", timeout=HANG)
    error = (
        f"opening a session to the HTTP endpoint '{url}' took over 5 s: the server did not finish the MCP "
        "handshake (initialize, then tools/list). If it only starts slowly, raise ini mcp_contract_startup_timeout."
    )
    lines = result.outlines + result.errlines
    assert error in lines
    assert [line for line in lines if any(noise in line for noise in _NOISE)] == []
    assert result.ret == pytest.ExitCode.TESTS_FAILED
