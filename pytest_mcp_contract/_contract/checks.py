"""The one judge: the checks, as pure functions over a listed ``Tool`` and what a call ended in.

Every :class:`Violation` of the plugin is made here. :func:`verdict` judges one call for every
caller (a test's call, a case, the fuzzer, a result got elsewhere), over every transport: the same
answer gets the same violations. No pytest needed.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._contract.agreement import refused_values
from pytest_mcp_contract._contract.answer import (
    Answer,
    ErrorAnswer,
    Malformed,
    NoAnswer,
    Outcome,
    RoundsWithoutEnd,
    Unreadable,
)
from pytest_mcp_contract._contract.hints import Hint, Observation, changed, volatile
from pytest_mcp_contract._contract.mirror import TooDeep, default_repr, mirror, written
from pytest_mcp_contract._contract.schema import InstanceError, compile_schema, instance_errors, pattern_place
from pytest_mcp_contract._contract.versions import OffModel, adapts_schema_to_version, has_object_rules
from pytest_mcp_contract._contract.violations import (
    ERROR_MISSING,
    ERROR_UNEXPLAINED,
    ERROR_WITH_TEXT,
    ERROR_WITHOUT_TEXT,
    UNMET_EXPECT_ERROR,
    CheckId,
    Subject,
    Violation,
    noted_checks,
)
from pytest_mcp_contract._contract.wire import ABSENT, NameFault, Reading
from pytest_mcp_contract._errors import McpContractWarning, public
from pytest_mcp_contract._json.patterns import PATTERN_SECONDS, PatternTooSlow, PatternUnreadable
from pytest_mcp_contract._json.value import MISSING, non_finite, pointer, render, show_pointer
from pytest_mcp_contract._sdk.wire import wire_result, wire_tool
from pytest_mcp_contract._servers.causes import take_cause
from pytest_mcp_contract._servers.inprocess import registration

if TYPE_CHECKING:
    from mcp_types import CallToolResult, Tool

SDK_REFUSED: Final = "Handler returned an invalid result"
"""What the SDK's server answers instead of a result its wire model for the session's version rejects."""


@dataclass(frozen=True)
class Call:
    """Everything known about one ``tools/call``: what was asked, what it ended in, and under what."""

    tool: Tool
    """The tool as the session lists it (a stand-in of its name if it lists none)."""
    arguments: Mapping[str, Any] | None
    outcome: Outcome
    version: str | None
    """The protocol version the session negotiated (``None``: not known, every era's rules apply)."""
    server: str = "the server"
    """How messages name the server (``server_label``)."""
    expect_error: bool | None = False
    """``True``: the caller wants a tool error; ``None``: a result or a tool error are both answers
    (the fuzzer's generated arguments may be ones the tool cannot serve)."""
    check_formats: bool = False
    noise: str | None = None
    """What the transport read that is no MCP message since the last call (told once per session)."""


def verdict(call: Call) -> list[Violation]:
    """Every violation of one call, noted checks (``content-prose``) included: callers sort them.

    What only the process knows (a crash's cause, the SDK refusing the tool's return value) adds a
    finding or a better message; it never takes one away.
    """
    name = call.tool.name
    found = stdout_noise(name, call.noise)
    outcome = call.outcome
    if isinstance(outcome, Answer):
        wire = wire_violations(outcome.wire, call.server, name) if outcome.wire is not None else []
        return found + wire + _answered(call, outcome)
    if isinstance(outcome, Malformed):
        return found + wire_violations(outcome.reading, call.server, name)
    if isinstance(outcome, OffModel):
        check: CheckId = "structured-invalid" if outcome.field.startswith("structuredContent") else "answer-unreadable"
        message = messages.off_model(call.server, name, outcome.version, outcome.why)
        return [*found, Violation(check, name, message, versions=(outcome.version,), rule="version-model")]
    if isinstance(outcome, Unreadable):
        message = messages.unreadable_answer(call.server, name, outcome.why)
        return [*found, Violation("answer-unreadable", name, message, rule="unreadable-line")]
    if isinstance(outcome, RoundsWithoutEnd):  # the server's defect, whatever the caller expected
        return [*found, Violation("tool-error", name, outcome.why, rule="rounds-without-end")]
    if isinstance(outcome, NoAnswer):
        no_answer = messages.no_answer(outcome.why, gone=outcome.gone)
        return [*found, Violation("input-crash", name, no_answer, rule="gone" if outcome.gone else "no-answer")]
    return found + _error_answer(call, outcome)


def wire_violations(reading: Reading, server: str, tool: str = "") -> list[Violation]:
    """A ``wire-invalid`` for each place a message as it came breaks its version's wire model (``server``:
    how messages name it). A call's are about ``tool``; a listing's about the tool whose entry holds the
    place, or, for an entry left out or a place outside every entry, about the listing."""
    found = []
    for fault in reading.faults:
        entry = reading.entry_dropped(fault)
        left_out = None
        if entry is not None:
            left_out = f"content block {entry[-1]}" if fault.method == "tools/call" else _entry_named(fault.tool, entry)
        annotation = fault.method == "tools/list" and "annotations" in fault.path
        method = fault.method if fault.page is None else f"{fault.method} (page {fault.page})"
        message = messages.wire_fault(
            server,
            method,
            fault.version,
            show_pointer(fault.pointer),
            wants=fault.wants,
            found=None if fault.found is ABSENT else render(fault.found),
            tool=fault.tool,
            read_as=messages.wire_read_as(
                fault.method, left_out, annotation=annotation, lost=reading.kept is None and entry is None
            ),
        )
        subject: Subject = "tool"
        about = tool
        if fault.method in ("initialize", "server/discover"):
            subject = "server"
        elif fault.method == "tools/list":
            about = fault.tool or ""
            subject = "tool" if fault.tool and entry is None else "listing"
        came = None if fault.found is ABSENT else fault.found
        found.append(
            Violation(
                "wire-invalid",
                about,
                message,
                fault.pointer,
                subject=subject,
                rule=fault.wants,
                expected=fault.wants,
                found=came,
            )
        )
    return found


def _entry_named(tool: str | None, entry: tuple[str | int, ...]) -> str:
    where = pointer(entry)
    return f"the tool {tool!r} ({where})" if tool else f"the entry at {where}"


def name_violations(faults: Sequence[NameFault]) -> list[Violation]:
    """A ``tool-name-invalid`` for each tool name a client may refuse, or that the listing gives twice."""
    return [
        Violation(
            "tool-name-invalid",
            fault.name,
            messages.tool_name_fault(fault.name, fault.why, twice=fault.kind == "twice", page=fault.page),
            pointer(fault.path),
            subject="listing",
            rule=fault.kind,
            expected="1 to 128 of A-Z a-z 0-9 _ - ., unique" if fault.kind != "twice" else "a name listed once",
            found=fault.name,
        )
        for fault in faults
    ]


def cursor_violation(server: str, cursor: str, page: int, first: int) -> Violation:
    """The ``wire-invalid`` of a listing whose ``nextCursor`` on ``page`` is one page ``first`` gave."""
    message = messages.cursor_loops(server, render(cursor), page, first)
    return Violation("wire-invalid", "", message, "/nextCursor", subject="listing", rule="cursor-loops")


def stdout_noise(tool: str, noise: str | None) -> list[Violation]:
    """The ``stdout-noise`` violation for what a transport read that is no MCP message, if it read any."""
    return [Violation("stdout-noise", tool, noise, rule="stdout-line")] if noise is not None else []


def _answered(call: Call, answer: Answer) -> list[Violation]:
    tool, result = call.tool, answer.result
    if not result.is_error or call.expect_error is False:
        return result_violations(
            tool,
            result,
            expect_error=bool(call.expect_error),
            cause=answer.cause,
            check_formats=call.check_formats,
            version=call.version,
        )
    if call.expect_error is None and answer.refused_return:  # in process: the tool broke its schema
        said = messages.refused_return(answer.cause)
        return [Violation("structured-invalid", tool.name, said, rule="refused-return")]
    if call.expect_error is None:  # a tool error answers arguments it cannot serve, unless it hides a refusal
        refused = output_refused(tool, result)
        return [refused] if refused is not None else []
    return []  # the error the caller asked for, whatever its words


def _error_answer(call: Call, error: ErrorAnswer) -> list[Violation]:
    """A JSON-RPC error where a result was due: a version's rule when it says one, ``input-crash`` for
    arguments the input schema allows, else ``tool-error`` (nothing, when an error is an answer too).
    A caller that wants an error gets it as it is."""
    name = call.tool.name
    if call.expect_error:
        return []
    message = messages.error_instead_of_result(error.explained, error.meanwhile)
    if "no back-channel" in error.message and call.version is not None:
        # A request sent mid-call (ctx.elicit, ctx.session.create_message) has no way back at 2026-07-28.
        held = (call.version,)
        no_way = messages.no_back_channel(message, call.version)
        return [Violation("tool-error", name, no_way, versions=held, rule="no-back-channel")]
    if error.message == SDK_REFUSED and call.version is not None:
        # The SDK's server would not send what the tool built, under the version of this session.
        refused = messages.refused_for_version(message, call.version)
        return [Violation("tool-error", name, refused, versions=(call.version,), rule="refused-for-version")]
    if _allowed(call.tool, call.arguments):
        return [Violation("input-crash", name, message, rule="json-rpc-error")]
    if call.expect_error is None:  # the protocol's own answer to arguments the schema refuses
        return []
    return [Violation("tool-error", name, message, rule="json-rpc-error")]


def _allowed(tool: Tool, arguments: Mapping[str, Any] | None) -> bool:
    """Whether the input schema accepts the arguments (a schema that cannot be read refuses none)."""
    return not argument_errors(tool.input_schema, arguments)


def argument_errors(schema: object, arguments: Mapping[str, Any] | None) -> list[InstanceError]:
    """Why ``schema`` (a tool's ``input_schema``) refuses ``arguments``; nothing where it cannot tell.

    Formats are not checked (a server may read them its own way); a schema that cannot be compiled,
    or a pattern that cannot be read the ECMA-262 way or takes over its time budget, refuses nothing:
    their defects are the server's, never the caller's.
    """
    if not isinstance(schema, dict):
        return []
    compiled = compile_schema(schema)
    if any(not problem.pattern for problem in compiled.problems):
        return []
    try:
        return instance_errors(compiled, dict(arguments or {}))
    except (RecursionError, PatternTooSlow, PatternUnreadable):
        return []


@public
def check_tool(tool: Tool, *, server: object | None = None, version: str | None = None) -> list[Violation]:
    """The tool-level checks, from the listing: ``output-schema-invalid``, ``silent-opt-out`` and
    ``input-schema-invalid``.

    Pass the in-process server object as ``server`` to also read how the tool was registered,
    which is what tells a silently lost schema from a deliberate opt-out. ``version`` is the
    protocol version the tool was listed under: the object root a 2025-11-25 client needs is
    asked of the handshake era only (and of every tool when it is not given).
    """
    tool = wire_tool(tool)
    name = tool.name
    violations = _output_schema(tool, server, version)
    # A default, const, enum or examples value the input schema itself refuses (``city: str = None``).
    violations += [
        Violation("input-schema-invalid", name, refused.message, refused.path, rule="refused-value")
        for refused in refused_values(tool.input_schema)
    ]
    return violations


def _output_schema(tool: Tool, server: object | None, version: str | None) -> list[Violation]:
    name = tool.name
    schema = tool.output_schema
    if schema is not None:
        problems = compile_schema(schema).problems
        if not has_object_rules(version) or adapts_schema_to_version(tool):
            problems = tuple(problem for problem in problems if not problem.wire)
        held = (version,) if version is not None else ()
        return [
            Violation("output-schema-invalid", name, p.message, p.path, versions=held if p.wire else (), rule=p.rule)
            for p in problems
        ] + [
            Violation("output-schema-invalid", name, refused.message, refused.path, rule="refused-value")
            for refused in refused_values(schema)
        ]
    facts = registration(server, name) if server is not None else None
    if facts is not None and facts.opt_out == "silent":
        return [
            Violation(
                "silent-opt-out",
                name,
                f"the function is annotated -> {facts.annotation}, yet the tool publishes no output_schema: "
                "the SDK could not describe that type and silently fell back to unstructured text, so "
                "clients get no structured_content",
                rule="annotated",
            )
        ]
    return []


@public
def check_result(
    tool: Tool,
    result: CallToolResult,
    *,
    expect_error: bool = False,
    server: object | None = None,
    check_formats: bool = False,
    require_json_text: bool = False,
    version: str | None = None,
) -> list[Violation]:
    """The result checks for one ``tools/call`` result of ``tool``.

    ``expect_error`` says the call was meant to fail; ``server`` (the in-process server object)
    adds the server-side cause of the tool's last crash; ``check_formats`` asserts ``format``
    keywords instead of treating them as annotations; ``require_json_text`` makes data told in
    prose only (``content-prose``: an object, a list of records, a single value) a violation;
    ``version``, the protocol version of the call, adds the rules of its era (up to 2025-11-25,
    ``structured_content`` is an object).
    """
    tool, result = wire_tool(tool), wire_result(result)
    found = result_violations(
        tool,
        result,
        expect_error=expect_error,
        cause=take_cause(server, tool.name) if server is not None and result.is_error else None,
        check_formats=check_formats,
        version=version,
    )
    noted = noted_checks(require_json_text)
    return [violation for violation in found if violation.check not in noted]


def result_violations(
    tool: Tool,
    result: CallToolResult,
    *,
    expect_error: bool,
    cause: str | None,
    check_formats: bool,
    version: str | None = None,
) -> list[Violation]:
    """:func:`check_result` with the cause already looked up (sessions know it), noted checks kept."""
    name = tool.name
    if result.is_error:
        if expect_error:  # whatever its words: a server's own error text may read like anything
            return []
        # An error the test did not expect, named for what it is when the server refused its own result.
        return [output_refused(tool, result) or _tool_error(name, result, cause)]
    violations: list[Violation] = []
    if expect_error:
        violations.append(Violation("tool-error", name, UNMET_EXPECT_ERROR, rule=ERROR_MISSING))
    schema = tool.output_schema
    structured = result.structured_content
    try:
        if schema is None:
            violations += _unstructured_repr(name, result)
        elif structured is None:
            violations.append(
                Violation(
                    "structured-missing",
                    name,
                    "the tool declares an output_schema, but this successful result has no structured_content",
                    rule="absent",
                )
            )
        else:
            compiled = compile_schema(schema, check_formats=check_formats)
            try:
                errors = instance_errors(compiled, structured)
            except PatternTooSlow as slow:
                violations.append(_too_slow(name, schema, slow))
                errors = []
            violations += [
                Violation("structured-invalid", name, error.message, error.path, rule="schema") for error in errors
            ]
        said = any(violation.check == "structured-invalid" and violation.path == "" for violation in violations)
        if structured is not None and version is not None and has_object_rules(version) and not said:
            violations += _not_an_object(name, structured, version)
        if structured is not None:
            text = written(structured)  # for both: the Rust writer is quicker than any walk
            violations += _not_json(name, structured, text)
            violations += _content_mismatch(name, result, schema, text)
    except (RecursionError, TooDeep):
        warnings.warn(
            McpContractWarning(
                f"the result of tool {name!r} is nested too deeply for Python to check, "
                "so its structured_content and content were not fully checked"
            ),
            stacklevel=2,
        )
    return violations


def _not_an_object(name: str, structured: Any, version: str) -> list[Violation]:
    if isinstance(structured, dict):
        return []
    return [
        Violation(
            "structured-invalid",
            name,
            f"structured_content is {render(structured)}, not an object: MCP {version} requires an object there "
            "(from 2026-07-28 any JSON value may be sent), so a client on that version cannot read this result",
            "",
            versions=(version,),
            rule="object-rule",
        )
    ]


OUTPUT_REFUSED: Final = "Output validation error: "
"""How mcp 1.x's low-level ``Server`` answers a result that breaks the tool's own ``outputSchema``:
an error result instead of the result, on the wire as in process."""
_NO_STRUCTURED: Final = "outputSchema defined but no structured output returned"


def output_refused(tool: Tool, result: CallToolResult) -> Violation | None:
    """The violation behind an error result that is the server refusing its own result against the
    tool's schema (mcp 1.x's low-level ``Server``); ``None`` for any other result."""
    texts = [block.text for block in result.content if block.type == "text"]
    if tool.output_schema is None or len(texts) != 1 or not texts[0].startswith(OUTPUT_REFUSED):
        return None
    said = texts[0].removeprefix(OUTPUT_REFUSED)
    refused = f"the server refused its own result and answered is_error=True instead ({texts[0]!r})"
    if said == _NO_STRUCTURED:
        message = f"the tool declares an output_schema, but its result had no structured_content: {refused}"
        return Violation("structured-missing", tool.name, message, rule="refused-own-result")
    message = f"the tool's structured_content does not match its output_schema: {refused}"
    return Violation("structured-invalid", tool.name, message, rule="refused-own-result")


def _too_slow(name: str, schema: dict[str, Any], slow: PatternTooSlow) -> Violation:
    return Violation(
        "output-schema-invalid",
        name,
        f"the pattern {slow.pattern!r} took over {PATTERN_SECONDS:g} s on a string of {slow.length} characters, so "
        "structured_content was not checked against the schema: a pattern with nested or overlapping repeats "
        "backtracks without end on some input. Rewrite it so that each character can match one way only "
        "(^a+$ for ^(a|aa)+$)",
        pattern_place(schema, slow.pattern),
        rule="pattern-too-slow",
    )


def _tool_error(name: str, result: CallToolResult, cause: str | None) -> Violation:
    texts = "\n".join(block.text for block in result.content if block.type == "text").strip()
    if len(texts) > 600:
        texts = texts[:599] + "…"
    message = ERROR_WITH_TEXT + texts.replace("\n", "\n  ") if texts else ERROR_WITHOUT_TEXT
    if cause:
        message += f"\nserver-side cause: {cause}"
    # Over stdio or HTTP an SDK 2.x server sends only "Error executing tool X": its log holds the cause.
    unexplained = not cause and (not texts or re.fullmatch(r"Error executing tool \S+", texts) is not None)
    rule = ERROR_UNEXPLAINED if unexplained else "error"
    return Violation("tool-error", name, message, rule=rule, expected="a result", found=texts or None, cause=cause)


def _unstructured_repr(name: str, result: CallToolResult) -> list[Violation]:
    found = default_repr(result.content)
    if found is None:
        return []
    index, text, class_name = found
    return [
        Violation(
            "silent-opt-out",
            name,
            f"the tool publishes no output_schema and text block {index} is {text.strip(chr(34))}, the default "
            f"repr of a Python object ({class_name}): the SDK could not serialize it, so the model reads a memory "
            "address instead of data",
            rule="default-repr",
        )
    ]


def _content_mismatch(
    name: str, result: CallToolResult, schema: dict[str, Any] | None, text: str | None
) -> list[Violation]:
    # One rule for every transport (``_contract.mirror``): how the tool was registered never excuses the wire.
    verdict = mirror(result.structured_content, result.content, schema=schema, text=text)
    if verdict.mismatch is not None:
        return [Violation("content-mismatch", name, verdict.mismatch.message, verdict.mismatch.path, rule="mirror")]
    if verdict.prose is not None:
        return [Violation("content-prose", name, verdict.prose, rule="prose")]
    if verdict.missing is not None:
        return [Violation("text-missing", name, verdict.missing, "", rule="text-missing")]
    return []


def _not_json(name: str, structured: Any, text: str | None) -> list[Violation]:
    """NaN and Infinity in structured_content: Python's parser reads them, JSON has no such values.
    ``text``: its JSON as ``mirror.written`` writes it (Rust speed), walked only when it names one of them
    or when there is none (nested deeper than the writer goes: the walk has no depth limit)."""
    if text is not None and "NaN" not in text and "Infinity" not in text:
        return []
    found = non_finite(structured)
    if found is None:
        return []  # refused for another reason (an integer too long for str()): not this check's business
    place, number = found
    return [
        Violation(
            "structured-invalid",
            name,
            f"structured_content has {render(number)} at {show_pointer(place)}, which is not JSON (JSON has no "
            "NaN or Infinity): a NaN or Infinity literal makes a strict client (JavaScript's JSON.parse, for one) "
            "reject the whole answer, and a number beyond a 64-bit float is Infinity to every client",
            place,
            rule="not-json",
        )
    ]


_SNAPSHOT_KEYS: Final = {
    "output": "output_schema",
    "input": "input_schema",
    "observed output": "observed_output_schema",
}


def breaking_changes(tool: str, changes: Sequence[tuple[str, str, str]], base: str) -> list[Violation]:
    """A ``breaking-change`` for each change (part, place, what) that breaks a client written against
    the ``base`` revision: ``part`` is what ``schemadiff`` calls it (``output``, ``input``, ``annotations``,
    another snapshotted field), or ``tool`` for a tool no longer listed. The place is a JSON pointer
    into the tool's snapshot file, so it names the line a reviewer reads in the diff."""
    return [
        Violation(
            "breaking-change",
            tool,
            messages.breaking_change(what, part, base),
            None if part == "tool" else f"/{_SNAPSHOT_KEYS.get(part, part)}{place}",
            rule=part,
        )
        for part, place, what in changes
    ]


def hint_kept(
    tool: str,
    hint: Hint,
    arguments: dict[str, Any],
    observer: tuple[str, dict[str, Any]],
    reads: tuple[Observation, Observation, Observation],
    *,
    volatile_names: Collection[str] = (),
) -> list[Violation]:
    """Whether a call of ``tool`` kept ``hint``, as three answers of the read-only call ``observer`` show:
    two with nothing in between (what differs there changes on its own), then one after the call (for
    ``idempotentHint``: the two after its first call, then one after its second). A ``hint-violated``
    at the first place that changed, else nothing."""
    baseline, before, after = reads
    found = changed(before, after, ignored=volatile(baseline, before), names=volatile_names)
    if not found:
        return []
    place, was, now = found[0]
    shown = place.removeprefix("/value") if place.startswith("/value") else place
    message = messages.hint_violated(
        tool,
        hint,
        arguments,
        observer,
        place=shown,
        was=was,
        now=now,
        more=len(found) - 1,
        error_changed=place == "/error",
    )
    return [
        Violation(
            "hint-violated",
            tool,
            message,
            path=None if place == "/error" else shown,
            subject="sequence",
            rule=hint,
            expected=None if was is MISSING else was,
            found=None if now is MISSING else now,
        )
    ]
