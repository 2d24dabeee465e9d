"""The models' SQL as dbt compiled it, run by DuckDB directly.

The gate stages a release by running the staging models' compiled SQL in its own DuckDB
connection rather than having dbt run them (seconds of dbt's import and parse for a second
of SQL): `staging_sql` compiles them once for each state of the project (its models, macros,
project and profile files, the dbt versions and the vars) and keeps the result in the
checkout's temporary folder; later gates, and builds, read it back. What runs is exactly
the SQL dbt would run, hooks included, compiled for a database file named GATE_DATABASE
(the SQL names its catalog, CATALOG: a database of another name is attached under it) that
reads the release through the link of a fixed name beside it (process.RELEASE_LINK), with
every table present (the red-team annex's model reads its file only when the release has it;
the gate stages only the tables a release has).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from graphlib import TopologicalSorter
from importlib import metadata
from pathlib import Path
from typing import Any

from distressbench.dbt.process import DbtFailed, DbtProcess
from distressbench.dbt.relations import staging_models
from distressbench.release import contract
from distressbench.settings import Settings, temporary_folder

CATALOG = "gate"  # the catalog the staging SQL names (the database it is run in is attached so)
GATE_DATABASE = f"{CATALOG}.duckdb"  # the database file it is compiled for
# what the compiled SQL depends on, in the project folder
PROJECT_INPUTS = ("dbt_project.yml", "profiles.yml", "models", "macros")
DBT_DISTRIBUTIONS = ("dbt-core", "dbt-duckdb")
CACHE = "staging-sql.json"
HOOK_SEPARATOR = "\n-- distressbench: next hook\n"  # between the hooks of one inline compile


@dataclass(frozen=True)
class CompiledModel:
    """One model as dbt compiled it: its relation (catalog.schema.name, quoted), its schema,
    its SQL (ephemeral models it reads inlined), the models it reads, the SQL of its pre- and
    post-hooks, and for a Python model its file (relative to the project) and no SQL."""

    name: str
    relation: str
    schema: str
    sql: str
    parents: tuple[str, ...]
    python_file: str | None = None
    pre_hooks: tuple[str, ...] = ()
    post_hooks: tuple[str, ...] = ()

    def statements(self) -> list[str]:
        """What building it runs, in order (a SQL model)."""
        return [*self.pre_hooks, f"create or replace table {self.relation} as {self.sql}", *self.post_hooks]


def models_in_manifest(manifest: Mapping[str, Any]) -> dict[str, CompiledModel]:
    """The compiled models of dbt's manifest.json (ephemeral ones are inlined where read)."""
    nodes = manifest["nodes"]
    models: dict[str, CompiledModel] = {}
    for node in nodes.values():
        if node["resource_type"] != "model" or node["config"]["materialized"] == "ephemeral":
            continue
        if not node.get("compiled_code"):
            continue
        parents = tuple(
            nodes[parent]["name"]
            for parent in node["depends_on"]["nodes"]
            if parent in nodes and nodes[parent]["resource_type"] == "model"
        )
        python_file = node["original_file_path"] if node["language"] == "python" else None
        models[node["name"]] = CompiledModel(
            node["name"], node["relation_name"], node["schema"], node["compiled_code"], parents, python_file
        )
    return models


def compile_models(dbt: DbtProcess, target_dir: Path, select: Iterable[str]) -> dict[str, CompiledModel]:
    """Have the running `dbt` compile the models `select` names (and what they read), and
    their hooks; their compiled models, from the manifest it writes in `target_dir`."""
    _compiled(dbt, ["--select", *select])
    manifest = json.loads((target_dir / "manifest.json").read_text(encoding="utf-8"))
    models = models_in_manifest(manifest)
    hooks = {
        name: [[hook["sql"] for hook in node["config"][kind]] for kind in ("pre-hook", "post-hook")]
        for name, node in ((node["name"], node) for node in manifest["nodes"].values())
        if name in models and (node["config"]["pre-hook"] or node["config"]["post-hook"])
    }
    texts = sorted({text for pre_post in hooks.values() for kind in pre_post for text in kind})
    if not texts:
        return models
    # dbt compiles a model's hooks only as it runs them: every hook's Jinja in one inline compile
    (rendered,) = _compiled(dbt, ["--inline", HOOK_SEPARATOR.join(texts)])
    sql = dict(zip(texts, rendered.split(HOOK_SEPARATOR.strip()), strict=True))
    for name, (pre, post) in hooks.items():
        models[name] = replace(
            models[name],
            pre_hooks=tuple(sql[text].strip() for text in pre if sql[text].strip()),
            post_hooks=tuple(sql[text].strip() for text in post if sql[text].strip()),
        )
    return models


def _compiled(dbt: DbtProcess, arguments: list[str]) -> list[str]:
    """`dbt compile <arguments>`; each node's compiled code."""
    outcome = dbt.invoke(["compile", *arguments])
    if not outcome.success:
        failures = "; ".join(f"{node.name}: {node.message}" for node in outcome.failures())
        raise DbtFailed(f"dbt could not compile the models: {failures or outcome.exception}")
    return [node.compiled_code or "" for node in outcome.nodes]


def dependency_order(models: Mapping[str, CompiledModel], names: Iterable[str]) -> list[str]:
    """`names` and the models of `models` they read, each after what it reads."""
    wanted: set[str] = set()
    stack = list(names)
    while stack:
        name = stack.pop()
        if name not in wanted:
            wanted.add(name)
            stack.extend(parent for parent in models[name].parents if parent in models)
    graph = {name: [parent for parent in models[name].parents if parent in wanted] for name in wanted}
    return list(TopologicalSorter(graph).static_order())


def project_digest(settings: Settings) -> str:
    """A digest of everything the compiled SQL depends on (PROJECT_INPUTS, dbt's versions,
    the vars, and this module: how it compiles)."""
    digest = hashlib.sha256(Path(__file__).read_bytes())
    for distribution in DBT_DISTRIBUTIONS:
        digest.update(f"{distribution}=={metadata.version(distribution)}\n".encode())
    digest.update(json.dumps(dict(settings.dbt_vars), sort_keys=True, default=str).encode())
    for name in PROJECT_INPUTS:
        path = settings.project_dir / name
        files = sorted(path.rglob("*")) if path.is_dir() else [path]
        for file in files:
            if file.is_file():
                digest.update(f"\n{file.relative_to(settings.project_dir)}\n".encode())
                digest.update(file.read_bytes())
    return digest.hexdigest()


def staging_sql(settings: Settings) -> dict[str, CompiledModel]:
    """The compiled SQL of every release table's staging model, for a database named
    GATE_DATABASE: read back from the checkout's temporary folder, or compiled by dbt once
    for this state of the project (and kept)."""
    folder = temporary_folder(settings.project_dir, "compiled")
    cache = folder / CACHE
    digest = project_digest(settings)
    try:
        saved = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        saved = {}
    if saved.get("digest") == digest:
        return {name: _model(fields) for name, fields in saved["models"].items()}
    models = _compile_staging(settings, folder)
    with tempfile.NamedTemporaryFile("w", dir=folder, prefix=".", delete=False, encoding="utf-8") as file:
        json.dump({"digest": digest, "models": {name: asdict(model) for name, model in models.items()}}, file)
    os.replace(file.name, cache)  # whole: gates of one checkout may compile side by side
    return models


def _model(fields: dict[str, Any]) -> CompiledModel:
    tuples = {name: tuple(fields[name]) for name in ("parents", "pre_hooks", "post_hooks")}
    return CompiledModel(**{**fields, **tuples})


def _compile_staging(settings: Settings, folder: Path) -> dict[str, CompiledModel]:
    with tempfile.TemporaryDirectory(dir=_made(folder), prefix="compile-") as scratch:
        work = Path(scratch)
        tables = (*contract.REQUIRED_TABLES, *contract.OPTIONAL_TABLES)
        links = _made(work / "release")
        for name in (contract.MANIFEST, *map(contract.file_name, tables)):  # every file there (compiling reads none)
            (links / name).touch()
        dbt = DbtProcess.start(
            project=settings.project_dir,
            database=work / GATE_DATABASE,
            release_links=links,
            log_dir=work / "dbt",
            target_dir=work / "target",
            threads=1,
            memory_limit=settings.memory_limit,
        )
        try:
            models = compile_models(dbt, work / "target", staging_models(tables))
        finally:
            dbt.stop()
    return models


def _made(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder
