"""analysis/common.py: the one percentile and Jain implementation every analysis uses."""

import math

import numpy as np
import pytest

from dccsim.analysis.common import jain, percentile, percentiles


def test_empty_input_is_nan_for_every_statistic():
    assert math.isnan(percentile([], 0.5))
    assert math.isnan(percentile([], 0.5, "linear"))
    assert math.isnan(jain([]))
    assert all(math.isnan(p) for p in percentiles([], (0.1, 0.9)))


def test_jain_is_nan_when_all_values_are_zero_and_exact_otherwise():
    assert math.isnan(jain([0, 0, 0]))
    assert jain([5, 5, 5, 5]) == 1.0
    assert jain([1, 0, 0, 0]) == 0.25  # one of n has everything: 1/n
    assert jain([1, 3]) == pytest.approx(16 / (2 * 10), rel=1e-15)


def test_rank_percentile_is_the_element_at_floor_q_n():
    x = [40, 10, 30, 20]
    assert percentile(x, 0.0) == 10
    assert percentile(x, 0.5) == 30  # index floor(0.5·4) = 2 of [10, 20, 30, 40]
    assert percentile(x, 0.99) == 40
    assert percentile(x, 1.0) == 40  # capped at n−1


def test_linear_percentile_matches_numpy_default():
    rng = np.random.default_rng(7)
    x = rng.exponential(size=101)
    for q in (0.0, 0.25, 0.5, 0.95, 0.99, 1.0):
        assert percentile(x, q, "linear") == pytest.approx(float(np.quantile(x, q)), rel=1e-12)


def test_bad_quantile_or_method_is_refused():
    with pytest.raises(ValueError):
        percentile([1], 1.5)
    with pytest.raises(ValueError):
        percentile([1], 0.5, "nearest")
