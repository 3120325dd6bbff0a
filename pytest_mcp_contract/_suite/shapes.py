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
    """The observed shape a snapshot's data records, if it is one the plugin could have written (a file
    edited by hand into another schema is read as none: an update writes it anew)."""
    shape = data.get(OBSERVED_KEY) if isinstance(data, dict) else None
    return shape if isinstance(shape, dict) and _written(shape, root=True) else None


_TYPES: Final = frozenset({"null", "boolean", "integer", "number", "string", "array", "object"})


def _written(node: Any, *, root: bool = False) -> bool:
    """Whether ``node`` is a shape as :mod:`_json.shape` writes one: types, ``properties``, ``required``,
    ``items``, ``additionalProperties`` and ``anyOf`` only, each a shape again."""
    if not isinstance(node, dict) or set(node) - {
        "type",
        "properties",
        "required",
        "items",
        "additionalProperties",
        "anyOf",
        *(("$comment",) if root else ()),
    }:
        return False
    types = node.get("type", "object")
    names = types if isinstance(types, list) else [types]
    properties = node.get("properties", {})
    required = node.get("required", [])
    return (
        bool(names)
        and all(isinstance(name, str) and name in _TYPES for name in names)
        and isinstance(properties, dict)
        and all(_written(sub) for sub in properties.values())
        and isinstance(required, list)
        and all(isinstance(name, str) for name in required)
        and all(_written(node[key]) for key in ("items", "additionalProperties") if key in node)
        and isinstance(node.get("anyOf", []), list)
        and all(_written(branch) for branch in node.get("anyOf", []))
        and isinstance(node.get("$comment", ""), str)
    )


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
    """What changed from one observed shape to another, from a client's side, breaking first. Where ``now``
    saw nothing (arrays only empty, a map's values under fewer keys) it says nothing: ``before`` holds there."""
    found = []
    for change in diff_schema(_bare(before), _seen(_bare(before), _bare(now)), field="output"):
        what, effect = _WORDS.get(change.what, (change.what, None))
        found.append(Change(OBSERVED, change.path, what, effect or change.effect))
    return by_kind(found)


def _seen(before: Any, now: Any) -> Any:
    """``now``, with what ``before`` says in the places ``now`` saw nothing of: the items of arrays that
    were only empty; a map (``before`` took its keys for data) read as a map from fewer keys."""
    if not isinstance(before, dict) or not isinstance(now, dict) or before.get("type") != now.get("type"):
        return now
    out = dict(now)
    if now.get("type") == "array":
        if "items" not in now and "items" in before:
            out["items"] = before["items"]
        elif "items" in now:
            out["items"] = _seen(before.get("items"), now["items"])
        return out
    if isinstance(before.get("additionalProperties"), dict) and "properties" in now:
        values = Shape()
        for sub in now["properties"].values():
            values.merge(sub, 1)
        out = {key: value for key, value in now.items() if key not in ("properties", "required")}
        out["additionalProperties"] = _seen(before["additionalProperties"], values.schema())
        return out
    if isinstance(now.get("additionalProperties"), dict):
        out["additionalProperties"] = _seen(before.get("additionalProperties"), now["additionalProperties"])
    if isinstance(now.get("properties"), dict) and isinstance(before.get("properties"), dict):
        out["properties"] = {
            name: _seen(before["properties"].get(name), sub) for name, sub in now["properties"].items()
        }
    return out


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
            known = widened(before, observed)
            if not unseen_before(before, observed):
                return Settled("matched", shape=known)  # every answer fits (a run that left tests out sees fewer)
            # Told as changed from the recorded shape, but for keys this run did not see: fewer answers.
            told = [change for change in changes(before, observed) if change.kind != "cosmetic"]
            return Settled("out of date", tuple(told), shape=known)
        new = marked(observed) if whole else widened(before, observed)
        found = changes(before, new)
        state = "matched" if same(_bare(before), _bare(new)) else "updated"
    if state != "matched":
        try:
            path.write_text(serialize({**data, OBSERVED_KEY: new}), encoding="utf-8")
        except OSError as error:
            return Settled("not written", why=f"{error.strerror or error} ({type(error).__name__})", shape=observed)
    return Settled(state, tuple(found), shape=new)
