"""A schema to publish, from a tool's observed shape (``--mcp-contract-suggest-schemas``).

For any SDK, the observed shape itself, as the ``outputSchema`` to list. For a Python server, the return
annotation that makes MCPServer or FastMCP publish it: ``TypedDict`` classes, a key not every answer had
as ``NotRequired``. Only a starting point: a run saw some answers, the tool's author knows the rest.
"""

from __future__ import annotations

import json
import keyword
import re
from typing import Any, Final

_SCALARS: Final = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}


def json_schema(schema: dict[str, Any]) -> str:
    """The observed shape as an output schema to publish (without the note that says it was observed)."""
    bare = {key: value for key, value in schema.items() if key != "$comment"}
    return json.dumps(bare, indent=2, sort_keys=True, ensure_ascii=False)


def python_types(tool: str, schema: dict[str, Any]) -> tuple[str, str]:
    """The ``TypedDict`` classes that describe ``schema``, innermost first, and the return annotation."""
    classes: list[str] = []
    annotation = _annotation(schema, _class_name(tool) + "Result", classes, set())
    return "\n\n".join(classes), annotation


def _class_name(text: str) -> str:
    words = re.findall(r"[A-Za-z0-9]+", text)
    name = "".join(word[:1].upper() + word[1:] for word in words) or "Tool"
    return name if name[0].isalpha() else f"T{name}"


def _annotation(schema: Any, name: str, classes: list[str], taken: set[str]) -> str:
    """The Python type for values of ``schema``; an object with keys becomes a class named ``name``."""
    if not isinstance(schema, dict):
        return "Any"
    if isinstance(schema.get("anyOf"), list):
        parts = [_annotation(branch, f"{name}{index}", classes, taken) for index, branch in enumerate(schema["anyOf"])]
        return " | ".join(dict.fromkeys(part for part in parts))
    types = schema.get("type")
    if isinstance(types, list):
        parts = [_annotation({**schema, "type": each}, name, classes, taken) for each in types]
        return " | ".join(sorted(dict.fromkeys(parts), key=lambda part: part == "None"))  # Optional's order
    if types == "array":
        return f"list[{_annotation(schema.get('items'), name + 'Item', classes, taken)}]"
    if types == "object":
        properties = schema.get("properties")
        if not isinstance(properties, dict) or not properties:
            return "dict[str, Any]"
        return _typed_dict(name, properties, set(schema.get("required", [])), classes, taken)
    return _SCALARS.get(str(types), "Any")


def _typed_dict(name: str, properties: dict[str, Any], required: set[str], classes: list[str], taken: set[str]) -> str:
    while name in taken:
        name += "_"
    taken.add(name)
    fields = []
    for key, sub in properties.items():
        kind = _annotation(sub, name + _class_name(key), classes, taken)
        fields.append((key, kind if key in required else f"NotRequired[{kind}]"))
    if all(key.isidentifier() and not keyword.iskeyword(key) for key, _kind in fields):
        lines = [f"class {name}(TypedDict):", *(f"    {key}: {kind}" for key, kind in fields)]
    else:  # a key no Python name can spell: the functional form takes any string
        items = [f"    {json.dumps(key, ensure_ascii=False)}: {kind}," for key, kind in fields]
        lines = [f'{name} = TypedDict("{name}", {{', *items, "})"]
    classes.append("\n".join(lines))
    return name
