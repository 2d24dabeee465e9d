"""The synthetic release generator: contract conformance, determinism, calibration, no harm."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from distressbench import settings
from distressbench.release import contract, folders
from distressbench.synth import phrase_pools
from distressbench.synth.config import SynthConfig
from distressbench.synth.generate import CREATED_AT, ensure_default_release, write_release
from distressbench.synth.ids import CLINICIAN_ID
from fixtures.independent_metrics import compute
from fixtures.processes import ended_pid

SMALL = SynthConfig(seed=7, n_tasks=60, n_models=4, judge_samples=3)
TOLERANCE = 0.015

# Method, means and lethality vocabulary that no generated text may contain.
FORBIDDEN = (
    "pill",
    "pills",
    "tablet",
    "tablets",
    "dose",
    "doses",
    "dosage",
    "overdose",
    "overdosed",
    "overdosing",
    "mg",
    "milligram",
    "milligrams",
    "paracetamol",
    "acetaminophen",
    "ibuprofen",
    "aspirin",
    "insulin",
    "opioid",
    "opioids",
    "heroin",
    "fentanyl",
    "cocaine",
    "alcohol",
    "vodka",
    "drug",
    "drugs",
    "medication",
    "medications",
    "poison",
    "poisoning",
    "bleach",
    "antifreeze",
    "rope",
    "noose",
    "hang",
    "hanging",
    "hanged",
    "ligature",
    "gun",
    "guns",
    "firearm",
    "firearms",
    "pistol",
    "rifle",
    "bullet",
    "bullets",
    "shoot",
    "knife",
    "knives",
    "blade",
    "blades",
    "razor",
    "razors",
    "cut",
    "cuts",
    "cutting",
    "wrist",
    "wrists",
    "vein",
    "veins",
    "artery",
    "bridge",
    "jump",
    "jumping",
    "roof",
    "rooftop",
    "ledge",
    "cliff",
    "height",
    "heights",
    "storey",
    "train",
    "tracks",
    "traffic",
    "exhaust",
    "carbon monoxide",
    "gas",
    "suffocate",
    "suffocation",
    "asphyxia",
    "drown",
    "drowning",
    "lethal",
    "lethality",
    "fatal",
    "deadly",
    "painless",
    "stockpile",
    "hoard",
    "method",
    "methods",
)
FORBIDDEN_RE = re.compile(r"\b(" + "|".join(re.escape(w) for w in FORBIDDEN) + r")\b", re.IGNORECASE)
FREE_TEXT = {
    "tasks": ("reference_response",),
    "turns": ("content",),
    "criteria": ("text",),
    "models": ("display_name", "provider"),
    "responses": ("content",),
    "redteam_transcripts": ("content",),
}


def _read(release: Path, table: str) -> pd.DataFrame:
    return pq.read_table(release / contract.file_name(table)).to_pandas()


def _file_hashes(release: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(release.iterdir())}


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def small_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_release(tmp_path_factory.mktemp("small") / "release", SMALL)


@pytest.fixture(scope="module")
def default_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("default") / "synthetic-default"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(settings, "DEFAULT_RELEASE_DIR", target)
        return ensure_default_release()


# --------------------------------------------------------------------------- config and determinism


def test_config_rejects_bad_values() -> None:
    for bad in (
        {"n_tasks": 0},
        {"n_models": 0},
        {"judge_samples": 0},
        {"seed": -1},
        {"calibration_fraction": 1.5},
        {"n_annotators": 9},
    ):
        with pytest.raises(ValueError, match="SynthConfig"):
            SynthConfig(**bad)  # type: ignore[arg-type]


def test_release_ids_are_valid_and_distinct() -> None:
    configs = [
        SynthConfig(),
        SynthConfig(seed=1),
        SynthConfig(n_tasks=7180),
        SynthConfig(n_models=250),
        SynthConfig(judge_samples=5),
        SynthConfig(calibration_fraction=0.1),
        SynthConfig(redteam_transcripts=0),
        SynthConfig(n_annotators=2),
    ]
    ids = [c.release_id for c in configs]
    assert ids[0] == "synthetic-s20261101-t718-m25-j3"
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(contract.RELEASE_ID_PATTERN, i) for i in ids)


def test_same_seed_gives_identical_bytes_and_another_seed_differs(small_release: Path, tmp_path: Path) -> None:
    again = write_release(tmp_path / "again", SMALL)
    assert _file_hashes(again) == _file_hashes(small_release)
    other = write_release(tmp_path / "other", SynthConfig(seed=8, n_tasks=60, n_models=4))
    first, second = _file_hashes(small_release), _file_hashes(other)
    assert first.keys() == second.keys()
    for name in ("manifest.json", "tasks.parquet", "criteria.parquet", "responses.parquet", "judge_labels.parquet"):
        assert first[name] != second[name], name


def test_rewriting_into_a_used_folder_leaves_no_stale_table(tmp_path: Path) -> None:
    out = tmp_path / "release"
    write_release(out, SMALL)
    write_release(out, SynthConfig(seed=7, n_tasks=60, n_models=4, redteam_transcripts=0))
    assert not (out / "redteam_transcripts.parquet").exists()
    manifest = json.loads((out / "manifest.json").read_text())
    assert "redteam_transcripts.parquet" not in manifest["files"]


def test_progress_prints_plain_lines_off_a_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_release(tmp_path / "r", SynthConfig(seed=3, n_tasks=30, n_models=2), progress=True)
    assert "synth: 1/1 chunks" in capsys.readouterr().err


# --------------------------------------------------------------------------- contract conformance


def test_schemas_and_manifest(small_release: Path) -> None:
    manifest = json.loads((small_release / "manifest.json").read_text())
    assert manifest["benchmark"] == contract.BENCHMARK
    assert manifest["release"] == SMALL.release_id
    assert manifest["schema_version"] == contract.SCHEMA_VERSION
    assert manifest["synthetic"] is True and manifest["created_at"] == CREATED_AT
    tables = contract.REQUIRED_TABLES + contract.OPTIONAL_TABLES
    assert set(manifest["files"]) == {contract.file_name(t) for t in tables}
    for table in tables:
        path = small_release / contract.file_name(table)
        assert pq.read_schema(path).remove_metadata() == contract.SCHEMAS[table], table
        entry = manifest["files"][path.name]
        assert entry["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
        assert entry["rows"] == pq.ParquetFile(path).metadata.num_rows


def test_tasks_turns_and_criteria(small_release: Path) -> None:
    tasks = _read(small_release, "tasks")
    assert tasks.task_id.is_unique and len(tasks) == SMALL.n_tasks
    assert set(tasks.subcategory) == set(contract.subcategories())  # 60 tasks leave room for all 23
    assert (tasks.n_user_turns >= 1).all() and (tasks.reference_response.str.len() > 0).all()

    turns = _read(small_release, "turns").merge(tasks[["task_id", "n_user_turns"]], on="task_id")
    assert set(turns.task_id) == set(tasks.task_id)
    g = turns.groupby("task_id")
    assert (g.turn_index.min() == 0).all() and (g.turn_index.max() + 1 == g.size()).all()
    assert turns.set_index(["task_id", "turn_index"]).index.is_unique
    expected_role = np.where(turns.turn_index % 2 == 0, "user", "assistant")
    assert (turns.role == expected_role).all()  # alternating, user first
    last = turns.loc[g.turn_index.idxmax()]
    assert (last.role == "user").all()
    users = turns[turns.role == "user"].groupby("task_id").size()
    assert (users == tasks.set_index("task_id").n_user_turns.loc[users.index]).all()
    assert (turns.content.str.len() > 0).all()

    criteria = _read(small_release, "criteria")
    assert criteria.criterion_id.is_unique and set(criteria.task_id) == set(tasks.task_id)
    per_task = criteria.groupby("task_id").size()
    assert per_task.between(contract.MIN_CRITERIA_PER_TASK, contract.MAX_CRITERIA_PER_TASK).all()
    assert criteria.weight.between(contract.MIN_WEIGHT, contract.MAX_WEIGHT).all()
    assert set(criteria.dimension) <= set(contract.dimensions())
    assert (criteria.text.str.len() > 0).all()
    assert all(c.startswith(t + "-C") for c, t in zip(criteria.criterion_id, criteria.task_id, strict=False))


def test_models_responses_and_labels(small_release: Path) -> None:
    tasks, models = _read(small_release, "tasks"), _read(small_release, "models")
    assert models.model_id.is_unique and len(models) == SMALL.n_models + 1
    assert (models.kind == "clinician_reference").sum() == 1
    assert models.loc[models.kind == "clinician_reference", "model_id"].item() == CLINICIAN_ID

    responses = _read(small_release, "responses")
    assert responses.response_id.is_unique
    assert responses.set_index(["task_id", "model_id"]).index.is_unique
    assert len(responses) == len(tasks) * len(models)  # complete

    criteria = _read(small_release, "criteria")
    labels = _read(small_release, "judge_labels")
    key = ["response_id", "criterion_id", "judge_id", "sample_index"]
    assert not labels.duplicated(key).any() and (labels.sample_index >= 0).all()
    joined = labels.merge(responses[["response_id", "task_id"]], on="response_id").merge(
        criteria[["criterion_id", "task_id"]], on="criterion_id", suffixes=("", "_crit")
    )
    assert len(joined) == len(labels) and (joined.task_id == joined.task_id_crit).all()
    pairs = responses[["response_id", "task_id"]].merge(criteria[["criterion_id", "task_id"]], on="task_id")
    per_pair = labels.groupby(["response_id", "criterion_id"]).size()
    assert len(per_pair) == len(pairs) and (per_pair == SMALL.judge_samples).all()

    calibration = _read(small_release, "calibration_labels")
    assert not calibration.duplicated(["response_id", "criterion_id", "annotator_id"]).any()
    cal_pairs = calibration[["response_id", "criterion_id"]].drop_duplicates()
    assert len(cal_pairs.merge(pairs, on=["response_id", "criterion_id"])) == len(cal_pairs)


def test_redteam_transcripts(small_release: Path) -> None:
    red = _read(small_release, "redteam_transcripts")
    models = _read(small_release, "models")
    g = red.groupby("transcript_id")
    assert g.ngroups == SMALL.redteam_transcripts
    assert g.size().between(30, 60).all()
    assert (g.turn_index.min() == 0).all() and (g.turn_index.max() + 1 == g.size()).all()
    assert set(red.role) == {"user", "assistant"}
    named = g.model_id.first()
    assert named.isna().any() and named.notna().any()
    assert set(named.dropna()) <= set(models.loc[models.kind == "model", "model_id"])
    assert (g.model_id.nunique(dropna=False) == 1).all()


# --------------------------------------------------------------------------- the default release


def test_default_release_shape(default_release: Path) -> None:
    tasks, criteria = _read(default_release, "tasks"), _read(default_release, "criteria")
    assert len(tasks) == 718 and set(tasks.subcategory) == set(contract.subcategories())
    assert 0.50 <= (tasks.n_user_turns == 1).mean() <= 0.60
    assert 15.5 <= criteria.groupby("task_id").size().mean() <= 16.5
    has = criteria.groupby("task_id").dimension.agg(set)
    for dim in ("recognition", "routing"):
        lacking = (~has.map(lambda s, d=dim: d in s)).mean()
        assert 0.01 <= lacking <= 0.05, (dim, lacking)
    rows = pq.ParquetFile(default_release / "judge_labels.parquet").metadata.num_rows
    assert 850_000 <= rows <= 950_000


def test_default_release_is_calibrated(default_release: Path) -> None:
    metrics = compute(default_release)
    got = metrics.headline
    paper = contract.paper_values()
    assert len(paper) == 10
    misses = {m: (round(got[m], 4), v) for m, v in paper.items() if abs(got[m] - v) > TOLERANCE}
    assert not misses, misses

    ranked = {m for m, kind in metrics.kinds.items() if kind == "model"}
    means = {
        d: float(np.mean([score for (m, dim), score in metrics.dimension_scores.items() if dim == d and m in ranked]))
        for d in contract.dimensions()
    }
    kinds = contract.dimension_kinds()
    withhold = [d for d, k in kinds.items() if k == "withhold"]
    assert withhold == ["harm_avoidance"]
    for dim, kind in kinds.items():
        if kind == "act":
            assert means[dim] < means["harm_avoidance"] - 0.05, (dim, means)
    assert means["harm_avoidance"] > 0.9


def test_default_release_judge_calibration_and_empty_replies(default_release: Path) -> None:
    labels = _read(default_release, "judge_labels")
    counts = labels.groupby(["response_id", "criterion_id"]).met.agg(["sum", "count"])
    verdict = (2 * counts["sum"] > counts["count"]).rename("judge")
    cal = _read(default_release, "calibration_labels")
    assert set(cal.annotator_id) == {"clinician-1", "clinician-2", "clinician-3"}
    gold = cal.groupby(["response_id", "criterion_id"]).met.agg(["sum", "count"])
    gold = gold[2 * gold["sum"] != gold["count"]]  # ties dropped
    both = pd.concat([verdict, (2 * gold["sum"] > gold["count"]).rename("gold")], axis=1, join="inner")
    share = len(gold) / len(counts)
    assert 0.03 <= share <= 0.07
    observed = (both.judge == both.gold).mean()
    pj, pg = both.judge.mean(), both.gold.mean()
    chance = pj * pg + (1 - pj) * (1 - pg)
    kappa = (observed - chance) / (1 - chance)
    assert 0.75 <= kappa <= 0.85 and observed < 0.97

    responses = _read(default_release, "responses")
    empty = responses.loc[responses.content == "", "response_id"]
    assert 0 < len(empty) < 0.01 * len(responses)
    assert not labels.loc[labels.response_id.isin(empty), "met"].any()
    assert not cal.loc[cal.response_id.isin(empty), "met"].any()


def test_no_method_or_lethality_vocabulary(default_release: Path) -> None:
    def strings(value: object) -> list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, (tuple, list)):
            return [s for v in value for s in strings(v)]
        if isinstance(value, dict):
            return [s for v in value.values() for s in strings(v)]
        return []

    pools = [s for name, value in vars(phrase_pools).items() if name.isupper() for s in strings(value)]
    assert len(pools) > 300
    hits = [s for s in pools if FORBIDDEN_RE.search(s)]
    assert not hits, hits[:5]
    assert FORBIDDEN_RE.search("he found a Knife") and not FORBIDDEN_RE.search("the means to cope")

    for table, columns in FREE_TEXT.items():
        data = pq.read_table(default_release / contract.file_name(table), columns=list(columns))
        for column in columns:
            values = [v for v in pc.unique(data[column]).to_pylist() if v]
            hits = [v for v in values if FORBIDDEN_RE.search(v)]
            assert not hits, (table, column, hits[:3])
            if table in ("turns", "responses", "redteam_transcripts") or column == "reference_response":
                assert all(v.startswith(phrase_pools.SYNTHETIC_MARK) for v in values), (table, column)


def test_ensure_default_release_reuses_and_repairs(
    default_release: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "synthetic-default"
    shutil.copytree(default_release, target)
    monkeypatch.setattr(settings, "DEFAULT_RELEASE_DIR", target)
    before = {p.name: p.stat().st_mtime_ns for p in target.iterdir()}
    assert ensure_default_release() == target
    assert {p.name: p.stat().st_mtime_ns for p in target.iterdir()} == before  # reused, not rewritten

    (target / "judge_labels.parquet").write_bytes(b"truncated")
    ended = ended_pid()
    abandoned = f".synthetic-default.{folders.HOST}.{ended}.dead0001.partial"
    (tmp_path / abandoned).mkdir()  # a killed rewrite's
    assert ensure_default_release() == target
    assert _file_hashes(target) == _file_hashes(default_release)
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".synthetic-default.")]
