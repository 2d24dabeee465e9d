"""The input checks: BootstrapInputError, and the column, value and key checks of the frames
handed to run_bootstrap, each naming the table, the count and a few examples."""

from __future__ import annotations

import numpy as np
import pandas as pd

from distressbench.errors import DistressbenchError

EXAMPLES = 3


class BootstrapInputError(DistressbenchError, ValueError):
    """The cells or dimension_cells handed to run_bootstrap break an assumption."""


def fail(table: str, problem: str, count: int, examples: list[object]) -> BootstrapInputError:
    shown = ", ".join(repr(e) for e in examples[:EXAMPLES])
    return BootstrapInputError(f"{table}: {count} {problem}; e.g. {shown}")


def require(frame: pd.DataFrame, table: str, required: tuple[str, ...]) -> None:
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise BootstrapInputError(f"{table}: {len(missing)} missing column(s): {', '.join(missing)}")
    for column in required:
        nulls = frame[column].isna().to_numpy()
        if nulls.any():
            rows = np.flatnonzero(nulls)
            raise fail(table, f"null value(s) in column {column!r} at row position(s)", len(rows), list(rows))


def scores(frame: pd.DataFrame, table: str, keys: tuple[str, ...]) -> np.ndarray:
    values = frame["score"].to_numpy(dtype=np.float64)
    bad = ~((values >= 0.0) & (values <= 1.0))
    if bad.any():
        rows = frame.loc[bad, [*keys, "score"]].head(EXAMPLES)
        raise fail(table, "score(s) outside [0, 1]", int(bad.sum()), list(rows.itertuples(index=False, name=None)))
    return values


def flag(frame: pd.DataFrame, table: str, column: str) -> np.ndarray:
    if not pd.api.types.is_bool_dtype(frame[column]):
        raise BootstrapInputError(f"{table}: column {column!r} must be boolean, got dtype {frame[column].dtype}")
    return frame[column].to_numpy(dtype=bool)


def coded(column: pd.Series, table: str, allowed: tuple[str, ...]) -> np.ndarray:
    """Row by row, the position of the column's value in `allowed`."""
    codes, uniques = pd.factorize(column)
    position = pd.Index(allowed).get_indexer(np.asarray(uniques, dtype=object))
    if (position < 0).any():
        bad = np.flatnonzero(position < 0)
        count = int(np.isin(codes, bad).sum())
        raise fail(table, f"value(s) in column {column.name!r} not in {allowed}", count, list(uniques[bad]))
    return position[codes]


def duplicates(keys: np.ndarray, n_keys: int) -> np.ndarray:
    """Row positions whose key already occurred in an earlier row."""
    seen = np.zeros(n_keys, dtype=bool)
    seen[keys] = True
    if int(seen.sum()) == len(keys):
        return np.empty(0, dtype=np.int64)
    _, first = np.unique(keys, return_index=True)
    repeated = np.ones(len(keys), dtype=bool)
    repeated[first] = False
    return np.flatnonzero(repeated)


def mixed_groups(group: np.ndarray, flag: np.ndarray, n_groups: int) -> np.ndarray:
    """Groups whose rows do not all share the same boolean flag."""
    total = np.bincount(group, minlength=n_groups)
    hits = np.bincount(group, weights=flag, minlength=n_groups)
    return np.flatnonzero((hits > 0) & (hits < total))
