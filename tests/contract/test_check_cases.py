"""The table of check cases: each broken tool, and exactly the violations (check id, JSON pointer) it raises.

Cases come from two real servers: an MCPServer (what the SDK lets through or hides) and a
low-level server (what only a hand-built result can get wrong).
"""

from __future__ import annotations

import sys

import pytest
from conftest import violations_of

from pytest_mcp_contract import McpContract

SDK_CASES = [
    ("class_without_annotations", [("silent-opt-out", None), ("silent-opt-out", None)]),
    ("returns_datetime", [("silent-opt-out", None)]),
    ("returns_decimal", [("silent-opt-out", None)]),
    ("returns_bare_dict", [("silent-opt-out", None)]),
    ("returns_any", [("silent-opt-out", None)]),
    ("returns_namedtuple", [("silent-opt-out", None)]),
    ("plain_class_without_str", [("content-mismatch", None)]),
    ("drops_required_field", [("tool-error", None)]),
    ("crashes", [("tool-error", None)]),
    ("refuses", [("tool-error", None)]),
    ("not_a_number", [("structured-invalid", "/result"), ("content-mismatch", "/result")]),
    ("invalid_schema", [("output-schema-invalid", "/properties/level/exclusiveMinimum")]),
    ("own_result_invalid", [("tool-error", None)]),
    ("own_result_stale_json", [("content-mismatch", "/x")]),
    ("nested_stdlib_typeddict", [("silent-opt-out", None)] if sys.version_info < (3, 12) else []),
]

WIRE_CASES = [
    ("missing", [("structured-missing", None)]),
    ("bad_type", [("structured-invalid", "/n")]),
    ("mismatch", [("content-mismatch", "/n")]),
    ("mismatch_bool", [("content-mismatch", "/n")]),
    ("mismatch_count", [("content-mismatch", "/result")]),
    ("no_text", [("text-missing", "")]),
    ("empty_text", [("text-missing", "")]),
    ("schema_not_object", []),  # an array root is fine at 2026-07-28 (the first version); see test_versions.py
    ("schema_remote_ref", [("output-schema-invalid", "/properties/n/$ref")]),
    ("schema_bad_type", [("output-schema-invalid", "/properties/n/type")]),
    ("schema_dangling_ref", [("output-schema-invalid", "/properties/n/$ref")]),
    ("schemaless_repr", [("silent-opt-out", None)]),
    ("schema_pattern_backtracks", [("output-schema-invalid", "/properties/s/pattern")]),
    ("errored", [("tool-error", None)]),
    ("protocol_error", [("input-crash", None)]),  # arguments the input schema allows got no result
]


@pytest.mark.parametrize(("tool", "expected"), SDK_CASES, ids=[case[0] for case in SDK_CASES])
def test_sdk_server_case(broken: McpContract, tool: str, expected: list[tuple[str, str | None]]) -> None:
    assert violations_of(broken, tool, {"city": "Atlantis"} if tool == "refuses" else None) == expected


@pytest.mark.parametrize(("tool", "expected"), WIRE_CASES, ids=[case[0] for case in WIRE_CASES])
def test_wire_case(wire: McpContract, tool: str, expected: list[tuple[str, str | None]]) -> None:
    assert violations_of(wire, tool) == expected


@pytest.mark.parametrize(("tool", "expected"), WIRE_CASES, ids=[case[0] for case in WIRE_CASES])
def test_wire_case_over_stdio_gets_the_same_verdict(
    wire_over_stdio: McpContract, tool: str, expected: list[tuple[str, str | None]]
) -> None:
    assert violations_of(wire_over_stdio, tool) == expected


def test_every_broken_sdk_tool_is_in_the_table(broken: McpContract) -> None:
    assert sorted(broken.tools) == sorted(tool for tool, _ in SDK_CASES)
