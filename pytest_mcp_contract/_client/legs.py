"""One call under every protocol version offered, reaching the server once where it may write.

A tool that says it only reads (``readOnlyHint``) or that a second call changes nothing more
(``idempotentHint``) is called again under each version, as that version's client would call it.
Any other tool is called under the first version only, and each other version's session reads
that one answer, where it may (:func:`reads_alike`). Cases and the fuzzer both go through here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pytest_mcp_contract._contract.answer import Answer, NoAnswer, Outcome
from pytest_mcp_contract._contract.versions import merge

if TYPE_CHECKING:
    from mcp_types import Tool

    from pytest_mcp_contract._client.session import ContractSession
    from pytest_mcp_contract._client.sync_client import McpContract
    from pytest_mcp_contract._contract.violations import Violation


def replayable(tool: Tool) -> bool:
    """Whether a call of ``tool`` may be sent again under another protocol version: it says it reads
    only (``readOnlyHint``) or that a second call with the same arguments changes nothing more
    (``idempotentHint``). Any other tool may write, so its call reaches the server once."""
    hints = tool.annotations
    return hints is not None and (hints.read_only_hint is True or hints.idempotent_hint is True)


def reads_alike(
    sender: ContractSession, other: ContractSession, name: str, outcome: Outcome, found: Sequence[Violation]
) -> bool:
    """Whether ``other``'s version may judge what ``sender`` got for one call of ``name`` (``found``:
    what it broke under ``sender``'s version).

    An answer is judged against the listing it answered; a server that lists the tool otherwise for
    that version (FastMCP's object root) would have answered otherwise too. What came instead of an
    answer and says something of its own version only (the SDK would not send the result under it,
    no back-channel, a wire model's refusal) tells nothing of another's; nor does no answer at all.
    """
    if other.tools.get(name) != sender.tools.get(name) or isinstance(outcome, NoAnswer):
        return False
    return isinstance(outcome, Answer) or not any(violation.versions for violation in found)


@dataclass
class Everywhere:
    """What one call broke under each version, and how each version came to judge it."""

    sent_under: str
    outcome: Outcome
    """The answer to the call under the first version."""
    found: dict[str, list[Violation]] = field(default_factory=dict)
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    """Each version's own answer, where the call was sent again under it (:attr:`replayed`)."""
    replayed: bool = False
    """Sent again under each other version (the tool says it may be)."""
    judged: list[str] = field(default_factory=list)
    """Versions whose verdict was read from the one answer."""
    unjudged: list[str] = field(default_factory=list)
    """Versions the one answer says nothing of."""

    @property
    def violations(self) -> list[Violation]:
        """One list, each violation naming the versions it holds for when not every one offered (a version
        the answer says nothing of is one it is not known to hold for)."""
        if not any(self.found.values()):  # the commonest case, and the fuzzer asks at every call
            return []
        return merge(self.found, every=[*self.found, *self.unjudged])


def everywhere(
    legs: Sequence[tuple[str, McpContract]],
    name: str,
    send: Callable[[McpContract], Outcome],
    judge: Callable[[McpContract, Outcome], list[Violation]],
    *,
    replay: bool = True,
) -> Everywhere:
    """Send one call through the first of ``legs`` (version, client) and judge it under each:
    ``send`` makes the call, ``judge`` says what an outcome broke by a client's session. Without
    ``replay``, the others only read the one answer (their sessions may be to another server: a sandbox's)."""
    __tracebackhide__ = True
    (sent_under, sender), *others = legs
    outcome = send(sender)
    done = Everywhere(sent_under, outcome, {sent_under: judge(sender, outcome)}, {sent_under: outcome})
    done.replayed = replay and bool(others) and replayable(sender.tools[name]) and not isinstance(outcome, NoAnswer)
    for version, client in others:
        if done.replayed:  # it says it changes nothing: ask again, as that version's client would
            done.outcomes[version] = again = send(client)
            done.found[version] = judge(client, again)
        elif reads_alike(sender.session, client.session, name, outcome, done.found[sent_under]):
            done.judged.append(version)
            done.found[version] = judge(client, outcome)
        else:
            done.unjudged.append(version)
    return done
