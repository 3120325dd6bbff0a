"""JSON values as the checks see them: equality, pointers, parsing and short renderings.

Everything here walks values with an explicit stack instead of recursion, because a server may
send data nested thousands deep and no ``RecursionError`` may escape a check.
"""

from __future__ import annotations

import decimal
import json
import math
import re
from collections.abc import Callable, Iterable
from typing import Any, Final

NOT_JSON: Final = object()
"""What :func:`parse` returns for text that is not a JSON document."""

TOO_DEEP: Final = object()
"""What :func:`parse` returns for JSON nested deeper than Python's parser can go."""


Location = tuple[str | int, ...]
"""Where a value sits in a JSON document: its keys and indexes from the root (``pointer`` writes it)."""


def pointer(parts: Iterable[str | int]) -> str:
    """The RFC 6901 JSON pointer for a path, e.g. ``("a/b", 0)`` -> ``/a~1b/0``; ``""`` is the root."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


def show_pointer(ptr: str | None) -> str:
    """A pointer as a reader sees it: the root is spelled out instead of an empty string."""
    return "(root)" if ptr == "" else (ptr or "")


def parse(text: str) -> Any:
    """``json.loads`` that never raises: :data:`NOT_JSON` or :data:`TOO_DEEP` on failure."""
    try:
        return json.loads(text)
    except ValueError:
        # Python refuses to read integers of over 4,300 digits from text; JSON allows them.
        try:
            return json.loads(text, parse_int=_big_int)
        except ValueError:
            return NOT_JSON
        except RecursionError:
            return TOO_DEEP
    except RecursionError:
        return TOO_DEEP


def _big_int(digits: str) -> int:
    return int(decimal.Decimal(digits))


def _same_scalar(a: Any, b: Any) -> bool:
    # A bool is never a number here, unlike in Python (True == 1); numbers compare by value (4 == 4.0).
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        # NaN says what NaN says (that it is no JSON is the structured-invalid check's business).
        return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))
    return type(a) is type(b) and a == b


def differences(a: Any, b: Any, limit: int = 100, *, null_is_absent: bool = False) -> list[tuple[str, Any, Any]]:
    """Every place where two JSON values differ, as ``(pointer, part of a, part of b)``, in document order.

    Numbers compare by value, a bool never equals a number, object key order does not matter.
    A key present on one side only is reported with :data:`MISSING` on the other, unless
    ``null_is_absent`` and its value is ``null``; arrays of different lengths are one difference.
    At most ``limit`` are listed.
    """
    found: list[tuple[str, Any, Any]] = []
    stack: list[tuple[Any, Any, tuple[str | int, ...]]] = [(a, b, ())]
    while stack and len(found) < limit:
        x, y, path = stack.pop()
        if isinstance(x, dict) and isinstance(y, dict):
            # Keys as the first value lists them, then those only the second has.
            if x.keys() == y.keys():
                stack.extend((x[key], y[key], (*path, key)) for key in reversed(list(x)))
                continue
            keys = list(x) + [key for key in y if key not in x]
            pairs = ((x.get(key, MISSING), y.get(key, MISSING), (*path, key)) for key in reversed(keys))
            if null_is_absent:
                pairs = (pair for pair in pairs if not _null_and_absent(pair[0], pair[1]))
            stack.extend(pairs)
        elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            stack.extend((x[i], y[i], (*path, i)) for i in reversed(range(len(x))))
        elif isinstance(x, dict | list | _Missing) or isinstance(y, dict | list | _Missing) or not _same_scalar(x, y):
            found.append((pointer(path), x, y))
    return found


def same(a: Any, b: Any, *, null_is_absent: bool = False) -> bool:
    """JSON equality under the rules of :func:`differences`."""
    verdict = _same_near(a, b, null_is_absent, _NEAR)
    if verdict is not None:
        return verdict
    return not differences(a, b, limit=1, null_is_absent=null_is_absent)


_BY_VALUE: Final = frozenset({str, int, bool, type(None)})
"""Types whose two values are the same JSON value exactly when Python finds them equal."""
_NEAR: Final = 64
"""How deep :func:`_same_near` recurses before the explicit walk takes over."""


def _same_near(x: Any, y: Any, null_is_absent: bool, depth: int) -> bool | None:
    """:func:`same` by recursion, which every call of the judge pays (it compares each text block to the
    data): the walk of :func:`differences` builds each pointer on the way. ``None`` past ``depth`` levels."""
    kind = type(x)
    if kind is type(y):  # the commonest leaves first, by their exact type
        if kind in _BY_VALUE:
            return bool(x == y)
        if kind is float:  # NaN says what NaN says
            return bool(x == y or (x != x and y != y))  # noqa: PLR0124 (NaN is the one float unequal to itself)
    if isinstance(x, dict):
        if not isinstance(y, dict) or (not null_is_absent and len(x) != len(y)):
            return False
        if depth == 0:
            return None
        absent = 0
        for key, value in x.items():
            if key in y:
                verdict = _same_near(value, y[key], null_is_absent, depth - 1)
                if verdict is not True:
                    return verdict
            elif null_is_absent and value is None:
                absent += 1
            else:
                return False
        # y holds x's other keys: any more it has must each be a null.
        return len(y) == len(x) - absent or all(key in x or value is None for key, value in y.items())
    if isinstance(x, list):
        if not isinstance(y, list) or len(x) != len(y):
            return False
        if depth == 0:
            return None
        for first, second in zip(x, y, strict=True):
            verdict = _same_near(first, second, null_is_absent, depth - 1)
            if verdict is not True:
                return verdict
        return True
    if isinstance(y, dict | list) or isinstance(x, _Missing) or isinstance(y, _Missing):
        return False
    return _same_scalar(x, y)


def _null_and_absent(x: Any, y: Any) -> bool:
    return (x is None and y is MISSING) or (x is MISSING and y is None)


def non_finite(value: Any) -> tuple[str, float] | None:
    """The first NaN or infinity in a value, with its pointer: no JSON value, though Python reads them."""
    # A path is (parent's path, key): no copy per level, so a value nested thousands deep stays linear.
    stack: list[tuple[Any, Any]] = [(value, None)]
    while stack:
        item, path = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            parts: list[str | int] = []
            while path is not None:
                path, part = path
                parts.append(part)
            return pointer(reversed(parts)), item
        if isinstance(item, dict):
            stack.extend((sub, (path, key)) for key, sub in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((sub, (path, index)) for index, sub in reversed(list(enumerate(item))))
    return None


class _Missing:
    def __repr__(self) -> str:
        return "(absent)"


MISSING: Final = _Missing()


def render(value: Any, limit: int = 80) -> str:
    """A short, single-line JSON-like rendering of a value, trimmed to about ``limit`` characters.

    Unlike ``repr`` or ``json.dumps`` it never recurses, so any depth is safe, and it stops
    producing text as soon as the limit is reached, so a 2,000-item list costs nothing.
    """
    if value is MISSING:
        return "(absent)"
    out: list[str] = []
    size = 0
    # The stack holds either values still to render or literal text (str wrapped in a 1-tuple).
    stack: list[Any] = [value]
    while stack and size <= limit:
        item = stack.pop()
        if isinstance(item, tuple):
            piece = item[0]
        elif isinstance(item, dict):
            parts: list[Any] = [("{",)]
            for index, (key, sub) in enumerate(item.items()):
                parts += [(", ",)] if index else []
                parts += [(writable(json.dumps(str(key), ensure_ascii=False)) + ": ",), sub]
            parts.append(("}",))
            stack.extend(reversed(parts))
            continue
        elif isinstance(item, list):
            parts = [("[",)]
            for index, sub in enumerate(item):
                parts += [(", ",), sub] if index else [sub]
            parts.append(("]",))
            stack.extend(reversed(parts))
            continue
        else:
            piece = _scalar_text(item)
        out.append(piece)
        size += len(piece)
    text = "".join(out)
    if stack or len(text) > limit:
        return text[: max(limit - 1, 1)] + "…"
    return text


def render_apart(a: Any, b: Any, limit: int = 80) -> tuple[str, str]:
    """Both values rendered, so that two that differ never look the same: two long strings that
    differ only past the limit are shown around their first difference, which is named."""
    shown = render(a, limit), render(b, limit)
    if shown[0] != shown[1] or not (isinstance(a, str) and isinstance(b, str)) or a == b:
        return shown
    at = next((index for index, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    start = max(at - limit // 3, 0)

    def window(text: str) -> str:
        part = render(text[start:], limit)[1:]  # without its opening quote: it is not the string's start
        return f'"…{part}' if start else f'"{part}'

    return f"{window(a)} (from character {at:,} on)", window(b)


_UNWRITABLE: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]|\r(?!\n)")
"""What no writer may get raw: lone surrogates (a file or stream in UTF-8 refuses them; bytes that are
not UTF-8, read with ``surrogateescape``, become them), NUL and the other control characters but tab and
line ends (a terminal acts on them, XML forbids them), and the two noncharacters XML forbids."""


def indented(value: Any) -> str:
    """``json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False)``, the same text, written without
    the standard library's generic Python encoder (which an indent falls back to) for what the wire's JSON
    holds: exact dicts with text keys, lists, text, integers, floats, booleans and null. Anything else goes
    to ``json.dumps`` whole."""
    parts: list[str] = []
    try:
        _indent(value, parts.append, "\n")
    except (_Unusual, RecursionError):
        return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False)
    return "".join(parts)


class _Unusual(Exception):
    """A value ``indented`` leaves to ``json.dumps``."""


_text: Final = json.encoder.encode_basestring  # the C encoder of a JSON string, non-ASCII kept
_NON_FINITE: Final = {math.inf: "Infinity", -math.inf: "-Infinity"}


def _indent(value: Any, put: Callable[[str], None], newline: str) -> None:
    kind = type(value)
    if kind is str:
        put(_text(value))
    elif kind is dict:
        inner = newline + "  "
        keys = sorted(value)  # text keys sort as json.dumps sorts them
        if any(type(key) is not str for key in keys):
            raise _Unusual
        put("{" if keys else "{}")
        for index, key in enumerate(keys):
            put(("," if index else "") + inner + _text(key) + ": ")
            _indent(value[key], put, inner)
        if keys:
            put(newline + "}")
    elif kind is list:
        inner = newline + "  "
        put("[" if value else "[]")
        for index, item in enumerate(value):
            put(("," if index else "") + inner)
            _indent(item, put, inner)
        if value:
            put(newline + "]")
    elif value is None or kind is bool:
        put("null" if value is None else "true" if value else "false")
    elif kind is int:
        put(int.__repr__(value))
    elif kind is float:
        put(float.__repr__(value) if math.isfinite(value) else _NON_FINITE.get(value, "NaN"))
    else:
        raise _Unusual


def writable(text: str) -> str:
    """``text`` with each character no writer takes (:data:`_UNWRITABLE`) as its JSON escape (``\\udfff``).

    For every text the plugin writes or prints that may hold a server's words: failure messages, the
    summary and the report, snapshot files, the fuzzer's record. Valid JSON stays valid JSON that reads
    back the same, as only strings can hold such characters.
    """
    return _UNWRITABLE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def _scalar_text(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 10_000:
        digits = str(decimal.Decimal(value))  # str(int) refuses these
        return f"<an integer of {len(digits)} digits: {digits[:12]}…{digits[-6:]}>"
    if isinstance(value, str | bool | int | float) or value is None:
        return writable(json.dumps(value, ensure_ascii=False))
    return repr(value)
