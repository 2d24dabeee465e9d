"""The project's dbt Python models (the bootstraps), run on Spark as a step outside dbt.

dbt-spark runs Python models only on Databricks. On any other Spark the build runs each
Python model file itself, unchanged, in dependency order: `model(dbt, session)` gets a
stand-in for dbt's context whose `ref()` returns `SparkSqlRelation`, the few relation
methods the models use (set_alias, join, filter, select, to_arrow_table) written as Spark
SQL, and `config.get()` the model's config as dbt parsed it. So the cells are read through
Spark, the same function runs with the same seed, and its Arrow table is written back to the
model's relation, where the marts built after it read it.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa


@dataclass(frozen=True)
class SparkSqlRelation:
    """A query over Spark tables, built like a DuckDB relation: a from clause and filters."""

    spark: Any
    source: str
    conditions: tuple[str, ...] = ()

    def _query(self, columns: str = "*") -> str:
        where = f" where {' and '.join(f'({c})' for c in self.conditions)}" if self.conditions else ""
        return f"select {columns} from {self.source}{where}"

    def set_alias(self, alias: str) -> SparkSqlRelation:
        return SparkSqlRelation(self.spark, f"({self._query()}) as {alias}")

    def join(self, other: SparkSqlRelation, condition: str) -> SparkSqlRelation:
        if self.conditions or other.conditions:
            raise ValueError("join a filtered relation through set_alias() first")
        return SparkSqlRelation(self.spark, f"{self.source} inner join {other.source} on {condition}")

    def filter(self, condition: str) -> SparkSqlRelation:
        return SparkSqlRelation(self.spark, self.source, (*self.conditions, condition))

    def select(self, columns: str) -> SparkSqlRelation:
        return SparkSqlRelation(self.spark, f"({self._query(columns)}) as selected")

    def to_arrow_table(self) -> pa.Table:
        return self.spark.sql(self._query()).toArrow()


@dataclass(frozen=True)
class _Config:
    values: dict[str, Any]

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)


@dataclass(frozen=True)
class _DbtContext:
    spark: Any
    relations: dict[str, str]
    config: _Config = field(default_factory=lambda: _Config({}))

    def ref(self, name: str) -> SparkSqlRelation:
        return SparkSqlRelation(self.spark, self.relations[name])


def python_models(manifest: Any) -> list[Any]:
    """The project's Python model nodes, in dependency order."""
    nodes = {
        unique_id: node
        for unique_id, node in manifest.nodes.items()
        if node.resource_type == "model" and node.language == "python"
    }
    ordered: list[Any] = []
    while len(ordered) < len(nodes):
        ready = [
            n
            for uid, n in sorted(nodes.items())
            if n not in ordered and all(d not in nodes or nodes[d] in ordered for d in n.depends_on.nodes)
        ]
        if not ready:
            raise RuntimeError("the Python models depend on each other in a cycle")
        ordered.extend(ready)
    return ordered


def run_python_model(spark: Any, manifest: Any, node: Any, project: Path) -> int:
    """Run one Python model file of the dbt project in `project` with the Spark stand-in and
    write its table; returns its row count."""
    relations = {
        manifest.nodes[d].name: manifest.nodes[d].relation_name for d in node.depends_on.nodes if d in manifest.nodes
    }
    path = project / Path(node.original_file_path)
    specification = importlib.util.spec_from_file_location(node.name, path)
    if specification is None or specification.loader is None:
        raise RuntimeError(f"cannot load the Python model {node.original_file_path}")
    module = importlib.util.module_from_spec(specification)
    specification.loader.exec_module(module)
    table = module.model(_DbtContext(spark, relations, _Config(node.config.to_dict())), spark)
    if not isinstance(table, pa.Table):
        raise TypeError(f"{node.name} returned {type(table).__name__}, expected a pyarrow Table")
    spark.sql(f"create schema if not exists {node.schema}")
    file_format = node.config.get("file_format") or "parquet"
    spark.createDataFrame(table).write.mode("overwrite").format(file_format).saveAsTable(node.relation_name)
    return table.num_rows
