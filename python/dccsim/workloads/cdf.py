"""Flow-size distributions: reading a CDF file, its mean, and drawing sizes from it.

A CDF is a list of points (size in bytes, cumulative probability), sizes and probabilities
non-decreasing, the last probability 1. A size is drawn by taking u ~ U[0, 1) and interpolating
linearly between the two points that bracket u; u below the first probability gives the first
size (that probability is a point mass). The mean under that rule is
p₀·s₀ + Σᵢ (pᵢ₊₁ − pᵢ)·(sᵢ + sᵢ₊₁)/2.
"""

from __future__ import annotations

import math
from importlib import resources
from pathlib import Path

import numpy as np

from ..errors import ScenarioError

MAX_POINTS = 100_000


def packaged() -> list[str]:
    """Names of the CDFs shipped with dccsim (README.md in this package names their sources)."""
    files = resources.files(__package__)
    return sorted(p.name[: -len(".cdf")] for p in files.iterdir() if p.name.endswith(".cdf"))


def load_packaged(name: str, field: str) -> tuple:
    if name not in packaged():
        raise ScenarioError(field, f"unknown CDF {name!r}; allowed: {', '.join(packaged())}")
    text = resources.files(__package__).joinpath(f"{name}.cdf").read_text(encoding="utf-8")
    return parse(text, field, name)


def load_file(path: str, field: str) -> tuple:
    from ..bounded_read import read_text

    text = read_text(Path(path), field)  # a regular file of at most 64 MiB, UTF-8
    return parse(text, field, path)


def parse(text: str, field: str, name: str = "cdf") -> tuple:
    """((size, probability), ...) from the text of a CDF file; one-line errors naming the line."""
    pts = []
    for no, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{name} line {no}"
        parts = line.split()
        if len(parts) != 2:
            raise ScenarioError(field, f"{where}: expected '<size in bytes> <cumulative probability>'")
        try:
            s, p = float(parts[0]), float(parts[1])
        except ValueError:
            raise ScenarioError(field, f"{where}: {line!r} is not two numbers") from None
        if not (math.isfinite(s) and s >= 0 and s <= 2**50):
            raise ScenarioError(field, f"{where}: size must be a number in [0, 2^50] bytes, got {parts[0]}")
        if not (math.isfinite(p) and 0 <= p <= 1):
            raise ScenarioError(field, f"{where}: probability must lie in [0, 1], got {parts[1]}")
        if pts and (s < pts[-1][0] or p < pts[-1][1]):
            raise ScenarioError(field, f"{where}: sizes and probabilities must not decrease")
        pts.append((s, p))
        if len(pts) > MAX_POINTS:
            raise ScenarioError(field, f"{name}: more than {MAX_POINTS} points")
    if not pts:
        raise ScenarioError(field, f"{name}: no points")
    if pts[-1][1] != 1.0:
        raise ScenarioError(field, f"{name}: the last probability must be 1, got {pts[-1][1]:g}")
    if mean(tuple(pts)) < 1:
        raise ScenarioError(field, f"{name}: the mean flow size must be at least 1 byte")
    return tuple(pts)


def mean(points) -> float:
    s = np.array([x for x, _ in points], dtype=np.float64)
    p = np.array([y for _, y in points], dtype=np.float64)
    return float(p[0] * s[0] + np.sum(np.diff(p) * (s[:-1] + s[1:]) / 2))


def sample(points, u: np.ndarray) -> np.ndarray:
    """Sizes (int64 bytes, at least 1) for uniform draws `u` in [0, 1), vectorised."""
    s = np.array([x for x, _ in points], dtype=np.float64)
    p = np.array([y for _, y in points], dtype=np.float64)
    i = np.searchsorted(p, u, side="right")  # p[i-1] <= u < p[i]
    hi = np.minimum(i, len(p) - 1)
    lo = np.maximum(i - 1, 0)
    span = p[hi] - p[lo]
    frac = np.where(span > 0, (u - p[lo]) / np.where(span > 0, span, 1), 0.0)
    x = np.where(i == 0, s[0], s[lo] + frac * (s[hi] - s[lo]))
    return np.maximum(1, np.rint(x)).astype(np.int64)
