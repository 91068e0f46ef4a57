"""Quantities with units, as written in scenario files.

Rates become integer bits/s, times integer picoseconds, sizes integer bytes (the engine's units).
A bare number means the SI base unit (bits/s, seconds, bytes).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation

from .errors import brief

_NUM = r"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"
# Units are case-sensitive (B = bytes, b = bits; M = mega, m = milli): only these spellings.
_RATE = {"bps": 1, "kbps": 10**3, "Kbps": 10**3, "Mbps": 10**6, "Gbps": 10**9, "Tbps": 10**12}
_TIME = {"ps": 1, "ns": 10**3, "us": 10**6, "µs": 10**6, "ms": 10**9, "s": 10**12}
_SIZE = {
    "B": 1,
    "KB": 10**3,
    "kB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "TB": 10**12,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
    "TiB": 2**40,
}
# Largest values any field accepts (fields may allow less): far beyond a datacenter, far below
# the engine's 64-bit counters even when summed along a path or multiplied by a flow count.
MAX_RATE_BPS = 10**15  # 1 Pbit/s
MAX_TIME_PS = 10**16  # 10 000 s
MAX_SIZE_BYTES = 2**50  # 1 PiB


class UnitError(ValueError):
    """A quantity could not be parsed; the message names the field and the accepted forms."""


def _split(field: str, value, table: dict, what: str, example: str, base: str):
    """(exact number, multiplier) of `value`; a bare number is in the base unit."""
    units = ", ".join(table)
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise UnitError(f"{field}: expected a {what} such as {example!r}, got {brief(repr(value))}")
    if isinstance(value, float) and not math.isfinite(value):
        raise UnitError(f"{field}: must be a finite {what} such as {example!r}, got {value!r}")
    if isinstance(value, (int, float)):
        return Decimal(repr(value)) if isinstance(value, float) else Decimal(value), table[base]
    m = re.fullmatch(_NUM + r"\s*([A-Za-zµ]+)", value.strip())
    if not m:
        raise UnitError(
            f"{field}: cannot read {value!r} as a {what}; write e.g. {example!r} (units: {units})"
        )
    unit = m.group(2)
    if unit not in table:
        hint = ""
        if unit.lower() in {k.lower() for k in table}:
            hint = " (units are case-sensitive: B = bytes, b = bits, M = mega, m = milli)"
        elif what == "size" and unit.endswith("b"):
            hint = " (b means bits; sizes are in bytes: B)"
        elif what == "rate" and unit.endswith("Bps"):
            hint = " (rates are in bits per second: bps; B would mean bytes)"
        raise UnitError(f"{field}: unknown unit {unit!r} in {value!r}{hint}; allowed: {units}")
    try:
        return Decimal(m.group(1)), table[unit]
    except InvalidOperation:  # pragma: no cover - the regex admits only decimal numbers
        raise UnitError(f"{field}: cannot read the number in {value!r}") from None


def _whole(field: str, value, num: Decimal, mult: int, base: str, hi: int, hi_text: str) -> int:
    if num.adjusted() > 30:  # beyond any limit here; a million digits would overflow Decimal
        raise UnitError(f"{field}: must be at most {hi_text}, got {value!r}")
    x = num * mult
    if x != x.to_integral_value():
        raise UnitError(f"{field}: must be a whole number of {base} (no rounding), got {value!r}")
    if x > hi:
        raise UnitError(f"{field}: must be at most {hi_text}, got {value!r}")
    return int(x)


def parse_rate(value, field: str = "rate") -> int:
    """'25Gbps' -> 25_000_000_000 (bits/s). Must be > 0, a whole number of bits/s, <= 1 Pbit/s."""
    num, mult = _split(field, value, _RATE, "rate", "25Gbps", "bps")
    bps = _whole(field, value, num, mult, "bits/s", MAX_RATE_BPS, "1000Tbps")
    if bps <= 0:
        raise UnitError(f"{field}: must be > 0, got {value!r}")
    return bps


def parse_time(value, field: str = "time") -> int:
    """'1us' -> 1_000_000 (picoseconds); a bare number is seconds. In [0, 10 000 s], whole ps."""
    num, mult = _split(field, value, _TIME, "time", "1us", "s")
    if num < 0:
        raise UnitError(f"{field}: must be >= 0, got {value!r}")
    return _whole(field, value, num, mult, "picoseconds", MAX_TIME_PS, "10000s")


def parse_size(value, field: str = "size") -> int:
    """'4MiB' -> 4194304 (bytes). In [0, 1 PiB], a whole number of bytes."""
    num, mult = _split(field, value, _SIZE, "size", "1000B", "B")
    if num < 0:
        raise UnitError(f"{field}: must be >= 0, got {value!r}")
    return _whole(field, value, num, mult, "bytes", MAX_SIZE_BYTES, "1024TiB")


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
