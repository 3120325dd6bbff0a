"""Every failure message the plugin words, in one place: what happened, where, and the next step.

The functions take plain values (names, causes already explained), so every layer words its
failures here and a reviewer reads them side by side. Three kinds of text live elsewhere, beside
what they are about: what a check's violation says of its cause (``_contract``), the next step for
each check (``CHECKS``, with the check ids in ``_contract/violations``), and the usage errors of a
wrong configuration, raised where it is read (``_run/settings``, ``_servers/target``,
``_suite/cases``, ``_contract/expect``); the callbacks hook's are here, since the client words them.
"""

from __future__ import annotations

import difflib
import json
import re
import reprlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, Protocol

from pytest_mcp_contract._json.value import render, render_apart, show_pointer

# --- a broken contract ---------------------------------------------------------------------------


class Finding(Protocol):
    """What a message shows of a violation (``_contract.violations.Violation``)."""

    @property
    def check(self) -> str: ...
    @property
    def tool(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def path(self) -> str | None: ...
    @property
    def versions(self) -> tuple[str, ...]: ...


def violation_line(violation: Finding) -> str:
    """One violation on one line: ``[check] tool at place: message``."""
    label = check_label(violation.check, violation.versions)
    return f"[{label}] {violation.tool}{_at(violation.path)}: {violation.message}"


def broken_contract(
    found: Sequence[Finding],
    next_step: Callable[[Any], str],  # a violation's next step (``violations.next_step``)
    *,
    tool: str,
    arguments: Mapping[str, Any] | None = None,
    called: bool = True,
) -> str:
    """A ``ContractViolationError``'s text: the call (if any), each violation with its place, then
    the next step for each check that fired."""
    count = len(found)
    noun = "violation" if count == 1 else "violations"
    if called:
        lines = [f"tool {tool!r} called with {call_arguments(arguments)} broke its contract ({count} {noun}):"]
    else:
        lines = [f"tool {tool!r} breaks its contract as listed ({count} {noun}):"]
    return "\n".join(lines + _violations_and_steps(found, next_step))


def _violations_and_steps(found: Sequence[Finding], next_step: Callable[[Any], str]) -> list[str]:
    lines = []
    for violation in found:
        lines.append(f"[{check_label(violation.check, violation.versions)}]{_at(violation.path)}")
        lines.extend(f"  {line}" for line in violation.message.splitlines())
    lines.append("Next step:")
    lines += [f"- {check}: {step}" for check, step in dict.fromkeys((v.check, next_step(v)) for v in found)]
    return lines


def check_label(check: str, versions: tuple[str, ...]) -> str:
    return f"{check}{_for(versions)}"


def _for(versions: tuple[str, ...]) -> str:
    """`` @ 2025-11-25`` after a check id: the versions a violation holds for, when not every one."""
    return f" @ {', '.join(versions)}" if versions else ""


def _at(path: str | None) -> str:
    return f" at {show_pointer(path)}" if path is not None else ""


def call_arguments(arguments: Mapping[str, Any] | None) -> str:
    """A call's arguments as messages show them: compact JSON, shortened; ``no arguments`` for none."""
    if not arguments:
        return "no arguments"
    try:
        text = json.dumps(arguments, ensure_ascii=False, default=repr)
    except (ValueError, RecursionError):
        text = render(dict(arguments), 120)
    return text if len(text) <= 120 else render(dict(arguments), 120)


# --- the run's header ------------------------------------------------------------------------------


def header_server(target: str, source: str, scope: str, timeout: float) -> str:
    """Which server the run checks, where that was set, and how its sessions go."""
    return f"mcp-contract: server {target} ({source}), scope={scope}, timeout={timeout:g}s"


def header_versions(versions: Sequence[str]) -> str:
    return f"mcp-contract: protocol versions offered: {', '.join(versions)} (a test's own calls: the first)"


def header_against(base: str, commit: str) -> str:
    return f"mcp-contract: tools compared with the snapshots committed at {base}, commit {commit}"


def header_fuzz_seed(calls: int, seed: int | None, *, chosen: bool) -> str:
    how = "chosen for this run" if chosen else "given"
    return (
        f"mcp-contract: fuzzing {calls} calls per tool, seed {seed} ({how}; "
        f"--mcp-contract-fuzz-seed {seed} searches the same way again)"
    )


def header_sequences(count: int, length: int, seed: int | None, *, sandbox: bool, seed_shown: bool) -> str:
    where = (
        "each on a fresh server in a sandbox (mcp_contract_sandbox; a target the plugin can make anew)"
        if sandbox
        else "on the server as it is, calling only the tools fuzzing may call (the rest: mcp_contract_sandbox = true)"
    )
    seeded = "" if seed_shown or seed is None else f", seed {seed} (--mcp-contract-fuzz-seed {seed} repeats them)"
    return f"mcp-contract: {count} sequences of up to {length} calls per server, {where}{seeded}"


SUITE_NOT_COLLECTED: Final = (
    "mcp-contract: contract suite not collected, as this run names test paths "
    "(run pytest without paths, or pytest -m mcp_contract, to include it)"
)


# --- the fixtures ----------------------------------------------------------------------------------

NO_SERVER: Final = (
    "no MCP server is configured for pytest-mcp-contract. Set it in one line, e.g. in pyproject.toml:\n"
    "    [tool.pytest.ini_options]\n"
    '    mcp_contract_server = "your_package.server:mcp"\n'
    "or pass --mcp-contract-server TARGET, or override the mcp_contract_server fixture in conftest.py."
)


def lifespan_exit_failed(factory: str, error: str) -> str:
    """A lifespan a factory target entered raised on leaving, at the end of the run."""
    return (
        f"pytest-mcp-contract: leaving the lifespan of {factory} at the end of the run raised {error}\n"
        "The tests ran; fix the server's clean-up (the code after its yield)."
    )


def header_fixture_server(where: Sequence[str]) -> str:
    """The header's line when no target is configured and a conftest's fixture gives the server."""
    return (
        f"mcp-contract: server from the mcp_contract_server fixture in {', '.join(where)} "
        "(the contract suite's items get it there too, when they run)"
    )


def article(noun: str) -> str:
    """``a str``, ``an App``."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def not_a_server(kind: str, held: Sequence[str] = ()) -> str:
    """What the fixture returned is no server; ``held``: its attributes that are one."""
    if held:
        return (
            f"the mcp_contract_server fixture returned {article(kind)}, which holds the server as "
            f"{' and '.join(repr(name) for name in held)}: return its .{held[0]} instead"
        )
    return (
        f"the mcp_contract_server fixture returned {article(kind)}; it must return an MCPServer, a low-level "
        "mcp.server.Server or a FastMCP server object (a server started as a command or behind a URL is set "
        "with ini mcp_contract_server or the mcp_contract_server marker)"
    )


# --- calls -----------------------------------------------------------------------------------------


def meant(name: str, names: Iterable[str]) -> str | None:
    """The name ``name`` most likely meant, for a did-you-mean: a close spelling (``get_wether``), else
    the one sharing the most of its words, a word also matching one it begins (``expr``, ``expression``):
    ``get_time`` → ``convert_time``. None when nothing is close, or two names share as much."""
    candidates = sorted(set(names) - {name})
    close = difflib.get_close_matches(name, candidates, n=1)
    if close:
        return close[0]
    words = _words(name)
    scores: dict[str, int] = {}
    for candidate in candidates:
        score = sum(max((_shared(word, other) for other in _words(candidate)), default=0) for word in words)
        if score:
            scores[candidate] = score
    if not scores:
        return None
    best = max(scores.values())
    top = [candidate for candidate, score in scores.items() if score == best]
    return top[0] if len(top) == 1 else None


# Verbs nearly every tool name starts with: sharing one says little about which tool was meant.
_COMMON_WORDS: Final = frozenset({"get", "set", "list", "create", "update", "delete", "fetch", "read", "write", "do"})


def _words(name: str) -> list[str]:
    """A name's words: split at ``_``, ``-``, ``.``, ``/``, spaces and camelCase, lowercased."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return [word.lower() for word in re.split(r"[\s_\-./]+", spaced) if word]


def _shared(word: str, other: str) -> int:
    """How much two words share: the same word, or one the start of the other (3 letters at least),
    counted by its length; a common verb counts 1."""
    if word == other or (min(len(word), len(other)) >= 3 and (other.startswith(word) or word.startswith(other))):
        return 1 if min(word, other, key=len) in _COMMON_WORDS else min(len(word), len(other))
    return 0


def unknown_tool(name: str, names: Sequence[str], close: str | None) -> str:
    hint = f" Did you mean {close!r}?" if close else ""
    listing = ", ".join(names) if names else "(the server lists no tools)"
    return f"the server has no tool named {name!r}.{hint} Available tools: {listing}"


def arguments_invalid(tool: str, arguments: Mapping[str, Any] | None, problems: Sequence[tuple[str, str]]) -> str:
    """``problems``: (pointer, why) per place the arguments break the tool's ``input_schema``."""
    count = len(problems)
    lines = [
        f"tool {tool!r} was not called: its input_schema refuses "
        f"{f'the arguments {call_arguments(arguments)}' if arguments else 'a call with no arguments'} "
        f"({count} {'problem' if count == 1 else 'problems'}):"
    ]
    lines += [f"- at {show_pointer(path)}: {why}" for path, why in problems]
    lines.append(
        "Next step: fix the arguments in the test (or the case), or pass validate_arguments=False to send "
        "them as they are, when the test is of how the server handles bad input."
    )
    return "\n".join(lines)


def tool_timed_out(name: str, timeout: float, meanwhile: str) -> str:
    """``meanwhile`` tells of a flood of output during the call, if there was one: then that, not
    slowness, is the likely cause."""
    if meanwhile:
        advice = " Find why the tool floods its output; logs belong on stderr, in moderation."
    else:
        advice = (
            " If the tool is just slow, raise the limit with call_tool(..., timeout=...) or the ini "
            "option mcp_contract_timeout; otherwise find where it blocks."
        )
    return (
        f"tool {name!r} did not answer within {timeout:g} s, so the call was abandoned and the session "
        f"goes on.{meanwhile}{advice}"
    )


CALLBACKS_DOCS: Final = "(pytest-mcp-contract's docs/python-api.md, 'A client that answers back')"
"""The page and section that describe the callbacks hook, for every message about it."""


def capability_missing(
    tool: str,
    capabilities: Sequence[str],
    said: str,
    *,
    extensions: Sequence[str],
    give: Sequence[str],
    cannot: Sequence[str],
    sdk: str,
    adding: bool,
) -> str:
    """A tool that needs client capabilities the plugin's client was not given (``capabilities``: their
    names, ``extensions`` the identifiers under ``extensions``; ``said``: the server's words), with the
    hook's keys that ``give`` them (``adding``: to those it gives already) and those the installed SDK
    (``sdk``, its version) ``cannot`` declare."""
    wanted = " and ".join(_capability(name, extensions) for name in capabilities) or "a client capability"
    return (
        f"tool {tool!r} needs the client {wanted}, which the plugin's client does not declare"
        f"{f' ({said})' if said else ''}. {_advice(give, extensions, cannot, sdk, adding=adding)}"
    )


def round_unanswered(
    tool: str,
    round_number: int,
    key: str,
    asked: str,
    *,
    capability: str,
    give: Sequence[str],
    sdk: str,
    adding: bool,
) -> str:
    """A round of an ``InputRequiredResult`` the client could not answer: it was given no callback for it."""
    start = f"tool {tool!r} asked the client, in round {round_number}, for {key!r} ({asked})"
    cannot = [] if give else [capability]
    advice = _advice(give, [], cannot, sdk, adding=adding)
    return f"{start}, but the plugin's client does not declare {capability}. {advice}"


def round_declined(tool: str, round_number: int, key: str, asked: str, *, callback: str, declined: str) -> str:
    """A round of an ``InputRequiredResult`` the client's callback declined or failed on."""
    start = f"tool {tool!r} asked the client, in round {round_number}, for {key!r} ({asked})"
    return f"{start}, and the client's {callback} declined: {declined}"


def unclaimed(tool: str, result_type: str) -> str:
    """A ``tools/call`` answer of an extension's result type that no extension the client was given claims."""
    return (
        f"tool {tool!r} answered with a result of type {result_type!r}, an extension's, which the client cannot "
        "finish: it declares the extension (advertise(...) declares it, no more) but has no claim that resolves "
        f"that result. Give the extension's own ClientExtension instance, whose claims() resolve {result_type!r}, "
        'under "extensions" in the dict the pytest_mcp_contract_callbacks hook in conftest.py returns '
        f"{CALLBACKS_DOCS}."
    )


def _capability(name: str, extensions: Sequence[str]) -> str:
    if name == "extensions" and extensions:
        return f"extension{'s' if len(extensions) > 1 else ''} {' and '.join(map(repr, extensions))}"
    return f"capability {name}"


_GIVEN_AS: Final = {
    "sampling_capabilities": "SamplingCapability(tools=SamplingToolsCapability())",
}
"""How the advice writes a key's value, where ``...`` would not say what to give."""


def _advice(give: Sequence[str], extensions: Sequence[str], cannot: Sequence[str], sdk: str, *, adding: bool) -> str:
    """What to return from the hook for ``give`` (``adding``: beside what it returns already), and why
    the client cannot have ``cannot``."""
    advice = []
    if give:
        advertised = ", ".join(f"advertise({json.dumps(name)})" for name in extensions)
        given = ", ".join(
            f'"{key}": [{advertised}]'
            if key == "extensions" and extensions
            else f'"{key}": {_GIVEN_AS.get(key, "...")}'
            for key in give
        )
        if list(give) == ["extensions"]:
            what = "the extension"
        elif all(key.endswith("_callback") for key in give):
            what = "its callback"
        else:
            what = "what it lacks"
        notes = []
        if "extensions" in give and extensions:
            notes.append(
                "advertise, from mcp.client, declares an extension; one with behaviour of its own is given as its "
                "ClientExtension instance"
            )
        if "sampling_capabilities" in give:
            notes.append("both from mcp.types")
        told = f" ({'; '.join(notes)})" if notes else ""
        if adding:
            how = f"add {given}{told} to the dict the pytest_mcp_contract_callbacks hook in conftest.py returns"
        else:
            how = f"return {{{given}}}{told} from the pytest_mcp_contract_callbacks hook in conftest.py"
        advice.append(f"Give the client {what}: {how} {CALLBACKS_DOCS}.")
    for name in cannot:
        if name == "extensions":
            advice.append(
                f"The installed SDK (mcp {sdk}) cannot declare client extensions: a newer mcp's Client does (mcp "
                "2.3's does), through the hook's \"extensions\" key. Upgrade mcp to call this tool, or leave it out "
                "of the tests (fuzzing skips it)."
            )
        else:
            advice.append(
                f"The installed SDK's client (mcp {sdk}) cannot declare the capability {name}, so the plugin's "
                "client cannot either: leave this tool out of the tests (fuzzing skips it)."
            )
    return " ".join(advice)


CALLBACK_KINDS: Final = {
    "sampling_capabilities": "an mcp.types.SamplingCapability",
    "extensions": (
        'a list of ClientExtension instances, e.g. [advertise("com.example/ext")] with advertise from mcp.client'
    ),
}
"""What each of the hook's keys takes that is not a callback (a callback: an async function)."""


def callbacks_not_a_dict(returned: object) -> str:
    return (
        f"pytest_mcp_contract_callbacks returned {_shown(returned)}; it returns a dict of the client's callbacks "
        f"by keyword, or None. Fix the hook in conftest.py {CALLBACKS_DOCS}."
    )


def callbacks_unknown(meant: Mapping[str, str | None], accepted: Sequence[str]) -> str:
    """Keys the hook returned that the plugin's client does not take (``meant``: each with the accepted key
    it likely meant, if any)."""
    keys = " and ".join(f"{key!r}" + (f" (did you mean {close!r}?)" if close else "") for key, close in meant.items())
    which = "a key" if len(meant) == 1 else "keys"
    return (
        f"pytest_mcp_contract_callbacks returned {keys}, {which} the plugin's client does not take. It takes "
        f"{', '.join(accepted)}. Fix the dict the hook returns in conftest.py {CALLBACKS_DOCS}."
    )


def callbacks_not_taken(keys: Sequence[str], sdk: str) -> str:
    """Keys the plugin knows that the installed SDK's client has no keyword for."""
    named = " and ".join(map(repr, keys))
    why = (
        "client extensions need a newer mcp (2.3's Client takes them)" if "extensions" in keys else "a newer mcp's does"
    )
    return (
        f"pytest_mcp_contract_callbacks returned {named}, which the installed SDK's client (mcp {sdk}) does not "
        f"take: {why}. Upgrade mcp, or leave {named} out of the dict the hook returns in conftest.py."
    )


def callback_wrong_kind(key: str, value: object) -> str:
    wanted = CALLBACK_KINDS.get(key, "an async function (mcp.Client documents its arguments)")
    return (
        f"pytest_mcp_contract_callbacks returned {key!r}: {_shown(value)}, where the plugin's client takes "
        f"{wanted}. Fix the dict the hook returns in conftest.py {CALLBACKS_DOCS}."
    )


def _shown(value: object) -> str:
    """A value the hook returned, briefly, with its type."""
    return f"{reprlib.repr(value)} (a {type(value).__name__})"


def rounds_without_end(tool: str, rounds: int) -> str:
    return (
        f"tool {tool!r} answered with InputRequiredResult {rounds} times in a row, asking for input without end; "
        "a tool must reach its final result in a bounded number of rounds"
    )


def error_instead_of_result(explained: str, meanwhile: str) -> str:
    """The ``tool-error`` of a JSON-RPC error where a result was due (``meanwhile``: an HTTP status)."""
    message = f"the server answered tools/call with a JSON-RPC error instead of a result: {explained}"
    return f"{message.rstrip('.')}.{meanwhile}" if meanwhile else message


def no_back_channel(message: str, version: str) -> str:
    return (
        f"{message.rstrip('.')}. The tool sent the client a request of its own in the middle of the call, which "
        f"MCP {version} has no way back for: from 2026-07-28 a tool asks with an InputRequiredResult (with MCPServer, "
        "a parameter Annotated[..., Resolve(...)] asks the right way for every version)."
    )


def refused_for_version(message: str, version: str) -> str:
    return (
        f"{message.rstrip('.')}. The server's SDK would not send the result the tool built, as MCP {version} does not "
        "allow it: up to 2025-11-25, for example, structured_content is an object and there is no InputRequiredResult."
    )


def seen_on_the_wire(version: str | None) -> str:
    """The note under a violation of a call the test made through a client of its own."""
    under = f" under MCP {version}" if version else ""
    return (
        f"(A call the test made through a client of its own, seen as the in-process server answered it{under}; "
        "mcp_expect_violation and mcp_contract_allow apply as to the mcp_contract fixture's calls.)"
    )


def more_calls_broke(headers: list[str]) -> str:
    """The note under the first broken call of a test's own client, naming the others."""
    return f"{len(headers)} more calls of the test's own clients broke the contract:\n" + "\n".join(
        f"  - {header}" for header in headers
    )


def no_answer(why: str, *, gone: bool) -> str:
    """The ``input-crash`` of a generated call that got no answer (``gone``: the server went away under it)."""
    return f"the server went away: {why}" if gone else f"no answer: {why}"


def refused_return(cause: str | None) -> str:
    """The ``structured-invalid`` of a tool error that is, in process, the SDK refusing the tool's own return value."""
    return f"the SDK refused the tool's return value and answered with an error instead: {cause}"


def unreadable_answer(server: str, tool: str, why: str) -> str:
    return (
        f"{server} answered tools/call {tool!r} with a line no MCP client can read: {why}. "
        "The call failed as that line came; the session goes on."
    )


def off_model(server: str, tool: str, version: str, why: str) -> str:
    return (
        f"{server} answered tools/call {tool!r} with a result that MCP {version} does not allow ({why}): a client "
        f"on {version} rejects it. Send what that version's wire model allows (up to 2025-11-25, an object)."
    )


def wire_fault(
    server: str, method: str, version: str, where: str, *, wants: str, found: str | None, tool: str | None, read_as: str
) -> str:
    """A ``wire-invalid``: the message answering ``method`` has ``found`` (``None``: nothing) at ``where``,
    where MCP ``version`` wants ``wants``; ``read_as`` says how the plugin reads it then."""
    named = f" ({tool!r})" if tool else ""
    if found is None:
        said = f"without {where}{named}, which MCP {version} requires"
    else:
        said = f"with {found} at {where}{named}, where MCP {version} wants {wants}"
    return (
        f"{server} answered {method} {said}: a client that reads it strictly refuses the whole message, a "
        f"lenient one guesses. {read_as}"
    )


def wire_read_as(method: str, dropped: str | None, *, annotation: bool, lost: bool = False) -> str:
    """How the plugin reads a malformed place: as absent; ``dropped`` names the entry left out with it;
    ``lost``: the message cannot be read without it."""
    if lost:
        return f"Without it the answer to {method} cannot be read at all: the plugin has no result to check."
    if method in ("initialize", "server/discover"):
        return "Nothing the plugin decides reads it."
    if dropped is not None:
        return f"The plugin leaves {dropped} out, as a client that skips what it cannot read does."
    if annotation:
        return "The plugin reads it as absent, as MCP asks of a hint it cannot trust: the tool is not read-only to it."
    return "The plugin reads it as absent."


def cursor_loops(server: str, cursor: str, page: int, first: int) -> str:
    """A ``wire-invalid`` of a ``tools/list`` whose ``nextCursor`` comes back."""
    return (
        f"{server} answered tools/list (page {page}) with the nextCursor {cursor} that page {first} gave: a "
        "client that follows it lists the same pages for ever. The plugin stops there, with the tools listed so far."
    )


def tool_name_fault(name: str, why: str, *, twice: bool, page: int | None) -> str:
    """A ``tool-name-invalid``: ``why`` is what is wrong with ``name`` (``twice``: it is listed twice), on
    ``page`` of a listing of several."""
    shown = render_text(name) + (f" (page {page} of tools/list)" if page is not None else "")
    if twice:
        return (
            f"the tool name {shown} {why}: a client keeps one of the two, and which one a call reaches is the server's"
        )
    return (
        f"the tool name {shown} {why}: MCP 2025-11-25 (SEP-986) says a name SHOULD be 1 to 128 characters of "
        "A-Z a-z 0-9 _ - . and unique in the server, and a client may refuse or rename a tool whose name is not"
    )


def render_text(text: str, limit: int = 60) -> str:
    """A server's string in a message: quoted, shortened past ``limit`` characters (a name of 129)."""
    return repr(text) if len(text) <= limit else repr(text[: limit - 1] + "…") + f" ({len(text):,} characters)"


def broken_listing(
    found: Sequence[Finding], next_step: Callable[[Any], str], *, server: str, handshake: bool, listing: bool
) -> str:
    """A ``ContractViolationError``'s text for what the server's handshake and ``tools/list`` answers break."""
    count = len(found)
    what = " and ".join(name for name, said in (("handshake", handshake), ("tools/list", listing)) if said)
    lines = [f"the {what} answers of {server} break the contract ({count} violation{'s' * (count != 1)}):"]
    return "\n".join(lines + _violations_and_steps(found, next_step))


def stdout_noise(server: str, when: str, line: str | None, why: str) -> str:
    """Output that is no MCP message: a stdout ``line`` (with ``why``, for one that looks like JSON),
    or, without a line, what the transport said of it."""
    if line is not None:
        what = f"wrote a line to stdout that is not an MCP message {when}: {line!r}{f' ({why})' if why else ''}"
    else:
        what = f"sent something that is not an MCP message {when}: {why}"
    return f"{server} {what}. Later ones on this session are not reported again."


# --- the session -----------------------------------------------------------------------------------


def later_calls(limit: int | None, *, started: bool) -> str:
    """After a server went away under a call: what becomes of the test's later calls, and of the next test's
    (``limit``: how often the fixture's pool has it back; ``None`` for a session of its own, which no one renews)."""
    if limit is None:
        return "Later calls on this session fail the same way; fix the crash, then rerun."
    return (
        f"Later calls in this test fail the same way; the next test that needs the server {_again(started)} "
        f"(at most {limit} times a run). Fix the crash, then rerun."
    )


def _again(started: bool) -> str:
    """How a server that went away is had back: a command is started again; a URL (or a server in
    process) only gets a new session."""
    return "starts it again" if started else "opens a new session to it"


def not_opened(server: str, explained: str, hint: str, stderr: str) -> str:
    return f"could not open an MCP session to {server}: {explained}.{hint}{stderr}"


def opening_timed_out(server: str, seconds: float, stderr: str) -> str:
    return (
        f"opening a session to {server} took over {seconds:g} s: the server did not "
        "finish the MCP handshake (initialize, then tools/list). If it only starts slowly, raise ini "
        f"mcp_contract_startup_timeout.{stderr}"
    )


def listing_failed(server: str, explained: str) -> str:
    return (
        f"tools/list failed on {server}: {explained}. Fix the server's tool listing; no tool can be checked without it."
    )


def claimed_then_broke(server: str, version: str, explained: str) -> str:
    return (
        f"{server} answered server/discover as a {version} server, then refused tools/list: {explained}. It "
        f"negotiates a version it does not keep (a {version} server needs no initialize). Make it answer "
        "server/discover only if it serves requests without initialize, or offer only 2025-11-25 "
        "(ini mcp_contract_protocol_versions)."
    )


def listing_off_model(server: str, version: str, why: str) -> str:
    return (
        f"tools/list on {server} answered with a listing that MCP {version} does not allow ({why}): a client on "
        f"{version} rejects the whole listing, so no tool can be checked under it. Make the listing fit that "
        "version's wire model (up to 2025-11-25 every output_schema has an object at the root)."
    )


def listing_endless(server: str, pages: int) -> str:
    return f"tools/list on {server} returned more than {pages} pages"


def closed_under_us(server: str, during: str, why: str, hint: str, *, then: str, stderr: str) -> str:
    return f"{server} closed the connection during {during}: {why}{hint}{' ' + then if then else ''}{stderr}"


def connection_broke(server: str, during: str | None, explained: str | None, stderr: str, *, then: str) -> str:
    cause = f": {explained.rstrip('.')}" if explained is not None else ""
    return (
        f"the connection to {server} broke{f' during {during}' if during else ''}{cause}. "
        f"The server may have crashed or restarted. {then}{stderr}"
    )


def server_gone(server: str, why: str, *, pooled: bool, started: bool) -> str:
    if not pooled:
        return (
            f"the server is gone: {server} cannot be reached, as {why} (the failure of that call shows why). "
            "Fix that crash, then rerun."
        )
    return (
        f"the server is gone: {server} cannot be reached, as {why} earlier in this test (the failure of that call "
        f"shows why). The next test that needs it {_again(started)}; fix the crash, then rerun."
    )


def restart_limit(server: str, limit: int, last: str, *, started: bool) -> str:
    """A server that went away more often than a run has it back: the tests that need it fail at once."""
    again = "started again" if started else "connected to again"
    return (
        f"the restart limit was reached: {server} went away under a call and was {again} {limit} times this run, "
        f"the most a run does, so it is not {again} and every later test that needs it fails at once. The last "
        f"time, {last}. Fix that crash (the first test that failed on it shows its cause), then rerun."
    )


def failed_before(server: str, where: str, first: str) -> str:
    """A server that already failed to open this run, asked for again."""
    first = first if len(first) <= 300 else first[:299] + "…"
    return (
        f"{server} could not be opened for {where}, so it is not started again: {first} "
        "That failure shows the whole story; fix it, then rerun."
    )


# --- snapshots -------------------------------------------------------------------------------------


def _update(tool: str, listing: str = "") -> str:
    """The command that rewrites a tool's snapshot: its schema item's, or (``listing``: a tool the suite was
    collected without has none) the listing item's, which writes it."""
    return f"pytest --snapshot-update {listing}" if listing else f"pytest --snapshot-update -k {keyword(tool)}"


def keyword(tool: str) -> str:
    """A ``-k`` expression that picks just this tool's schema item, quoted for the shell."""
    # -k is a substring match on the item name; the brackets keep "get" from also picking "get_all".
    # A name pytest's expression parser cannot read (spaces, quotes) falls back to all schema items.
    return f"'schema[{tool}]'" if _K_WORD.fullmatch(tool) else "schema"


_K_WORD: Final = re.compile(r"[\w:+\-./\\]+")


def snapshot_missing(tool: str, shown: str) -> str:
    return f"tool {tool!r} has no schema snapshot yet ({shown}).\nRecord it with: {_update(tool)}"


def snapshot_unreadable(tool: str, shown: str, what: str, *, listing: str = "") -> str:
    """``what``: ``not UTF-8 text (…)`` or ``not valid JSON (…)``; ``listing``: see :func:`_update`."""
    return (
        f"the snapshot file {shown} of tool {tool!r} is {what}.\n"
        f"It was left as it is. Repair it by hand, or rewrite it from the server with: {_update(tool, listing)}"
    )


def snapshot_not_written(tool: str, shown: str, reason: str, *, listing: str = "") -> str:
    return (
        f"the snapshot of tool {tool!r} could not be written to {shown}: {reason}. Nothing was updated; "
        f"make the file writable (ls -l, lsattr), then rerun {_update(tool, listing)}"
    )


def snapshot_clash(first: str, second: str) -> str:
    return (
        f"tools {first!r} and {second!r} would share one snapshot file on a file system that ignores case; "
        "rename one of them"
    )


def listed_differently(tool: str, first: str, other: str, diff: str) -> str:
    return (
        f"tool {tool!r} is listed differently under {other} than under {first}: a client's protocol version "
        f"changes the contract it sees.\n\nDiff (- {first}, + {other}):\n{diff.rstrip()}\n\n"
        "Publish one contract for every version (the snapshot holds the first's), or offer one version only "
        "(ini mcp_contract_protocol_versions)."
    )


def listed_under_some(tool: str, listed: Sequence[str], unlisted: Sequence[str]) -> str:
    return (
        f"tool {tool!r} is listed under {', '.join(listed)} but not under {', '.join(unlisted)}: a client on "
        f"{', '.join(unlisted)} cannot call it. List it under every version, or offer one version only "
        "(ini mcp_contract_protocol_versions)."
    )


def callback_declined(tool: str, capability: str, callback: str, why: str) -> str:
    """A request the tool sent mid-call that the client's own callback declined or failed on."""
    return (
        f"tool {tool!r} asked the client for {capability}, and the client's {callback} "
        f"{why}; the tool failed on that answer. Fix the callback (pytest_mcp_contract_callbacks in conftest.py), "
        "or pass expect_error=True if the test wants the tool's answer to a refusal."
    )


def no_output_schema(tools: Sequence[str]) -> str:
    """The summary's word on snapshots that hold ``"output_schema": null``, written or missing this run."""
    return (
        f'{", ".join(tools)}: their snapshots hold "output_schema": null, as the server lists them without '
        "one, so clients get no structured_content from them. A low-level Server publishes a schema only where "
        "the Tool it lists carries one; MCPServer and FastMCP derive it from the return annotation "
        "(silent-opt-out says when they could not)"
    )


def no_call_seen(why: str, *, python: bool) -> str:
    """How to make calls seen that went through a client the plugin does not see (``why``: which, and where)."""
    in_process = (
        ", or name the server in process (mcp_contract_server = package.module:server), where every client's "
        "calls are seen"
        if python
        else ""
    )
    fixture = f"call them through the mcp_contract fixture{in_process}"
    return f"{why}: {fixture}; or give them example calls (mcp_contract_cases)"


def ignored_snapshots(rules: Mapping[str, Sequence[str]], folder: str, negation: tuple[str, str] | None = None) -> str:
    """Snapshot files git ignores, by the rule that does (``.gitignore:3:*.json``): they stay out of every
    commit. ``negation``: the line that un-ignores them and the file it goes in, where one can say so."""
    told = []
    for rule, paths in sorted(rules.items()):
        more = f" and {len(paths) - 1} more" if len(paths) > 1 else ""
        told.append(f"{paths[0]}{more} (by {rule})")
    how = (
        f"Add the line {negation[0]} to {negation[1]} after that rule (or stop ignoring the folder)"
        if negation is not None
        else "Un-ignore them (a rule that ignores the folder itself cannot be undone for its files: remove it)"
    )
    return f"{'; '.join(told)}: no commit holds them, so no review sees a schema change. {how}, then git add {folder}"


def no_tools(server: str, version: str, *, left_out: bool = False) -> str:
    """A server whose tools/list is empty (``left_out``: or whose every entry was left out, unreadable): the
    suite has nothing to hold it to, which is never a pass."""
    under = f"tools/list under {version or 'the version it answered with'}"
    if left_out:
        return (
            f"{server} lists no tool a client can read (every entry {under} sent was left out: see the "
            "findings above), so the contract suite has nothing more to check. Fix the listing's entries."
        )
    return (
        f"{server} lists no tools ({under} answered an "
        "empty list), so the contract suite has nothing to check. If it registers its tools from a setting or "
        "an environment variable, give the target what production gives it; if it has no tools on purpose, "
        "switch the suite off with: mcp_contract_suite = false"
    )


def no_longer_listed(tool: str, *, updating: bool = False, owner: bool = True) -> str:
    """A tool with a snapshot the server no longer lists (``updating``: the run deletes its snapshot; not the
    ``owner``: an item of the tool's other than its schema item, which tells it)."""
    if updating:
        return f"tool {tool!r} is no longer listed: --snapshot-update deletes its snapshot"
    if not owner:
        return f"tool {tool!r} is no longer listed (its schema item fails for it)"
    return (
        f"tool {tool!r} has a snapshot, but the server no longer lists it: every client that calls it breaks. "
        "If it was removed on purpose, delete its snapshot with: pytest --snapshot-update"
    )


def snapshots_missing(tools: Sequence[str], folder: str, listing: str) -> str:
    """Tools listed with no snapshot file (new, or the first run): the ``listing`` item checked them."""
    names = ", ".join(map(repr, tools[:5])) + (f" and {len(tools) - 5} more" if len(tools) > 5 else "")
    if len(tools) == 1:
        return (
            f"tool {names} has no schema snapshot in {folder} yet (its tool checks ran here).\n"
            f"Record it with: pytest --snapshot-update {listing}; from then on it has items of its own."
        )
    return (
        f"{len(tools)} tools have no schema snapshot in {folder} yet: {names} (their tool checks ran here).\n"
        f"Record them with: pytest --snapshot-update {listing}; from then on each has items of its own."
    )


def unlisted_under(version: str, problem: str) -> str:
    """A protocol version offered whose session could not open or list the tools."""
    return f"offering protocol version {version}, the tools could not be listed: {problem}"


def folder_moved(collected: str, now: str) -> str:
    """The server's snapshots belong in another folder than the one the suite was collected from."""
    return (
        f"the suite was collected from the snapshots in {collected}, but the server's snapshots belong in {now} "
        "(the name it gives at initialize decides it). Run pytest again: it collects from the new folder. "
        f"Move the files there (or record them anew with --snapshot-update), and delete {collected}."
    )


def case_tool_unlisted(source: str, tool: str, listed: Sequence[str]) -> str:
    """A case of the cases file whose tool the server does not list."""
    return (
        f"mcp_contract_cases {source}: tool {tool!r} is not listed by the server "
        f"(it lists {', '.join(listed) or 'no tools'}). Fix the case's tool, or drop the case."
    )


def schema_changed(
    tool: str, counts: Sequence[tuple[str, int]], changes: Iterable[str], diff: str, shown: str, *, listing: str = ""
) -> str:
    """A snapshot that differs: the changes counted by kind and listed, then the file's diff."""
    changes = list(changes)
    if changes:
        summary = ", ".join(f"{count} {kind}" for kind, count in counts if count)
        lines = [f"the schema of tool {tool!r} changed ({summary}):", *(f"  {change}" for change in changes)]
    else:
        lines = [f"the snapshot of tool {tool!r} differs only in layout (key order, indentation)."]
    lines += ["", f"Diff of {shown} (- snapshot, + server):", diff.rstrip("\n"), ""]
    lines.append(
        f"If the change is intended, accept it with: {_update(tool, listing)} (then commit the file); "
        "otherwise undo the change to the tool."
    )
    return "\n".join(lines)


# --- the base revision (--mcp-contract-against) ----------------------------------------------------


def _against(ref: str, source: str) -> str:
    return f"{source} {ref}" if source.startswith("--") else f"{source} = {ref}"


def against_without_suite(ref: str, source: str) -> str:
    return (
        f"{_against(ref, source)} compares the tools in against[TOOL] items of the generated contract suite, "
        "which mcp_contract_suite = false switches off. Switch it on for that run: -o mcp_contract_suite=true"
    )


def against_no_git(ref: str, source: str) -> str:
    return (
        f"{_against(ref, source)} compares the tools with the snapshots committed at a git revision, but the git "
        "command is not on the PATH. Install git (in CI, use an image that has it), or drop the option."
    )


def against_not_in_git(ref: str, source: str, project: str, why: str) -> str:
    return (
        f"{_against(ref, source)} compares the tools with the snapshots committed at a git revision, but git "
        f"finds no work tree at {project} (git says: {why}). Run pytest in a clone of the repository (in CI, check "
        "it out with actions/checkout; for a clone another user owns, git config --global --add safe.directory "
        "PATH), or drop the option."
    )


def against_unknown_ref(ref: str, source: str, root: str) -> str:
    return (
        f"{_against(ref, source)}: git knows no revision {ref!r} in {root}. Name a branch, tag or commit that "
        f"exists here, or fetch it first (git fetch origin {ref.removeprefix('origin/') or 'main'}); in GitHub "
        "Actions, check out with fetch-depth: 0 so the base branch is there."
    )


def against_no_snapshots(ref: str, source: str, commit: str, folder: str) -> str:
    return (
        f"{_against(ref, source)}: the revision {ref} ({commit}) has no snapshot folder {folder}/, so there is "
        "nothing to compare with. Name a revision whose snapshots are committed, or commit them there first "
        "(pytest --snapshot-update, then git add and commit the folder); mcp_contract_snapshot_dir names "
        "another folder."
    )


def against_outside(ref: str, source: str, folder: str, root: str) -> str:
    return (
        f"{_against(ref, source)}: the snapshot folder {folder} lies outside the git work tree {root}, so no "
        "revision holds it. Keep the snapshots in the repository (mcp_contract_snapshot_dir), or drop the option."
    )


AGAINST_CONSEQUENCES: Final = {
    "output": "a client that relied on the output_schema at {base} can now get a result it does not expect here",
    "input": "a client that sends what the input_schema at {base} accepted can now be refused here",
    "annotations": "a client that relied on the annotations at {base} can now treat the tool otherwise",
    "tool": "a client that calls it now gets an unknown-tool error",
    "observed output": (
        "a client that read the answers as they were at {base} can now get one it does not expect "
        "(observed, not published: no schema promised it)"
    ),
}
"""What a client written against the base gets after a breaking change, by the part of the tool that changed."""


def breaking_change(what: str, part: str, base: str) -> str:
    """A ``breaking-change`` violation's message: the change, then what a client of the base now gets."""
    consequence = AGAINST_CONSEQUENCES.get(part, "a client that relied on it at {base} now sees it changed")
    if part == "output" and what.startswith("removed"):
        consequence = "a client that reads it, as the output_schema at {base} promised, can now get a result without it"
    return f"{what}; {consequence.format(base=base)}"


def _breaks_and_others(found: Sequence[Finding], others: Sequence[str]) -> list[str]:
    """Each break as a broken contract shows a violation, then the changes that pass."""
    out = []
    for violation in found:
        out.append(f"[{check_label(violation.check, violation.versions)}]{_at(violation.path)}")
        out.extend(f"  {line}" for line in violation.message.splitlines())
    if others:
        out += ["Also changed (these pass):", *(f"  {line}" for line in others)]
    return out


def breaking_against(tool: str, base: str, found: Sequence[Finding], others: Sequence[str], shown: str) -> str:
    """An ``against[tool]`` item's failure: each break (as a broken contract shows a violation), the
    changes that pass, and the two ways on."""
    noun = "breaking change" if len(found) == 1 else "breaking changes"
    out = [f"tool {tool!r} has {len(found)} {noun} against {base}, from a client's side:"]
    out += _breaks_and_others(found, others)
    out += [
        "Next step: undo the change to the tool, so clients written against the base keep working "
        f"(the base's schema: git show {shown}); or, if the break is intended, acknowledge it for the "
        "reviewers with a line in mcp_contract_allow:",
        f"    {tool}:breaking-change  # why clients can take it",
    ]
    return "\n".join(out)


def observed_out_of_date(tool: str) -> str:
    """A tool whose answers this run had what its recorded observed shape does not say."""
    return (
        f"{tool} is out of date: this run's answers had what its recorded shape does not say "
        "(pytest --snapshot-update records it, for the review to see):"
    )


def observed_stale_quiet(tools: Sequence[str]) -> str:
    """Under ``-q``: the tools whose recorded observed shape this run's answers outgrew."""
    return (
        f"observed shapes out of date: {', '.join(tools)} (pytest --snapshot-update records them; the summary "
        "without -q says what changed)"
    )


def observed_not_recorded(tools: Sequence[str]) -> str:
    """Tools whose snapshot records no observed shape yet, though this run saw their answers."""
    return f"{', '.join(tools)}: no shape recorded yet (pytest --snapshot-update records it)"


SUGGEST_HOW: Final = "pytest --mcp-contract-suggest-schemas prints a schema to publish for each, from its shape"


def suggested_schema(tool: str, schema: str, python: tuple[str, str] | None, *, function: str) -> list[str]:
    """A schema to publish for a tool, from the shape its answers had, recorded and this run's (``python``:
    the ``TypedDict`` classes and the return annotation that publish it from a Python server)."""
    out = [f"{tool} (the shape its answers had, as observed: a starting point; add what those answers did not show):"]
    if python is not None:
        classes, annotation = python
        out += [
            "  MCPServer or FastMCP publish it when the tool returns the data (not a JSON string) annotated:",
            "    from typing import Any",
            "    from typing_extensions import NotRequired, TypedDict  # pydantic's TypedDict before Python 3.12",
            "",
            *(f"    {line}" if line else "" for line in classes.splitlines()),
            "",
            f"    def {function}(...) -> {annotation}: ...",
            "  Any SDK: list the tool with this outputSchema:",
        ]
    else:
        out.append("  List the tool with this outputSchema:")
    out += [f"    {line}" for line in schema.splitlines()]
    return out


def no_shape_seen(tools: Sequence[str]) -> str:
    """Tools no schema can be suggested for: neither this run nor a snapshot saw an answer with JSON."""
    return (
        f"no shape seen yet: {', '.join(tools)} (no answer with JSON, in this run or recorded; call them in a "
        "test or give them cases in the mcp_contract_cases file)"
    )


NONE_IN_WHAT_WAS_COMPARED: Final = "none in what was compared"
"""The changes against a base, when some tool could not be compared: "not compared" is not "unchanged"."""
OBSERVED_LABEL: Final = " (observed shape)"
"""Beside a tool whose contract coverage counts its recorded observed shape's promises."""


def compared_with(by_schema: int, by_shape: int, not_compared: int) -> str:
    """How the tools were compared with a base revision."""
    return f"{plural(by_schema, 'tool')} by output schema, {by_shape} by observed shape, {not_compared} not compared"


def observed_breaking(tool: str, base: str, found: Sequence[Finding], others: Sequence[str], shown: str) -> str:
    """The run's failure for a tool whose answers' shape broke against the base: each break, the changes
    that pass, and the ways on. The shape was observed: the message never calls it a promise."""
    noun = "breaking change" if len(found) == 1 else "breaking changes"
    out = [
        f"tool {tool!r} has {len(found)} {noun} against {base} in the shape of its answers "
        "(observed, not published: it has no output schema that names a key):"
    ]
    out += _breaks_and_others(found, others)
    out += [
        "Next step: undo the change, so clients that read the answers keep working (the shape at the base: "
        f"git show {shown}); or, if it is intended, acknowledge it with a line in mcp_contract_allow:",
        f"    {tool}:breaking-change  # why clients can take it",
        "Publishing an output schema makes the promise explicit (pytest --mcp-contract-suggest-schemas).",
    ]
    return "\n".join(out)


def against_unreadable(tool: str, base: str, shown: str, why: str) -> str:
    return (
        f"the snapshot of tool {tool!r} committed at {base} is not valid JSON ({why}), so the tool cannot be "
        f"compared with it (see git show {shown}). Compare against a revision whose file is intact."
    )


# --- fuzzing ---------------------------------------------------------------------------------------


def hint_violated(
    tool: str,
    hint: str,
    arguments: Mapping[str, Any],
    observer: tuple[str, Mapping[str, Any]],
    *,
    place: str,
    was: Any,
    now: Any,
    more: int,
    error_changed: bool,
) -> str:
    """A ``hint-violated`` finding: what ``tool`` promised, and what the read-only call ``observer`` showed."""
    observed, given = observer
    seen = f"what {observed!r} called with {call_arguments(given)} answers"
    if hint == "readOnlyHint":
        head = f"{tool!r} says readOnlyHint: true, yet calling it with {call_arguments(arguments)} changed {seen}"
        first, second = "before", "after"
    else:
        head = (
            f"{tool!r} says idempotentHint: true, yet a second call with the same arguments "
            f"({call_arguments(arguments)}) changed {seen}"
        )
        first, second = "after one call", "after two"
    if error_changed:
        detail = f"a tool error {first}, a result {second}" if was else f"a result {first}, a tool error {second}"
    else:
        shown = render_apart(was, now)
        detail = f"at {show_pointer(place)}: {first} {shown[0]}, {second} {shown[1]}"
    also = f" (and {plural(more, 'other place')})" if more else ""
    return f"{head}: {detail}{also}"


def fuzz_opt_in(tool: str) -> str:
    """The ini line that fuzzes one tool that may write."""
    return f"mcp_contract_fuzz_allow = {tool}"


FUZZ_WRITES_LINE: Final = "mcp_contract_fuzz_writes = true"
"""The ini line that fuzzes every tool, for a throwaway server."""


def fuzz_not_fuzzed(tool: str, *, destructive: bool) -> str:
    """Why a fuzz item skips a tool that may write, and the line that fuzzes it."""
    why = "says destructiveHint: true" if destructive else "does not say readOnlyHint: true"
    effect = "may delete or overwrite" if destructive else "may write"
    return (
        f"{tool!r} {why}, so it {effect}; fuzz it with {fuzz_opt_in(tool)} "
        f"(or {FUZZ_WRITES_LINE} for a throwaway server)"
    )


def fuzz_header(*, writes: bool) -> str:
    """The header's line on which tools fuzzing calls (the header comes before any server is started)."""
    if writes:
        return (
            f"mcp-contract: fuzzing every tool, also those that may write, delete or send ({FUZZ_WRITES_LINE}): "
            "a throwaway server and data only"
        )
    return (
        "mcp-contract: fuzzing each tool that says readOnlyHint: true or is in mcp_contract_fuzz_allow; "
        "the summary names each tool skipped, with the line that fuzzes it"
    )


FUZZ_SKIPPED: Final = "not fuzzed, as they may write (no readOnlyHint: true)"
"""The summary's label for the tools fuzzing skipped."""


def fuzz_skipped(count: int) -> str:
    """The summary's text on the tools fuzzing skipped (each one's line follows)."""
    return (
        f"{count} tool{'s' * (count != 1)}; fuzz one with its line below, or every tool with {FUZZ_WRITES_LINE} "
        "(a throwaway server and data only)"
    )


_READ_ONLY_HINT: Final = (
    "say readOnlyHint: true on it in the server, so fuzzing and every client know it is safe to call"
)
READ_ONLY_HINTS: Final[Mapping[str | None, str]] = {
    "python": f"{_READ_ONLY_HINT} (Python SDK: @mcp.tool(annotations=ToolAnnotations(read_only_hint=True)), "
    "ToolAnnotations from mcp.types; readOnlyHint=True on mcp 1.x)",
    "typescript": f"{_READ_ONLY_HINT} (TypeScript SDK: annotations: {{ readOnlyHint: true }} in registerTool's config)",
    None: f'{_READ_ONLY_HINT} (its listing\'s "annotations": {{"readOnlyHint": true}})',
}
"""The summary's advice for a skipped tool that only reads, in the server's language (``None``: not known)."""

EXAMPLES_HOW: Final[Mapping[str | None, str]] = {
    "python": "Field(examples=[...])",
    "typescript": "with zod 4, .meta({ examples: [...] }) on each argument",
    None: 'an "examples" list on each argument',
}
"""How a tool's input schema gets examples, in the server's language (``None``: not known)."""


TIMED_OUT_STOP: Final = (
    "a call got no answer within its timeout, so the search stopped there: each smaller try would wait as long"
)
"""Why a search stopped at a tool's first timeout (fuzzing, sequences): one is reported, not shrunk."""


def fuzz_found(
    tool: str,
    arguments: dict[str, Any],
    broken: str,
    calls: int,
    last: str,
    *,
    flaky: bool,
    stopped: str,
    seed: int | None,
    is_case: bool,
) -> str:
    """The smallest failing call the fuzzer found, as a test would make it and as a case to keep.

    ``seed``: the search's, to repeat it; ``is_case``: a case has these arguments already.
    """
    lines = [
        f"fuzzing {tool!r} found arguments that break its contract ({calls} call{'s' * (calls != 1)}); "
        "the smallest Hypothesis found:",
        f"    mcp_contract.call_tool({json.dumps(tool)}, {python_literal(arguments)})",
        "",
        broken,
        "",
    ]
    again = f"The next run tries these arguments first ({last})"
    if seed is not None:
        again += f"; --mcp-contract-fuzz-seed {seed} repeats this search"
    if is_case:
        lines.append(
            f"{again}. A case in the mcp_contract_cases file has these arguments: fix the tool, or list "
            "these violations in that case's violations."
        )
    else:
        lines.append(f"{again}. To keep them as a case, add to the mcp_contract_cases file:")
        lines += [f"    {line}" for line in case_lines(tool, arguments)]
    if flaky:
        lines.insert(
            1, "(flaky: the same arguments did not break it again when replayed; the tool's answer depends on more)"
        )
    if stopped:
        lines.insert(1, f"({stopped}; these are the smallest arguments found by then)")
    return "\n".join(lines)


def sequence_found(
    test: Sequence[str],
    broken: str,
    *,
    sequences: int,
    calls: int,
    command: str,
    flaky: bool,
    stopped: str,
) -> str:
    """The smallest failing sequence, as a test to paste, then what it broke and how to search again."""
    lines = [
        f"a generated sequence broke the contract ({plural(sequences, 'sequence')}, {plural(calls, 'call')}); the "
        "smallest Hypothesis found, as a test that fails the same way (paste it into a test file):",
        "",
        *(f"    {line}" if line else "" for line in test),
        "",
        broken,
        "",
        f"{command} repeats this search.",
    ]
    if flaky:
        lines.insert(1, "(flaky: the same calls did not break it again when replayed; the answers depend on more)")
    if stopped:
        lines.insert(1, f"({stopped}; this is the smallest sequence found by then)")
    return "\n".join(lines)


def sequences_without_sandbox(server: str, why: str) -> str:
    """Why the sequences ran without the sandbox the project asked for (a target it cannot make anew)."""
    return f"mcp_contract_sandbox: no fresh server for {server}: {why}; so only the tools fuzzing may call were called"


def sequences_fact(seen: Any) -> str:
    """The summary's line for one server's sequences (a ``SequencesSeen``)."""
    where = "each on a fresh server in a sandbox" if seen.sandboxed else "on the server as it is"
    stopped = f"; {seen.stopped}" if seen.stopped else ""
    told = f" ({seen.unsandboxed})" if seen.unsandboxed else ""
    ran = f"{plural(seen.sequences, 'sequence')} on {seen.server}, {plural(seen.calls, 'call')}, {where}"
    unconfirmed = (
        f"; {seen.unconfirmed} seemed broken once but held when the same calls were made again: no finding "
        "(a value that changes on its own, as a clock at second resolution, or another client meanwhile: name "
        "a volatile key in mcp_contract_volatile)"
        if seen.unconfirmed
        else ""
    )
    return f"{ran}{told}{stopped}{unconfirmed}"


def sequences_progress(sequences: int, total: int, calls: int) -> str:
    """A long sequences item's progress line (Hypothesis may run a few more than asked, and shrinking more)."""
    return f"  sequences: {sequences} run ({total} asked), {plural(calls, 'call')}"


def sandbox_unopened(error: str, ran: int) -> str:
    """A fresh server in the sandbox that did not open (after ``ran`` sequences): what the session said,
    and what the sandbox changes."""
    head = "no sequence ran" if not ran else f"the search stopped after {plural(ran, 'sequence')}"
    return (
        f"{head}: the fresh server in the sandbox (mcp_contract_sandbox) did not open: {error}\n"
        "In the sandbox HOME, TMPDIR and the XDG folders are private and empty: a command that finds itself "
        "through HOME (a pyenv shim, a package in ~/.npm or ~/.local) or a server that needs a file there "
        "fails. Point the target at the interpreter or the installed script (stdio:{python} -m your_server), "
        "or give the server what it needs in mcp_contract_server_env."
    )


SANDBOX_NOT_ASYNC: Final = (
    "mcp_contract_sandbox gives mcp_contract a fresh server; mcp_contract_async has none of its own in the "
    "sandbox: use mcp_contract in a test that asks for the sandbox"
)


def sequences_ungenerable(tools: Sequence[str]) -> str:
    """Why the sequences item skips: no callable tool's input schema can be generated from."""
    return (
        f"no sequence: arguments cannot be generated from the input schema of any tool a sequence may call "
        f"({', '.join(tools)}); the fuzz item of each says why"
    )


def sandbox_lists_otherwise(tool: str) -> str:
    """A fresh server in the sandbox that does not list a tool the server outside it lists."""
    return (
        f"the search stopped: the fresh server in the sandbox (mcp_contract_sandbox) does not list {tool!r}, which "
        "the server lists outside it: its tools depend on what its HOME or XDG folders hold. Give the server what "
        "it needs in mcp_contract_server_env, or deny the tool (mcp_contract_sandbox_deny)."
    )


def no_sandbox(server: str, why: str) -> str:
    """Why a test that asks for ``mcp_contract_sandbox`` cannot have one."""
    return f"mcp_contract_sandbox: no fresh server for {server}: {why}."


def sequences_none_callable(tools: int, *, sandboxed: bool) -> str:
    """Why the sequences item skips: none of the listed tools may be called."""
    if sandboxed:
        return f"no sequence: every one of the {plural(tools, 'listed tool')} is in mcp_contract_sandbox_deny"
    return (
        f"no sequence: none of the {plural(tools, 'listed tool')} may be called; outside a sandbox a sequence calls "
        "only the tools that say readOnlyHint: true or that mcp_contract_fuzz_allow names, and never those in "
        "mcp_contract_sandbox_deny (mcp_contract_sandbox = true gives each sequence a fresh server, where it may "
        "call the others)"
    )


def case_lines(tool: str, arguments: dict[str, Any]) -> list[str]:
    """The call as a case for the cases file: TOML, or JSON when TOML cannot hold a value (null)."""
    try:
        return ["[[case]]", f"tool = {json.dumps(tool)}", f"arguments = {_toml(arguments)}"]
    except ValueError:
        case = {"case": [{"tool": tool, "arguments": arguments}]}
        return ["(TOML has no null: as a JSON cases file)", json.dumps(case, ensure_ascii=False)]


def python_literal(value: Any) -> str:
    """A JSON value as the Python literal a test would write."""
    if isinstance(value, dict):
        items = (f"{json.dumps(key, ensure_ascii=False)}: {python_literal(item)}" for key, item in value.items())
        return "{" + ", ".join(items) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(python_literal(item) for item in value) + "]"
    if value is None or isinstance(value, bool):
        return repr(value)
    return json.dumps(value, ensure_ascii=False)


def _toml(value: Any) -> str:
    if isinstance(value, dict):
        items = ", ".join(f"{_toml_key(key)} = {_toml(item)}" for key, item in value.items())
        return "{" + items + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        # JSON's escapes are TOML's too, but for DEL, which TOML forbids raw and JSON leaves so.
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    raise ValueError("TOML has no null")


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key, ensure_ascii=False)


ANNOTATION_CUT: Final = "… (cut here: the job's log has the whole failure)"
"""Where a GitHub annotation stops, for a long failure (a snapshot's diff)."""


def step_summary_unwritable(path: str, error: OSError) -> str:
    """``$GITHUB_STEP_SUMMARY`` names a file the report cannot be appended to (the runner makes it: set by hand?)."""
    return (
        f"mcp-contract: the report could not be appended to GITHUB_STEP_SUMMARY ({path}): {error.strerror}; "
        "the runner sets it to a file of its own: unset it, or point it at a file you can write"
    )


def plural(count: int, noun: str) -> str:
    """``1 call``, ``2 calls``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def shown_name(name: str) -> str:
    """A tool's name as a summary, a report and a table print it: a name with a newline, NUL, backtick
    or pipe in it is shown as a JSON string, so it can neither break a table nor pass for another name."""
    plain = name.isprintable() and not any(mark in name for mark in "`|")
    return name if plain else json.dumps(name).replace("|", "\\u007c").replace("`", "\\u0060")


def aligned(rows: Sequence[Sequence[str]], *, left: int) -> list[str]:
    """A terminal table: its first ``left`` columns flush left, the others (counts) flush right."""
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    return [
        "  ".join(
            cell.ljust(width) if column < left else cell.rjust(width)
            for column, (cell, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]


def bad_fail_under(source: str, given: str) -> str:
    return (
        f"{source} = {given!r} is not a percent: give a number from 0 to 100, e.g. {source.split(' ', maxsplit=1)[0]}"
        f"{' ' if source.startswith('--') else ' = '}90"
    )


def output_unwritable(option: str, given: str, path: str, *, folder: bool, example: str) -> str:
    """A file the run is to write (``--mcp-contract-report``, ``--mcp-contract-coverage-json``) cannot be one."""
    what = "is a folder" if folder else "is inside a file"
    return (
        f"{option} {given}: {path} {what}, so nothing can be written there; give the path of a file, "
        f"e.g. {option} {example}"
    )


def coverage_json_failed(path: str, error: OSError) -> str:
    return (
        f"mcp-contract: the contract coverage could not be written to {path} (--mcp-contract-coverage-json): "
        f"{error.strerror or error}; give a path you can write"
    )


def coverage_truncated(tool: str, promises: int, places: int) -> str:
    return (
        f"{tool}: its output schema is counted only in part (past {promises:,} promises or {places:,} places read); "
        "its percent is of the promises counted"
    )


def coverage_below(total: str, least: float, weakest: list[str], *, listed: bool = True) -> str:
    """The run kept fewer promises than ``--mcp-contract-coverage-fail-under`` asks: what to do first
    (``listed``: the unseen promises are printed above)."""
    where = "listed above" if listed else "that --mcp-contract-coverage lists"
    return (
        f"FAIL: contract coverage {total} is below the {least:g} % required (--mcp-contract-coverage-fail-under). "
        f"Weakest: {', '.join(weakest)}. Call those tools so their answers show the promises {where} "
        "(a case in mcp_contract_cases, a test, or --mcp-contract-fuzz for a read-only tool), or lower the bar."
    )
