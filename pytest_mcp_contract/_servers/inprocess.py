"""What an in-process ``MCPServer`` knows about a tool that the wire does not say.

The wire carries only a tool's ``output_schema``. The registered tool also knows its Python
return annotation, and that tells a silently lost schema from a deliberate opt-out (why a call
failed is read from its log: ``_servers.causes``). These facts add findings; they never excuse
what the wire shows. Calls other clients make are watched here too.

Reading these facts touches SDK internals (``MCPServer._tool_manager``, ``FuncMetadata``). Where
they are missing the facts are ``None`` and the checks fall back to what the wire says.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import types
import typing
import warnings
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import mcp.types

from pytest_mcp_contract._sdk import servers as sdk_servers
from pytest_mcp_contract._sdk.observe import Seen, watch
from pytest_mcp_contract._sdk.servers import HighLevelServer
from pytest_mcp_contract._servers.causes import causes_of, marked


@dataclass(frozen=True)
class Registration:
    """The facts about one registered tool that the checks use."""

    annotation: str | None
    """The return annotation as written, or ``None`` when the function has none."""
    opt_out: Literal["silent", "deliberate"] | None
    """For a tool without ``output_schema``: did the SDK lose it silently, or was it asked to?"""


def registration(server: object, tool_name: str) -> Registration | None:
    """The registration facts of ``tool_name`` on ``server``, or ``None`` if they cannot be read."""
    if not isinstance(server, HighLevelServer):
        return None
    manager = getattr(server, "_tool_manager", None)
    registered = getattr(manager, "get_tool", lambda _name: None)(tool_name)
    if registered is None:
        return None
    known = _CACHE.setdefault(server, {})
    hit = known.get(tool_name)
    if hit is not None and hit[0] is registered:
        return hit[1]
    facts = _read_registration(registered)
    known[tool_name] = (registered, facts)
    return facts


_CACHE: weakref.WeakKeyDictionary[object, dict[str, tuple[object, Registration | None]]] = weakref.WeakKeyDictionary()


def _read_registration(registered: Any) -> Registration | None:
    fn = getattr(registered, "fn", None)
    metadata = getattr(registered, "fn_metadata", None)
    if fn is None or metadata is None:
        return None
    try:
        annotation = inspect.signature(fn, eval_str=True).return_annotation
    except (TypeError, ValueError, NameError):
        return None
    if annotation is inspect.Signature.empty:
        return Registration(None, None)
    # A hand-built CallToolResult or content blocks carry no schema by design: no opt-out to judge.
    by_design = _builds_own_result(annotation) or _mentions(annotation, _is_content_class)
    opt_out: Literal["silent", "deliberate"] | None = None
    if getattr(metadata, "output_schema", None) is None and not by_design:
        opt_out = "deliberate" if _auto_detect_finds_schema(registered) else "silent"
    return Registration(_annotation_text(annotation), opt_out)


def _auto_detect_finds_schema(registered: Any) -> bool:
    """Would the SDK, left to detect on its own, derive a schema for this function?

    If it would, yet the tool has none, the author passed ``structured_output=False``: a
    deliberate opt-out. If the SDK would refuse the annotation outright, the author had to opt
    out too. Only "auto-detect silently finds nothing" is a silent loss.
    """
    module = sdk_servers.func_metadata()
    skip = [name for name in (getattr(registered, "context_kwarg", None),) if name]
    skip.extend(getattr(registered, "resolved_params", {}) or {})
    quiet = logging.getLogger(module.__name__)
    was_disabled, quiet.disabled = quiet.disabled, True
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            derived = module.func_metadata(registered.fn, skip_names=skip, structured_output=None)
    except Exception:
        return True
    finally:
        quiet.disabled = was_disabled
    return derived.output_schema is not None


def _core(annotation: Any) -> Any:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _arms(annotation: Any) -> tuple[Any, ...]:
    core = _core(annotation)
    if typing.get_origin(core) in (typing.Union, types.UnionType):
        return tuple(_core(arm) for arm in typing.get_args(core))
    return (core,)


def _builds_own_result(annotation: Any) -> bool:
    """``-> CallToolResult`` (bare or ``Annotated``), possibly with ``InputRequiredResult`` arms."""
    own = tuple(
        getattr(mcp.types, name) for name in ("CallToolResult", "InputRequiredResult") if hasattr(mcp.types, name)
    )
    arms = [arm for arm in _arms(annotation) if arm is not type(None)]
    return bool(arms) and all(isinstance(arm, type) and issubclass(arm, own) for arm in arms)


def _mentions(annotation: Any, predicate: typing.Callable[[Any], bool]) -> bool:
    """Whether ``predicate`` holds for the annotation or any type inside it (unions, containers)."""
    stack, seen = [annotation], 0
    while stack and seen < 1000:
        seen += 1
        current = _core(stack.pop())
        if predicate(current):
            return True
        stack.extend(typing.get_args(current))
    return False


def _is_content_class(candidate: Any) -> bool:
    blocks = (*typing.get_args(mcp.types.ContentBlock), *sdk_servers.content_helpers())
    return isinstance(candidate, type) and issubclass(candidate, blocks)


def _annotation_text(annotation: Any) -> str:
    if isinstance(annotation, type):
        return annotation.__qualname__
    return repr(annotation).replace("typing.", "")


def watch_calls(server: object, seen: Callable[[Seen], None]) -> Callable[[], None] | None:
    """Call ``seen`` with every ``tools/call`` an in-process ``server`` answers to a client other than
    the plugin's own sessions (whose calls are judged where they are made); returns what stops it, or
    ``None`` for a server this cannot watch (outside this process, or mcp 1.x)."""
    from pytest_mcp_contract._servers.kinds import connectable

    inner = connectable(server)
    lowlevel = getattr(inner, "_lowlevel_server", inner) if isinstance(inner, HighLevelServer) else inner
    if not isinstance(lowlevel, sdk_servers.LowLevelServer):
        return None

    def others(call: Seen) -> None:
        if not marked():  # a call the plugin made runs inside marked_call()
            seen(call)

    stop = watch(lowlevel, others)
    if stop is None:
        return None
    kept = contextlib.ExitStack()
    causes = causes_of(server)
    if causes is not None:  # a crash's cause, for the message, as for the plugin's own calls
        kept.enter_context(causes.kept())
    kept.callback(stop)
    return kept.close
