"""A tool's snapshot file against the tool as the server lists it now: the state, the changes, the diff.

What the ``schema[<tool>]`` items check. The state and changes go to the report; a difference fails
the item with the changes (breaking ones first, from ``schemadiff``) and a unified diff of the file.
"""

from __future__ import annotations

import difflib
import json
import warnings
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import pytest

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._contract.shapes import OBSERVED_KEY, is_open
from pytest_mcp_contract._contract.versions import only_root_adapted
from pytest_mcp_contract._json.value import same, writable
from pytest_mcp_contract._run.paths import shown_path
from pytest_mcp_contract._run.records import ChangeSeen, SchemaSeen
from pytest_mcp_contract._suite.schemadiff import KINDS, Change, by_kind, diff_annotations, diff_schema, diff_value
from pytest_mcp_contract._suite.shapes import carried

if TYPE_CHECKING:
    from collections.abc import Iterator

    from mcp_types import Tool

    from pytest_mcp_contract._run.settings import Settings
    from pytest_mcp_contract._suite.unused import UnusedSnapshots


def compare_snapshot(
    request: pytest.FixtureRequest,
    tool: Tool,
    server: str,
    settings: Settings,
    *,
    unused: UnusedSnapshots,
) -> None:
    """Compare through syrupy (which writes the file on ``--snapshot-update``), record the outcome,
    and fail the item on a difference. syrupy asks the extension for ``unused``'s files meanwhile."""
    __tracebackhide__ = True
    from pytest_mcp_contract._suite.snapshots import Serialized, assertion, document, serialize
    from pytest_mcp_contract._suite.unused import serving

    item = request.node
    path: Path = item.path
    before = _read(path)
    data = carried(document(tool, settings.snapshot_fields), before)
    text = Serialized(serialize(data))
    updating = bool(request.config.option.update_snapshots)
    # syrupy writes on --snapshot-update, and a missing file on --snapshot-update-new-only.
    with serving(unused), _named_after_tools() if updating or before is None else nullcontext():
        # syrupy records the assertion, and discovers the folder's unused files as it is made.
        read = before if before is not None and not isinstance(before, _NotUtf8) else None
        matched = assertion(item, read, with_default=unused.first_assertion()) == text
    _state, failure = _settle(
        item, tool.name, server, path, before=before, data=data, text=text, matched=matched, updating=updating
    )
    if failure is not None:
        pytest.fail(failure, pytrace=False)


@contextmanager
def _named_after_tools() -> Iterator[None]:
    """syrupy warns, as it writes, of a snapshot not named after its test ("schema"): ours are named after
    the tool, on purpose."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"\s*Can not relate snapshot name", category=UserWarning)
        yield


def snapshot_unseen(
    item: pytest.Item, tool: Tool, server: str, settings: Settings, path: Path, *, listing: str
) -> tuple[str, str | None]:
    """A tool the suite was collected without (new since the snapshots, or the first run), against its file
    ``path``: written here on ``--snapshot-update`` (or ``--snapshot-update-new-only`` for a file not there),
    as syrupy writes a schema item's, and recorded the same way. The state, and why the item fails (``None``:
    it does not; a missing file's text is the caller's to gather). ``listing``: the item's node id, which the
    failures name as the one to rerun with ``--snapshot-update`` (the tool has no schema item yet)."""
    from pytest_mcp_contract._suite.snapshots import document, serialize

    before = _read(path)
    data = carried(document(tool, settings.snapshot_fields), before)
    option = item.config.option
    updating = bool(option.update_snapshots or (option.update_new_snapshots_only and before is None))
    text = serialize(data)
    return _settle(
        item,
        tool.name,
        server,
        path,
        before=before,
        data=data,
        text=text,
        matched=before == text,
        updating=updating,
        listing=listing,
    )


def _settle(
    item: pytest.Item,
    tool_name: str,
    server: str,
    path: Path,
    *,
    before: str | None,
    data: dict[str, Any],
    text: str,
    matched: bool,
    updating: bool,
    listing: str = "",
) -> tuple[str, str | None]:
    """The comparison's state, recorded for the report, and the item's failure text (``None``: it passes).
    ``text``: ``data`` serialized, as its file holds it."""
    option = item.config.option
    if before is None:
        # --snapshot-update-new-only writes missing snapshots too (syrupy then counts the assertion as passed)
        state = "created" if updating or option.update_new_snapshots_only else "missing"
    elif before == text:
        state = "matched"
    else:
        state = "updated" if updating else "changed"
    shown = shown_path(path, item.config)
    unwritten = _write_failure(path, text, tool_name, shown, listing) if (updating and not matched) else None
    if unwritten is not None:
        state = "not written"
    differs = state in ("changed", "updated", "not written")
    changes, old = _changes(before, data) if differs else ([], None)
    diff = _diff(before, text, path) if differs else ""
    # What the file holds now: the text, or what it held (a file not written is the end of the run's to leave).
    kept = data if state in ("matched", "created", "updated") else old if state == "changed" else None
    SchemaSeen(
        tool_name,
        server,
        state=state,
        file=shown,
        changes=tuple(_change_record(change) for change in changes),
        diff=diff,
        no_schema=data["output_schema"] is None,
        open_file=isinstance(kept, dict) and is_open(kept.get("output_schema")),
    ).write(item)
    if unwritten is not None:
        return state, unwritten
    if matched or updating:
        return state, None
    if isinstance(before, _NotUtf8):
        return state, messages.snapshot_unreadable(
            tool_name, shown, f"not UTF-8 text ({before.reason})", listing=listing
        )
    if before is None:
        return state, messages.snapshot_missing(tool_name, shown)
    if old is _UNREADABLE:
        what = f"not valid JSON ({_json_error(before)})"
        return state, messages.snapshot_unreadable(tool_name, shown, what, listing=listing)
    counts = [(kind, sum(1 for change in changes if change.kind == kind)) for kind in KINDS]
    lines = [change.line(tool_name) for change in changes]
    return state, writable(messages.schema_changed(tool_name, counts, lines, diff, shown, listing=listing))


def changes_since(before: str, data: dict[str, Any]) -> list[Change] | str:
    """What changed between a snapshot file's text and the tool's ``data`` (``document``), breaking
    first, from a client's side; or why the text is not JSON."""
    changes, old = _changes(before, data)
    return _json_error(before) if old is _UNREADABLE else changes


def versions_differ(listed: dict[str, Tool], fields: tuple[str, ...]) -> str | None:
    """Why a tool's listing differs between protocol versions (version -> the tool as listed under
    it, the first one first), shown as a diff of what is snapshotted; ``None`` when it does not.

    FastMCP adds ``"type": "object"`` to a root that has none for a 2025-11-25 client, on purpose:
    that difference alone is the adaptation the older era needs, not a finding.
    """
    from pytest_mcp_contract._suite.snapshots import document, serialize

    (first, tool), *others = listed.items()
    wanted = document(tool, fields)
    for version, other in others:
        now = document(other, fields)
        # Equal as JSON needs no text. 1 and 1.0 are one number to JSON Schema and to the wire's JSON; the
        # snapshot file, compared as text, still tells a 1 that became 1.0.
        if same(now, wanted) or only_root_adapted(tool, other):
            continue
        expected, shown = serialize(wanted), serialize(now)
        lines = difflib.unified_diff(
            expected.splitlines(keepends=True), shown.splitlines(keepends=True), fromfile=first, tofile=version
        )
        return messages.listed_differently(tool.name, first, version, "".join(lines))
    return None


_UNREADABLE: Final = object()


class _NotUtf8(str):
    """A snapshot file's text that could not be decoded: empty, so unequal to any real snapshot, with why."""

    reason: str

    def __new__(cls, reason: str) -> _NotUtf8:
        text = super().__new__(cls, "")
        text.reason = reason
        return text


def _read(path: Path) -> str | None:
    """The snapshot file's text, ``None`` if there is none, a :class:`_NotUtf8` if it is not UTF-8."""
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return _NotUtf8(f"byte 0x{raw[error.start]:02x} at offset {error.start}")


def _write_failure(path: Path, text: str, tool_name: str, shown: str, listing: str = "") -> str | None:
    """Why an update did not reach the file, or ``None``. ``--snapshot-update`` must not report a
    write that did not happen (syrupy counts a failed write as a failed snapshot and goes on), so a
    file that does not hold the new text is written here, and the OS error names the cause."""
    if _read(path) == text:
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        reason = f"{error.strerror or error} ({type(error).__name__})"
        return messages.snapshot_not_written(tool_name, shown, reason, listing=listing)
    return None


def _changes(before: str | None, data: dict[str, Any]) -> tuple[list[Change], Any]:
    """What changed between the snapshot file's text and the tool as the server lists it now."""
    if before is None:
        return [], None
    try:
        old = json.loads(before)
    except ValueError:
        return [], _UNREADABLE
    if not isinstance(old, dict):
        return [Change("snapshot", "", "the file does not hold an object of fields", "both")], old
    changes: list[Change] = []
    # The observed shape is the end of the run's to compare (``_suite.shapes``): no promise changed with it.
    fields = (data.keys() | old.keys()) - {OBSERVED_KEY}
    for name in sorted(fields, key=lambda field: (field != "output_schema", field)):
        label = _LABELS.get(name, name)
        if name not in old:  # a field just added to mcp_contract_snapshot_fields: nothing to compare with
            changes.append(Change(label, "", "not recorded in the snapshot yet", "cosmetic"))
        elif name not in data:
            changes.append(Change(label, "", "no longer snapshotted (not in mcp_contract_snapshot_fields)", "cosmetic"))
        else:
            changes += _field_changes(name, label, old[name], data[name])
    return by_kind(changes), old


_LABELS: Final = {"output_schema": "output", "input_schema": "input"}


def _field_changes(name: str, label: str, was: Any, now: Any) -> list[Change]:
    if name == "annotations":
        return diff_annotations(was, now)
    if label not in ("output", "input"):
        return diff_value(was, now, field=name)
    if was and now:
        return diff_schema(was, now, field="output" if label == "output" else "input")
    if was == now:
        return []
    if now is None:
        return [Change(label, "", f"{name} removed: the tool no longer publishes one", "widen")]
    if was is None:
        return [Change(label, "", f"{name} added: the tool now publishes one", "narrow")]
    return [Change(label, "", f"{name} changed", "both")]


def _diff(before: str | None, text: str, path: Path) -> str:
    return "".join(
        difflib.unified_diff(
            (before or "").splitlines(keepends=True),
            text.splitlines(keepends=True),
            fromfile=f"snapshot/{path.name}",
            tofile=f"server/{path.name}",
        )
    )


def _change_record(change: Change) -> ChangeSeen:
    return ChangeSeen(change.kind, change.field, change.path, change.what)


def _json_error(text: str) -> str:
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        return f"line {error.lineno}, column {error.colno}: {error.msg}"
    return "unreadable"
