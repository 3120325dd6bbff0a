"""A tool's observed shape in its snapshot file: recorded at the end of a run, compared with the base's.

The schema item compares what the server publishes and carries the file's observed shape over as it is
(:func:`carried`); the shape itself is known only when the run's last answer is in, so the report writes it
then (:func:`settle`). A whole run's shape replaces the recorded one; a run that left tests out only widens
it, so ``-k`` never narrows what a full run saw. Against a base revision, the recorded shape there and this
run's are compared by the client-side rules of a published output schema (:func:`changes_against`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contract._contract.shapes import OBSERVED_KEY, OBSERVED_NOTE, is_open
from pytest_mcp_contract._json.shape import Shape
from pytest_mcp_contract._json.value import same
from pytest_mcp_contract._suite.schemadiff import OBSERVED, Change, Effect, by_kind, diff_schema

if TYPE_CHECKING:
    from pathlib import Path

_WORDS: Final[dict[str, tuple[str, Effect | None]]] = {
    # A schema's words for what answers did; a key some answers had and this run's did not was not seen,
    # which says nothing of the server (fewer answers), so it breaks no one.
    "removed (was required)": ("gone (it was in every answer)", None),
    "removed (was optional)": ("not seen (it was in some answers)", "cosmetic"),
    "added (required)": ("new (in every answer)", None),
    "added (optional)": ("new (in some answers)", None),
    "now optional (was required)": ("now missing from some answers (it was in every one)", None),
    "now required (was optional)": ("now in every answer (it was in some)", None),
}


def recorded(data: Any) -> dict[str, Any] | None:
    """The observed shape a snapshot's data records, if any."""
    shape = data.get(OBSERVED_KEY) if isinstance(data, dict) else None
    return shape if isinstance(shape, dict) else None


def carried(data: dict[str, Any], before: str | None) -> dict[str, Any]:
    """``data`` (what the server publishes now) with the observed shape the file ``before`` records, while
    the tool's output schema still names no key: the published part decides whether the file changed."""
    if before is None or not is_open(data.get("output_schema")):
        return data
    try:
        shape = recorded(json.loads(before))
    except ValueError:
        return data
    return data if shape is None else {**data, OBSERVED_KEY: shape}


def changes(before: dict[str, Any], now: dict[str, Any]) -> list[Change]:
    """What changed from one observed shape to another, from a client's side, breaking first."""
    found = []
    for change in diff_schema(_bare(before), _bare(now), field="output"):
        what, effect = _WORDS.get(change.what, (change.what, None))
        found.append(Change(OBSERVED, change.path, what, effect or change.effect))
    return by_kind(found)


def unseen_before(before: dict[str, Any], now: dict[str, Any]) -> list[Change]:
    """What this run's answers had that the recorded shape does not describe (none: they all fit it)."""
    return changes(before, widened(before, now))


def widened(before: dict[str, Any], now: dict[str, Any]) -> dict[str, Any]:
    """The recorded shape widened to take the answers of ``now`` too."""
    shape = Shape()
    shape.merge(before, 1)
    shape.merge(now, 1)
    return marked(shape.schema())


def marked(schema: dict[str, Any]) -> dict[str, Any]:
    """A shape with the note that says it was observed, not published."""
    return {"$comment": OBSERVED_NOTE, **_bare(schema)}


def _bare(schema: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in schema.items() if key != "$comment"}


@dataclass(frozen=True)
class Settled:
    """What became of a tool's observed shape at the end of a run."""

    state: str
    """``recorded``, ``updated``, ``matched``, ``not recorded``, ``out of date``, ``no answer seen`` or
    ``not written``."""
    changes: tuple[Change, ...] = ()
    """Out of date: what the run's answers had that the file does not say; updated: what changed."""
    why: str = ""
    """Not written: the OS error."""
    shape: dict[str, Any] | None = None
    """The shape known best: this run's, else the one recorded (for a schema to publish)."""


def settle(
    path: Path, observed: dict[str, Any] | None, *, updating: bool, new_only: bool = False, whole: bool
) -> Settled | None:
    """Compare the shape this run observed with the one ``path`` records, and write it on an update
    (``new_only``: only where none is recorded; ``whole``: the run left no test out, so its shape replaces
    the recorded one instead of widening it). ``None``: the file holds no snapshot of a tool whose output
    schema names no key."""
    from pytest_mcp_contract._suite.snapshots import serialize

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None  # the schema item says what is wrong with the file
    if not isinstance(data, dict) or not is_open(data.get("output_schema")):
        return None
    before = recorded(data)
    if observed is None:
        return Settled("no answer seen", shape=before)
    if before is None:
        if not (updating or new_only):
            return Settled("not recorded", shape=observed)
        new, state, found = marked(observed), "recorded", []
    else:
        if not updating:
            if not unseen_before(before, observed):
                return Settled("matched", shape=observed)  # every answer fits (a run that left tests out sees fewer)
            # Told as changed from the recorded shape, but for keys this run did not see: fewer answers.
            told = [change for change in changes(before, observed) if change.kind != "cosmetic"]
            return Settled("out of date", tuple(told), shape=observed)
        new = marked(observed) if whole else widened(before, observed)
        found = changes(before, new)
        state = "matched" if same(_bare(before), _bare(new)) else "updated"
    if state != "matched":
        try:
            path.write_text(serialize({**data, OBSERVED_KEY: new}), encoding="utf-8")
        except OSError as error:
            return Settled("not written", why=f"{error.strerror or error} ({type(error).__name__})", shape=observed)
    return Settled(state, tuple(found), shape=new)
