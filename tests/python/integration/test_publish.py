"""Publishing guarantees of `distressbench build`, against one shared warehouse.

The tests run in file order on one module-scoped warehouse (a dbt build takes ~35 s):
the fixture publishes release fixture-a into a new path; later tests publish
fixture-b and a changed fixture-a. Every failure test checks that the published path and
the bytes of the file it points at are unchanged.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from distressbench import cli, settings
from distressbench.outputs.warehouse import query
from distressbench.publish import layout as layout_module
from distressbench.publish import pipeline as build
from distressbench.publish.layout import DBT_TARGET, WarehouseLayout
from distressbench.publish.stages import StageFailed
from distressbench.release.manifest import manifest_sha256
from distressbench.release.release import Release, load_release
from fixtures.releases.hand_built import make_release
from fixtures.releases.writer import edit_manifest, read_table, refresh_manifest, rewrite_table

CLI = [sys.executable, "-m", "distressbench.cli"]


@dataclass(frozen=True)
class Shared:
    warehouse: Path
    releases: Path

    @property
    def layout(self) -> WarehouseLayout:
        return WarehouseLayout(self.warehouse)

    def release(self, name: str) -> Path:
        return self.releases / name


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _snapshot(warehouse: Path) -> tuple[str | None, str]:
    """What the published path is: its symlink target (None for a plain file) and the sha256
    of the bytes it resolves to."""
    return (os.readlink(warehouse) if warehouse.is_symlink() else None), _sha256(warehouse.resolve())


def _release_ids(warehouse: Path) -> list[str]:
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        return [r[0] for r in connection.sql("select distinct release_id from marts.headline_metrics").fetchall()]


def _meta(warehouse: Path) -> list[tuple[str, str]]:
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        return connection.sql(
            "select release_id, manifest_sha256 from meta.published_releases order by rowid"
        ).fetchall()


def _log(warehouse: Path) -> list[tuple[str, str]]:
    lines = WarehouseLayout(warehouse).log.read_text(encoding="utf-8").splitlines()
    return [(r["release_id"], r["manifest_sha256"]) for r in map(json.loads, lines)]


def _beside(warehouse: Path) -> set[str]:
    """Names of the entries next to the published path."""
    return {p.name for p in warehouse.parent.iterdir()}


def _own_entries(warehouse: Path) -> set[str]:
    layout = WarehouseLayout(warehouse)
    return {warehouse.name, layout.builds_dir.name, layout.lock.name, layout.log.name}


def _wait_for(condition: Callable[[], bool], what: str, process: subprocess.Popen[bytes], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if process.poll() is not None:
            raise AssertionError(f"the build exited ({process.returncode}) before {what}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _build(capsys: pytest.CaptureFixture[str], release: Path, warehouse: Path, *extra: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli.main(["build", str(release), "--warehouse", str(warehouse), *extra])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    """fixture-a published into a new warehouse path."""
    root = tmp_path_factory.mktemp("publish")
    releases = root / "releases"
    make_release(releases / "a", release_id="fixture-a")
    make_release(releases / "b", release_id="fixture-b")
    changed = make_release(releases / "a-changed", release_id="fixture-a")
    responses = read_table(changed, "responses")
    content = ["Changed reply. " + text if text else text for text in responses["content"].to_pylist()]
    rewrite_table(
        changed,
        "responses",
        responses.set_column(responses.schema.get_field_index("content"), "content", pa.array(content, pa.string())),
    )
    bad = make_release(releases / "bad-weight", release_id="fixture-bad")
    criteria = read_table(bad, "criteria")
    weights = [0] + criteria["weight"].to_pylist()[1:]
    rewrite_table(
        bad,
        "criteria",
        criteria.set_column(criteria.schema.get_field_index("weight"), "weight", pa.array(weights, pa.int32())),
    )

    warehouse = root / "warehouse" / "distressbench.duckdb"
    warehouse.parent.mkdir()
    assert cli.main(["build", str(releases / "a"), "--warehouse", str(warehouse)]) == 0
    yield Shared(warehouse, releases)


def test_first_publish_links_the_path_to_its_build(shared: Shared) -> None:
    warehouse, layout = shared.warehouse, shared.layout
    assert warehouse.is_symlink()
    assert warehouse.resolve().parent == layout.builds_dir
    assert _release_ids(warehouse) == ["fixture-a"]
    digest = manifest_sha256(shared.release("a"))
    assert _meta(warehouse) == [("fixture-a", digest)] == _log(warehouse)
    assert _beside(warehouse) == _own_entries(warehouse)
    assert not list(layout.builds_dir.glob("work-*"))


def test_identical_release_is_a_noop_even_waiting_for_the_lock_and_with_a_writer_open(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    warehouse, layout = shared.warehouse, shared.layout
    before, files_before = _snapshot(warehouse), sorted(layout.builds_dir.iterdir())
    writer = subprocess.Popen(  # an analyst who forgot read_only: the build cannot even read the file
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('open', flush=True); time.sleep(300)",
            str(warehouse),
        ],
        stdout=subprocess.PIPE,
    )
    result: list[tuple[int, str, str]] = []
    try:
        assert writer.stdout is not None and writer.stdout.readline() == b"open\n"
        with layout.lock.open("a") as lock:  # another build holds the lock (flock: per open file)
            fcntl.flock(lock, fcntl.LOCK_EX)
            capsys.readouterr()
            build = threading.Thread(target=lambda: result.append(_build(capsys, shared.release("a"), warehouse)))
            build.start()
            deadline = time.monotonic() + 30
            while "waiting for another build" not in capsys.readouterr().out:
                assert time.monotonic() < deadline, "the build did not report waiting for the lock"
                time.sleep(0.05)
            time.sleep(0.5)
            assert build.is_alive() and not result
            fcntl.flock(lock, fcntl.LOCK_UN)
        build.join(timeout=120)
    finally:
        writer.kill()
        writer.wait()
    [(code, out, err)] = result
    assert code == 0, err
    assert "release fixture-a is already published with identical content: nothing to do" in out
    assert "[dbt build]" not in out
    assert _snapshot(warehouse) == before
    assert sorted(layout.builds_dir.iterdir()) == files_before


def test_a_release_failing_the_gate_changes_nothing(shared: Shared, capsys: pytest.CaptureFixture[str]) -> None:
    warehouse = shared.warehouse
    before = _snapshot(warehouse)
    code, out, err = _build(capsys, shared.release("bad-weight"), warehouse)
    assert code == 1
    assert "build failed at stage 'gate'" in err and "weight" in err
    assert f"the published warehouse {warehouse} is unchanged" in err
    assert "[dbt build]" not in out
    assert _snapshot(warehouse) == before
    assert _beside(warehouse) == _own_entries(warehouse)
    report = Path(err.split("full report: ")[1].split()[0])
    assert json.loads(report.read_text(encoding="utf-8"))["passed"] is False


def _copy_of_the_project(folder: Path) -> Path:
    """What dbt reads of the project, copied into `folder` (a new folder)."""
    folder.mkdir()
    for name in ("dbt_project.yml", "profiles.yml"):
        shutil.copy(settings.PROJECT_ROOT / name, folder / name)
    for name in ("models", "seeds", "macros", "tests"):
        shutil.copytree(
            settings.PROJECT_ROOT / name, folder / name, ignore=shutil.ignore_patterns("python", "__pycache__")
        )
    return folder


def test_a_failing_dbt_test_fails_the_build_at_the_dbt_stage(
    shared: Shared, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The project, copied with one singular test that always fails (it returns every model)."""
    project = _copy_of_the_project(tmp_path / "project")
    (project / "tests" / "always_fails.sql").write_text("select * from {{ ref('stg_release__models') }}\n")
    monkeypatch.setattr(settings, "PROJECT_ROOT", project)
    warehouse = shared.warehouse
    before = _snapshot(warehouse)
    code, out, err = _build(capsys, shared.release("b"), warehouse)
    assert code == 1
    assert "build failed at stage 'dbt build'" in err and "test always_fails: Got" in err
    assert "[audit]" not in out
    assert _snapshot(warehouse) == before
    assert _release_ids(warehouse) == ["fixture-a"]
    assert _beside(warehouse) == _own_entries(warehouse)


def test_a_failing_generic_test_fails_the_build_naming_the_test_its_model_and_rows(
    shared: Shared, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A generic data test made to fail (model_scores' range narrowed to [0, 0.5]) fails the
    build, named with dbt's count of its failing rows."""
    project = _copy_of_the_project(tmp_path / "project")
    _narrowed_model_scores_range(project)
    monkeypatch.setattr(settings, "PROJECT_ROOT", project)
    warehouse = shared.warehouse
    before = _snapshot(warehouse)
    code, out, err = _build(capsys, shared.release("b"), warehouse)
    assert code == 1
    assert "build failed at stage 'dbt build'" in err
    assert "dbt failed on 1 node(s)" in err, err
    failure = re.search(r"test columns_between_model_scores_score__0_5__0: Got (\d+) results?", err)
    assert failure and int(failure[1]) > 0, err
    assert "[audit]" not in out
    assert _snapshot(warehouse) == before
    assert _release_ids(warehouse) == ["fixture-a"]


def _narrowed_model_scores_range(project: Path, config: str = "") -> None:
    """model_scores' range test in the project copy narrowed to [0, 0.5], which its scores fail
    (`config`: the test's config, written inline)."""
    marts = project / "models" / "marts" / "_marts__models.yml"
    head, model_scores, rest = marts.read_text(encoding="utf-8").partition("- name: model_scores\n")
    narrowed = rest.replace("min_value: 0, max_value: 1}", f"min_value: 0, max_value: 0.5}}{config}", 1)
    assert narrowed != rest
    marts.write_text(head + model_scores + narrowed, encoding="utf-8")


def test_a_generic_test_that_only_warns_is_recorded_and_the_build_passes(
    shared: Shared, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A generic test that only warns: the build passes, and dbt records the warning with its
    count in its run_results.json."""
    project = _copy_of_the_project(tmp_path / "project")
    _narrowed_model_scores_range(project, ", config: {severity: warn}")
    monkeypatch.setattr(settings, "PROJECT_ROOT", project)
    warehouse = tmp_path / "warehouse.duckdb"
    code, _, err = _build(capsys, shared.release("b"), warehouse)
    assert code == 0, err
    run = json.loads((WarehouseLayout(warehouse).builds_dir / DBT_TARGET / "run_results.json").read_text())
    results = {r["unique_id"].split(".")[2]: r for r in run["results"] if r["unique_id"].startswith("test.")}
    warned = results["columns_between_model_scores_score__0_5__0"]
    assert warned["status"] == "warn" and warned["failures"] > 0
    assert results["unique_model_scores_model_id"]["status"] == "pass"


def test_a_build_killed_during_dbt_changes_nothing_and_frees_the_lock(
    shared: Shared, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    warehouse, layout = shared.warehouse, shared.layout
    before = _snapshot(warehouse)
    output = tmp_path / "build.out"
    with output.open("wb") as sink:
        build = subprocess.Popen(
            [*CLI, "build", str(shared.release("b")), "--warehouse", str(warehouse)],
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        _wait_for(
            lambda: "[dbt build]" in output.read_text() and any(layout.builds_dir.glob("work-*/*.duckdb")),
            "dbt creates the new database",
            build,
        )
        # Analysts keep querying the published warehouse while the build runs (in process:
        # a CLI subprocess would take seconds to start, and the build might finish first).
        released = query("select distinct release_id from marts.headline_metrics", warehouse)
        assert released["release_id"].tolist() == ["fixture-a"]
        assert build.poll() is None, "the build finished before it could be killed"
    finally:
        os.killpg(build.pid, signal.SIGKILL)
        build.wait()
    assert _snapshot(warehouse) == before
    assert _release_ids(warehouse) == ["fixture-a"]
    with layout.lock.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises if the killed build still held it
        fcntl.flock(lock, fcntl.LOCK_UN)
    assert list(layout.builds_dir.glob("work-*"))  # what the killed build left behind ...
    code, out, _ = _build(capsys, shared.release("a"), warehouse)
    assert code == 0 and "nothing to do" in out
    assert not list(layout.builds_dir.glob("work-*"))  # ... is cleared by the next build
    assert _snapshot(warehouse) == before


def test_an_open_reader_keeps_its_release_while_new_sessions_see_the_next(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    """Also the rebuild after the killed build above: a full build succeeds."""
    warehouse = shared.warehouse
    old_target = warehouse.resolve()
    reader = duckdb.connect(str(warehouse), read_only=True)
    assert reader.sql("select distinct release_id from marts.model_scores").fetchall() == [("fixture-a",)]
    code, out, err = _build(capsys, shared.release("b"), warehouse)
    assert code == 0, err
    assert f"published {warehouse} -> fixture-b-" in out
    assert reader.sql("select distinct release_id from marts.verdicts").fetchall() == [("fixture-a",)]
    assert _release_ids(warehouse) == ["fixture-b"]
    reader.close()
    assert old_target.exists()  # the previous build is kept
    assert [r for r, _ in _meta(warehouse)] == ["fixture-a", "fixture-b"]
    assert _meta(warehouse) == _log(warehouse)
    assert _beside(warehouse) == _own_entries(warehouse)


def test_a_release_id_published_with_other_content_needs_force(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    warehouse, changed = shared.warehouse, shared.release("a-changed")
    before = _snapshot(warehouse)
    code, out, err = _build(capsys, changed, warehouse)
    assert code == 1
    assert "build failed at stage 'publish check'" in err and "release id 'fixture-a'" in err and "--force" in err
    assert "[dbt build]" not in out
    assert _snapshot(warehouse) == before

    code, out, err = _build(capsys, changed, warehouse, "--force")
    assert code == 0, err
    assert _release_ids(warehouse) == ["fixture-a"]
    assert _meta(warehouse)[-1] == ("fixture-a", manifest_sha256(changed))
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        (n_changed,) = connection.execute(
            "select count(*) from staging.stg_release__responses where response_text like 'Changed reply.%'"
        ).fetchone()
    assert n_changed == len(read_table(changed, "responses")) - 1  # all but the empty reply


def test_what_is_published_comes_from_the_published_file_not_the_log(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    """As after a crash right after the rename: the log lost its last record."""
    warehouse, layout = shared.warehouse, shared.layout
    full = _meta(warehouse)
    lines = layout.log.read_text(encoding="utf-8").splitlines(keepends=True)
    layout.log.write_text("".join(lines[:-1]), encoding="utf-8")
    before = _snapshot(warehouse)
    code, out, _ = _build(capsys, shared.release("a-changed"), warehouse)
    assert code == 0 and "nothing to do" in out
    assert _log(warehouse) == full
    layout.log.unlink()
    code, _, err = _build(capsys, shared.release("a"), warehouse)
    assert code == 1 and "stage 'publish check'" in err
    assert _log(warehouse) == full
    assert _snapshot(warehouse) == before


def test_a_release_file_replaced_after_the_gate_read_it_is_refused(
    shared: Shared, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """judge_labels.parquet swapped (same row count, every label met) once the gate has read
    the release: what is published must be what was checked, so the build is refused."""
    release = tmp_path / "swapped"
    shutil.copytree(shared.release("b"), release)
    edit_manifest(release, release="fixture-swapped")
    refresh_manifest(release)
    labels = read_table(release, "judge_labels")
    all_met = labels.set_column(labels.schema.get_field_index("met"), "met", pa.array([True] * len(labels)))
    real_run_dbt = build.run_dbt

    def swap_then_run_dbt(*args: object, **kwargs: object) -> None:
        pq.write_table(all_met, release / "judge_labels.parquet")
        real_run_dbt(*args, **kwargs)

    monkeypatch.setattr(build, "run_dbt", swap_then_run_dbt)
    warehouse = shared.warehouse
    before = _snapshot(warehouse)
    code, out, err = _build(capsys, release, warehouse)
    assert code == 1
    assert "build failed at stage 'verify'" in err and "judge_labels.parquet" in err, err
    assert "[audit]" not in out
    assert _snapshot(warehouse) == before
    assert _beside(warehouse) == _own_entries(warehouse)
    assert "fixture-swapped" not in [r for r, _ in _meta(warehouse)]


def _everything(warehouse: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table and view of the published file, by relation."""
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        relations = connection.execute(
            "select schema_name || '.' || table_name from duckdb_tables() where database_name = current_database() "
            "union all select schema_name || '.' || view_name from duckdb_views() "
            "where database_name = current_database() and not internal"
        ).fetchall()
        return {name: sorted(connection.execute(f"select * from {name}").fetchall(), key=repr) for (name,) in relations}


def test_the_published_file_reads_nothing_outside_itself(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Moving the release folder away, and editing its manifest, changes no query result."""
    release = make_release(tmp_path / "release", release_id="fixture-self-contained")
    warehouse = tmp_path / "warehouse" / "w.duckdb"
    warehouse.parent.mkdir()
    code, _, err = _build(capsys, release, warehouse)
    assert code == 0, err
    before = _everything(warehouse)
    assert {"marts.verdicts", "marts.model_scores", "staging.stg_release__manifest"} <= set(before)
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        views = connection.execute("select view_name, sql from duckdb_views() where not internal").fetchall()
    assert all("read_" not in sql and str(release) not in sql for _, sql in views), views
    moved = release.rename(tmp_path / "moved")
    edit_manifest(moved, release="edited-after-publishing")
    assert _everything(warehouse) == before


# --------------------------------------------------------------------------------------
# a safe --warehouse: refused before any work, and builds keyed by the full file name


def _refused(capsys: pytest.CaptureFixture[str], warehouse: Path, release: Path) -> str:
    code, out, err = _build(capsys, release, warehouse)
    assert code == 2, (out, err)
    assert "[gate]" not in out and "[prepare]" not in out  # refused before any stage
    assert len(err.strip().splitlines()) == 1, err
    return err


def test_a_text_file_as_warehouse_is_refused_and_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    release = make_release(tmp_path / "release")
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n", encoding="utf-8")
    err = _refused(capsys, notes, release)
    assert "exists and is not a DuckDB database file" in err
    assert notes.read_text(encoding="utf-8") == "my notes\n" and not notes.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "release"]


def test_a_duckdb_file_no_build_published_is_refused_and_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    release = make_release(tmp_path / "release")
    plain = tmp_path / "dev.duckdb"
    with duckdb.connect(str(plain)) as connection:
        connection.execute("create table mine as select 'from before' as note")
    before = _sha256(plain)
    err = _refused(capsys, plain, release)
    assert f"{plain} is a DuckDB file that no build published" in err
    assert _sha256(plain) == before and not plain.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dev.duckdb", "release"]


def test_a_release_file_as_warehouse_is_refused_and_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    release = make_release(tmp_path / "release")
    tasks = release / "tasks.parquet"
    before = _sha256(tasks)
    err = _refused(capsys, tasks, release)
    assert f"inside the release folder {release}" in err
    assert _sha256(tasks) == before and not tasks.is_symlink()


def test_a_new_path_inside_a_release_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    release = make_release(tmp_path / "release")
    err = _refused(capsys, release / "sub" / "w.duckdb", make_release(tmp_path / "other"))
    assert f"inside the release folder {release}" in err
    assert not (release / "sub").exists()


def test_a_folder_as_warehouse_is_refused_before_the_build(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    release = make_release(tmp_path / "release")
    folder = tmp_path / "w.duckdb"
    folder.mkdir()
    err = _refused(capsys, folder, release)
    assert "is a folder" in err
    assert not list(tmp_path.glob("*.builds"))


def test_a_symlink_to_a_foreign_file_as_warehouse_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    release = make_release(tmp_path / "release")
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n", encoding="utf-8")
    link = tmp_path / "w.duckdb"
    link.symlink_to(notes)
    err = _refused(capsys, link, release)
    assert "is a symlink to" in err and "not a DuckDB database file" in err
    assert os.readlink(link) == str(notes)


def test_warehouses_sharing_a_stem_have_their_own_builds() -> None:
    layouts = [WarehouseLayout(Path("/data") / name) for name in ("w.duckdb", "w.db", "w")]
    for attribute in ("builds_dir", "log", "lock"):
        paths_of = [getattr(layout, attribute) for layout in layouts]
        assert len(set(paths_of)) == len(paths_of), attribute
        assert all(
            path.name.startswith(layout.published.name + ".") for path, layout in zip(paths_of, layouts, strict=True)
        )


def test_a_failure_after_the_switch_says_the_warehouse_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As when writing the publication log fails after the symlink swap: the message says
    what the published path is at the moment it is printed."""
    from distressbench.publish import pipeline as build_module

    release = make_release(tmp_path / "release")
    warehouse = tmp_path / "w.duckdb"
    layout = WarehouseLayout(warehouse)

    def switch_then_fail(
        release_dir: Path, target: Path, _settings: object, *, force: bool = False
    ) -> tuple[Path, bool]:
        layout.builds_dir.mkdir()
        database = layout.builds_dir / "fixture-1-new.duckdb"
        duckdb.connect(str(database)).close()
        layout_module.publish(layout, database, layout.builds_dir)
        raise StageFailed("publish", "cannot write the publication log")

    monkeypatch.setattr(build_module, "build_release", switch_then_fail)
    code, out, err = _build(capsys, release, warehouse)
    assert code == 1
    assert "is unchanged" not in err
    assert f"the published warehouse {warehouse} changed: it now points at fixture-1-new.duckdb" in err
    assert warehouse.resolve() == layout.builds_dir / "fixture-1-new.duckdb"


def test_a_failure_before_the_switch_says_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from distressbench.publish import pipeline as build_module

    def fail(release_dir: Path, target: Path, _settings: object, *, force: bool = False) -> tuple[Path, bool]:
        raise StageFailed("gate", "refused")

    monkeypatch.setattr(build_module, "build_release", fail)
    code, _, err = _build(capsys, make_release(tmp_path / "release"), tmp_path / "w.duckdb")
    assert code == 1 and f"the published warehouse {tmp_path / 'w.duckdb'} is unchanged" in err


def test_a_second_warehouse_sharing_the_stem_leaves_the_first_alone(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    """w.duckdb and w.db in one folder shared w.builds/, and building one deleted the
    other's published file. Runs last: it adds entries beside the shared warehouse."""
    warehouse = shared.warehouse
    before = _snapshot(warehouse)
    other = warehouse.with_suffix(".db")
    code, _, err = _build(capsys, shared.release("b"), other)
    assert code == 0, err
    assert _snapshot(warehouse) == before and _release_ids(warehouse) != ["fixture-b"]
    assert _release_ids(other) == ["fixture-b"]
    assert other.resolve().parent == WarehouseLayout(other).builds_dir != shared.layout.builds_dir
    code, _, err = _build(capsys, shared.release("b"), warehouse)
    assert code == 0, err
    assert _release_ids(warehouse) == _release_ids(other) == ["fixture-b"]
    assert other.resolve().exists()


def test_a_fifo_in_the_release_fails_the_build_at_the_gate_and_frees_the_lock(tmp_path: Path) -> None:
    """A FIFO named like a release file hung the gate, and the hung build held the lock."""
    release = make_release(tmp_path / "release")
    (release / "turns.parquet").unlink()
    os.mkfifo(release / "turns.parquet")
    warehouse = tmp_path / "w.duckdb"
    command = [*CLI, "build", str(release), "--warehouse", str(warehouse)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired as error:
        raise AssertionError("the build hung on the FIFO") from error
    assert done.returncode == 1, done.stderr
    assert "build failed at stage 'gate'" in done.stderr and '"turns.parquet" (a FIFO)' in done.stderr
    assert f"the published warehouse {warehouse} is unchanged" in done.stderr
    with WarehouseLayout(warehouse).lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free: raises BlockingIOError if still held


def test_a_path_inside_a_builds_folder_is_refused(shared: Shared, capsys: pytest.CaptureFixture[str]) -> None:
    """A build file of the shared warehouse given as --warehouse would be cleared by the
    next build of the shared warehouse."""
    before = _snapshot(shared.warehouse)
    err = _refused(capsys, shared.warehouse.resolve(), shared.release("b"))
    assert "the builds folder of a warehouse" in err
    assert _snapshot(shared.warehouse) == before


def test_a_small_release_is_built_with_two_dbt_threads_and_a_large_one_with_one(tmp_path: Path) -> None:
    def release(manifest: object) -> Release:
        folder = tmp_path / str(len(list(tmp_path.iterdir())))
        folder.mkdir()
        (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        return load_release(folder)

    def labels(rows: object) -> Release:
        return release({"files": {"judge_labels.parquet": {"rows": rows, "sha256": "0" * 64}}})

    assert build.dbt_threads(labels(build.TWO_DBT_THREADS_BELOW_LABELS - 1)) == 2
    assert build.dbt_threads(labels(build.TWO_DBT_THREADS_BELOW_LABELS)) == 1
    assert build.dbt_threads(labels("many")) == 1
    assert build.dbt_threads(release({"files": {}})) == 1  # the gate says what is wrong
    assert build.dbt_threads(release([1, 2])) == 1
    assert build.dbt_threads(load_release(tmp_path / "no-such-release")) == 1


def test_a_warehouse_builds_again_after_the_project_has_moved(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """dbt's saved parse holds absolute paths (each seed's CSV file) and dbt reuses it after
    the project has moved. The next build parses afresh instead of failing on the old
    folder's seeds."""
    release = make_release(tmp_path / "release", release_id="fixture-moved")
    warehouse = tmp_path / "warehouse" / "distressbench.duckdb"
    old_folder = _copy_of_the_project(tmp_path / "old-folder")
    with monkeypatch.context() as project:
        project.setattr(settings, "PROJECT_ROOT", old_folder)
        code, _, err = _build(capsys, release, warehouse)
        assert code == 0, err
    shutil.rmtree(old_folder)  # the project has moved away from there
    code, out, err = _build(capsys, release, warehouse, "--force")
    assert code == 0, err
    assert "[dbt build] done" in out
