"""JSON values as the checks see them: equality, pointers, parsing and short renderings.

Everything here walks values with an explicit stack instead of recursion, because a server may
send data nested thousands deep and no ``RecursionError`` may escape a check.
"""

from __future__ import annotations

import decimal
import json
from collections.abc import Iterable
from typing import Any, Final

NOT_JSON: Final = object()
"""What :func:`parse` returns for text that is not a JSON document."""

TOO_DEEP: Final = object()
"""What :func:`parse` returns for JSON nested deeper than Python's parser can go."""


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
        return a == b
    return type(a) is type(b) and a == b


def first_difference(a: Any, b: Any) -> tuple[str, Any, Any] | None:
    """Where two JSON values first differ, as ``(pointer, part of a, part of b)``; ``None`` if equal.

    Numbers compare by value, a bool never equals a number, object key order does not matter.
    A key present on one side only is reported with :data:`MISSING` on the other.
    """
    stack: list[tuple[Any, Any, tuple[str | int, ...]]] = [(a, b, ())]
    while stack:
        x, y, path = stack.pop()
        if isinstance(x, dict) and isinstance(y, dict):
            if x.keys() != y.keys():
                for key in sorted(x.keys() ^ y.keys(), key=str):
                    return pointer((*path, key)), x.get(key, MISSING), y.get(key, MISSING)
            stack.extend((x[key], y[key], (*path, key)) for key in reversed(list(x)))
        elif isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return pointer(path), x, y
            stack.extend((x[i], y[i], (*path, i)) for i in reversed(range(len(x))))
        elif isinstance(x, dict | list) or isinstance(y, dict | list) or not _same_scalar(x, y):
            return pointer(path), x, y
    return None


def same(a: Any, b: Any) -> bool:
    """JSON equality under the rules of :func:`first_difference`."""
    return first_difference(a, b) is None


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
                parts += [(json.dumps(str(key), ensure_ascii=False) + ": ",), sub]
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


def _scalar_text(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 10_000:
        return f"<an integer of {len(str(decimal.Decimal(value)))} digits>"  # str(int) refuses these
    if isinstance(value, str | bool | int | float) or value is None:
        return json.dumps(value, ensure_ascii=False)
    return repr(value)
