"""What an in-process ``MCPServer`` knows about a tool that the wire does not say.

The wire carries only a tool's ``output_schema``. The registered tool also knows its Python
return annotation, and that tells a silently lost schema from a deliberate opt-out, and which
results the SDK writes as something other than a mirror of the data. It also knows *why* a call
failed: the SDK logs the exception behind "Error executing tool X" and sends only that sentence.

Reading these facts touches SDK internals (``MCPServer._tool_manager``, ``FuncMetadata``). Where
they are missing the facts are ``None`` and the checks fall back to what the wire says.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import enum
import inspect
import logging
import os
import traceback
import types
import typing
import warnings
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final, Literal

import mcp.types
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, TypeAdapter, ValidationError
from typing_extensions import is_typeddict

from pytest_mcp_contract._jsonvalue import NOT_JSON

ContentStyle = Literal["mirror", "own", "blocks", "rendered"]
"""How the SDK writes a tool's ``content``:

* ``mirror`` -- from the returned value, so it must mirror ``structured_content``;
* ``own`` -- the tool builds its own ``CallToolResult``; content is whatever it wrote;
* ``blocks`` -- the tool returns content blocks (or ``Image``/``Audio``) that are sent as they are;
* ``rendered`` -- the value is a plain class (or a NamedTuple): the SDK writes the object
  itself (its ``str()``, or an array), not the data, so only a default repr is a defect.
"""


@dataclass(frozen=True)
class Registration:
    """The facts about one registered tool that the checks use."""

    annotation: str | None
    """The return annotation as written, or ``None`` when the function has none."""
    content: ContentStyle
    opt_out: Literal["silent", "deliberate"] | None
    """For a tool without ``output_schema``: did the SDK lose it silently, or was it asked to?"""
    _metadata: Any = dataclasses.field(repr=False, compare=False)

    def as_structured(self, value: Any) -> Any:
        """``value`` passed through the tool's output model the way the SDK builds ``structured_content``.

        Returns :data:`NOT_JSON` when the value does not fit the model (or there is none).
        """
        metadata = self._metadata
        model = getattr(metadata, "output_model", None)
        if model is None:
            return NOT_JSON
        try:
            adapter_for = getattr(metadata, "_output_adapter", None)
            adapter: TypeAdapter[Any] = adapter_for(model) if adapter_for else TypeAdapter(model)
            wrapped = {"result": value} if getattr(metadata, "wrap_output", False) else value
            validated = adapter.validate_python(wrapped, by_alias=True, by_name=True)
            if isinstance(validated, BaseModel):
                return validated.model_dump(mode="json", by_alias=True)
            return adapter.dump_python(validated, mode="json", by_alias=True)
        except (ValidationError, ValueError, TypeError, RecursionError):
            return NOT_JSON


def registration(server: object, tool_name: str) -> Registration | None:
    """The registration facts of ``tool_name`` on ``server``, or ``None`` if they cannot be read."""
    if not isinstance(server, MCPServer):
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
        return Registration(None, "mirror", None, metadata)
    if _builds_own_result(annotation):
        style: ContentStyle = "own"
    elif _mentions(annotation, _is_content_class):
        style = "blocks"
    elif _mentions(annotation, _is_rendered_class):
        style = "rendered"
    else:
        style = "mirror"
    opt_out: Literal["silent", "deliberate"] | None = None
    if getattr(metadata, "output_schema", None) is None and style in ("mirror", "rendered"):
        opt_out = "deliberate" if _auto_detect_finds_schema(registered) else "silent"
    return Registration(_annotation_text(annotation), style, opt_out, metadata)


def _auto_detect_finds_schema(registered: Any) -> bool:
    """Would the SDK, left to detect on its own, derive a schema for this function?

    If it would, yet the tool has none, the author passed ``structured_output=False``: a
    deliberate opt-out. If the SDK would refuse the annotation outright, the author had to opt
    out too. Only "auto-detect silently finds nothing" is a silent loss.
    """
    from mcp.server.mcpserver.utilities import func_metadata as module

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
    own = (mcp.types.CallToolResult, mcp.types.InputRequiredResult)
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
    from mcp.server.mcpserver.utilities.types import Audio, Image

    blocks = (*typing.get_args(mcp.types.ContentBlock), Image, Audio)
    return isinstance(candidate, type) and issubclass(candidate, blocks)


_DATA_TYPES: Final = (str, int, float, bool, bytes, type(None), dict, list, tuple, set, frozenset)


def _is_rendered_class(candidate: Any) -> bool:
    """A class the SDK describes from its annotations but writes as the object itself."""
    if not isinstance(candidate, type) or candidate in _DATA_TYPES:
        return False
    if issubclass(candidate, BaseModel | enum.Enum) or is_typeddict(candidate):
        return False
    if dataclasses.is_dataclass(candidate):
        return False
    try:
        hints = typing.get_type_hints(candidate)
    except Exception:
        return False
    return bool(hints)


def _annotation_text(annotation: Any) -> str:
    if isinstance(annotation, type):
        return annotation.__qualname__
    return repr(annotation).replace("typing.", "")


# --- why a call failed, from the server's own log ------------------------------------------------

SERVER_LOGGER: Final = "mcp.server.mcpserver.server"


class _CauseRecorder(logging.Handler):
    """Keeps the exception the SDK logs (and does not send) when a tool crashes.

    A call made through a session is marked with a context variable, which the SDK's handler
    inherits (in process it runs in the calling task), so concurrent calls of one tool keep their
    own causes. Calls made any other way are filed under the tool's name.
    """

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.causes: dict[object, BaseException] = {}

    def emit(self, record: logging.LogRecord) -> None:
        # The SDK logs `Tool %r raised an unexpected exception` with the tool name as the only arg.
        error = record.exc_info[1] if record.exc_info else None
        if error is not None and isinstance(record.args, tuple) and record.args:
            self.causes[_CALL.get() or str(record.args[0])] = error


_CALL: contextvars.ContextVar[object | None] = contextvars.ContextVar("mcp_contract_call", default=None)
_RECORDER: _CauseRecorder | None = None


def record_causes() -> None:
    """Start keeping server-side causes (once per process; costs nothing until a tool crashes)."""
    global _RECORDER  # noqa: PLW0603 - one handler per process, whatever the number of sessions
    if _RECORDER is None:
        _RECORDER = _CauseRecorder()
        logging.getLogger(SERVER_LOGGER).addHandler(_RECORDER)


@contextlib.contextmanager
def marked_call() -> Iterator[object]:
    """Mark the calls made inside (in this task) so their causes are kept apart from others'."""
    key = object()
    token = _CALL.set(key)
    try:
        yield key
    finally:
        _CALL.reset(token)


def take_cause(server: object, key: object) -> str | None:
    """The server-side cause recorded for a marked call (or, given a name, the tool's last one)."""
    return take_cause_and_origin(server, key)[0]


def take_cause_and_origin(server: object, key: object) -> tuple[str | None, bool]:
    """:func:`take_cause`, and whether the SDK raised it refusing the tool's return value (checking
    it against the output model, in ``convert_result``) rather than the tool itself crashing."""
    if _RECORDER is None or not isinstance(server, MCPServer):
        return None, False
    error = _RECORDER.causes.pop(key, None)
    if error is not None:
        return describe_cause(error), _refused_return(error)
    if not logging.getLogger(SERVER_LOGGER).isEnabledFor(logging.ERROR):
        return (
            "not recorded: the log level hides the SDK's error log, where the cause is written "
            "(create the MCPServer with log_level='ERROR' or lower to see it here)"
        ), False
    return None, False


def _refused_return(error: BaseException) -> bool:
    inner = error.__cause__ or error
    # walk_tb, not extract_tb: no source lines read, on every crash in process.
    return any(frame.f_code.co_name == "convert_result" for frame, _line in traceback.walk_tb(inner.__traceback__))


def describe_cause(error: BaseException) -> str:
    """The innermost exception behind the SDK's wrapper: its type, its message and where it was raised."""
    seen: set[int] = set()
    while error.__cause__ is not None and id(error) not in seen:
        seen.add(id(error))
        error = error.__cause__
    if isinstance(error, ValidationError):
        problems = "; ".join(
            f"{'.'.join(str(part) for part in item['loc']) or '(root)'}: {item['msg']}" for item in error.errors()[:5]
        )
        text = f"ValidationError ({error.title}): {problems}"
    else:
        text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    where = _raised_at(error)
    return f"{text} (raised at {where})" if where else text


def _raised_at(error: BaseException) -> str | None:
    """The last frame of the traceback that is the server author's code, not a library's."""
    last = None
    tb = error.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if f"{os.sep}site-packages{os.sep}" not in filename and "<frozen" not in filename:
            last = f"{_short_path(filename)}:{tb.tb_lineno} in {tb.tb_frame.f_code.co_name}"
        tb = tb.tb_next
    return last


def _short_path(filename: str) -> str:
    try:
        relative = os.path.relpath(filename)
    except ValueError:
        return filename
    return filename if relative.startswith("..") else relative
