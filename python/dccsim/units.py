"""Quantities with units, as written in scenario files.

Rates become integer bits/s, times integer picoseconds, sizes integer bytes (the engine's units).
A bare number means the SI base unit (bits/s, seconds, bytes).
"""

from __future__ import annotations

import re

_NUM = r"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"
_RATE = {"bps": 1, "kbps": 1e3, "mbps": 1e6, "gbps": 1e9, "tbps": 1e12}
_TIME = {"ps": 1, "ns": 1e3, "us": 1e6, "µs": 1e6, "ms": 1e9, "s": 1e12}
_SIZE = {"b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "kib": 2**10, "mib": 2**20, "gib": 2**30, "pkt": None}


class UnitError(ValueError):
    """A quantity could not be parsed; the message names the field and the accepted forms."""


def _split(field: str, value, table: dict, what: str, example: str):
    if isinstance(value, bool):
        raise UnitError(f"{field}: expected a {what} such as {example!r}, got {value!r}")
    if isinstance(value, (int, float)):
        return float(value), None
    if not isinstance(value, str):
        raise UnitError(f"{field}: expected a {what} such as {example!r}, got {value!r}")
    m = re.fullmatch(_NUM + r"\s*([A-Za-zµ]+)", value.strip())
    if not m:
        raise UnitError(
            f"{field}: cannot read {value!r} as a {what}; write e.g. {example!r} "
            f"(units: {', '.join(k for k in table if table[k])})"
        )
    num, unit = float(m.group(1)), m.group(2)
    key = unit.lower() if unit not in ("µs",) else unit
    if key not in table or table[key] is None:
        raise UnitError(
            f"{field}: unknown unit {unit!r} in {value!r}; allowed: {', '.join(k for k in table if table[k])}"
        )
    return num, table[key]


def parse_rate(value, field: str = "rate") -> int:
    """'25Gbps' -> 25_000_000_000 (bits/s). Must be > 0."""
    num, mult = _split(field, value, _RATE, "rate", "25Gbps")
    bps = round(num * (mult or 1))
    if bps <= 0:
        raise UnitError(f"{field}: must be > 0, got {value!r}")
    return int(bps)


def parse_time(value, field: str = "time") -> int:
    """'1us' -> 1_000_000 (picoseconds). Must be >= 0."""
    num, mult = _split(field, value, _TIME, "time", "1us")
    ps = round(num * (mult if mult is not None else 1e12))
    if ps < 0:
        raise UnitError(f"{field}: must be >= 0, got {value!r}")
    return int(ps)


def parse_size(value, field: str = "size") -> int:
    """'4MiB' -> 4194304 (bytes). Must be >= 0."""
    num, mult = _split(field, value, _SIZE, "size", "1000B")
    b = round(num * (mult or 1))
    if b < 0:
        raise UnitError(f"{field}: must be >= 0, got {value!r}")
    return int(b)


def format_rate(bps: float) -> str:
    for unit, mult in (("Tbps", 1e12), ("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)):
        if bps >= mult:
            return f"{bps / mult:g}{unit}"
    return f"{bps:g}bps"


def format_time(ps: float) -> str:
    for unit, mult in (("s", 1e12), ("ms", 1e9), ("us", 1e6), ("ns", 1e3)):
        if ps >= mult:
            return f"{ps / mult:g}{unit}"
    return f"{ps:g}ps"


def format_size(b: float) -> str:
    for unit, mult in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if b >= mult:
            return f"{b / mult:g}{unit}"
    return f"{b:g}B"


# Exact formatting: the largest unit that divides the value exactly, so that parsing the text
# gives back the same integer (used when a scenario is written back to TOML).


def _exact(value: int, units: tuple, base: str) -> str:
    value = int(value)
    best = None
    for unit, mult in units:
        if value != 0 and value % mult == 0 and (best is None or mult > best[1]):
            best = (unit, mult)
    if best is None:
        return f"{value}{base}"
    return f"{value // best[1]}{best[0]}"


def format_rate_exact(bps: int) -> str:
    """25_000_000_000 -> '25Gbps'; parse_rate() of the result is the same integer."""
    return _exact(bps, (("Tbps", 10**12), ("Gbps", 10**9), ("Mbps", 10**6), ("kbps", 10**3)), "bps")


def format_time_exact(ps: int) -> str:
    """500_000_000 -> '500us'; 0 -> '0s'; parse_time() of the result is the same integer."""
    if int(ps) == 0:
        return "0s"
    return _exact(ps, (("s", 10**12), ("ms", 10**9), ("us", 10**6), ("ns", 10**3)), "ps")


def format_size_exact(b: int) -> str:
    """4194304 -> '4MiB', 90000 -> '90KB', 1000 -> '1000B' (below 10^4 bytes stay in B);
    parse_size() of the result is the same integer."""
    if int(b) < 10**4:
        return f"{int(b)}B"
    return _exact(
        b, (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10), ("GB", 10**9), ("MB", 10**6), ("KB", 10**3)), "B"
    )
