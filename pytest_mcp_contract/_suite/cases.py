"""Example calls for the generated suite: from each tool's input schema, and from a cases file.

A case is a tool, its arguments and what the call should do: succeed and pass every check (the
default), return a tool error (optionally matching a regex), or show given violations. The
generated ``<ini file>::call[<tool>-<id>]`` items (``pyproject.toml::call[get_weather-oslo]``) make
these calls. Nothing here imports the SDK.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

import pytest

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._contract.expect import Expectation, expectation

CASE_KEYS: Final = ("tool", "id", "arguments", "error", "violations", "validate_arguments")


@dataclass(frozen=True)
class Case:
    tool: str
    id: str
    arguments: dict[str, Any]
    expectations: list[Expectation] = field(default_factory=list)
    source: str = ""
    """Where the case comes from, for messages: the cases file and entry, or the input schema."""
    from_file: bool = False
    validate_arguments: bool = True
    """``validate_arguments = false``: send arguments the input schema refuses (a test of bad input)."""
    file: Path | None = None
    """The cases file it is written in (none for a schema's example), for a CI annotation at the case."""
    line: int | None = None
    """Its ``[[case]]`` header's line in a TOML cases file, its object's in JSON (none in an inline array)."""

    def hint(self) -> str:
        """What to do when the call breaks its contract: fix the tool, or say so where the case is."""
        if self.from_file:
            return (
                f"This call is {self.source}: fix the tool, or say what the call should do there "
                "(error = true or a pattern, violations = [...])."
            )
        return f"This call is {self.source}: fix the tool, or the example."

    def arguments_hint(self) -> str:
        """What to do when the input schema refuses the case's arguments."""
        if self.from_file:
            return f"This call is {self.source}: fix its arguments there, or set validate_arguments = false in it."
        return f"This call is {self.source}: fix the example, which the tool's own input_schema refuses."


def schema_cases(tool: str, input_schema: Mapping[str, Any] | None) -> list[Case]:
    """Cases from JSON Schema ``examples``: whole argument objects at the root, or per property.

    Per property (what pydantic writes from ``Field(examples=[...])``), the i-th case takes each
    property's i-th example (its last one when it has fewer); it is made only if every required
    argument has examples.
    """
    schema = input_schema or {}
    source = f"the input schema of {tool!r}"
    root = schema.get("examples")
    if isinstance(root, list) and root and all(isinstance(example, dict) for example in root):
        return _named(tool, [dict(example) for example in root], source)
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return []
    examples = {
        name: values
        for name, spec in properties.items()
        if isinstance(spec, dict) and isinstance(values := spec.get("examples"), list) and values
    }
    required = schema.get("required")
    required_names: list[Any] = required if isinstance(required, list) else []
    if not examples or any(name not in examples for name in required_names):
        return []
    count = max(len(values) for values in examples.values())
    calls = [{name: values[min(index, len(values) - 1)] for name, values in examples.items()} for index in range(count)]
    return _named(tool, calls, source)


def _named(tool: str, calls: list[dict[str, Any]], source: str) -> list[Case]:
    return [
        Case(tool, case_id, arguments, source=f"example {index} in {source}")
        for index, (case_id, arguments) in enumerate(zip(_ids(calls), calls, strict=True), 1)
    ]


def _ids(calls: list[dict[str, Any]]) -> list[str]:
    return [_default_id(arguments, str(index)) for index, arguments in enumerate(calls, 1)]


def _default_id(arguments: Mapping[str, Any], fallback: str) -> str:
    """A readable id for a call: its first text argument (``london``), else ``fallback``."""
    text = next((value for value in arguments.values() if isinstance(value, str) and _slug(value)), None)
    return _slug(text) if text is not None else fallback


def _slug(text: str) -> str:
    """Letters and digits of any script kept (``são-paulo``, ``東京``), the rest one dash."""
    return re.sub(r"[\W_]+", "-", text.lower()).strip("-")[:40]


def unique(cases: list[Case]) -> list[Case]:
    """Case ids made unique per tool (``london``, ``london-2``), so every item has its own node id.

    A suffix never takes an id another case already has (an explicit ``id = "london-2"`` keeps it).
    """
    given = {(case.tool, case.id) for case in cases}
    used: set[tuple[str, str]] = set()
    out = []
    for case in cases:
        case_id, number = case.id, 1
        while (case.tool, case_id) in used or (case_id != case.id and (case.tool, case_id) in given):
            number += 1
            case_id = f"{case.id}-{number}"
        used.add((case.tool, case_id))
        out.append(case if case_id == case.id else replace(case, id=case_id))
    return out


# --- the cases file -----------------------------------------------------------------------------------


def load_cases(path: Path, shown: str) -> list[Case]:
    """The cases of a TOML or JSON file; anything wrong is a usage error naming the file and entry.

    Whether the server lists each case's tool is its call item's to say, at run time: collection starts no server.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise pytest.UsageError(f"mcp_contract_cases = {shown!r} cannot be read: {error.strerror}.") from None
    try:
        data = tomllib.loads(text) if path.suffix != ".json" else json.loads(text)
    except (tomllib.TOMLDecodeError, ValueError) as error:
        kind = "JSON" if path.suffix == ".json" else "TOML"
        raise pytest.UsageError(f"mcp_contract_cases file {shown} is not valid {kind}: {error}.") from None
    entries = data.get("case") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        raise pytest.UsageError(
            f"mcp_contract_cases file {shown} holds no list of cases: write each as a [[case]] table "
            '(TOML) or an object in a "case" list (JSON), with tool and arguments.'
        )
    cases = [_case(entry, index, f"{shown}, case {index}") for index, entry in enumerate(entries, 1)]
    # Neither tomllib nor json tells positions: the lines found are trusted only when each case has one.
    lines = _header_lines(text) if path.suffix != ".json" else _object_lines(text, 2 if data is entries else 3)
    if len(lines) != len(cases):
        lines = [None] * len(cases)
    return [replace(case, file=path, line=line) for case, line in zip(cases, lines, strict=True)]


_HEADER: Final = re.compile(r"^[ \t]*\[\[[ \t]*case[ \t]*\]\]", re.MULTILINE)


def _header_lines(text: str) -> list[int | None]:
    """The line number of each ``[[case]]`` header, in the file's order (a header inside a multi-line
    string would be counted too: then the count differs from the cases', and no line is given)."""
    return [text.count("\n", 0, found.start()) + 1 for found in _HEADER.finditer(text)]


def _object_lines(text: str, depth: int) -> list[int | None]:
    """The line each JSON object at ``depth`` opens on (2: the cases of a list, 3: those of ``{"case": [...]}``;
    an object of another top-level key counts too, and then no line is given)."""
    lines: list[int | None] = []
    level, line, in_string, escaped = 0, 1, False, False
    for char in text:
        if char == "\n":
            line += 1
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "[{":
            level += 1
            if char == "{" and level == depth:
                lines.append(line)
        elif char in "]}":
            level -= 1
    return lines


def _case(entry: object, index: int, where: str) -> Case:
    def fail(problem: str) -> pytest.UsageError:
        return pytest.UsageError(f"mcp_contract_cases {where}: {problem}.")

    if not isinstance(entry, dict):
        raise fail("is not a table of tool, arguments and an optional expectation")
    unknown = sorted(set(entry) - set(CASE_KEYS))
    if unknown:
        close = messages.meant(unknown[0], CASE_KEYS)
        meant = f" (did you mean {close!r}?)" if close else ""
        raise fail(f"unknown key {', '.join(map(repr, unknown))}{meant}; a case has {', '.join(CASE_KEYS)}")
    tool = entry.get("tool")
    if not isinstance(tool, str) or not tool:
        raise fail('names no tool (tool = "...")')
    arguments = entry.get("arguments", {})
    if not isinstance(arguments, dict):
        raise fail(f"arguments must be a table of argument names and values, got {arguments!r}")
    case_id = entry.get("id")
    if case_id is not None and (not isinstance(case_id, str) or not _slug(case_id)):
        raise fail(f"id must be a short name with letters or digits, got {case_id!r}")
    expectations = []
    error = entry.get("error")
    if error is not None:
        if not isinstance(error, bool | str):
            raise fail(f"error must be true or a regular expression the error text matches, got {error!r}")
        if isinstance(error, str):
            try:
                re.compile(error)
            except re.error as problem:
                raise fail(f"error = {error!r} is not a valid regular expression: {problem}") from None
        if error is not False:
            expectations.append(_expect("mcp_expect_error", fail, tool=tool, match=None if error is True else error))
    violations = entry.get("violations")
    if violations is not None:
        if violations == []:
            raise fail("violations is empty; list the check ids the call is expected to break, or drop the key")
        expectations.append(_expect("mcp_expect_violation", fail, check=violations, tool=tool))
    validate = entry.get("validate_arguments", True)
    if not isinstance(validate, bool):
        raise fail(f"validate_arguments must be true or false, got {validate!r}")
    for expected in expectations:
        expected.origin = where
    case_id = _slug(case_id) if case_id else _default_id(arguments, f"case-{index}")
    return Case(tool, case_id, dict(arguments), expectations, source=where, from_file=True, validate_arguments=validate)


def _expect(marker: str, fail: Any, **values: Any) -> Expectation:
    try:
        return expectation(marker, values)
    except ValueError as problem:
        raise fail(str(problem)) from None
