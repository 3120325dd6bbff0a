"""The client's side of the conversation: its callbacks, the rounds of an ``InputRequiredResult``,
and how a request the client cannot answer is told apart from a broken server.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

import mcp.types

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._client import CALLBACKS
from pytest_mcp_contract._errors import ClientCapabilityError
from pytest_mcp_contract._sdk.client import client_keywords, extension_class
from pytest_mcp_contract._sdk.release import SDK_VERSION

if TYPE_CHECKING:
    import mcp_types
    from mcp.client.session import ClientSession


def client_callbacks(callbacks: object) -> dict[str, Any]:
    """The callbacks as the SDK's client takes them, without the ``None`` ones. What it cannot take (a key
    it does not know, a value of the wrong kind) is a ``TypeError`` now, saying which and how to fix it,
    rather than a failure of the SDK's when the session opens."""
    if callbacks is None:
        return {}
    if not isinstance(callbacks, Mapping):
        raise TypeError(messages.callbacks_not_a_dict(callbacks))
    given: dict[str, Any] = dict(callbacks)
    taken = client_keywords()
    unknown = [key for key in given if key not in CALLBACKS]
    if unknown:
        accepted = [key for key in CALLBACKS if key in taken]
        meant = {str(key): messages.meant(str(key), accepted) for key in unknown}
        raise TypeError(messages.callbacks_unknown(meant, accepted))
    lacking = [key for key in given if key not in taken]
    if lacking:
        raise TypeError(messages.callbacks_not_taken(lacking, SDK_VERSION))
    for key, value in given.items():
        if value is not None and not _of_its_kind(key, value):
            raise TypeError(messages.callback_wrong_kind(key, value))
    return {key: value for key, value in given.items() if value is not None}


def _of_its_kind(key: str, value: object) -> bool:
    if key == "sampling_capabilities":
        return isinstance(value, mcp.types.SamplingCapability)
    if key == "extensions":
        extension = extension_class()
        # A mapping or a string is iterable too, and the SDK would take it apart or refuse it at connect.
        if not isinstance(value, list | tuple):
            return False
        return extension is None or all(isinstance(one, extension) for one in value)
    return callable(value)


# Each capability a server may ask the client for: the SDK client's callback that gives it, the request
# that asks for it, and what the SDK client answers that request with when it has no such callback.
_ASKED: Final = (
    ("elicitation", "elicitation_callback", "ElicitRequest", "Elicitation not supported"),
    ("sampling", "sampling_callback", "CreateMessageRequest", "Sampling not supported"),
    ("roots", "list_roots_callback", "ListRootsRequest", "List roots not supported"),
)

CALLBACK_FOR: Final = {capability: callback for capability, callback, _request, _refusal in _ASKED}
"""The SDK client's callback behind each capability."""

CAPABILITY_OF: Final = {request: capability for capability, _callback, request, _refusal in _ASKED}
"""The capability each input request (by its class) asks for."""

REFUSALS: Final = {refusal: capability for capability, _callback, _request, refusal in _ASKED}
"""What the SDK client answers a server's request with when it has no callback for it."""


def missing(tool: str, required: Mapping[str, object], said: str, given: Mapping[str, Any]) -> str:
    """The message for a tool that needs capabilities the client does not declare (``required``: each
    capability's name with the server's value for it; under ``extensions``, the identifiers), naming the
    hook's keys that give them (beside the ``given`` ones), or saying the installed SDK's client cannot."""
    taken = client_keywords()
    names: list[str] = []
    give: list[str] = []
    cannot: list[str] = []
    for name, value in required.items():
        wanted = value if isinstance(value, Mapping) else {}
        capability = name
        if capability == "extensions":
            keys = ["extensions"]
        elif capability == "sampling" and wanted.get("tools") is not None:
            # Sampling with tools: a callback alone declares sampling without them.
            capability = "sampling.tools"
            keys = [key for key in ("sampling_callback",) if key not in given] + ["sampling_capabilities"]
        else:
            keys = [key for key in (CALLBACK_FOR.get(capability),) if key is not None]
        names.append(capability)
        if keys and all(key in taken for key in keys):
            give += keys
        else:
            cannot.append(capability)
    asked = required.get("extensions")
    extensions = [str(name) for name in asked] if isinstance(asked, Mapping) else []
    return messages.capability_missing(
        tool, names, said, extensions=extensions, give=give, cannot=cannot, sdk=SDK_VERSION, adding=bool(given)
    )


async def answer_round(
    session: ClientSession,
    callbacks: Mapping[str, Any],
    name: str,
    asked: mcp_types.InputRequiredResult,
    round_number: int,
) -> dict[str, Any]:
    """The client's answers to one round's input requests, by key; one it cannot give stops the call."""
    __tracebackhide__ = True
    from mcp.client.session import ClientRequestContext  # mcp 2.x: rounds exist from 2026-07-28 only

    answers: dict[str, Any] = {}
    for key, request in (asked.input_requests or {}).items():
        capability = CAPABILITY_OF.get(type(request).__name__, type(request).__name__)
        where = (name, round_number, key, request, capability)
        if CALLBACK_FOR.get(capability, capability) not in callbacks:
            raise _unanswered(*where, declined="", adding=bool(callbacks))
        meta = request.params.meta if request.params is not None else None
        try:
            answer = await session.dispatch_input_request(
                ClientRequestContext(session=session, request_id=key, meta=meta), request
            )
        except Exception as error:  # the user's callback failed: the test's set-up, not the server
            raise _unanswered(*where, declined=f"raised {type(error).__name__}: {error}", adding=True) from error
        if isinstance(answer, mcp.types.ErrorData):
            raise _unanswered(*where, declined=answer.message, adding=True)
        answers[key] = answer
    return answers


def _unanswered(
    name: str, round_number: int, key: str, request: object, capability: str, *, declined: str, adding: bool
) -> ClientCapabilityError:
    """The error for an input request of a round the client did not answer (``declined``: what its callback said)."""
    callback = CALLBACK_FOR.get(capability)
    what = asked_for(request)
    if declined and callback is not None:
        told = messages.round_declined(name, round_number, key, what, callback=callback, declined=declined)
    else:
        give = [callback] if callback is not None and callback in client_keywords() else []
        told = messages.round_unanswered(
            name, round_number, key, what, capability=capability, give=give, sdk=SDK_VERSION, adding=adding
        )
    return ClientCapabilityError(name, told)


def recording(callbacks: dict[str, Any], refusals: list[tuple[str, str]]) -> dict[str, Any]:
    """The callbacks, each noting in ``refusals`` (capability, why) when it declines or fails: a tool
    that fails on such an answer failed on the test's callback, not on its own."""
    wrapped = dict(callbacks)
    for capability, keyword in CALLBACK_FOR.items():
        callback = callbacks.get(keyword)
        if callback is not None:
            wrapped[keyword] = _recorded(capability, callback, refusals)
    return wrapped


def _recorded(capability: str, callback: Any, refusals: list[tuple[str, str]]) -> Any:
    async def answer(*args: Any) -> Any:
        try:
            given = await callback(*args)
        except Exception as error:
            refusals.append((capability, f"raised {type(error).__name__}: {error}"))
            raise
        if isinstance(given, mcp.types.ErrorData):
            refusals.append((capability, f"declined: {given.message}"))
        return given

    return answer


def refused_capability(text: str, callbacks: Mapping[str, Any]) -> str | None:
    """The capability a mid-call request asked for when this client's answer was the SDK's refusal
    for a callback it was not given (``Elicitation not supported``), as the server relays it: the whole
    of a line, or its end after a prefix (``Error executing tool X: Elicitation not supported``). A tool's
    own words that only begin so ("Sampling not supported on the free tier") are the tool's error."""
    for line in text.splitlines():
        said = line.strip()
        for refusal, capability in REFUSALS.items():
            relayed = said == refusal or said.endswith(f": {refusal}")
            if relayed and CALLBACK_FOR[capability] not in callbacks:
                return capability
    return None


def asked_for(request: object) -> str:
    """What an input request asks, in a few words, for a message."""
    params = getattr(request, "params", None)
    message = getattr(params, "message", None)
    if isinstance(message, str):
        return f"elicitation {message!r}"
    messages_asked = getattr(params, "messages", None)
    if messages_asked:
        content = getattr(messages_asked[-1], "content", None)
        return f"sampling of {getattr(content, 'text', '') or type(content).__name__!r}"
    return "its roots" if type(request).__name__ == "ListRootsRequest" else type(request).__name__


def required_capabilities(data: object) -> dict[str, object]:
    """The capabilities a -32021 error's data says the server requires, by name, with their values."""
    required = data.get("requiredCapabilities") if isinstance(data, dict) else None
    if isinstance(required, dict):
        return {str(name): value for name, value in required.items() if value is not None}
    return {}
