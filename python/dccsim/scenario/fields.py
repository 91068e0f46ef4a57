"""Converters for scenario fields: each takes (value, dotted field name) and returns the value in
the engine's units or raises ScenarioError naming the field and what is allowed."""

from __future__ import annotations

import math
from typing import Any

from .. import units
from ..errors import ScenarioError, brief


class Table:
    """A TOML table being read: rejects unknown keys, converts values, names fields in errors."""

    def __init__(self, data: Any, prefix: str, allowed):
        if not isinstance(data, dict):
            raise ScenarioError(prefix, f"expected a table, got {show(data)}")
        self.data, self.prefix = data, prefix
        for k in data:
            if k not in allowed:
                raise ScenarioError(
                    self.f(k), f"unknown key{did_you_mean(k, allowed)}; allowed: {', '.join(allowed)}"
                )

    def f(self, key: str) -> str:
        return f"{self.prefix}.{key}" if self.prefix else key

    def has(self, key: str) -> bool:
        return key in self.data

    def req(self, key: str, conv):
        if key not in self.data:
            raise ScenarioError(self.f(key), "missing (required)")
        return conv(self.data[key], self.f(key))

    def opt(self, key: str, conv, default):
        return conv(self.data[key], self.f(key)) if key in self.data else default


def did_you_mean(given, allowed) -> str:
    """`" (did you mean 'nack_interval'?)"` for a near miss of one of `allowed`, else ""."""
    import difflib

    if not isinstance(given, str):
        return ""
    close = difflib.get_close_matches(given, [str(a) for a in allowed], n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def show(v) -> str:
    return f"{type(v).__name__} {brief(repr(v))}" if not isinstance(v, dict) else "a table"


def unit(parse):
    def conv(v, f):
        try:
            return parse(v, f)
        except units.UnitError as e:
            msg = str(e)
            raise ScenarioError(f, msg[len(f) + 2 :] if msg.startswith(f + ": ") else msg) from None

    return conv


rate, time, size = unit(units.parse_rate), unit(units.parse_time), unit(units.parse_size)


def pos_time(v, f):
    t = time(v, f)
    if t <= 0:
        raise ScenarioError(f, f"must be > 0, got {v!r}")
    return t


def pos_size(v, f):
    b = size(v, f)
    if b <= 0:
        raise ScenarioError(f, f"must be > 0 bytes, got {v!r}")
    return b


MAX_SEED = 2**64 - 1  # the engine's seed is a u64


def integer(v, f, lo=None, hi=None):
    if isinstance(v, bool) or not isinstance(v, int):
        raise ScenarioError(f, f"expected an integer, got {show(v)}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        lo_s = "-inf" if lo is None else lo
        hi_s = "inf" if hi is None else hi
        raise ScenarioError(f, f"must be an integer in [{lo_s}, {hi_s}], got {v}")
    return v


def seed(v, f):
    return integer(v, f, lo=0, hi=MAX_SEED)


def ranged_number(lo: float, hi: float, lo_open: bool = False):
    """A finite number in [lo, hi] (or (lo, hi] when lo_open)."""

    def conv(v, f):
        x = number(v, f)
        if (x <= lo if lo_open else x < lo) or x > hi:
            raise ScenarioError(f, f"must lie in {'(' if lo_open else '['}{lo:g}, {hi:g}], got {v!r}")
        return x

    return conv


def string(v, f):
    if not isinstance(v, str):
        raise ScenarioError(f, f"expected a string, got {show(v)}")
    return v


def boolean(v, f):
    if not isinstance(v, bool):
        raise ScenarioError(f, f"expected true or false, got {show(v)}")
    return v


def number(v, f):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ScenarioError(f, f"expected a number, got {show(v)}")
    if isinstance(v, float) and not math.isfinite(v):
        raise ScenarioError(f, f"must be a finite number, got {v!r}")
    return v


def choice(allowed):
    def conv(v, f):
        if not isinstance(v, str) or v not in allowed:
            raise ScenarioError(
                f, f"unknown value {v!r}{did_you_mean(v, allowed)}; allowed: {', '.join(allowed)}"
            )
        return v

    return conv
