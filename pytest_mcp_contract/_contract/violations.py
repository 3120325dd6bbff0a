"""What a broken promise looks like: the check ids, :class:`Violation` and :class:`ContractViolationError`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._errors import McpContractError, public

CheckId = Literal[
    "output-schema-invalid",
    "input-schema-invalid",
    "silent-opt-out",
    "structured-missing",
    "structured-invalid",
    "content-mismatch",
    "content-prose",
    "text-missing",
    "tool-error",
    "input-crash",
    "stdout-noise",
    "answer-unreadable",
    "wire-invalid",
    "tool-name-invalid",
    "breaking-change",
    "hint-violated",
]

Subject = Literal["tool", "listing", "server", "sequence"]
"""What a finding is about: one tool, the server's tool listing, the server as a whole, or a chain of calls."""

ERROR_MISSING: Final = "error-missing"
"""The ``rule`` of a ``tool-error`` that is a call meant to fail that succeeded."""
ERROR_UNEXPLAINED: Final = "error-unexplained"
"""The ``rule`` of a ``tool-error`` whose answer says nothing of why (the SDK 2.x's bare "Error executing tool X"
over stdio or HTTP, with no server-side cause): the server's log holds it."""
UNMET_EXPECT_ERROR: Final = "expect_error=True, but the tool succeeded (is_error is not set)"
"""The ``tool-error`` of a call that was to fail and did not."""
ERROR_WITH_TEXT: Final = "the tool returned is_error=True with this text:\n  "
ERROR_WITHOUT_TEXT: Final = "the tool returned is_error=True and no text"
"""How a ``tool-error`` message begins; :func:`next_step` reads whether it says why."""

_UNEXPECTED_ERROR: Final = (
    "An error the test did not expect: fix the cause shown above, or pass expect_error=True if the test wants it."
)
# Over stdio or HTTP an SDK 2.x server sends only "Error executing tool X": its log holds the cause.
_UNEXPLAINED_ERROR: Final = (
    "An error the test did not expect, and the answer does not say why: look in the server's log (a stdio "
    "server's stderr is shown below the failure); fix the cause, or pass expect_error=True if the test wants it."
)
_MISSING_ERROR: Final = "An expected error that did not come: check the call's arguments, or drop expect_error."


CHECKS: Final[Mapping[CheckId, str]] = {
    "output-schema-invalid": (
        "Fix the output_schema: it must be valid JSON Schema (Draft 2020-12 unless its $schema names "
        "another), with $refs that resolve inside it and an object at the root. With MCPServer it comes "
        "from the return annotation (look at Field(json_schema_extra=...), WithJsonSchema and custom schemas). "
        "A default, const, enum or examples value must be one the schema accepts: change the value, or widen "
        "the schema."
    ),
    "input-schema-invalid": (
        "Make each default (and const, enum and examples value) one the input schema accepts, or widen the "
        "schema. With MCPServer the schema comes from the function's signature: city: str = None publishes "
        '{"type": "string", "default": null}, which refuses its own default; write city: str | None = None '
        "(or Optional[str]) if None is a value the tool takes, or give it a default of its type."
    ),
    "silent-opt-out": (
        "Return a type the SDK can describe (a BaseModel, TypedDict, dataclass or annotated class), "
        "or register the tool with structured_output=True so the SDK fails loudly. If the tool is meant "
        "to return text only, say so with structured_output=False and a serializable annotation such as "
        "-> str (pytest-mcp-contract's docs/checks.md, 'Accepting a deliberate silent-opt-out')."
    ),
    "structured-missing": (
        "Send structured_content with every successful result of a tool that declares an output_schema "
        "(MCPServer does this for you unless a hand-built CallToolResult leaves it out)."
    ),
    "structured-invalid": (
        "Make the tool return data that matches its output_schema, or change the schema (with MCPServer, "
        "the return annotation) to what the tool really returns."
    ),
    "content-mismatch": (
        "Make content say what structured_content says: a text block with its JSON (for a one-key object, its "
        "JSON or the value it wraps). With MCPServer, return the model itself rather than a dict, so that keys "
        "the schema drops and defaults it fills reach the text too."
    ),
    "content-prose": (
        "Add a text block with the JSON of structured_content beside the words (MCPServer writes it when "
        "the tool returns its value rather than a hand-built CallToolResult). This fails only because ini "
        "mcp_contract_require_json_text is true."
    ),
    "text-missing": (
        "Return a text block with the JSON of structured_content beside it, as MCP 2025-11-25 asks of a tool "
        "with structured results (MCPServer writes it when the tool returns its value; a hand-built "
        "CallToolResult must add it). If the text is left out on purpose (your clients read structured_content, "
        "as SEP-3279 proposes for the next revision), carry it for every tool with one line in "
        "mcp_contract_allow: '*:text-missing  # why'."
    ),
    "tool-error": f"{_UNEXPECTED_ERROR} {_MISSING_ERROR}",  # a failure names the half that happened
    "input-crash": (
        "Arguments the input schema allows must get an answer: a result, or a tool error (is_error) that says "
        "what went wrong; never a JSON-RPC error or silence (MCP keeps JSON-RPC errors for the protocol's own: "
        "an unknown tool, arguments the schema refuses). Validate the arguments in the tool and return a failure "
        "as a tool error; a test that wants this error passes expect_error=True."
    ),
    "stdout-noise": (
        "Over stdio, stdout carries MCP messages only: send logs and banners to stderr (Python: "
        "print(..., file=sys.stderr) or logging; Node: console.error)."
    ),
    "answer-unreadable": (
        "Write each message as one line of UTF-8 JSON: no raw bytes in strings, no lone surrogate escapes "
        "(\\ud800 alone), at most 200 levels deep, with every field the session's protocol version requires. "
        "Look at how the tool builds its result."
    ),
    "wire-invalid": (
        "Send each field as the protocol version's schema types it: a boolean as true or false, never as a "
        "string; every field it requires present (a content block's type, a tool's inputSchema); a cursor "
        "that moves on. A client that reads strictly refuses the whole message, a lenient one (the Python "
        "SDK's) guesses: look at the code that builds the message (a hand-written result or listing)."
    ),
    "tool-name-invalid": (
        "Rename the tool: 1 to 128 characters of A-Z a-z 0-9 _ - . (no spaces or other punctuation), unique "
        'in the server (MCP 2025-11-25, SEP-986); under ini mcp_contract_tool_names = "clients", also no dot and '
        "at most 64 characters. If the name must stay, carry it with 'NAME:tool-name-invalid  # why' in "
        "mcp_contract_allow."
    ),
    "breaking-change": (
        "Undo the change to the tool, so clients written against the base revision keep working; or, if the "
        "break is intended, acknowledge it for the reviewers with a line 'TOOL:breaking-change  # why clients "
        "can take it' in mcp_contract_allow "
        "(pytest-mcp-contract's docs/snapshots.md, 'Breaking changes against the base branch')."
    ),
    "hint-violated": (
        "Make the tool keep the promise its annotation makes, or drop the annotation: clients call a tool that "
        "says readOnlyHint: true without asking, and repeat one that says idempotentHint: true (a retry), "
        "trusting that nothing another tool reads changes. If the difference is a field that changes on its own "
        "(a clock, a counter), name it in mcp_contract_volatile."
    ),
}
"""Every check id, with the next step a reader should take when it fires."""

NOTED: Final[frozenset[CheckId]] = frozenset({"content-prose"})
"""Checks reported (summary, report) but failing nothing unless the project asks for them."""


def noted_checks(require_json_text: bool) -> frozenset[str]:
    """The check ids a run only notes: ``content-prose``, unless ini ``mcp_contract_require_json_text``."""
    return frozenset() if require_json_text else NOTED


@public
@dataclass(frozen=True)
class Violation:
    """One broken promise of a tool, or of the server's listing.

    ``path`` is a JSON pointer into the checked instance (``structured_content`` for result checks,
    ``output_schema`` for ``output-schema-invalid``, ``input_schema`` for ``input-schema-invalid``, the
    message as it came for ``wire-invalid``, the ``tools/list`` answer for ``tool-name-invalid``),
    ``""`` for its root, or ``None`` when the violation is not about a place in a document.
    """

    check: CheckId
    tool: str
    message: str
    path: str | None = None
    versions: tuple[str, ...] = ()
    """The protocol versions it holds for, when not for every one (a rule of one era, or a server
    that answers differently by version)."""
    subject: Subject = "tool"
    """What it is about: ``tool`` (``tool`` names it), or ``listing`` (``tool`` names the tool whose
    entry it is about, ``""`` for the listing as a whole: a cursor, a page), or ``server`` (its handshake)."""
    rule: str = field(default="", compare=False)
    """Which rule of the check it broke, as a stable name (``schema``, ``object-rule``, ``a boolean``,
    ``error-missing``): what merging findings and choosing the next step read, never the message. Not
    compared: a finding is equal to one written out by its check, tool, words and place."""
    expected: Any = field(default=None, compare=False)
    """What the rule wants at the place, where the check says it as a value (``wire-invalid``: ``a boolean``;
    ``tool-name-invalid``: the characters and length a name may have)."""
    found: Any = field(default=None, compare=False)
    """What was found there (``wire-invalid``: the value as it came, ``None`` when absent; ``tool-name-invalid``:
    the name)."""
    cause: str | None = field(default=None, compare=False)
    """What the server says caused it, where known (``tool-error`` in process: the server-side exception)."""

    def __str__(self) -> str:
        return messages.violation_line(self)

    @property
    def label(self) -> str:
        """The check id, with the versions it holds for when not every one: ``structured-invalid @ 2025-11-25``."""
        return messages.check_label(self.check, self.versions)


def next_step(violation: Violation) -> str:
    """What to do about a violation: its check's next step, for a ``tool-error`` the half that happened
    (read from its ``rule``, never from its words)."""
    if violation.check == "tool-error":
        if violation.rule == ERROR_MISSING:
            return _MISSING_ERROR
        return _UNEXPLAINED_ERROR if violation.rule == ERROR_UNEXPLAINED else _UNEXPECTED_ERROR
    return CHECKS[violation.check]


@public
class ContractViolationError(McpContractError, AssertionError):
    """A tool call broke its contract; ``.violations`` holds every :class:`Violation` found.

    It is an ``AssertionError``, so pytest reports it as a test failure, not an error.
    """

    def __init__(
        self,
        violations: Sequence[Violation],
        *,
        tool: str,
        arguments: Mapping[str, Any] | None = None,
        called: bool = True,
        listing: str | None = None,
    ) -> None:
        self.violations: list[Violation] = list(violations)
        self.tool = tool
        self.arguments = arguments
        self.listing = listing
        """The server whose ``tools/list`` answer broke the contract, for a finding about the listing."""
        if listing is not None:  # what the server's handshake and listing break (``listing``: the server's label)
            handshake = any(violation.subject == "server" for violation in self.violations)
            listed = any(violation.subject != "server" for violation in self.violations)
            text = messages.broken_listing(
                self.violations, next_step, server=listing, handshake=handshake, listing=listed
            )
            super().__init__(text)
            return
        super().__init__(
            messages.broken_contract(self.violations, next_step, tool=tool, arguments=arguments, called=called)
        )
