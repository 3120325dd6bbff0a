"""One table decides a target's kind, one Protocol answers for every kind, and what a server outside
this process called itself is the run's record, never written onto its target."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import SERVERS, Project, target

from pytest_mcp_contract import McpContract
from pytest_mcp_contract._servers.kinds import as_target, server_name
from pytest_mcp_contract._servers.names import ServerNames
from pytest_mcp_contract._servers.target import GRAMMAR, load_target, target_kind

COMMAND = f"stdio:{sys.executable} {SERVERS / 'wire.py'}"

# Every form docs/targets.md documents: (target, its row, outside this process, started by each session).
FORMS = [
    pytest.param(target("wire"), "in process", False, False, id="path/to/file.py:attr"),
    pytest.param("contract_servers.wire:server", "in process", False, False, id="package.module:attr"),
    pytest.param(COMMAND, "stdio", True, True, id="stdio:COMMAND"),
    pytest.param(f"stdio:{{python}} {SERVERS / 'wire.py'}", "stdio", True, True, id="stdio:{python}"),
    pytest.param("http://127.0.0.1:8000/mcp", "http", True, False, id="http://"),
    pytest.param("HTTPS://mcp.example.test/api", "http", True, False, id="https:// in capitals"),
]
ENV_BROKEN = "mcp_contract_server_env line 1 ('not a pair') is not NAME=value."
HEADERS_BROKEN = "mcp_contract_headers line 1 ('no colon here') is not 'Name: value'"


@pytest.mark.parametrize(("spec", "kind", "external", "started"), FORMS)
def test_the_table_decides_each_forms_kind_and_the_target_answers_for_it(
    spec: str, kind: str, external: bool, started: bool
) -> None:
    assert target_kind(f"  {spec} ").name == kind
    loaded = as_target(load_target(spec, SERVERS))
    assert (loaded.external, loaded.started_here) == (external, started)


@pytest.mark.parametrize(
    ("spec", "kind", "reads", "ignores"),
    [
        pytest.param(target("wire"), "in process", None, (ENV_BROKEN, HEADERS_BROKEN), id="in process"),
        pytest.param(COMMAND, "stdio", ENV_BROKEN, (HEADERS_BROKEN,), id="stdio"),
        pytest.param("http://127.0.0.1:8000/mcp", "http", HEADERS_BROKEN, (ENV_BROKEN,), id="http"),
    ],
)
def test_settings_read_what_the_tables_row_reads_and_nothing_else(
    project: Project, spec: str, kind: str, reads: str | None, ignores: tuple[str, ...]
) -> None:
    # Both settings broken: the run stops on the one this kind of target reads, and only on that one.
    project.configure(spec, mcp_contract_server_env="not a pair", mcp_contract_headers="no colon here")
    project.tests("def test_nothing():\n    pass\n")
    result = project.run()
    text = result.stdout.str() + result.stderr.str()
    for ignored in ignores:
        assert ignored not in text
    if reads is None:
        result.assert_outcomes(passed=1)
        return
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"ERROR: {reads}" in text
    assert "INTERNALERROR" not in text


UNKNOWN = "ws://127.0.0.1:8000/mcp"
UNKNOWN_SAYS = (
    f"{UNKNOWN!r} names the scheme ws://, which is no transport of pytest-mcp-contract; write the target as "
    f"{GRAMMAR} (a streamable-HTTP endpoint is an http:// or https:// URL)."
)


def test_an_unknown_scheme_is_a_usage_error_naming_the_transports(project: Project) -> None:
    # Taken for a file path before ("the file 'ws://127.0.0.1' does not exist"): the table refuses it.
    project.configure(UNKNOWN)
    project.tests("def test_nothing():\n    pass\n")
    result = project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    text = result.stderr.str()
    assert f"cannot load the MCP server {UNKNOWN!r} (mcp_contract_server in tox.ini): {UNKNOWN_SAYS}" in text
    assert (
        "Fix the target; a server that a function builds is named by calling it, with literal arguments: "
        "package.module:create_server(ARGS…)." in text
    )
    assert "does not exist" not in text
    assert "INTERNALERROR" not in text


def test_a_marker_naming_an_unknown_scheme_says_the_same(project: Project) -> None:
    project.configure(None)
    project.tests(
        f"import pytest\n\n@pytest.mark.mcp_contract_server({UNKNOWN!r})\ndef test_it(mcp_contract):\n    pass\n"
    )
    result = project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    text = result.stderr.str()
    assert f"(@pytest.mark.mcp_contract_server on test_contract.py::test_it): {UNKNOWN_SAYS}" in text


def _session(spec_or_server: object, names: ServerNames | None) -> str:
    """Open a real session to the server, and return the name it told."""
    contract = McpContract(spec_or_server, timeout=30, names=names)
    try:
        told = contract.session.sdk.server_name
    finally:
        contract.close()
    assert told
    return told


def test_the_name_a_command_tells_is_the_runs_record_not_the_targets() -> None:
    names = ServerNames()
    command = load_target(f"stdio:{sys.executable} {SERVERS / 'unnamed.py'}", SERVERS)
    before = dict(vars(command))
    first = _session(command, names)
    assert first.startswith("build-")  # a name made up anew in every process
    assert (names.first(command), names.changes(command)) == (first, False)
    assert server_name(command, names) == first  # one session: nothing says it changes
    second = _session(command, names)
    assert second != first
    assert (names.first(command), names.changes(command)) == (first, True)
    assert server_name(command, names) == "unnamed"  # its stable key, the script's name
    assert vars(command) == before  # nothing learnt was written onto the target
    assert server_name(command, ServerNames()) == Path(sys.executable).stem  # another run's record knows nothing


def test_a_server_in_process_keeps_its_own_name_and_no_record() -> None:
    from contract_servers.wire import server

    names = ServerNames()
    assert _session(server, names) == server.name
    assert names.first(server) == ""
    assert server_name(server, names) == server.name
    assert not as_target(server).external
    assert not as_target(server).started_here
