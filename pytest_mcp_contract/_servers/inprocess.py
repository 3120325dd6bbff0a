"""What an in-process ``MCPServer`` knows about a tool that the wire does not say.

The wire carries only a tool's ``output_schema``. The registered tool also knows its Python
return annotation, and that tells a silently lost schema from a deliberate opt-out. It also knows
*why* a call failed: the SDK logs the exception behind "Error executing tool X" and sends only
that sentence. These facts add findings and causes; they never excuse what the wire shows.

Reading these facts touches SDK internals (``MCPServer._tool_manager``, ``FuncMetadata``). Where
they are missing the facts are ``None`` and the checks fall back to what the wire says.
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
import logging
import os
import traceback
import types
import typing
import warnings
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final, Literal

import mcp.types
from pydantic import ValidationError

from pytest_mcp_contract._sdk import servers as sdk_servers
from pytest_mcp_contract._sdk.observe import Seen, watch
from pytest_mcp_contract._sdk.servers import HighLevelServer


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


# --- why a call failed, from the server's own log ------------------------------------------------

SERVER_LOGGER: Final = sdk_servers.CAUSE_LOGGER


class _CauseRecorder(logging.Filter):
    """Keeps the exception the SDK logs (and does not send) when a tool crashes.

    A call made through a session is marked with a context variable, which the SDK's handler
    inherits (in process it runs in the calling task), so concurrent calls of one tool keep their
    own causes; the failure then tells the cause, so the log record goes no further (its traceback
    would be printed twice more, as captured stderr and as captured log, mostly the SDK's frames).
    Calls made any other way are filed under the tool's name, and logged as usual.
    """

    def __init__(self) -> None:
        super().__init__()
        self.causes: dict[object, BaseException] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        # The SDK logs `Tool %r raised an unexpected exception` with the tool name as the only arg.
        error = record.exc_info[1] if record.exc_info else None
        if record.levelno < logging.ERROR or error is None or not (isinstance(record.args, tuple) and record.args):
            return True
        call = _CALL.get()
        self.causes[call or str(record.args[0])] = error
        return call is None


_CALL: contextvars.ContextVar[object | None] = contextvars.ContextVar("mcp_contract_call", default=None)
_RECORDER: _CauseRecorder | None = None


def record_causes() -> None:
    """Start keeping server-side causes (once per process; costs nothing until a tool crashes), and
    drop mcp 1.x's INFO line for each request, which its FastMCP printed twice (``_sdk.servers``)."""
    global _RECORDER  # noqa: PLW0603 - one handler per process, whatever the number of sessions
    if _RECORDER is None:
        _RECORDER = _CauseRecorder()
        logging.getLogger(SERVER_LOGGER).addFilter(_RECORDER)
        sdk_servers.quiet_request_log()


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
    if _RECORDER is None or not sdk_servers.LOGS_CAUSES or not isinstance(server, HighLevelServer):
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
    """Only the output model's validation failing is a refusal: anything else raised while the SDK
    converts the value (an ``Image`` whose file is missing) is a crash like any other."""
    inner = error.__cause__ or error
    if not isinstance(inner, ValidationError):
        return False
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


def watch_calls(server: object, seen: Callable[[Seen], None]) -> Callable[[], None] | None:
    """Call ``seen`` with every ``tools/call`` an in-process ``server`` answers to a client other than
    the plugin's own sessions (whose calls are judged where they are made); returns what stops it, or
    ``None`` for a server this cannot watch (outside this process, or mcp 1.x)."""
    from pytest_mcp_contract._servers.kinds import connectable

    inner = connectable(server)
    lowlevel = getattr(inner, "_lowlevel_server", inner) if isinstance(inner, HighLevelServer) else inner
    if not isinstance(lowlevel, sdk_servers.LowLevelServer):
        return None
    if isinstance(server, HighLevelServer):
        record_causes()  # a crash's cause, for the message, as for the plugin's own calls

    def others(call: Seen) -> None:
        if _CALL.get() is None:  # a call the plugin made runs inside marked_call()
            seen(call)

    return watch(lowlevel, others)
