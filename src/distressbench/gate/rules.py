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

from distressbench.errors import DistressbenchError
from distressbench.gate import views
from distressbench.gate.results import N_EXAMPLES
from distressbench.gate.views import ROW, Derived
from distressbench.release import contract

SOURCE = Path(__file__).with_name("rules.yml")
# the keys rules.yml may use, by where they appear (its header says what each means)
DOCUMENT_KEYS = frozenset({"frames", "sources", "tables"})
FRAME_KEYS = frozenset({"needs", "key", "sql"})
SOURCE_KEYS = frozenset({"needs", "sql", "materialize"})
# the judge labels' views the gate makes over the one pass (gate/views.py, gate/values.py)
LABEL_SOURCES = frozenset({*(view.name for view in views.LABEL_VIEWS), "label_samples", "label_dups"})
TABLE_KEYS = frozenset({"key", "rules", "raw_examples"})
RULE_KEYS = frozenset(
    {
        *("check", "column", "key", "sentence", "unit", "problem", "show", "shown", "grouped", "after"),
        *("frame", "frame_column", "expect", "args", "in_set", "at_least", "between", "absent", "excess"),
        *("source", "bad", "rows", "needs", "examples", "where", "sql", "references"),
    }
)


class RulesError(DistressbenchError):
    """rules.yml breaks its own schema (an unknown key, a name that refers to nothing)."""


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
    after: tuple[str, ...] = ()  # the checks whose failure explains this one's (their labels)

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
    after: tuple[str, ...] = ()  # the checks whose failure explains this one's (their labels)

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
        # the contract's white space as a SQL expression (constant text, no backslash)
        "white_space": "concat(" + ", ".join(f"chr({ord(c)})" for c in contract.WHITE_SPACE) + ")",
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


# What each kind of rule says by itself, the record's own keys winning: `{column}` is the
# rule's column, `{target}` the frame column it reads (`frame_column`, else `column`),
# `{references}` a foreign key's table, `{white_space}` the contract's. `expect` is the GX
# expectation and its arguments on the frame (`{key}`: a unique rule's key columns, `{low}`,
# `{high}`, `{values}`: an at_least, between or in_set rule's bounds and set); `where` is the
# rule on a row of its own table (for submit), given only when the rule reads the table's own
# column (no `frame_column`).
KIND_DEFAULTS: dict[str, dict[str, Any]] = {
    "not_null": {
        "sentence": "`{column}` is never null",
        "problem": "with a null {column}",
        "with_row": True,
        "where": "{column} is null",
        "expect": ("ExpectColumnValuesToNotBeNull", {"column": "{target}"}),
    },
    "unique": {
        "sentence": "`{column}` is unique",
        "problem": "sharing a {column} with another row",
        "grouped": True,
        "expect": ("ExpectColumnValuesToBeUnique", {"column": "{key}"}),  # one key column
        "expect_compound": ("ExpectCompoundColumnsToBeUnique", {"column_list": "{key}"}),
    },
    "non_empty": {
        "sentence": "`{column}` is non-empty",
        "problem": "with an empty {column}",
        "where": "ltrim({column}, {white_space}) = ''",
        "expect": ("ExpectColumnValuesToBeBetween", {"column": "{target}", "min_value": 1}),
    },
    "foreign_key": {"sentence": "`{column}` → {references}", "problem": "with a {column} missing from {references}"},
}
# The value shapes any rule may take instead of its own `expect`, with the same placeholders.
SHAPE_DEFAULTS: dict[str, dict[str, Any]] = {
    "in_set": {
        "expect": ("ExpectColumnValuesToBeInSet", {"column": "{target}", "value_set": "{values}"}),
        "show": (("{target}", "{target}"),),
        "where": "{column} not in ({values_sql})",
    },
    "at_least": {
        "expect": ("ExpectColumnValuesToBeBetween", {"column": "{target}", "min_value": "{low}"}),
        "where": "{column} < {low}",
    },
    "between": {
        "expect": (
            "ExpectColumnValuesToBeBetween",
            {"column": "{target}", "min_value": "{low}", "max_value": "{high}"},
        ),
        "where": "{column} not between {low} and {high}",
    },
}


def _filled(template: Any, fields: Mapping[str, Any]) -> Any:
    """A default with its placeholders filled: a placeholder alone is the value itself (a
    number, a tuple), one inside text is formatted into it."""
    if isinstance(template, str):
        name = template[1:-1] if template.startswith("{") and template.endswith("}") else None
        return fields[name] if name in fields else template.format(**fields)
    if isinstance(template, tuple):
        return tuple(_filled(item, fields) for item in template)
    if isinstance(template, dict):
        return {key: _filled(value, fields) for key, value in template.items()}
    return template


def _spelled_out(record: dict[str, Any], column: str, sets: Mapping[str, tuple[Any, ...]]) -> dict[str, Any]:
    """The record with what its kind and value shape say by themselves filled in (the
    record's own keys win)."""
    key = tuple(record.get("key", ()))
    fields: dict[str, Any] = {
        "column": column,
        "target": record.get("frame_column", column),
        "references": record.get("references", ""),
        "white_space": constants()["white_space"],
        "key": key[0] if len(key) == 1 else key,
    }
    defaults = dict(KIND_DEFAULTS.get(record["check"], {}))
    if len(key) > 1 and "expect_compound" in defaults:
        defaults["expect"] = defaults["expect_compound"]
    defaults.pop("expect_compound", None)
    if record["check"] == "unique" and "shown" in record:
        defaults["show"] = (("n", record["shown"]),)
    shape = next((name for name in SHAPE_DEFAULTS if name in record), None)
    if shape is not None:
        bounds = record[shape]
        values = sets[bounds] if shape == "in_set" else ()
        low, high = (bounds, None) if shape == "at_least" else (bounds if shape == "between" else (None, None))
        fields |= {"values": values, "values_sql": ", ".join(_literal(v) for v in values), "low": low, "high": high}
        shaped = dict(SHAPE_DEFAULTS[shape])
        if "frame_column" in record:
            shaped.pop("where")
        defaults |= shaped
    if "expect" in record:
        defaults["expect"] = (record["expect"], record.get("args", {}))
    own = {k: v for k, v in record.items() if k not in ("expect", "args")}
    return {k: v for k, v in _filled(defaults, fields).items()} | own


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


def _known(record: Any, allowed: frozenset[str], where: str) -> dict[str, Any]:
    """The record, when it is a mapping of known keys only; else RulesError naming them."""
    if not isinstance(record, dict):
        raise RulesError(f"{SOURCE.name}: {where} is not a mapping")
    unknown = sorted(set(record) - allowed)
    if unknown:
        plural = "s" if len(unknown) > 1 else ""
        raise RulesError(
            f"{SOURCE.name}: {where} has unknown key{plural} {', '.join(unknown)}; "
            f"the keys there are {', '.join(sorted(allowed))}"
        )
    return record


def load_rules(
    text: str,
) -> tuple[tuple[Frame, ...], tuple[Derived, ...], tuple[Probe, ...], tuple[Rule | Probe, ...]]:
    """The frames, sources, probes and rules (in the docs' order) of a rules document;
    RulesError when a key is unknown or a name refers to nothing."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's, a tenth of the time where installed
    document = _known(yaml.load(text, Loader=loader), DOCUMENT_KEYS, "the document")
    numbers, sets = constants(), value_sets()
    frame_rules: dict[str, list[Rule]] = {
        name: [] for name, frame in document["frames"].items() if _known(frame, FRAME_KEYS, f"frame {name}")
    }
    sources = tuple(
        Derived(name, tuple(spec["needs"]), spec["sql"], bool(spec.get("materialize")))
        for name, spec in document["sources"].items()
        if _known(spec, SOURCE_KEYS, f"source {name}")
    )
    readable = {source.name for source in sources} | LABEL_SOURCES | set(document["tables"])
    probes: list[Probe] = []
    ordered: list[Rule | Probe] = []
    for table, spec in document["tables"].items():
        table_key = tuple(_known(spec, TABLE_KEYS, f"table {table}")["key"])
        for raw in spec["rules"]:
            record = _resolved(_known(raw, RULE_KEYS, f"a rule of {table} ({raw.get('check', 'no check')})"), numbers)
            column = record.get("column") or _name(record["key"])
            where = f"rule {record['check']} {table}.{column}"
            if "frame" in record and record["frame"] not in frame_rules:
                raise RulesError(f"{SOURCE.name}: {where} reads frame {record['frame']}, which is not defined")
            if "in_set" in record and record["in_set"] not in sets:
                raise RulesError(f"{SOURCE.name}: {where} names the set {record['in_set']}, which is not defined")
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
                "after": tuple(full.get("after", ())),
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
                if full["source"] not in readable:
                    raise RulesError(f"{SOURCE.name}: {where} counts in {full['source']}, which is no source")
                item = _probe(full, common, key, sql, raw_examples=bool(spec.get("raw_examples")))
                probes.append(item)
            ordered.append(item)
    labels = {item.label for item in ordered}
    for item in ordered:
        for cause in item.after:
            if cause not in labels:
                raise RulesError(f"{SOURCE.name}: rule {item.label} comes after {cause}, which is no rule")
    frames = tuple(
        Frame(
            name=name,
            needs=tuple(frame["needs"]),
            sql=frame["sql"].format(**numbers),
            key=tuple(frame["key"]),
            rules=tuple(frame_rules[name]),
        )
        for name, frame in document["frames"].items()
    )
    return frames, sources, tuple(probes), tuple(ordered)


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


FRAMES, SOURCES, PROBES, RULES = load_rules(SOURCE.read_text(encoding="utf-8"))
# check label -> the labels of the checks whose failure explains its own (rules.yml's `after`)
AFTER: dict[str, tuple[str, ...]] = {item.label: item.after for item in RULES if item.after}

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
