"""A test's arguments to a tool: a dict, and one the tool's ``input_schema`` accepts, as the judge reads it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._contract.checks import argument_errors
from pytest_mcp_contract._errors import InvalidArgumentsError
from pytest_mcp_contract._json.value import pointer


def check_arguments(name: str, schema: dict[str, Any], arguments: dict[str, Any] | None) -> None:
    """Raise :class:`InvalidArgumentsError` for arguments the tool's ``input_schema`` refuses, as the
    judge reads them (``checks.argument_errors``: a schema or pattern it cannot read refuses nothing)."""
    __tracebackhide__ = True
    found = argument_errors(schema, arguments)
    if found:
        problems = [*_unknown(schema, arguments), *((error.path, error.message) for error in found)]
        raise InvalidArgumentsError(name, arguments, problems)


def _unknown(schema: dict[str, Any], arguments: dict[str, Any] | None) -> list[tuple[str, str]]:
    """Given names the schema does not know, in arguments it refuses anyway: (pointer, why). A name
    close to a property not given is named as that one's likely typo; any other unknown name only
    where it is likely the refusal's reason (the schema is closed, or a required one is missing)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict) or "patternProperties" in schema:
        return []  # names the schema may accept by pattern, or that it does not list
    given = arguments or {}
    missing = [key for key in properties if key not in given]
    required = schema.get("required")
    closed = schema.get("additionalProperties") is False
    lacking = isinstance(required, list) and any(key not in given for key in required)
    found = []
    for name in given:
        if name in properties:
            continue
        close = messages.meant(name, missing)
        if close:
            found.append((pointer((name,)), f"the input_schema has no {name!r}: did you mean {close!r}?"))
        elif properties and (closed or lacking):
            named = ", ".join(list(properties)[:10]) + (", …" if len(properties) > 10 else "")
            found.append((pointer((name,)), f"the input_schema has no {name!r}: its arguments are: {named}"))
        elif closed:
            found.append((pointer((name,)), f"the input_schema has no {name!r}: it takes no arguments"))
    return found


def arguments_dict(name: str, arguments: object) -> dict[str, Any] | None:
    """Tool arguments are a JSON object; say so at the call, not as a server error later."""
    __tracebackhide__ = True  # the test's own call is the frame to show
    if arguments is None or isinstance(arguments, dict):
        return arguments
    if isinstance(arguments, Mapping):
        return dict(arguments)
    raise TypeError(
        f"arguments for tool {name!r} must be a dict of argument names to values, "
        f"got {type(arguments).__name__}: {arguments!r:.80}"
    )
