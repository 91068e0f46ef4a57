"""Statistics every analysis shares: percentiles and Jain's fairness index.

One rule for undefined input: an empty sample has no percentile and no fairness index, so both
return NaN (never 0, which would read as a measurement). Callers that write JSON turn NaN into
null (results.json_text does so for every file).
"""

from __future__ import annotations

import math

import numpy as np


def percentile(x, q: float, method: str = "rank") -> float:
    """The q-quantile (0 <= q <= 1) of the sample `x`; NaN when `x` is empty.

    ``method="rank"``: the sorted sample's element at index floor(q·n) (capped at n−1), the rule
    the analyses' published figures use (a value that occurred, never an interpolation).
    ``method="linear"``: linear interpolation between the order statistics at (n−1)·q (numpy's
    default), used by `dccsim compare`.
    """
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"quantile must lie in [0, 1], got {q}")
    s = np.sort(np.asarray(x, dtype=np.float64))
    n = len(s)
    if n == 0:
        return math.nan
    if method == "rank":
        return float(s[min(n - 1, int(q * n))])
    if method == "linear":
        k = (n - 1) * q
        lo = int(k)
        hi = min(lo + 1, n - 1)
        return float(s[lo] + (s[hi] - s[lo]) * (k - lo))
    raise ValueError(f"unknown percentile method {method!r}; allowed: rank, linear")


def percentiles(x, qs, method: str = "rank") -> list[float]:
    """`percentile(x, q)` for every q in `qs`."""
    return [percentile(x, q, method) for q in qs]


def jain(x) -> float:
    """Jain's index (Σx)² / (n·Σx²): 1 = perfectly fair, 1/n = one flow has everything.
    NaN when it is undefined: an empty sample, or every value zero (0/0)."""
    a = np.asarray(x, dtype=np.float64)
    if len(a) == 0 or not (a != 0).any():
        return math.nan
    return float(a.sum() ** 2 / (len(a) * (a**2).sum()))
