"""What a tool's annotations promise about the state other tools read, as values to compare.

A chain of calls (``_fuzz.sequences``) sees the server's state only through its read-only tools: an
*observation* is what one such call answered. ``readOnlyHint: true`` promises that calling the tool
changes no observation; ``idempotentHint: true`` that a second call with the same arguments changes none
the first call left. The tool's own answer is not compared (a second delete may say "already gone").

A place that changes between two observations with nothing in between (a clock, a counter) proves
nothing, and neither does a key the project names as volatile: both are left out of the comparison.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal

from pytest_mcp_contract._contract.answer import Answer, Outcome
from pytest_mcp_contract._contract.shapes import answer_value
from pytest_mcp_contract._json.value import differences

if TYPE_CHECKING:
    from mcp_types import Tool

Hint = Literal["readOnlyHint", "idempotentHint"]

_LIMIT: Final = 20
"""At most this many places that differ are told; one is enough to break the promise."""
_VOLATILE_LIMIT: Final = 100_000
"""Every place that changes on its own is left out, however many."""


def hint_of(tool: Tool) -> Hint | None:
    """The promise a call of ``tool`` is checked against: ``readOnlyHint`` where it says so (a JSON
    ``true`` only: a malformed hint is no hint), else ``idempotentHint``; ``None``: it promises neither."""
    hints = tool.annotations
    if hints is None:
        return None
    if hints.read_only_hint is True:
        return "readOnlyHint"
    return "idempotentHint" if hints.idempotent_hint is True else None


def reads_only(tool: Tool) -> bool:
    return hint_of(tool) == "readOnlyHint"


@dataclass(frozen=True)
class Observation:
    """What one read-only call answered, as compared: ``value`` is its structured content, else its
    one JSON text block, else its texts; ``error`` whether it was a tool error."""

    error: bool
    value: Any
    structured: bool
    """The value is the structured content (else the JSON or the words of its text)."""

    @property
    def compared(self) -> Any:
        return {"error": self.error, "value": self.value}


def observation(outcome: Outcome) -> Observation | None:
    """What ``outcome`` shows of the state, or ``None`` when no answer came (nothing to compare)."""
    if not isinstance(outcome, Answer):
        return None
    result = outcome.result
    value = answer_value(result)
    if value is None:
        value = [getattr(block, "text", getattr(block, "type", None)) for block in result.content]
    return Observation(bool(result.is_error), value, result.structured_content is not None)


def volatile(first: Observation, second: Observation) -> list[str]:
    """The places that changed between two observations with no call in between: they change on their own."""
    return [place for place, _a, _b in differences(first.compared, second.compared, _VOLATILE_LIMIT)]


def changed(
    before: Observation, after: Observation, *, ignored: Collection[str] = (), names: Collection[str] = ()
) -> list[tuple[str, Any, Any]]:
    """The places where ``after`` differs from ``before`` (pointers into :attr:`Observation.compared`),
    leaving out those under an ``ignored`` pointer and those under a key the project ``names`` volatile."""
    return [
        (place, was, now)
        for place, was, now in differences(before.compared, after.compared, _LIMIT)
        if not _left_out(place, ignored, names)
    ]


def _left_out(place: str, ignored: Collection[str], names: Collection[str]) -> bool:
    """Whether ``place`` is under an ``ignored`` place, or under a volatile key ``names`` gives: a key
    name anywhere (``checked_at``), or a pointer into the answer's value (``/stats/checked_at``)."""
    if any(_under(place, prefix) for prefix in ignored):
        return True
    inner = place.removeprefix("/value")
    keys = {part.replace("~1", "/").replace("~0", "~") for part in inner.split("/")[1:]}
    return any(_under(inner, name) if name.startswith("/") else name in keys for name in names)


def _under(place: str, prefix: str) -> bool:
    return place == prefix or place.startswith(prefix + "/")
