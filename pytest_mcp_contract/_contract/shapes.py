"""Observed shapes: for each tool whose output schema tells no keys, the shape its answers had this run.

A tool that publishes no output schema, or an open one (``{"type": "object"}`` and nothing that names a
key), promises nothing a client could rely on; what its answers had is the next best thing to review.
Every answer the sessions judge (a test's call, a case, a generated call, another client's) adds its
value: the structured content, else the one text block that holds a JSON object or array. A tool error
adds nothing: it is no output. The shape is an observation, never a promise (``_json.shape``).

Under pytest-xdist each worker observes its own answers and the controller merges them
(:meth:`ObservedShapes.to_json`, :meth:`ObservedShapes.merge`), as contract coverage does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contract._contract.answer import Answer
from pytest_mcp_contract._json.schemaform import ANNOTATIONS, accepts_all
from pytest_mcp_contract._json.shape import Shape
from pytest_mcp_contract._json.value import parse

if TYPE_CHECKING:
    from mcp_types import CallToolResult

OBSERVED_KEY: Final = "observed_output_schema"
"""The snapshot field that holds a tool's observed shape, beside its published ``output_schema``."""
OBSERVED_NOTE: Final = (
    "Observed: inferred by pytest-mcp-contract from the answers its runs saw. The server publishes none of it; "
    "no client may rely on it."
)
"""The ``$comment`` every observed shape carries, so no reader mistakes it for a promise."""

_OPEN_KEYS: Final = ANNOTATIONS | {"type", "$schema", "$id", "additionalProperties", "properties", "required"}


def is_open(schema: Any) -> bool:
    """Whether an output schema names no key a client could read: absent, ``{}``, ``{"type": "object"}``,
    or one that only allows any further key (``additionalProperties: true``; zod's ``z.object({})
    .passthrough()`` says ``properties: {}`` too)."""
    if schema is None:
        return True
    if not isinstance(schema, dict) or set(schema) - _OPEN_KEYS:
        return False
    if schema.get("properties", {}) != {} or schema.get("required", []) != []:
        return False
    if schema.get("type", "object") != "object":
        return False
    return accepts_all(schema.get("additionalProperties", True))


def answer_value(result: CallToolResult) -> Any | None:
    """The value an answer's shape is read from: its structured content, else its one text block that
    holds a JSON object or array (``None``: neither; prose, or several such blocks)."""
    if result.structured_content is not None:
        return result.structured_content
    found = []
    for block in result.content:
        text = getattr(block, "text", None)
        if getattr(block, "type", None) == "text" and isinstance(text, str):
            value = parse(text)
            if isinstance(value, dict | list):
                found.append(value)
    return found[0] if len(found) == 1 else None


@dataclass
class ToolShape:
    """What one tool's answers looked like: the shape of those with a value, and how many had none."""

    shape: Shape = field(default_factory=Shape)
    without: int = 0
    """Answers with no value to read a shape from (prose only, or nested beyond the bound)."""

    @property
    def answers(self) -> int:
        return self.shape.values + self.without


class ObservedShapes:
    """The run's observed shapes, per (server, tool)."""

    def __init__(self) -> None:
        self.tools: dict[tuple[str, str], ToolShape] = {}
        self._last: object = None
        """The last answer added: another version's session reading the same answer adds nothing."""

    def answered(self, server: str, tool: str, schema: Any, outcome: object) -> None:
        """One answer a session judged, of a tool whose output schema is ``schema``."""
        if not isinstance(outcome, Answer) or outcome.result.is_error or not is_open(schema):
            return
        if outcome is self._last:
            return
        self._last = outcome
        entry = self.tools.setdefault((server, tool), ToolShape())
        value = answer_value(outcome.result)
        if value is None or not entry.shape.add(value):
            entry.without += 1

    def schema(self, server: str, tool: str) -> dict[str, Any] | None:
        """The observed shape of ``tool``'s answers, marked as observed (``None``: no answer had a value)."""
        entry = self.tools.get((server, tool))
        if entry is None or not entry.shape.values:
            return None
        return {"$comment": OBSERVED_NOTE, **entry.shape.schema()}

    def to_json(self) -> list[dict[str, Any]]:
        return [
            {
                "server": server,
                "tool": tool,
                "schema": entry.shape.for_merge(),
                "values": entry.shape.values,
                "without": entry.without,
            }
            for (server, tool), entry in self.tools.items()
        ]

    def merge(self, data: list[dict[str, Any]]) -> None:
        """Add what another process (an xdist worker) observed."""
        for tool in data:
            entry = self.tools.setdefault((tool["server"], tool["tool"]), ToolShape())
            entry.shape.merge(tool["schema"], tool["values"])
            entry.without += tool["without"]
