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


def letter_sets(separated: np.ndarray) -> list[int]:
    """The letters of a k x k symmetric "clearly different" matrix (models in ranking order),
    each a bit set of model positions, in letter order (see the module docstring)."""
    k = len(separated)
    if separated.shape != (k, k):
        raise ValueError(f"separated must be square, got shape {separated.shape}")
    if k == 0:
        return []
    letters = [(1 << k) - 1]
    rows, columns = np.nonzero(np.triu(separated, 1))
    for i, j in zip(rows.tolist(), columns.tolist(), strict=True):
        both = (1 << i) | (1 << j)
        split = [s for s in letters if s & both == both]
        if not split:
            continue
        kept = [s for s in letters if s & both != both]
        fresh = sorted({s & ~(1 << drop) for s in split for drop in (i, j)}, key=_size, reverse=True)
        for s in fresh:
            if not any(s & ~other == 0 for other in kept):
                kept.append(s)
        letters = kept
    return sorted(_sweep(letters, k), key=_positions)


def letters_by_model(separated: np.ndarray) -> list[str]:
    """Each model's letters (models in ranking order), e.g. ['a', 'ab', 'b']."""
    sets = letter_sets(separated)
    return ["".join(letter_name(n) for n, s in enumerate(sets) if s >> model & 1) for model in range(len(separated))]


def _sweep(letters: list[int], k: int) -> list[int]:
    """Take each model off each letter where its other letters already pair it with every
    model of that letter (a model keeps at least one letter); then drop letters left empty
    or a subset of another."""
    letters = list(letters)
    for n in range(len(letters)):
        for model in range(k):
            bit = 1 << model
            if not letters[n] & bit:
                continue
            elsewhere = 0
            for m, other in enumerate(letters):
                if m != n and other & bit:
                    elsewhere |= other
            if elsewhere and letters[n] & ~elsewhere == 0:
                letters[n] &= ~bit
    unique = sorted({s for s in letters if s}, key=_size, reverse=True)
    kept: list[int] = []
    for s in unique:
        if not any(s & ~other == 0 for other in kept):
            kept.append(s)
    return kept


def _size(bits: int) -> int:
    return bits.bit_count()


def _positions(bits: int) -> list[int]:
    """The model positions in a letter, ascending: the key that orders letters by score."""
    return [p for p in range(bits.bit_length()) if bits >> p & 1]
