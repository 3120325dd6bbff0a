"""Reading a message as it came off the wire, strictly: by its protocol version's own model, with no coercion.

The SDK reads answers leniently: ``"isError": "false"`` becomes ``False``, ``"readOnlyHint": "true"``
becomes ``True``. A client of another SDK may refuse the whole answer, or read it otherwise. Here a
result is read by the version's wire model (``mcp_types``) in strict mode, keys by their wire names
only, and each place it breaks is a :class:`WireFault`. What breaks a rule counts as absent for every
decision the plugin makes (:attr:`Reading.kept`): a string ``readOnlyHint`` is no hint, so the tool
is not taken for read-only. Unknown keys and vendor ``_meta`` stay allowed, as the models allow them.

Tool names are read by SEP-986 (2025-11-25): 1 to 128 characters of ``A-Z a-z 0-9 _ - .``, unique in
the server; the stricter profile adds what the model APIs behind clients take (no dot, at most 64).
Pure functions: no pytest, no session.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pytest_mcp_contract._json.value import pointer
from pytest_mcp_contract._sdk.wire import strict_errors


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final = _Absent()
"""The ``found`` of a fault about a key the message lacks."""

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class WireFault:
    """One place where a message breaks its version's wire model."""

    method: str
    """The request the message answers: ``tools/call``, ``tools/list``, ``initialize``, ``server/discover``."""
    version: str
    path: Path
    """Where, from the result's root (``("content", 0, "text")``)."""
    wants: str
    """What the version's model wants there, in words: ``a boolean``, ``present``, ``'text'``."""
    found: Any
    """The value found there, or :data:`ABSENT`."""
    tool: str | None = None
    """For a listing: the name of the tool whose entry holds the place, when it has a readable one."""
    page: int | None = None
    """For a listing of several pages: the page (from 1)."""

    @property
    def pointer(self) -> str:
        return pointer(self.path)


@dataclass(frozen=True)
class Reading:
    """A message read strictly: its faults, and what is left of it once each malformed part counts as absent."""

    faults: tuple[WireFault, ...]
    kept: dict[str, Any] | None
    """The message without its malformed parts (a field, or the list entry that cannot stand without
    it: a content block, a tool); ``None`` when nothing a client could read is left."""
    dropped: tuple[Path, ...] = ()
    """The list entries left out whole (``("content", 0)``, ``("tools", 3)``), as they sat in the message."""

    def entry_dropped(self, fault: WireFault) -> Path | None:
        """The entry left out with ``fault``'s place, if one was."""
        return next((entry for entry in self.dropped if fault.path[: len(entry)] == entry), None)


_SKIPPED: Final[Mapping[str, tuple[Path, ...]]] = {
    # Checked by checks of their own: the object rule of a version (``structured-invalid``, ``output-schema-invalid``).
    "tools/call": (("structuredContent",),),
    "tools/list": (("tools", "*", "outputSchema", "*"),),
}

_WANTS: Final = {
    "bool_type": "a boolean",
    "string_type": "a string",
    "int_type": "an integer",
    "float_type": "a number",
    "int_from_float": "an integer",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "list_type": "an array",
    "missing": "present",
    "none_required": "null",
}


def read_strictly(method: str, version: str | None, raw: Mapping[str, Any]) -> Reading:
    """``raw``, the result of ``method`` as the server sent it, read by ``version``'s own wire model.

    No faults where the installed ``mcp-types`` has no model for that version or method.
    """
    errors = strict_errors(method, version, raw) if version is not None else None
    if not errors:
        return Reading((), dict(raw))
    faults = tuple(_fault(method, version or "", raw, error, path) for error, path in _places(errors, raw, method))
    if not faults:
        return Reading((), dict(raw))
    # A malformed field is taken out; a malformed list entry (a block that is no object) is left out whole.
    taken = [fault.path for fault in faults if fault.found is not ABSENT and _entry(fault.path) != fault.path]
    dropped = {fault.path for fault in faults if _entry(fault.path) == fault.path}
    for _round in range(8):  # each round leaves out the entries that cannot stand without what was taken
        kept = _without(raw, [*taken, *dropped])
        left = [
            _original(path, dropped)
            for _error, path in _places(strict_errors(method, version or "", kept) or [], kept, method)
        ]
        if not left:
            return Reading(faults, kept, tuple(sorted(dropped, key=_order)))
        entries = [_entry(path) for path in left]
        if any(entry is None for entry in entries):
            break  # the message itself lacks what it needs (its ``content``)
        dropped.update(entry for entry in entries if entry is not None)
    return Reading(faults, None, tuple(sorted(dropped, key=_order)))


def _original(path: Path, dropped: set[Path]) -> Path:
    """A place in the message with the ``dropped`` entries left out, as a place in the message as it came."""
    out: list[str | int] = []
    for part in path:
        if isinstance(part, int):
            index, count = -1, -1
            while count < part:
                index += 1
                if (*out, index) not in dropped:
                    count += 1
            out.append(index)
        else:
            out.append(part)
    return tuple(out)


def _order(path: Path) -> list[tuple[bool, str | int]]:
    return [(isinstance(part, int), part) for part in path]


def _places(errors: Sequence[Mapping[str, Any]], raw: Any, method: str) -> list[tuple[Mapping[str, Any], Path]]:
    """Each error of the branch each union is taken to be, with its place in ``raw``; skipped places left out."""
    located = [(error, *_locate(tuple(error.get("loc", ())), raw, error.get("type") == "missing")) for error in errors]
    sites = sorted({site for _error, _path, tags in located for site in tags}, key=len)
    for site in sites:
        branches: dict[str, list[Path]] = {}
        for _error, path, tags in located:
            if site in tags:
                branches.setdefault(tags[site], []).append(path)
        if len(branches) < 2:
            continue
        # The branch its tag (``type``, ``resultType``) does not refuse, with the fewest errors.
        chosen = min(branches, key=lambda tag: (_refused_by_tag(located, site, tag), len(branches[tag])))
        located = [entry for entry in located if entry[2].get(site, chosen) == chosen]
    skipped = _SKIPPED.get(method, ())
    return [(error, path) for error, path, _tags in located if not any(_under(path, skip) for skip in skipped)]


def _refused_by_tag(located: list[tuple[Mapping[str, Any], Path, dict[Path, str]]], site: Path, tag: str) -> bool:
    """Whether the union branch ``tag`` at ``site`` is refused by its tag: a literal wrong right under the site."""
    return any(
        tags.get(site) == tag and error.get("type") == "literal_error" and len(path) == len(site) + 1
        for error, path, tags in located
    )


def _locate(loc: tuple[Any, ...], raw: Any, missing: bool) -> tuple[Path, dict[Path, str]]:
    """An error's place in ``raw`` (keys and indexes), and the union branches its location passed
    through (pydantic names each in the location: ``content.0.TextContent.text``), by where they sit."""
    path: list[str | int] = []
    tags: dict[Path, str] = {}
    node = raw
    for at, part in enumerate(loc):
        last = at == len(loc) - 1
        if isinstance(node, dict) and isinstance(part, str) and (part in node or (last and missing)):
            path.append(part)
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            path.append(part)
            node = node[part]
        else:
            tags[tuple(path)] = str(part)
    return tuple(path), tags


def _under(path: Path, prefix: Path) -> bool:
    return len(path) >= len(prefix) and all(want in ("*", got) for want, got in zip(prefix, path, strict=False))


def _fault(method: str, version: str, raw: Any, error: Mapping[str, Any], path: Path) -> WireFault:
    kind = str(error.get("type", ""))
    found = _at(raw, path)
    wants = _WANTS.get(kind)
    if wants is None:
        message = str(error.get("msg", "")).removeprefix("Input should be ").removeprefix("Value error, ")
        wants = message or kind
    tool = _tool_name(raw, path) if method == "tools/list" else None
    return WireFault(method, version, path, wants, found, tool=tool)


def _holds(node: Any, part: str | int) -> bool:
    """Whether ``node`` has a key or index ``part``."""
    if isinstance(node, dict):
        return isinstance(part, str) and part in node
    return isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)


def _at(raw: Any, path: Path) -> Any:
    node = raw
    for part in path:
        if not _holds(node, part):
            return ABSENT
        node = node[part]
    return node


def _tool_name(raw: Any, path: Path) -> str | None:
    if len(path) < 2 or path[0] != "tools":
        return None
    name = _at(raw, (*path[:2], "name"))
    return name if isinstance(name, str) else None


def _entry(path: Path) -> Path | None:
    """The innermost list entry that holds ``path`` (a content block, a tool), which can be left out whole."""
    for end in range(len(path) - 1, -1, -1):
        if isinstance(path[end], int):
            return path[: end + 1]
    return None


def _without(raw: Any, paths: Iterable[Path]) -> Any:
    """A copy of ``raw`` without the values at ``paths`` (only what leads to them is copied)."""
    drops = sorted(set(paths), key=_order, reverse=True)
    kept = _copy(raw)
    for path in drops:  # deepest and last first, so an index removed never shifts another one still to go
        parent = _copy_path(kept, path[:-1])
        last = path[-1] if path else None
        if isinstance(parent, dict) and isinstance(last, str):
            parent.pop(last, None)
        elif isinstance(parent, list) and isinstance(last, int) and 0 <= last < len(parent):
            del parent[last]
    return kept


def _copy(value: Any) -> Any:
    return dict(value) if isinstance(value, dict) else list(value) if isinstance(value, list) else value


def _copy_path(root: Any, path: Path) -> Any:
    """The node at ``path`` under ``root``, each container on the way copied into its parent first."""
    node = root
    for part in path:
        if not _holds(node, part):
            return None
        node[part] = _copy(node[part])
        node = node[part]
    return node


# --- tool names (SEP-986) --------------------------------------------------------------------------

NAME_CHARACTERS: Final = frozenset(string.ascii_letters + string.digits + "_-.")
"""What a tool name is made of, by SEP-986 (the stricter profile takes no dot, and at most 64 of them)."""


@dataclass(frozen=True)
class NameFault:
    """A tool name a client may refuse, where the listing gives it."""

    name: str
    path: Path
    """``("tools", N, "name")`` in its page."""
    page: int | None
    why: str
    """Why, in words: ``has characters outside A-Z a-z 0-9 _ - . (' ', '!')``."""
    kind: str = "characters"
    """Which rule: ``empty``, ``length``, ``characters``, ``dot`` or ``clients-length`` (the stricter
    profile), ``twice``."""


def name_faults(pages: Sequence[Sequence[Any]], *, clients: bool = False) -> list[NameFault]:
    """The names of ``pages`` (each page's raw tool entries) that SEP-986 rules out (with ``clients``,
    also what the model APIs behind clients refuse), and every name listed twice."""
    several = len(pages) > 1
    seen: dict[str, tuple[int, int]] = {}
    found = []
    for number, entries in enumerate(pages, 1):
        for index, entry in enumerate(entries):
            name = entry.get("name") if isinstance(entry, dict) else None
            if not isinstance(name, str):
                continue  # a missing or malformed name is the wire's fault already
            page = number if several else None
            problem = _name_problem(name, clients=clients)
            if problem is not None:
                found.append(NameFault(name, ("tools", index, "name"), page, problem[1], problem[0]))
            if name in seen:
                first_page, first_index = seen[name]
                where = pointer(("tools", first_index)) + (f" on page {first_page}" if several else "")
                why = f"is listed twice (first at {where})"
                found.append(NameFault(name, ("tools", index, "name"), page, why, "twice"))
            else:
                seen[name] = (number, index)
    return found


def _name_problem(name: str, *, clients: bool) -> tuple[str, str] | None:
    """(kind, why) of a name a client may refuse."""
    if not name:
        return "empty", "is empty; a name has 1 to 128 characters"
    if len(name) > 128:
        return "length", f"is {len(name):,} characters long; a name has at most 128"
    odd = sorted(set(name) - NAME_CHARACTERS)
    if odd:
        shown = ", ".join(repr(char) for char in odd[:8])
        return "characters", f"has characters outside A-Z a-z 0-9 _ - . ({shown})"
    if clients and "." in name:
        return "dot", "has a dot, which some model APIs behind clients refuse in a tool name (the stricter profile)"
    if clients and len(name) > 64:
        why = f"is {len(name)} characters long, over the 64 some model APIs behind clients take (the stricter profile)"
        return "clients-length", why
    return None
