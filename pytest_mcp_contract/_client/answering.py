"""The client's side of the conversation: its callbacks, the rounds of an ``InputRequiredResult``,
and how a request the client cannot answer is told apart from a broken server.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

import mcp.types

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._errors import ClientCapabilityError

if TYPE_CHECKING:
    import mcp_types
    from mcp.client.session import ClientSession

CALLBACKS: Final = (
    "sampling_callback",
    "sampling_capabilities",
    "elicitation_callback",
    "list_roots_callback",
    "logging_callback",
)
"""The SDK client's keywords a project may give the plugin's client."""


def client_callbacks(callbacks: Mapping[str, Any] | None) -> dict[str, Any]:
    """The callbacks as the SDK's ``Client`` takes them; a keyword it cannot take is a ``TypeError`` now."""
    given = dict(callbacks or {})
    unknown = sorted(set(given) - set(CALLBACKS))
    if unknown:
        raise TypeError(
            f"the client callbacks (pytest_mcp_contract_callbacks) hold {', '.join(map(repr, unknown))}; "
            f"the plugin's client takes {', '.join(CALLBACKS)}"
        )
    return {key: value for key, value in given.items() if value is not None}


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


def needs(*capabilities: str) -> dict[str, str]:
    """Each capability with the callback that gives it, for a message."""
    return {capability: CALLBACK_FOR.get(capability, capability) for capability in capabilities}


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
            raise _unanswered(*where, declined="")
        meta = request.params.meta if request.params is not None else None
        try:
            answer = await session.dispatch_input_request(
                ClientRequestContext(session=session, request_id=key, meta=meta), request
            )
        except Exception as error:  # the user's callback failed: the test's set-up, not the server
            raise _unanswered(*where, declined=f"raised {type(error).__name__}: {error}") from error
        if isinstance(answer, mcp.types.ErrorData):
            raise _unanswered(*where, declined=answer.message)
        answers[key] = answer
    return answers


def _unanswered(
    name: str, round_number: int, key: str, request: object, capability: str, *, declined: str
) -> ClientCapabilityError:
    """The error for an input request of a round the client did not answer (``declined``: what its callback said)."""
    callback = CALLBACK_FOR.get(capability, capability)
    what = asked_for(request)
    told = messages.round_unanswered(
        name, round_number, key, what, capability=capability, callback=callback, declined=declined
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


def required_capabilities(data: object) -> list[str]:
    """The capability names a -32021 error's data says the server requires."""
    required = data.get("requiredCapabilities") if isinstance(data, dict) else None
    if isinstance(required, dict):
        return [name for name, value in required.items() if value is not None]
    return []
