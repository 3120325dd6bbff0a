"""A failing sequence as a pytest test a user can paste and keep: the same calls through the
``mcp_contract`` fixture, with the values that came from earlier answers taken from those answers.

``note = mcp_contract.call_tool("create_note", {...}).structured_content`` and then ``{"id": note["id"]}``,
so the test still works when the server hands out other ids. A broken promise ends in an ``assert``
that compares the two reads, at the place that changed when the reads had places that change on their own.
"""

from __future__ import annotations

import json
import keyword
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contract._messages import python_literal
from pytest_mcp_contract._sdk.release import MAJOR

if TYPE_CHECKING:
    from pytest_mcp_contract._fuzz.sequences import Call, Comparison, Failure

_TAKEN: Final = frozenset({"mcp_contract", "mcp_contract_sandbox", "json", "before", "after", "once", "twice"})
STRUCTURED: Final = "structured_content" if MAJOR >= 2 else "structuredContent"
"""The result's attribute as the installed SDK names it."""


def replay_test(failure: Failure, *, sandboxed: bool, name: str = "test_sequence") -> list[str]:
    """The lines of a test that makes ``failure``'s calls again and fails as it did."""
    from pytest_mcp_contract._fuzz.sequences import names_match

    calls = failure.calls
    comparison = failure.comparison
    compared: dict[int, str] = {}
    if comparison is not None:
        first, second = ("before", "after") if comparison.hint == "readOnlyHint" else ("once", "twice")
        compared = {comparison.before: first, comparison.after: second}
    variables: dict[int, str] = dict(compared)
    sources: list[dict[str, str]] = []
    for index, call in enumerate(calls):
        taken: dict[str, str] = {}
        for key, value in call.arguments.items():
            found = _source(calls[:index], key, value, names_match)
            if found is not None:
                earlier, place = found
                if earlier not in variables:
                    variables[earlier] = _variable(calls[earlier].tool, variables.values())
                taken[key] = variables[earlier] + _subscript(place, calls[earlier].value)
        sources.append(taken)
    uses_json = False
    body: list[str] = []
    last = len(calls) - 1
    for index, call in enumerate(calls):
        shown = ", ".join(
            f"{json.dumps(key, ensure_ascii=False)}: {sources[index].get(key) or python_literal(value)}"
            for key, value in call.arguments.items()
        )
        broke_here = index == last and comparison is None
        # The read after the call expects what the read before it got: a kept promise passes either way.
        after = comparison is not None and index == comparison.after
        expected = calls[comparison.before].error if comparison is not None and after else call.error
        error = ", expect_error=True" if expected and not broke_here else ""
        made = f"mcp_contract.call_tool({json.dumps(call.tool, ensure_ascii=False)}, {{{shown}}}{error})"
        variable = variables.get(index)
        if variable is None:
            if not call.read or broke_here:  # a read that only checked a promise, and proved nothing here
                body.append(made)
            continue
        if call.value is not None and call.text_block is not None:
            uses_json = True
            read = f"json.loads({made}.content[{call.text_block}].text)"
        elif call.value is not None or (index in compared and comparison is not None and comparison.structured):
            read = f"{made}.{STRUCTURED}"
        elif index in compared:  # words, or a tool error: what the model reads
            read = f"[getattr(block, 'text', None) for block in {made}.content]"
        else:
            read = f"{made}.content"
        body.append(f"{variable} = {read}")
    if comparison is not None:
        first, second = compared[comparison.before], compared[comparison.after]
        words = json.dumps(f"hint-violated: {comparison.tool} says {comparison.hint}: true", ensure_ascii=False)
        held = calls[comparison.before].value
        body.append(f"assert {_compared(second, comparison, held)} == {_compared(first, comparison, held)}, {words}")
    fixtures = "mcp_contract_sandbox, mcp_contract" if sandboxed else "mcp_contract"
    lines = [*(["import json", "", ""] if uses_json else []), f"def {name}({fixtures}):"]
    return lines + [f"    {line}" for line in body]


def _source(earlier: Sequence[Call], key: str, value: Any, names_match: Any) -> tuple[int, str] | None:
    """The first earlier answer that returned ``value`` under a name that matches ``key`` (where it came
    from: ``create_note``, not a later listing that shows it again): its index and place."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    for index in range(len(earlier)):
        place = _find(earlier[index].value, key, value, names_match)
        if place is not None:
            return index, place
    return None


def _find(held: Any, key: str, value: Any, names_match: Any) -> str | None:
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(held, ())]
    while stack:
        item, path = stack.pop(0)
        if isinstance(item, dict):
            for name, inner in item.items():
                if type(inner) is type(value) and inner == value and names_match(key, name):
                    return "/".join(["", *(str(part) for part in (*path, name))]) if path or name else ""
                stack.append((inner, (*path, name)))
        elif isinstance(item, list):
            stack.extend((inner, (*path, position)) for position, inner in enumerate(item))
    return None


def _subscript(place: str, held: Any) -> str:
    """``/notes/0/id`` as ``["notes"][0]["id"]``: a part is an index where ``held`` has a list there, else a
    key (``"2024"`` stays a string key in an object)."""
    if not place:
        return ""
    parts = [part.replace("~1", "/").replace("~0", "~") for part in place.split("/")[1:]]
    shown = []
    for part in parts:
        if isinstance(held, list) and part.isdigit():
            shown.append(f"[{part}]")
            held = held[int(part)] if int(part) < len(held) else None
        else:
            shown.append(f"[{json.dumps(part, ensure_ascii=False)}]")
            held = held.get(part) if isinstance(held, dict) else None
    return "".join(shown)


def _compared(variable: str, comparison: Comparison, held: Any) -> str:
    """What the assert compares of a read: all of it, unless places of it change on its own; then the
    place that changed (a key read with ``.get``, as it may be absent; an item of a list, the list)."""
    place = comparison.place
    if not comparison.masked or not place or held is None:
        return variable
    parent, _, last = place.rpartition("/")
    container: Any = held
    for part in [part.replace("~1", "/").replace("~0", "~") for part in parent.split("/")[1:]]:
        if isinstance(container, list) and part.isdigit() and int(part) < len(container):
            container = container[int(part)]
        else:
            container = container.get(part) if isinstance(container, dict) else None
    if not isinstance(container, dict):
        return variable + _subscript(parent, held)
    key = last.replace("~1", "/").replace("~0", "~")
    return f"{variable}{_subscript(parent, held)}.get({json.dumps(key, ensure_ascii=False)})"


def _variable(tool: str, taken: Any) -> str:
    """A name for an answer a later call draws on, from its tool's name (``create_note`` -> ``note``)."""
    words = [word for word in re.split(r"[^A-Za-z0-9]+|(?<=[a-z])(?=[A-Z])", tool) if word]
    base = words[-1].lower() if words else "answer"
    if not base.isidentifier() or keyword.iskeyword(base) or base[0].isdigit():
        base = "answer"
    used = set(taken) | _TAKEN
    name, number = base, 2
    while name in used:
        name, number = f"{base}_{number}", number + 1
    return name
