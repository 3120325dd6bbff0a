"""The promises of an output schema, and which a value keeps (``_contract.coverage``), without pytest in between."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from pytest_mcp_contract._contract.coverage import MAX_PROMISES, Coverage, Plan, ToolCoverage

SCHEMA: dict[str, Any] = {
    "type": "object",
    "$defs": {
        "Forecast": {"type": "object", "properties": {"high": {"type": "number"}}, "required": ["high"]},
        "Alert": {"type": "object", "title": "Alarm", "properties": {"level": {"enum": ["low", "high"]}}},
        "Node": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            },
            "required": ["name"],
        },
    },
    "properties": {
        "result": {
            "type": "array",
            "minItems": 1,
            "items": {"oneOf": [{"$ref": "#/$defs/Forecast"}, {"$ref": "#/$defs/Alert"}]},
        },
        "note": {"type": ["string", "null"]},
        "labels": {"type": "object", "additionalProperties": {"type": "integer"}},
        "pair": {"type": "array", "prefixItems": [{"const": "x"}, {"type": "integer"}], "maxItems": 2},
        "tree": {"$ref": "#/$defs/Node"},
        "both": {"allOf": [{"properties": {"a": {"const": 1}}}, {"properties": {"b": {"type": "string"}}}]},
    },
    "required": ["result", "note", "tree"],
}


def _kept(value: Any) -> set[str]:
    found: set[str] = set()
    Plan(SCHEMA).kept(value, found)
    return found


def test_every_promise_of_a_schema_by_its_place() -> None:
    assert list(Plan(SCHEMA).promises) == [
        "answered",
        "item /result",  # minItems 1: never empty, so no such promise
        "branch /result/items/oneOf/0",
        "branch /result/items/oneOf/1",
        "present /result/items/oneOf/1/level",
        "absent /result/items/oneOf/1/level",
        'value /result/items/oneOf/1/level "low"',
        'value /result/items/oneOf/1/level "high"',
        "type /note null",
        "type /note string",
        "present /labels",
        "absent /labels",
        "key /labels",
        "present /pair",
        "absent /pair",
        "empty /pair",
        "item /pair",
        'value /pair/prefixItems/0 "x"',
        "present /tree/children",
        "absent /tree/children",
        "empty /tree/children",
        "item /tree/children",  # the Node met again below itself adds nothing: bounded
        "present /both",
        "absent /both",
        "present /both/a",
        "absent /both/a",
        "value /both/a 1",
        "present /both/b",
        "absent /both/b",
    ]


def test_a_deep_value_counts_where_its_model_was_first_met() -> None:
    tree = {"name": "root", "children": [{"name": "a", "children": [{"name": "b", "children": []}]}]}
    found = _kept({"result": [{"high": 3.0}], "note": None, "tree": tree})
    assert {"item /tree/children", "empty /tree/children", "present /tree/children"} <= found
    assert "absent /tree/children" not in found
    tree = {"name": "root", "children": [{"name": "leaf"}]}  # a child without children, two levels down
    assert "absent /tree/children" in _kept({"result": [{"high": 3.0}], "note": None, "tree": tree})


def test_a_branch_is_taken_by_the_value_that_validates_against_it() -> None:
    found = _kept({"result": [{"level": "high"}], "note": "x", "tree": {"name": "r"}, "labels": {"k": 1}})
    assert {"branch /result/items/oneOf/1", 'value /result/items/oneOf/1/level "high"', "key /labels"} <= found
    assert "branch /result/items/oneOf/0" not in found
    assert "type /note string" in found
    assert "type /note null" not in found


def test_the_same_answer_read_under_two_versions_is_one_call_and_counts_only_if_both_kept_it() -> None:
    coverage = Coverage()
    answer, value = object(), {"result": [{"high": 1}], "note": None, "tree": {"name": "r"}}
    coverage.answered("s", "t", {"a": 1}, answer, value, kept=True)
    coverage.answered("s", "t", {"a": 1}, answer, value, kept=False)  # another version's judge refused it
    coverage.answered("s", "t", {"a": 2}, object(), value, kept=True)
    coverage.settle()
    entry = coverage.tools["s", "t"]
    assert (entry.calls, entry.kept) == (2, 1)
    assert entry.seen["answered"] == {"a": 2}  # the first call that kept it


def test_workers_counts_add_up_to_the_serial_count() -> None:
    one, two, merged = Coverage(), Coverage(), Coverage()
    for worker in (one, two):  # each listed the tool
        worker.tools["s", "t"] = ToolCoverage("s", "t", SCHEMA)
    one.answered("s", "t", None, object(), {"note": None, "result": [], "tree": {"name": "r"}}, kept=True)
    two.answered("s", "t", None, object(), {"note": "x", "result": [], "tree": {"name": "r"}}, kept=True)
    for worker in (one, two):
        merged.merge(worker.to_json())
    assert merged.totals() == (7, 29)  # the controller listed nothing: the workers' promises as they came
    assert {"type /note null", "type /note string"} <= set(merged.tools["s", "t"].seen)


def test_a_promise_the_schema_rules_out_is_not_counted() -> None:
    schema = {
        "type": "object",
        "properties": {
            "gone": False,  # never present
            "never": {"not": {}},  # never present either
            "mode": {"enum": ["a", "b"], "const": "a"},  # "b" is refused by the const
            "size": {"type": "string", "const": 1},  # the type refuses the const: never present
            "level": {"type": "integer", "enum": [1, 2, "high"]},  # the type refuses "high"
            "id": {"type": "string"},
        },
        "allOf": [{"required": ["id", "mode"]}],  # required here, so never absent
    }
    assert list(Plan(schema).promises) == [
        "answered",
        'value /mode "a"',
        "present /level",
        "absent /level",
        "value /level 1",
        "value /level 2",
    ]


def test_a_model_required_by_its_reference_is_never_absent() -> None:
    schema = {
        "$defs": {"Item": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}},
        "allOf": [{"$ref": "#/$defs/Item"}, {"properties": {"name": {"type": "string"}, "note": {"type": "string"}}}],
    }
    assert list(Plan(schema).promises) == ["answered", "present /note", "absent /note"]


def test_references_that_fan_out_are_read_up_to_a_bound_and_say_so() -> None:
    # Each model's three fields refer to the next: 3**20 places below the depth bound, none with a promise.
    defs: dict[str, Any] = {
        f"M{level}": {
            "type": "object",
            "properties": {name: {"$ref": f"#/$defs/M{level + 1}"} for name in "abc"},
            "required": ["a", "b", "c"],
        }
        for level in range(20)
    }
    defs["M20"] = {"type": "string", "enum": ["x", "y"]}
    plan = Plan({"$ref": "#/$defs/M0", "$defs": defs})
    assert plan.truncated
    assert len(plan.promises) <= MAX_PROMISES


def test_a_field_sent_with_its_default_shows_it_absent_too() -> None:
    # An MCPServer tool returning a model sends every field (model_dump): `note` is never left out, and a
    # client reads it absent as its default, null. Seeing null shows both; "x" alone shows neither.
    class Report(BaseModel):
        note: str | None = None
        count: int = 0

    plan = Plan(Report.model_json_schema())
    assert set(plan.promises) == {
        "answered",
        *(f"{kind} /note" for kind in ("present", "absent")),
        *(f"branch /note/anyOf/{index}" for index in (0, 1)),
        *(f"{kind} /count" for kind in ("present", "absent")),
    }
    found: set[str] = set()
    plan.kept({"note": "x", "count": 3}, found)
    assert set(plan.promises) - found == {"absent /note", "branch /note/anyOf/1", "absent /count"}
    plan.kept({"note": None, "count": 0}, found)
    assert found == set(plan.promises)
    plan, found = Plan({"properties": {"n": {"type": "integer", "default": 1}}}), set()
    plan.kept({"n": 1.0}, found)  # 1.0 is the default 1 as JSON
    assert "absent /n" in found


def test_a_worker_that_only_answered_for_a_tool_does_not_hide_its_promises() -> None:
    listed, answered_only, merged = Coverage(), Coverage(), Coverage()
    listed.tools["s", "t"] = ToolCoverage("s", "t", SCHEMA)
    answered_only.answered("s", "t", None, object(), {"note": "x", "result": [], "tree": {"name": "r"}}, kept=True)
    merged.merge(answered_only.to_json())  # the controller hears from it first
    merged.merge(listed.to_json())
    assert merged.totals() == (1, 29)


def test_a_promise_the_plan_dropped_neither_counts_nor_ends_the_walk_early() -> None:
    # The second allOf part refuses every "a" and "b": their present and absent, added by the first, are
    # dropped, but the first part's place still names them; the walk must still reach /k.
    never = {"type": "string", "const": 1}
    schema = {
        "type": "object",
        "allOf": [
            {"properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
            {"properties": {"a": never, "b": never}},
        ],
        "properties": {"k": {"enum": ["x", "y"]}},
        "required": ["k"],
    }
    assert list(Plan(schema).promises) == ["answered", 'value /k "x"', 'value /k "y"']
    coverage = Coverage()
    coverage.tools["s", "t"] = ToolCoverage("s", "t", schema)
    coverage.answered("s", "t", None, object(), {"k": "x"}, kept=True)
    coverage.answered("s", "t", None, object(), {"k": "y"}, kept=True)
    assert coverage.totals() == (3, 3)
    assert set(coverage.tools["s", "t"].seen) == {"answered", 'value /k "x"', 'value /k "y"'}
