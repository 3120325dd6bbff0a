"""The command-line options (``--mcp-contract-*``), ini keys (``mcp_contract_*``) and markers, with their help."""

from __future__ import annotations

import pytest

from pytest_mcp_contract._client import DEFAULT_TIMEOUT
from pytest_mcp_contract._contract.expect import ALLOW_FORM, MARKERS
from pytest_mcp_contract._contract.versions import OFFERED
from pytest_mcp_contract._run.settings import (
    DEFAULT_FUZZ_DEADLINE,
    DEFAULT_SEQUENCE_LENGTH,
    DEFAULT_SNAPSHOT_DIR,
    SCOPES,
)
from pytest_mcp_contract._suite.items import MARKER


def add_markers(config: pytest.Config) -> None:
    """Register the markers, for ``pytest --markers`` and ``--strict-markers``."""
    config.addinivalue_line(
        "markers", f"{MARKER}: an item of the generated MCP contract suite (deselect with -m 'not {MARKER}')"
    )
    for text in MARKERS.values():
        config.addinivalue_line("markers", text)
    config.addinivalue_line(
        "markers",
        "mcp_contract_server(target): this test, class or module uses another MCP server, named as for "
        "--mcp-contract-server ('package.module:attr' or 'path/to/file.py:attr' relative to the ini file, "
        "'stdio:COMMAND ARGS...' or 'http://HOST:PORT/PATH').",
    )
    config.addinivalue_line(
        "markers",
        f"mcp_contract_protocol_version(version): this test, class or module calls the server offering this MCP "
        f"protocol version ({' or '.join(OFFERED)}) instead of the first of ini mcp_contract_protocol_versions.",
    )


def marked_version(nodeid: str, marker: pytest.Mark) -> str:
    """The version a ``mcp_contract_protocol_version`` marker names; anything else stops the run."""
    if len(marker.args) != 1 or marker.kwargs or marker.args[0] not in OFFERED:
        raise pytest.UsageError(
            f"{nodeid}: @pytest.mark.mcp_contract_protocol_version takes one of {', '.join(map(repr, OFFERED))}, "
            f"e.g. @pytest.mark.mcp_contract_protocol_version({OFFERED[-1]!r})"
        )
    version: str = marker.args[0]
    return version


def add_options(parser: pytest.Parser) -> None:
    """Register every option and ini key (https://docs.pytest.org/en/stable/reference/reference.html#pytest.hookspec.pytest_addoption)."""
    group = parser.getgroup("mcp-contract", "MCP contract testing (pytest-mcp-contract)")
    group.addoption(
        "--mcp-contract-server",
        dest="mcp_contract_server",
        metavar="TARGET",
        default=None,
        help="MCP server to check: 'package.module:attr' or 'path/to/file.py:attr' (relative to the current "
        "directory), naming an MCPServer, a low-level Server, a FastMCP server, or a zero-argument callable "
        "returning one; 'package.module:create_server(ARGS...)' to call a factory with literal arguments "
        "(awaited if async; an async context manager it returns is entered for the run); or "
        "'stdio:COMMAND ARGS...' to start a server and speak MCP over its stdin/stdout; or an "
        "'http://HOST:PORT/PATH' (or https) streamable-HTTP endpoint. Overrides ini mcp_contract_server.",
    )
    parser.addini(
        "mcp_contract_server",
        "MCP server to check, as for --mcp-contract-server (a relative file path is relative to the ini file).",
        type="string",
        default="",
    )
    parser.addini(
        "mcp_contract_scope",
        f"How long one MCP session lives: {', '.join(SCOPES)} (default: session).",
        type="string",
        default="session",
    )
    parser.addini(
        "mcp_contract_timeout",
        f"Seconds a tool call may take before the test fails (default: {DEFAULT_TIMEOUT:g}).",
        type="string",
        default=str(DEFAULT_TIMEOUT),
    )
    parser.addini(
        "mcp_contract_tool_names",
        "Which tool names pass the tool-name-invalid check: spec (SEP-986: 1 to 128 characters of A-Z a-z 0-9 "
        "_ - ., the default) or clients (also no dot and at most 64 characters, as the model APIs behind "
        "clients take).",
        type="string",
        default="spec",
    )
    parser.addini(
        "mcp_contract_require_json_text",
        "Fail a call whose structured_content (an object, a list of records, a single value) content tells in "
        "prose only, with no text block holding its JSON (the spec recommends one); by default the summary only "
        "names such tools.",
        type="bool",
        default=False,
    )
    parser.addini(
        "mcp_contract_protocol_versions",
        "The MCP protocol versions the client offers, in order (default: 2026-07-28 2025-11-25, one per era). "
        "The generated suite lists, checks and calls every tool under each; a test's own calls use the first, "
        "or the version its mcp_contract_protocol_version marker names.",
        type="linelist",
        default=[],
    )
    parser.addini(
        "mcp_contract_freeze_heap",
        "Once the server is loaded, freeze the heap the run's start built (gc.freeze()), so no garbage "
        "collection walks it again (default: true). Set false for tests that look for those objects with "
        "gc.get_objects() or gc.get_referrers().",
        type="bool",
        default=True,
    )
    parser.addini(
        "mcp_contract_check_formats",
        "Assert JSON Schema 'format' keywords in output schemas instead of treating them as annotations.",
        type="bool",
        default=False,
    )
    group.addoption(
        "--mcp-contract-report",
        dest="mcp_contract_report",
        metavar="PATH",
        default=None,
        help="Write a Markdown report of the contract run (schema changes, tool checks, calls) to PATH. "
        "Under GitHub Actions it also goes to the job summary ($GITHUB_STEP_SUMMARY), without this option.",
    )
    group.addoption(
        "--mcp-contract-coverage",
        dest="mcp_contract_coverage",
        action="store_true",
        default=None,
        help="After the summary, print which promises of each tool's output schema the run's answers kept "
        "(each enum value, optional key present and absent, anyOf/oneOf branch ...): a percent per tool and the "
        "promises never seen, by JSON pointer. Overrides ini mcp_contract_coverage.",
    )
    group.addoption(
        "--mcp-contract-coverage-fail-under",
        dest="mcp_contract_coverage_fail_under",
        metavar="PERCENT",
        default=None,
        help="Fail the run when the contract coverage of all tools is below PERCENT (0-100). Overrides ini "
        "mcp_contract_coverage_fail_under.",
    )
    group.addoption(
        "--mcp-contract-coverage-json",
        dest="mcp_contract_coverage_json",
        metavar="PATH",
        default=None,
        help="Write the contract coverage as JSON to PATH (every promise of every tool, seen or not, and the "
        "arguments of a call that kept it), for tools that track it over time.",
    )
    group.addoption(
        "--mcp-contract-suggest-schemas",
        dest="mcp_contract_suggest_schemas",
        action="store_true",
        default=False,
        help="After the summary, print for each tool that publishes no output schema naming a key the shape "
        "its answers had, as an output schema to publish and, for a Python server, the return annotation "
        "that publishes it: a starting point.",
    )
    parser.addini(
        "mcp_contract_coverage",
        "Print the contract coverage after the summary, as --mcp-contract-coverage does.",
        type="bool",
        default=False,
    )
    parser.addini(
        "mcp_contract_coverage_fail_under",
        "Fail the run when the contract coverage is below this percent, as for --mcp-contract-coverage-fail-under.",
        type="string",
        default="",
    )
    group.addoption(
        "--mcp-contract-fuzz",
        dest="mcp_contract_fuzz",
        metavar="N",
        default=None,
        help="Fuzz each tool that says readOnlyHint: true (others may write: see mcp_contract_fuzz_allow): N calls "
        "with arguments generated from its input schema, shrunk to the smallest that breaks its contract (needs "
        "the fuzz extra). Overrides ini mcp_contract_fuzz.",
    )
    group.addoption(
        "--mcp-contract-fuzz-seed",
        dest="mcp_contract_fuzz_seed",
        metavar="SEED",
        type=int,
        default=None,
        help="Seed for the generated arguments, so a CI run is repeatable.",
    )
    parser.addini("mcp_contract_fuzz", "Generated calls per tool, as for --mcp-contract-fuzz (default: 0, no fuzzing).")
    parser.addini(
        "mcp_contract_fuzz_deadline",
        f"Seconds of fuzzing per tool (default: {DEFAULT_FUZZ_DEADLINE:g}).",
        type="string",
        default=str(DEFAULT_FUZZ_DEADLINE),
    )
    parser.addini(
        "mcp_contract_fuzz_writes",
        "Fuzz every tool, also those that do not say readOnlyHint: true (default: false, only those that do). "
        "The fuzzer then calls tools that may write, delete or send with random arguments: set it only for a "
        "throwaway server and data.",
        type="bool",
        default=False,
    )
    parser.addini(
        "mcp_contract_fuzz_allow",
        "Tools fuzzed although they do not say readOnlyHint: true (they may write), by name.",
        type="linelist",
        default=[],
    )
    group.addoption(
        "--mcp-contract-sequences",
        dest="mcp_contract_sequences",
        metavar="N",
        default=None,
        help="Run N generated chains of calls on each server, each call judged, values flowing from answers to "
        "later arguments, checking what readOnlyHint and idempotentHint promise; seeded by "
        "--mcp-contract-fuzz-seed (needs the fuzz extra). Only tools fuzzing may call, unless ini "
        "mcp_contract_sandbox gives each sequence a fresh server. Overrides ini mcp_contract_sequences.",
    )
    parser.addini(
        "mcp_contract_sequences", "Generated sequences per server, as for --mcp-contract-sequences (default: 0, none)."
    )
    parser.addini(
        "mcp_contract_sequence_length",
        "Steps a generated sequence takes at most: a call each (two for a tool that says idempotentHint), beside "
        f"the reads that check a promise (default: {DEFAULT_SEQUENCE_LENGTH}).",
        type="string",
        default=str(DEFAULT_SEQUENCE_LENGTH),
    )
    parser.addini(
        "mcp_contract_sandbox",
        "Run each sequence on a fresh server (a new process, or a new call of the target's factory) with private "
        "HOME, TMPDIR and XDG folders, removed after; there a sequence may call every tool but those "
        "mcp_contract_sandbox_deny names (default: false).",
        type="bool",
        default=False,
    )
    parser.addini(
        "mcp_contract_sandbox_deny",
        "Tools a sequence never calls, in the sandbox or not (they reach outside it: mail, payments), by name.",
        type="linelist",
        default=[],
    )
    parser.addini(
        "mcp_contract_volatile",
        "Keys (or JSON pointers into an answer) whose values change on their own, such as a timestamp: left out "
        "when a sequence compares what the read-only tools answer.",
        type="linelist",
        default=[],
    )
    parser.addini(
        "mcp_contract_server_env",
        "Environment for a server started as a command (stdio:...), one NAME=value per line; ${VAR} is taken "
        "from pytest's environment.",
        type="linelist",
        default=[],
    )
    parser.addini(
        "mcp_contract_server_cwd",
        "Working directory for a server started as a command (stdio:...), relative to the ini file.",
        type="string",
        default="",
    )
    parser.addini(
        "mcp_contract_headers",
        "HTTP headers for a server behind a URL (http://...), one 'Name: value' per line; ${VAR} is taken "
        "from pytest's environment, so a token never sits in the repository.",
        type="linelist",
        default=[],
    )
    parser.addini(
        "mcp_contract_startup_timeout",
        f"Seconds opening a session may take: a server's start (for a command), the MCP handshake and the "
        f"tool listing (default: {DEFAULT_TIMEOUT:g}).",
        type="string",
        default=str(DEFAULT_TIMEOUT),
    )
    parser.addini(
        "mcp_contract_suite",
        "Generate the per-tool contract suite (schema snapshot and tool checks for every tool).",
        type="bool",
        default=True,
    )
    parser.addini(
        "mcp_contract_snapshot_dir",
        "Folder (of its own) for the tool snapshot files, relative to the ini file "
        f"(default: {DEFAULT_SNAPSHOT_DIR}; each server gets a subfolder named after it).",
        type="string",
        default="",
    )
    parser.addini(
        "mcp_contract_allow",
        f"Known violations carried on purpose, one per line: '{ALLOW_FORM}'.",
        type="linelist",
        default=[],
    )
    parser.addini(
        "mcp_contract_cases",
        "A TOML or JSON file of example calls for the generated suite ([[case]] tool, arguments, and "
        "optionally id, error, violations), relative to the ini file.",
        type="string",
        default="",
    )
    group.addoption(
        "--mcp-contract-against",
        dest="mcp_contract_against",
        metavar="REF",
        default=None,
        help="Compare every tool (its output schema, and the other fields mcp_contract_snapshot_fields "
        "snapshots) with the snapshot files committed at the git revision REF (main, origin/main, a tag, a "
        "commit), read from git without a checkout: a change that breaks a client written against REF fails "
        "its against[TOOL] item as breaking-change (a tool no longer listed too); additive and cosmetic ones "
        "are listed in the summary. Acknowledge an intended break with 'TOOL:breaking-change  # reason' in "
        "mcp_contract_allow. Overrides ini mcp_contract_against.",
    )
    parser.addini(
        "mcp_contract_against",
        "A git revision to compare every tool with, as for --mcp-contract-against (default: none).",
        type="string",
        default="",
    )
    parser.addini(
        "mcp_contract_snapshot_fields",
        "Tool fields snapshotted beside output_schema: input_schema, title, description, annotations, meta.",
        type="linelist",
        default=[],
    )
