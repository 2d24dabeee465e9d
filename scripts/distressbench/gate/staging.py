"""The release's staging layer, built by the gate with the dbt models' own SQL.

The models tagged `built_by_gate` (the staging tables and int_judge_labels_aggregated, the
one pass over the judge labels) are rendered from their files in models/ with a minimal
context: `source('release', t)` is the release file of table t, read by DuckDB through a
link in a private folder (so no path enters SQL); `ref(m)` is the table built before it,
or for stg_release__judge_labels (a view in plain dbt) its SQL inlined, so the raw labels
are read once and never copied; `dbt.type_*()` are DuckDB's types and `dbt.bool_or` its
bool_or, as dbt-duckdb renders them; the project's macros
(macros/*.sql) are loaded as they are, `adapter.dispatch` choosing their duckdb__ (else
default__) implementation, as dbt-duckdb would; `var(v)` is the var of dbt_project.yml; a
model's pre_hook and post_hook (set in its config()) run before and after its table is built.
`distressbench gate` builds them in memory, `distressbench build` into the unpublished
warehouse file, where dbt builds the rest on exactly the rows the gate checked.
Plain `dbt build` runs the same files.

Building a table reads and decodes every page of every column of its file (DuckDB checks
that strings are valid UTF-8), so a corrupt or undecodable file fails here, by name.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import jinja2
import pyarrow as pa

from distressbench import settings
from distressbench.release import contract


@dataclass(frozen=True)
class Model:
    """A dbt model the gate builds, and the release tables its SQL reads."""

    name: str
    schema: str
    reads: tuple[str, ...]

    @property
    def relation(self) -> str:
        return f"{self.schema}.{self.name}"

    def path(self) -> Path:
        folder = "staging/release" if self.schema == "staging" else self.schema
        return settings.PROJECT_ROOT / "models" / folder / f"{self.name}.sql"


def _staging(table: str) -> Model:
    return Model(f"stg_release__{table}", "staging", (table,))


INLINED = _staging("judge_labels")  # a view in plain dbt; inlined into the aggregate here
MODELS: tuple[Model, ...] = (
    _staging("manifest"),
    *(_staging(t) for t in contract.REQUIRED_TABLES + contract.OPTIONAL_TABLES if t != "judge_labels"),
    Model("int_judge_labels_aggregated", "intermediate", ("judge_labels",)),
)
# What a ref() to a model that could not be built reads: no rows (the aggregate then keeps
# every label's ids as unknown; the checks that need replies or criteria are skipped).
EMPTY: dict[str, str] = {
    "stg_release__responses": "(select cast(null as varchar) as response_id, cast(null as integer) as response_key, "
                              "cast(null as varchar) as task_id, cast(null as boolean) as is_empty where false)",
    "stg_release__criteria": "(select cast(null as varchar) as criterion_id, cast(null as integer) as criterion_key, "
                             "cast(null as varchar) as task_id where false)",
}
# dbt's cross-database macros the gate's models call, as dbt-duckdb renders them
DBT_MACROS = SimpleNamespace(
    type_string=lambda: "varchar",
    type_int=lambda: "integer",
    type_bigint=lambda: "bigint",
    type_float=lambda: "double",
    type_boolean=lambda: "boolean",
    bool_or=lambda expression: f"bool_or({expression})",
)


def source_view(table: str) -> str:
    return f"release_source__{table}"


def render(model: Model, ref: Callable[[str], str]) -> str:
    """The model's SQL with source(), ref(), config(), dbt's macros (DBT_MACROS) and the project's own
    macros (macros/*.sql, `adapter.dispatch` resolved to DuckDB's implementation) filled in."""
    return _render(model, ref)[0]


def _render(model: Model, ref: Callable[[str], str]) -> tuple[str, dict[str, Any]]:
    """(SQL, what the model's config() call set)."""
    configured: dict[str, Any] = {}

    def config(**settings: Any) -> str:
        configured.update(settings)
        return ""

    template = _environment().from_string(model.path().read_text(encoding="utf-8"))
    return template.render(source=lambda _source, table: source_view(table), ref=ref, config=config), configured


def _hooks(configured: dict[str, Any], kind: str) -> list[str]:
    """The model's pre_hook or post_hook statements, rendered as dbt renders them; empty ones dropped."""
    hooks = configured.get(kind) or []
    if isinstance(hooks, str):
        hooks = [hooks]
    statements = (_environment().from_string(hook).render().strip() for hook in hooks)
    return [statement for statement in statements if statement]


def macro_sql(name: str, *args: str) -> str:
    """A project macro rendered as DuckDB SQL, for SQL the gate writes itself (the same
    definition as the models use)."""
    return str(_environment().globals[name](*args)).strip()


@functools.cache
def _environment() -> jinja2.Environment:
    """The Jinja environment the models render in: what every model and macro may call
    besides source(), ref() and config() (given per model, see _render), and the project's
    macros, loaded once per process."""
    environment = jinja2.Environment(undefined=jinja2.StrictUndefined, extensions=["jinja2.ext.do"])
    environment.globals.update(
        dbt=DBT_MACROS,
        execute=False,
        env_var=lambda _name, default="": default,
        var=settings.dbt_var,
        adapter=SimpleNamespace(dispatch=lambda name, _package=None: _dispatch(environment, name)),
        # dbt's return() ends a macro with a value; here the macro's output is that value
        **{"return": lambda value: value},
    )
    for macro_file in sorted((settings.PROJECT_ROOT / "macros").glob("*.sql")):
        module = environment.from_string(macro_file.read_text(encoding="utf-8")).module
        environment.globals.update(
            {name: macro for name, macro in vars(module).items() if isinstance(macro, jinja2.runtime.Macro)}
        )
    return environment


def _dispatch(environment: jinja2.Environment, name: str) -> Callable[..., str]:
    """adapter.dispatch(name): the duckdb__ implementation of a project macro, else default__."""
    for prefix in ("duckdb__", "default__"):
        if f"{prefix}{name}" in environment.globals:
            return environment.globals[f"{prefix}{name}"]
    raise KeyError(f"macro {name} has no duckdb__ or default__ implementation")


def register_sources(
    con: duckdb.DuckDBPyConnection, links: Path, tables: dict[str, Path], manifest: Path | None
) -> set[str]:
    """One temporary view per release file (file_row_number included, as dbt's source reads
    it). DuckDB reads each file through a link in `links`, our own folder: DuckDB expands glob
    characters in file names and a release folder may be called anything, so the only path
    that enters SQL is the link's, which holds no quote or glob character. An absent optional
    annex reads as empty. Returns the tables registered."""
    links.mkdir(parents=True, exist_ok=True)
    if any(c in str(links) for c in "*?[]{}'\\"):
        raise RuntimeError(f"the temporary folder {links} holds glob or quote characters; point TMPDIR elsewhere")
    readers = {table: ("read_parquet", contract.file_name(table), path) for table, path in tables.items()}
    if manifest is not None:
        readers["manifest"] = ("read_json", contract.MANIFEST, manifest)
    for table, (reader, name, path) in readers.items():
        link = links / name
        link.unlink(missing_ok=True)
        link.symlink_to(path.resolve())
        options = ", file_row_number = true" if reader == "read_parquet" else ""
        con.execute(f"create or replace temp view {source_view(table)} as select * from {reader}('{link}'{options})")
    for table in contract.OPTIONAL_TABLES:
        if table not in tables:
            schema = contract.SCHEMAS[table].append(pa.field("file_row_number", pa.int64()))
            con.register(source_view(table), schema.empty_table())
            readers[table] = ("", "", Path())
    return set(readers)


def build(con: duckdb.DuckDBPyConnection, readable: set[str]) -> dict[str, str]:
    """Build every model whose tables are in `readable` (and registered); returns the DuckDB
    error of each model that failed, by model name."""
    con.execute("create schema if not exists staging")
    con.execute("create schema if not exists intermediate")
    built: dict[str, str] = {}
    failed: dict[str, str] = {}

    def ref(name: str) -> str:
        if name == INLINED.name:
            return f"({render(INLINED, ref)})"
        if name in built:
            return built[name]
        if name in EMPTY:
            return EMPTY[name]
        raise KeyError(f"{name} is not built")

    for model in MODELS:
        if not set(model.reads) <= readable:
            continue
        try:
            sql, configured = _render(model, ref)
            for statement in _hooks(configured, "pre_hook"):
                con.execute(statement)
            try:
                con.execute(f"create or replace table {model.relation} as {sql}")
            finally:
                for statement in _hooks(configured, "post_hook"):
                    con.execute(statement)
        except (duckdb.Error, KeyError) as error:
            failed[model.name] = f"{type(error).__name__}: {error}"
        else:
            built[model.name] = model.relation
    return failed
