"""The release contract's value rules, read from their one source, gate/rules.yml (keyword
data, one record per rule, grouped by table; its header says what each key means).

From it come: the gate's GX suites and probes (`FRAMES`, `PROBES`, run by
distressbench.gate.values), the checks `submit` runs on the release it would write (each
rule's `sql`), and the contract docs' rule list (`markdown()`; docs/release-contract.md's
generated section, `python -m distressbench.gate.rules`). `RULES` lists every rule in the
docs' order, each with its check name, table, column and sentence.

Two kinds of rule:

- a `Rule` is a Great Expectations expectation (its class name and arguments) on a `Frame`,
  a small pandas frame DuckDB builds from valid tables (the small tables themselves, or a
  per-task or per-transcript profile);
- a `Probe` is a count of offending rows DuckDB makes on a big table or across tables (a SQL
  predicate over a source view, distressbench.gate.views); GX expects every count to be 0.

A failure message says '<n> <unit|units> <problem>; <key> (<shown columns>): <example keys>'.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from distressbench.gate import views
from distressbench.gate.results import N_EXAMPLES
from distressbench.gate.views import ROW
from distressbench.release import contract

SOURCE = Path(__file__).with_name("rules.yml")
Shown = tuple[tuple[str, str], ...]  # (frame or source column, label) pairs shown after an example key


@dataclass(frozen=True, kw_only=True)
class Rule:
    """One GX expectation on a frame, reported as one check. `absent` and `excess` replace the
    row-by-row message of a rule on the frame's row count: `absent` when the frame has no
    row, '<n> <units> <excess>; <key>: <examples>' when it has too many."""

    check: str
    table: str
    column: str
    expectation: str  # a class of great_expectations.expectations
    args: tuple[tuple[str, Any], ...]
    sentence: str
    unit: str
    units: str
    problem: str
    show: Shown = ()
    with_row: bool = False  # name the file row (for null checks, where the key may be null)
    grouped: bool = False  # several failing rows share one example key (duplicates)
    absent: str | None = None
    excess: str | None = None
    sql: str | None = None  # the offending rows' keys, over the release's tables (for submit)

    @property
    def label(self) -> str:
        """The check's name in the gate's report, e.g. 'weight_range criteria.weight'."""
        return f"{self.check} {self.table}.{self.column}"


@dataclass(frozen=True, kw_only=True)
class Frame:
    """A pandas frame DuckDB builds from valid tables, and the rules GX checks on it."""

    name: str
    needs: tuple[str, ...]
    sql: str
    key: tuple[str, ...]
    rules: tuple[Rule, ...]


@dataclass(frozen=True, kw_only=True)
class Probe:
    """Offending rows DuckDB counts in `source` where `bad` holds; GX expects zero."""

    check: str
    table: str
    column: str
    needs: tuple[str, ...]
    source: str  # a registered table or a derived view
    bad: str  # SQL predicate over `source` (constant text, never data)
    key: tuple[str, ...]
    sentence: str
    unit: str
    units: str
    problem: str
    show: Shown = ()
    rows: str = "count(*)"  # SQL aggregate: how many rows of `table` offend
    with_row: bool = False
    examples_sql: str | None = None  # overrides 'select key from source where bad limit 20'
    grouped: bool = False  # an example stands for several offending rows (its count is shown)
    sql: str | None = None  # the offending rows' keys, over the release's tables (for submit)

    @property
    def label(self) -> str:
        return f"{self.check} {self.table}.{self.column}"


def constants() -> dict[str, Any]:
    """The numbers of the contract a rule names as `{name}`."""
    return {
        "n_subcategories": len(contract.subcategories()),
        "n_dimensions": len(contract.dimensions()),
        "min_criteria": contract.MIN_CRITERIA_PER_TASK,
        "max_criteria": contract.MAX_CRITERIA_PER_TASK,
        "min_weight": contract.MIN_WEIGHT,
        "max_weight": contract.MAX_WEIGHT,
    }


def value_sets() -> dict[str, tuple[Any, ...]]:
    """The sets an `in_set` rule names."""
    return {
        "subcategories": contract.subcategories(),
        "dimensions": contract.dimensions(),
        "turn_roles": contract.TURN_ROLES,
        "model_kinds": contract.MODEL_KINDS,
        "true": (True,),
        "user": ("user",),
    }


# examples of a failing probe that its source cannot show, by the name a rule gives
EXAMPLE_QUERIES = {
    "dangling_response_labels": views.DANGLING_LABELS_SQL.format(index="response_index", column="response_id"),
    "dangling_criterion_labels": views.DANGLING_LABELS_SQL.format(index="criterion_index", column="criterion_id"),
    "same_task_labels": views.SAME_TASK_LABELS_SQL,
    "missing_labels": views.MISSING_LABELS_SQL,
}


def _resolved(value: Any, numbers: Mapping[str, Any]) -> Any:
    """`{name}` as the number itself; other strings with the numbers filled in."""
    if isinstance(value, str):
        if value.startswith("{") and value.endswith("}") and value[1:-1] in numbers:
            return numbers[value[1:-1]]
        return value.format(**numbers)
    if isinstance(value, list):
        return tuple(_resolved(v, numbers) for v in value)
    if isinstance(value, dict):
        return {k: _resolved(v, numbers) for k, v in value.items()}
    return value


def _name(key: tuple[str, ...]) -> str:
    return key[0] if len(key) == 1 else "(" + ", ".join(key) + ")"


def _literal(value: Any) -> str:
    """A constant of the contract as SQL (never release data)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return str(value)


def _kind_defaults(record: dict[str, Any], column: str) -> dict[str, Any]:
    """What the kinds not_null, unique, non_empty and foreign_key say by themselves: the
    sentence, units, problem, `where` (the rule on a row of its table) and expectation."""
    target = record.get("frame_column", column)
    check = record["check"]
    if check == "not_null":
        return {
            "sentence": f"`{column}` is never null",
            "problem": f"with a null {column}",
            "with_row": True,
            "where": f"{column} is null",
            "expect": ("ExpectColumnValuesToNotBeNull", {"column": target}),
        }
    if check == "unique":
        key = record["key"]
        return {
            "sentence": f"`{column}` is unique",
            "problem": f"sharing a {column} with another row",
            "grouped": True,
            "expect": ("ExpectColumnValuesToBeUnique", {"column": key[0]})
            if len(key) == 1
            else ("ExpectCompoundColumnsToBeUnique", {"column_list": key}),
        } | ({"show": (("n", record["shown"]),)} if "shown" in record else {})
    if check == "non_empty":
        return {
            "sentence": f"`{column}` is non-empty",
            "problem": f"with an empty {column}",
            "where": f"length({column}) < 1",
            "expect": ("ExpectColumnValuesToBeBetween", {"column": target, "min_value": 1}),
        }
    if check == "foreign_key":
        target_table = record["references"]
        return {"sentence": f"`{column}` → {target_table}", "problem": f"with a {column} missing from {target_table}"}
    return {}


def _value_defaults(record: dict[str, Any], column: str, sets: Mapping[str, tuple[Any, ...]]) -> dict[str, Any]:
    """The expectation (and `where`, on a column of the table itself) of `in_set`, `at_least`
    and `between`, or the record's own `expect` and `args`."""
    target = record.get("frame_column", column)
    on_table = "frame_column" not in record
    if "expect" in record:
        return {"expect": (record["expect"], record.get("args", {}))}
    if "in_set" in record:
        values = sets[record["in_set"]]
        where = f"{column} not in ({', '.join(_literal(v) for v in values)})"
        return {
            "expect": ("ExpectColumnValuesToBeInSet", {"column": target, "value_set": values}),
            "show": ((target, target),),
        } | ({"where": where} if on_table else {})
    if "at_least" in record:
        low = record["at_least"]
        return {"expect": ("ExpectColumnValuesToBeBetween", {"column": target, "min_value": low})} | (
            {"where": f"{column} < {low}"} if on_table else {}
        )
    if "between" in record:
        low, high = record["between"]
        return {
            "expect": ("ExpectColumnValuesToBeBetween", {"column": target, "min_value": low, "max_value": high})
        } | ({"where": f"{column} not between {low} and {high}"} if on_table else {})
    return {}


def _spelled_out(record: dict[str, Any], column: str, sets: Mapping[str, tuple[Any, ...]]) -> dict[str, Any]:
    """The record with what its kind says by itself filled in (the record's own keys win)."""
    own = {k: v for k, v in record.items() if k not in ("expect", "args")}
    return _kind_defaults(record, column) | _value_defaults(record, column, sets) | own


def _plain_sql(spec: dict[str, Any], table: str, column: str, key: tuple[str, ...]) -> str | None:
    """The rule over the release's tables: a query whose rows are the offending keys."""
    if "sql" in spec:
        return str(spec["sql"])
    columns = ", ".join(key)
    if spec["check"] == "unique":
        own = ", ".join(spec["key"])
        return (
            f"select {own} from {table} semi join "
            f"(select {own} from {table} group by all having count(*) > 1) as repeated using ({own})"
        )
    # the offending value beside the key, where the key does not hold it and it is short
    shown = f", {column}" if column not in key and spec["check"] not in ("not_null", "non_empty") else ""
    if spec["check"] == "foreign_key":
        target = spec["references"]
        return (
            f"select {columns}{shown} from {table} where {column} is not null "
            f"and {column} not in (select {column} from {target} where {column} is not null)"
        )
    if "where" in spec:
        return f"select {columns}{shown} from {table} where {spec['where']}"
    return None


def _load() -> tuple[tuple[Frame, ...], tuple[Probe, ...], tuple[Rule | Probe, ...]]:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's, a tenth of the time where installed
    document = yaml.load(SOURCE.read_text(encoding="utf-8"), Loader=loader)
    numbers, sets = constants(), value_sets()
    frame_rules: dict[str, list[Rule]] = {name: [] for name in document["frames"]}
    probes: list[Probe] = []
    ordered: list[Rule | Probe] = []
    for table, spec in document["tables"].items():
        table_key = tuple(spec["key"])
        for raw in spec["rules"]:
            record = _resolved(raw, numbers)
            column = record.get("column") or _name(record["key"])
            full = _spelled_out(record, column, sets)
            unit, units = full.get("unit", ("row", "rows"))
            common = {
                "check": full["check"],
                "table": table,
                "column": column,
                "sentence": full["sentence"],
                "unit": unit,
                "units": units,
                "problem": full.get("problem", ""),
                "with_row": full.get("with_row", False),
                "grouped": full.get("grouped", False),
            }
            key = tuple(full.get("key", table_key))
            sql = _plain_sql(full, table, column, table_key)
            item: Rule | Probe
            if "frame" in full:
                expectation, args = full["expect"]
                item = Rule(
                    **common,
                    expectation=expectation,
                    args=tuple(args.items()),
                    show=tuple(tuple(pair) for pair in full.get("show", ())),
                    absent=full.get("absent"),
                    excess=full.get("excess"),
                    sql=sql,
                )
                frame_rules[full["frame"]].append(item)
            else:
                item = _probe(full, common, key, sql, raw_examples=bool(spec.get("raw_examples")))
                probes.append(item)
            ordered.append(item)
    frames = tuple(
        Frame(
            name=name,
            needs=tuple(frame["needs"]),
            sql=frame["sql"],
            key=tuple(frame["key"]),
            rules=tuple(frame_rules[name]),
        )
        for name, frame in document["frames"].items()
    )
    return frames, tuple(probes), tuple(ordered)


def _probe(
    full: dict[str, Any], common: dict[str, Any], key: tuple[str, ...], sql: str | None, *, raw_examples: bool
) -> Probe:
    table = common["table"]
    show = tuple(tuple(pair) for pair in full.get("show", ()))
    examples = EXAMPLE_QUERIES[full["examples"]] if "examples" in full else None
    if examples is None and raw_examples and "where" in full:
        # the source counts groups: the examples are the raw file's rows
        row = (ROW,) if common["with_row"] else ()
        order = ROW if common["with_row"] else ", ".join(key)
        examples = (
            f"select {', '.join(row + key)} from {table} where {full['where']} order by {order} limit {N_EXAMPLES}"
        )
    return Probe(
        **common,
        needs=tuple(full.get("needs", (table,))),
        source=full["source"],
        bad=full.get("bad", full.get("where", "true")),
        key=key,
        show=show,
        rows=full.get("rows", "sum(n)" if full["check"] == "unique" else "count(*)"),
        examples_sql=examples,
        sql=sql,
    )


FRAMES, PROBES, RULES = _load()

DOCS_START = "<!-- value rules: generated from src/distressbench/gate/rules.yml -->"
DOCS_END = "<!-- end of value rules -->"


def statements() -> list[tuple[str, str, str]]:
    """(table, 'check table.column', sentence) of every rule, in the docs' order."""
    return [(rule.table, rule.label, rule.sentence) for rule in RULES]


def markdown() -> str:
    """The docs' section between DOCS_START and DOCS_END: per table, each rule's sentence and
    the gate check that enforces it (the check as a code span; sentences are rules.yml's)."""
    lines = [DOCS_START, ""]
    for table in contract.REQUIRED_TABLES + contract.OPTIONAL_TABLES:
        rules = [(label, sentence) for owner, label, sentence in statements() if owner == table]
        lines += [f"**{table}**", ""] + [f"- {_escape(sentence)} (`{label}`)" for label, sentence in rules] + [""]
    return "\n".join([*lines, DOCS_END])


def _escape(text: str) -> str:
    """Markdown's emphasis and link characters escaped outside code spans (`...`)."""
    parts = text.split("`")
    return "`".join(
        part if i % 2 else "".join("\\" + c if c in "\\*_[]<>|#" else c for c in part) for i, part in enumerate(parts)
    )


if __name__ == "__main__":
    print(markdown())
