"""Failure messages: tool, arguments, check id, JSON pointer, cause and next step; no plugin frames."""

from __future__ import annotations

import json

import pytest
from conftest import Project, target

from pytest_mcp_contract import CHECKS, ContractViolationError, Violation
from pytest_mcp_contract._json.value import writable
from pytest_mcp_contract._messages import meant


def test_a_failure_shows_only_the_users_frame(project: Project) -> None:
    project.configure(target("wire"))
    project.tests(
        """
        def test_weather(mcp_contract):
            forecast = mcp_contract.call_tool("bad_type", {"city": "London", "days": 3})
        """
    )
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "    def test_weather(mcp_contract):",
            '>       forecast = mcp_contract.call_tool("bad_type", {"city": "London", "days": 3})',
            # (newer pytest marks the failing call with a line of ^ here; pytest 8.0 does not)
            "E       pytest_mcp_contract.ContractViolationError: tool 'bad_type' called with "
            '{"city": "London", "days": 3} broke its contract (1 violation):',
            "E       [structured-invalid] at /n",
            "E         'x' is not of type 'integer' (schema keyword 'type' at /properties/n/type)",
            "E       Next step:",
            "E       - structured-invalid: *",
            "",
            "test_contract.py:2: ContractViolationError",
        ]
    )
    # No frame of the plugin, the SDK or asyncio stands between the test and the message.
    result.stdout.no_fnmatch_line("*pytest_mcp_contract/_*.py:*")
    result.stdout.no_fnmatch_line("*site-packages/mcp/*")


def test_the_error_carries_every_violation() -> None:
    violations = [
        Violation("structured-invalid", "get_weather", "'high' is not of type 'integer'", "/humidity"),
        Violation(
            "content-mismatch",
            "get_weather",
            "text block 0 (JSON) has 21.5 at /t where structured_content has 22.0",
            "/t",
        ),
        Violation("structured-invalid", "get_weather", "'x' is a required property", ""),
    ]
    error = ContractViolationError(violations, tool="get_weather", arguments={"city": "London"})
    assert isinstance(error, AssertionError)
    assert error.violations == violations
    assert error.tool == "get_weather"
    assert str(error).splitlines() == [
        'tool \'get_weather\' called with {"city": "London"} broke its contract (3 violations):',
        "[structured-invalid] at /humidity",
        "  'high' is not of type 'integer'",
        "[content-mismatch] at /t",
        "  text block 0 (JSON) has 21.5 at /t where structured_content has 22.0",
        "[structured-invalid] at (root)",
        "  'x' is a required property",
        "Next step:",
        f"- structured-invalid: {CHECKS['structured-invalid']}",
        f"- content-mismatch: {CHECKS['content-mismatch']}",
    ]


def test_long_arguments_are_trimmed() -> None:
    error = ContractViolationError(
        [Violation("tool-error", "search", "boom")], tool="search", arguments={"query": "x" * 500}
    )
    first = str(error).splitlines()[0]
    assert first.startswith('tool \'search\' called with {"query": "xxxx')
    assert first.endswith("…} broke its contract (1 violation):") or "…" in first
    assert len(first) < 200


def test_a_violation_reads_on_one_line() -> None:
    assert str(Violation("content-mismatch", "nums", 'text block 1 says "5"', "/result/1")) == (
        '[content-mismatch] nums at /result/1: text block 1 says "5"'
    )
    assert str(Violation("tool-error", "nums", "boom")) == "[tool-error] nums: boom"


def test_every_check_has_a_next_step() -> None:
    assert sorted(CHECKS) == [
        "answer-unreadable",
        "breaking-change",
        "content-mismatch",
        "content-prose",
        "hint-violated",
        "input-crash",
        "input-schema-invalid",
        "output-schema-invalid",
        "silent-opt-out",
        "stdout-noise",
        "structured-invalid",
        "structured-missing",
        "text-missing",
        "tool-error",
        "tool-name-invalid",
        "wire-invalid",
    ]
    assert all(step.endswith((")", ".")) for step in CHECKS.values())


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("lone \udfff and \ud800", "lone \\udfff and \\ud800"),
        (
            "nul \x00, bell \x07, escape \x1b, del \x7f, c1 \x85",
            "nul \\u0000, bell \\u0007, escape \\u001b, del \\u007f, c1 \\u0085",
        ),
        ("a lone return \r here", "a lone return \\u000d here"),
        ("kept: tab\tline\nwindows\r\nemoji 🙂 é ß 中", "kept: tab\tline\nwindows\r\nemoji 🙂 é ß 中"),
        ("noncharacters \ufffe \uffff", "noncharacters \\ufffe \\uffff"),
    ],
)
def test_what_no_writer_takes_raw_is_shown_as_its_json_escape(text: str, shown: str) -> None:
    assert writable(text) == shown
    writable(text).encode("utf-8")  # strict: any file or stream in UTF-8 takes it
    document = json.dumps({"text": text}, ensure_ascii=False)
    assert json.loads(writable(document)) == {"text": text}  # JSON stays JSON that reads back the same


def test_an_error_message_quoting_a_server_is_escaped() -> None:
    error = ContractViolationError([Violation("content-mismatch", "t", 'text says "\udfff\x00"')], tool="t")
    assert '[content-mismatch]\n  text says "\\udfff\\u0000"' in str(error)
    str(error).encode("utf-8")


def test_did_you_mean_matches_spelling_then_shared_words() -> None:
    assert meant("get_wether", ["get_weather", "air_quality"]) == "get_weather"  # spelling first
    assert meant("time_convert", ["calculate", "convert_time"]) == "convert_time"  # the same words
    assert meant("expr", ["expression", "precision"]) == "expression"  # a word that begins another
    assert meant("cityName", ["country", "city_name_long"]) == "city_name_long"  # camelCase words
    # A shared verb says little: the tool sharing the noun wins; two sharing as much are no guess.
    assert meant("get_time_now", ["convert_time", "get_weather"]) == "convert_time"
    assert meant("time", ["source_time", "target_time"]) is None
    assert meant("weather", ["calculate", "convert_time"]) is None
