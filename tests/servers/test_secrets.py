"""A value read from ``${VAR}`` never appears in any output: terminal, ``-l`` locals, JUnit XML, report.

The secrets ride in ``mcp_contract_server_env`` (a stdio server) and ``mcp_contract_headers`` (an
HTTP endpoint); each run fails in several ways at once (an assertion on ``mcp_contract_server``, a
broken tool, a server that dies mid-call, a wrong token), and the whole of what it wrote is searched.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from conftest import SERVERS, Project, free_port, http_server
from docs_text import assert_says, quoted_rows

LIFECYCLE = str(SERVERS / "lifecycle.py")
SECRET = "supersecret456"
TOKEN = "s3cret-token-789"

FAILING = """
def test_shows_the_server(mcp_contract_server):
    server = mcp_contract_server
    assert server is None, f"{server!r} / {server}"

def test_shows_the_session(mcp_contract):
    assert mcp_contract is None, repr(vars(mcp_contract))

def test_broken_tool(mcp_contract):
    mcp_contract.call_tool("stale_reading")
"""


def _everything(project: Project, result: pytest.RunResult) -> str:
    written = [result.stdout.str(), result.stderr.str()]
    written += [path.read_text() for path in project.pytester.path.glob("out.*")]
    return "\n".join(written)


def test_a_stdio_servers_environment_stays_secret(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("API_KEY", SECRET)
    project.configure(f"stdio:{sys.executable} {LIFECYCLE}", mcp_contract_server_env="API_KEY=${API_KEY}")
    project.tests(FAILING + '\ndef test_dies(mcp_contract):\n    mcp_contract.call_tool("die")\n')
    result = project.run("-l", "--tb=long", "-vv", "--junitxml=out.xml", "--mcp-contract-report=out.md")
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines(["*env={'API_KEY': <secret from ${API_KEY}>}*"])
    assert SECRET not in _everything(project, result)


@pytest.fixture(scope="module")
def token_server() -> Iterator[str]:
    with http_server(LIFECYCLE, "--token", TOKEN, "--fail-calls") as url:
        yield url


@pytest.mark.parametrize(
    ("token", "reachable", "said"),
    [
        (TOKEN, True, "*headers={'Authorization': <secret from ${MCP_TOKEN}>}*"),
        ("wrong-" + TOKEN, True, "*HTTP 401 Unauthorized to the headers from mcp_contract_headers (Authorization)*"),
        (TOKEN, False, "*Nothing accepts connections at 127.0.0.1:*"),
    ],
    ids=["accepted", "refused", "nothing listens"],
)
def test_http_headers_stay_secret(
    project: Project, monkeypatch: pytest.MonkeyPatch, token_server: str, *, token: str, reachable: bool, said: str
) -> None:
    monkeypatch.setenv("MCP_TOKEN", token)
    url = token_server if reachable else f"http://127.0.0.1:{free_port()}/mcp"
    project.configure(url, suite=True, mcp_contract_headers="Authorization: Bearer ${MCP_TOKEN}")
    project.tests(FAILING + '\ndef test_http_500(mcp_contract):\n    mcp_contract.call_tool("http_500")\n')
    result = project.run("-l", "--tb=long", "-vv", "--junitxml=out.xml", "--mcp-contract-report=out.md")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([said])
    if token == TOKEN and reachable:  # a 500 in the middle of a call, with its status
        result.stdout.fnmatch_lines(["*Server returned an error response. The endpoint answered HTTP 500 Internal*"])
        assert_says(result.stdout.str(), quoted_rows("when-it-goes-wrong")["it answers a call with HTTP 500"])
    assert TOKEN not in _everything(project, result)
