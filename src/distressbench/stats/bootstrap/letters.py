"""Compact letter display (CLD) of the ranked models: models that share a letter are not
clearly different; two models that are clearly different share none.

Piepho (2004), "An algorithm for a letter-based representation of all-pairwise
comparisons", J. Comput. Graph. Stat. 13(2): insert and absorb, then sweep.
- Insert: start with one letter held by every model. For each clearly different pair (i, j),
  every letter held by both is split in two: a copy without i and a copy without j.
- Absorb: after each split, a new letter whose models are a subset of another letter's is
  dropped (the letters left before the split hold no subset of each other, so only the new
  ones need checking).
- Sweep: a model is taken off a letter when each model it shares that letter with shares
  another letter with it too; letters left a subset of another are dropped.
The display is valid (every pair not clearly different shares a letter, no clearly
different pair does); the sweep keeps it small, though not always the fewest letters.
Letters are boolean rows over the models; the pairs of one model with all models below it
are inserted at once (what inserting them one by one leaves once absorbed), and subsets are
found by matrix products, so 250 models take well under a second (docs/benchmarks.md).

Letters are named by score: sorted by the ranking positions of their models (best first,
then the next), the first is 'a'. Names run a-z, A-Z, then a1-Z1, a2-Z2, ... so that a
model's letters, written one after the other, can always be read apart.
"""

from __future__ import annotations

import string

import numpy as np

NAMES = string.ascii_lowercase + string.ascii_uppercase


def letter_name(index: int) -> str:
    """The name of letter `index` (0 = 'a'): a-z, A-Z, then with a round number, a1 ... Z1, a2 ..."""
    cycle, position = divmod(index, len(NAMES))
    return NAMES[position] + (str(cycle) if cycle else "")


def letter_sets(separated: np.ndarray) -> np.ndarray:
    """The letters of a k x k symmetric "clearly different" matrix (models in ranking order):
    a letters x k boolean array, row l holding the models with letter l, in letter order (see
    the module docstring)."""
    k = len(separated)
    if separated.shape != (k, k):
        raise ValueError(f"separated must be square, got shape {separated.shape}")
    separated = np.asarray(separated, dtype=bool)
    letters = np.ones((1 if k else 0, k), dtype=bool)
    below = np.arange(k)
    for i in range(k):
        # every pair (i, j), j below i, at once: a letter holding i and some such j becomes
        # the letter without i and the letter without those j (what splitting on each pair in
        # turn leaves, once absorbed)
        differ = separated[i] & (below > i)
        if not differ.any():
            continue
        hit = letters[:, i] & letters[:, differ].any(axis=1)
        if not hit.any():
            continue
        split = letters[hit]
        without_i = split.copy()
        without_i[:, i] = False
        fresh = np.concatenate([without_i, split & ~differ])
        kept = letters[~hit]
        letters = np.concatenate([kept, _not_absorbed(fresh, kept)])
    letters = _sweep(letters)
    order = sorted(range(len(letters)), key=lambda n: np.flatnonzero(letters[n]).tolist())
    return letters[order]


def letters_by_model(separated: np.ndarray) -> list[str]:
    """Each model's letters (models in ranking order), e.g. ['a', 'ab', 'b']."""
    sets = letter_sets(separated)
    names = [letter_name(n) for n in range(len(sets))]
    return ["".join(names[n] for n in np.flatnonzero(sets[:, model])) for model in range(len(separated))]


def _not_absorbed(fresh: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """The rows of `fresh`, once each, that are no subset of a row of `kept` or of another row
    of `fresh` (of two equal rows, the first stays)."""
    sizes = fresh.sum(axis=1)
    if len(kept):
        outside = ~((fresh.astype(np.float32) @ kept.T.astype(np.float32)) == sizes[:, None]).any(axis=1)
        fresh, sizes = fresh[outside], sizes[outside]
    within = (fresh.astype(np.float32) @ fresh.T.astype(np.float32)) == sizes[:, None]  # row a inside row b
    position = np.arange(len(fresh))
    larger = (sizes[None, :] > sizes[:, None]) | (
        (sizes[None, :] == sizes[:, None]) & (position[None, :] < position[:, None])
    )
    return fresh[~(within & larger).any(axis=1)]


def _sweep(letters: np.ndarray) -> np.ndarray:
    """Take each model off each letter where its other letters already pair it with every
    model of that letter (a model keeps at least one letter); then drop letters left empty
    or a subset of another. Within one letter the removals do not depend on each other
    (each looks only at the other letters), so a letter is swept at once."""
    letters = letters.copy()
    counts = letters.T.astype(np.float32) @ letters.astype(np.float32)  # letters models u and v share
    for n in range(len(letters)):
        members = letters[n]
        paired = (counts - np.outer(members, members)) > 0  # u, v share another letter (u, u: u has one)
        removed = paired[:, members].all(axis=1) & members
        if removed.any():
            counts -= np.outer(members, members)
            letters[n] &= ~removed
            counts += np.outer(letters[n], letters[n])
    letters = letters[letters.any(axis=1)]
    return _not_absorbed(letters, letters[:0])
