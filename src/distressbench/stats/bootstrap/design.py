"""The design matrix: cells and dimension_cells checked, coded in sorted id order and turned
into one integer-valued column per per-task sum the statistics need (see the package docstring
for its columns and the exact power-of-two grid)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from distressbench.release.contract import MODEL_KINDS
from distressbench.stats.bootstrap import checks
from distressbench.stats.bootstrap.checks import EXAMPLES, BootstrapInputError
from distressbench.stats.coding import codes_in, factorize_sorted

CELL_COLUMNS = (
    "model_id",
    "task_id",
    "kind",
    "score",
    "turn_type",
    "is_recognized_with_routing",
    "is_not_routed",
)
DIMENSION_COLUMNS = ("model_id", "task_id", "dimension", "score")
TURN_TYPES = ("single", "multi")
RANKED_KIND = "model"
REFERENCE_KIND = "clinician_reference"


@dataclass(frozen=True)
class Design:
    """Everything the resampling loop needs, in integer-coded, sorted order."""

    task_ids: np.ndarray  # sorted task ids (object array of str)
    model_ids: np.ndarray  # sorted model ids (object array of str)
    ranked: np.ndarray  # indices into model_ids of the ranked models (kind 'model', is_ranked)
    reference: int | None  # index into model_ids of the clinician reference
    # the other models (kind 'model', not ranked: judged otherwise) get a model_score interval only
    dimensions: tuple[str, ...]  # sorted dimension ids
    design: np.ndarray  # n_tasks x n_columns, integer-valued float64
    unscale: np.ndarray  # n_columns, powers of two mapping sums back to score units
    subcategories: tuple[str, ...] = ()  # sorted subcategory ids (when cells carry them)
    # the task indices grouped by subcategory (subcategory s: positions bounds[s] to bounds[s + 1])
    subcategory_tasks: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    subcategory_bounds: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))
    # the model score columns of the design and a column of ones, rows in subcategory_tasks order
    subcategory_scores: np.ndarray = field(default_factory=lambda: np.empty((0, 0)))

    @property
    def n_tasks(self) -> int:
        return len(self.task_ids)

    @property
    def n_models(self) -> int:
        return len(self.model_ids)

    @property
    def n_ranked(self) -> int:
        return len(self.ranked)


def build_design(cells: pd.DataFrame, dimension_cells: pd.DataFrame) -> Design:
    """Check both frames and build the per-task design matrix. cells may carry a boolean
    is_ranked (int_models_judged's: like ranked with like); without it every model of kind
    'model' is ranked."""
    checks.require(cells, "cells", CELL_COLUMNS + (("is_ranked",) if "is_ranked" in cells else ()))
    checks.require(dimension_cells, "dimension_cells", DIMENSION_COLUMNS)
    if len(cells) == 0:
        raise BootstrapInputError("cells: 0 rows; need one row per (model_id, task_id)")
    scores = checks.scores(cells, "cells", ("model_id", "task_id"))
    is_ranked_row, is_reference_row = cell_roles(cells)
    is_single_row = checks.coded(cells["turn_type"], "cells", TURN_TYPES) == TURN_TYPES.index("single")
    recognized = checks.flag(cells, "cells", "is_recognized_with_routing")
    not_routed = checks.flag(cells, "cells", "is_not_routed") & recognized

    t, task_ids = factorize_sorted(cells["task_id"])
    mo, model_ids = factorize_sorted(cells["model_id"])
    n, m = len(task_ids), len(model_ids)
    _check_cell_grid(t, mo, task_ids, model_ids, is_reference_row, is_ranked_row, is_single_row)
    ranked, reference = ranked_and_reference(is_ranked_row, is_reference_row, mo, model_ids)

    score_matrix = np.zeros((n, m))
    score_matrix[t, mo] = scores
    single = np.zeros(n)
    single[t] = is_single_row
    multi = 1.0 - single
    n_recognized = np.bincount(t, weights=recognized & is_ranked_row, minlength=n)
    n_not_routed = np.bincount(t, weights=not_routed & is_ranked_row, minlength=n)
    ranked_total = score_matrix[:, ranked].sum(axis=1)
    per_task = [ranked_total * single, ranked_total * multi, single, multi, n_not_routed, n_recognized]
    columns = [score_matrix, np.column_stack(per_task)]

    dimensions, dimension_blocks = _dimension_blocks(dimension_cells, task_ids, model_ids)
    columns.extend(dimension_blocks)
    design = np.column_stack(columns)
    design, unscale = _exact_grid(design, n)
    subcategories, tasks, bounds = _subcategory_groups(cells, t, task_ids)
    groups = (subcategories, tasks, bounds, np.column_stack([design[tasks, :m], np.ones(len(tasks))]))
    return Design(task_ids, model_ids, ranked, reference, dimensions, design, unscale, *groups)


def _subcategory_groups(
    cells: pd.DataFrame, t: np.ndarray, task_ids: np.ndarray
) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """(subcategories, tasks, bounds) when cells carry a subcategory column (one per task):
    the task indices sorted by subcategory, subcategory s holding positions bounds[s] to
    bounds[s + 1]; no subcategories otherwise."""
    if "subcategory" not in cells.columns:
        return (), np.empty(0, dtype=np.int64), np.zeros(1, dtype=np.int64)
    checks.require(cells, "cells", ("subcategory",))
    s, subcategories = factorize_sorted(cells["subcategory"])
    per_task = np.full(len(task_ids), -1)
    per_task[t] = s
    mixed = np.unique(t[per_task[t] != s])
    if len(mixed):
        raise checks.fail("cells", "task_id(s) with more than one subcategory", len(mixed), list(task_ids[mixed]))
    tasks = np.argsort(per_task, kind="stable")
    bounds = np.searchsorted(per_task[tasks], np.arange(len(subcategories) + 1))
    return tuple(str(x) for x in subcategories), tasks, bounds


def _check_cell_grid(
    t: np.ndarray,
    mo: np.ndarray,
    task_ids: np.ndarray,
    model_ids: np.ndarray,
    is_reference_row: np.ndarray,
    is_ranked_row: np.ndarray,
    is_single_row: np.ndarray,
) -> None:
    """One cell per (model, task), none missing; one kind and one is_ranked per model and one
    turn type per task."""
    n, m = len(task_ids), len(model_ids)
    duplicates = checks.duplicates(t * m + mo, n * m)
    if len(duplicates):
        keys = [(model_ids[mo[i]], task_ids[t[i]]) for i in duplicates[:EXAMPLES]]
        raise checks.fail("cells", "duplicate (model_id, task_id) row(s)", len(duplicates), keys)
    if len(t) != n * m:
        present = np.zeros((n, m), dtype=bool)
        present[t, mo] = True
        gaps = np.argwhere(~present)
        raise checks.fail(
            "cells",
            f"missing (model_id, task_id) cell(s) (every model needs a row for each of the {n} tasks)",
            len(gaps),
            [(model_ids[j], task_ids[i]) for i, j in gaps[:EXAMPLES]],
        )
    mixed = checks.mixed_groups(mo, is_reference_row, m)
    if len(mixed):
        raise checks.fail("cells", "model_id(s) with more than one kind", len(mixed), list(model_ids[mixed]))
    mixed = checks.mixed_groups(mo, is_ranked_row, m)
    if len(mixed):
        raise checks.fail("cells", "model_id(s) both ranked and not", len(mixed), list(model_ids[mixed]))
    mixed = checks.mixed_groups(t, is_single_row, n)
    if len(mixed):
        raise checks.fail("cells", "task_id(s) with more than one turn_type", len(mixed), list(task_ids[mixed]))


def cell_roles(cells: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Row by row, whether the cell's model is ranked (kind 'model' and, when cells carry it,
    is_ranked: int_models_judged's like ranked with like) and whether it is the clinician
    reference."""
    kind = checks.coded(cells["kind"], "cells", MODEL_KINDS)
    is_ranked_row = kind == MODEL_KINDS.index(RANKED_KIND)
    if "is_ranked" in cells:
        is_ranked_row &= checks.flag(cells, "cells", "is_ranked")
    return is_ranked_row, kind == MODEL_KINDS.index(REFERENCE_KIND)


def ranked_and_reference(
    is_ranked_row: np.ndarray, is_reference_row: np.ndarray, model_codes: np.ndarray, model_ids: np.ndarray
) -> tuple[np.ndarray, int | None]:
    """The indices into model_ids of the ranked models (at least one) and of the clinician
    reference (at most one), from cell_roles' flags of cells whose models are model_codes.
    The bootstrap's design and the anchored scores (stats.anchored) rank the same models."""
    model_is_ranked = np.zeros(len(model_ids), dtype=bool)
    model_is_ranked[model_codes] = is_ranked_row
    model_is_reference = np.zeros(len(model_ids), dtype=bool)
    model_is_reference[model_codes] = is_reference_row
    ranked = np.flatnonzero(model_is_ranked)
    references = np.flatnonzero(model_is_reference)
    if len(ranked) == 0:
        raise BootstrapInputError(
            f"cells: 0 models of kind 'model' ranked among {len(model_ids)} model(s) "
            f"(e.g. {', '.join(map(repr, model_ids[:EXAMPLES]))}); need at least one to rank"
        )
    if len(references) > 1:
        problem = "models of kind 'clinician_reference' (at most one allowed)"
        raise checks.fail("cells", problem, len(references), list(model_ids[references]))
    return ranked, int(references[0]) if len(references) else None


def _dimension_blocks(
    frame: pd.DataFrame,
    task_ids: np.ndarray,
    model_ids: np.ndarray,
) -> tuple[tuple[str, ...], list[np.ndarray]]:
    """Per dimension: an n_tasks x n_models score block plus a 'task has it' mask column."""
    table = "dimension_cells"
    if len(frame) == 0:
        return (), []
    scores = checks.scores(frame, table, ("model_id", "task_id", "dimension"))
    with ThreadPoolExecutor(max_workers=3) as pool:  # hashing millions of ids releases the GIL
        coding = [pool.submit(codes_in, frame[c], ids) for c, ids in (("task_id", task_ids), ("model_id", model_ids))]
        dimension_coding = pool.submit(factorize_sorted, frame["dimension"])
        t, mo = (job.result() for job in coding)
        d, dimensions = dimension_coding.result()
    for column, codes in (("model_id", mo), ("task_id", t)):
        unknown = codes < 0
        if unknown.any():
            examples = list(pd.unique(frame[column][unknown]))
            raise checks.fail(table, f"row(s) whose {column} is not in cells", int(unknown.sum()), examples)
    n, m, k = len(task_ids), len(model_ids), len(dimensions)

    pair = d * n + t  # dimension-major, the order of the blocks below
    duplicates = checks.duplicates(pair * m + mo, k * n * m)
    if len(duplicates):
        keys = [(model_ids[mo[i]], task_ids[t[i]], dimensions[d[i]]) for i in duplicates[:EXAMPLES]]
        raise checks.fail(table, "duplicate (model_id, task_id, dimension) row(s)", len(duplicates), keys)
    rows_per_pair = np.bincount(pair, minlength=k * n)
    short = np.flatnonzero((rows_per_pair > 0) & (rows_per_pair != m))
    if len(short):
        examples = [
            f"({task_ids[p % n]!r}, {dimensions[p // n]!r}) has {int(rows_per_pair[p])} of {m}"
            for p in short[:EXAMPLES]
        ]
        raise BootstrapInputError(
            f"{table}: {len(short)} (task_id, dimension) pair(s) lack a row for some model "
            f"(a task that has a dimension needs a row for every model); e.g. {'; '.join(examples)}"
        )
    # One n_tasks x (n_models + 1) block per dimension: every model's scores, then the mask
    # (the pair has rows, hence one for every model), each row placed by one flat scattered write.
    width = m + 1
    blocks = np.zeros((k * n, width))
    blocks.reshape(-1)[pair * width + mo] = scores
    blocks[:, m] = rows_per_pair > 0
    return tuple(str(x) for x in dimensions), list(blocks.reshape(k, n, width))


def _exact_grid(design: np.ndarray, n_tasks: int) -> tuple[np.ndarray, np.ndarray]:
    """Round each column to a power-of-two grid fine enough to keep every resampled sum exact.

    A resampled column sum is at most n_tasks * max|column| (the counts sum to n_tasks); with
    the column scaled by 2**e so that this bound is <= 2**52, every product and partial sum is
    an integer below 2**53, hence exact in float64 in any summation order.
    """
    top = design.max(axis=0)  # every column is >= 0 (scores in [0, 1], masks and counts)
    with np.errstate(divide="ignore"):
        exponent = np.where(top > 0, 52 - np.ceil(np.log2(n_tasks * np.where(top > 0, top, 1.0))), 0)
    exponent = exponent.astype(np.int64)
    np.rint(np.ldexp(design, exponent, out=design), out=design)  # in place: design is ours
    return design, np.ldexp(1.0, -exponent)
