"""Generated workloads."""

from __future__ import annotations

import numpy as np


def derangement(n: int, seed: int) -> list[int]:
    """A uniformly random permutation of 0..n-1 with no fixed point, from numpy's default_rng(seed).

    Rejection sampling: about e ≈ 2.7 draws are needed on average, so this is cheap for any n.
    """
    if n < 2:
        raise ValueError("a derangement needs at least 2 elements")
    rng = np.random.default_rng(seed)
    idx = np.arange(n)
    while True:
        p = rng.permutation(n)
        if not np.any(p == idx):
            return [int(x) for x in p]


def permutation_pairs(n_hosts: int, seed: int) -> list[tuple[int, int]]:
    """(src, dst) for the permutation workload: host i sends to host perm[i] != i; every host
    receives exactly one flow."""
    return [(i, d) for i, d in enumerate(derangement(n_hosts, seed))]
