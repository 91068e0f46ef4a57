"""The parameters every congestion controller accepts, with their valid ranges.

The engine (crates/engine/src/cc/*.rs) owns the meaning and the defaults; this table says which keys
exist and what values make sense, so a scenario is refused at load time with the dotted field of
the mistake (``experiment.variants[0].cc.gama``) instead of after the simulation starts.
tests/python/test_cc_params.py checks the names against the engine's own list, so the two cannot
drift apart. docs/scenario.md prints this table.

A range is ``Num(lo, hi, lo_open, hi_open)`` over finite floats, ``Int(lo, hi)`` over integers,
``Bool()`` or ``Choice(names)``. Bounds are the widest values the law is defined for (a gain in
(0, 1], a factor in (0, 1)), or, where the law has no bound, a generous limit that catches a slip
of units (1e9 where 0.1 was meant) — written as ``SANE_*`` below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import ScenarioError

SANE_MSS = 1e6  # windows and increases in MSS: a million packets is beyond any datacenter BDP
SANE_BYTES = 1e12  # windows/increases in bytes: 1 TB
SANE_RATE = 1e13  # bits/s: 10 Tbit/s
SANE_US = 1e9  # microseconds: 1000 s
U32 = 2**32 - 1


@dataclass(frozen=True)
class Num:
    lo: float = 0.0
    hi: float = math.inf
    lo_open: bool = False
    hi_open: bool = False

    def describe(self) -> str:
        hi = "inf" if self.hi == math.inf else f"{self.hi:g}"
        return f"a number in {'(' if self.lo_open else '['}{self.lo:g}, {hi}{')' if self.hi_open else ']'}"

    def check(self, v, field: str):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ScenarioError(field, f"expected {self.describe()}, got {type(v).__name__} {v!r}")
        x = float(v)
        if not math.isfinite(x):
            raise ScenarioError(field, f"must be finite ({self.describe()}), got {v!r}")
        below = x <= self.lo if self.lo_open else x < self.lo
        above = x >= self.hi if self.hi_open else x > self.hi
        if below or above:
            raise ScenarioError(field, f"must be {self.describe()}, got {v!r}")
        return v


@dataclass(frozen=True)
class Int:
    lo: int = 0
    hi: int = U32

    def describe(self) -> str:
        return f"an integer in [{self.lo}, {self.hi}]"

    def check(self, v, field: str):
        if isinstance(v, bool) or not isinstance(v, int) or not self.lo <= v <= self.hi:
            raise ScenarioError(field, f"must be {self.describe()}, got {v!r}")
        return v


@dataclass(frozen=True)
class Bool:
    def describe(self) -> str:
        return "true or false"

    def check(self, v, field: str):
        if not isinstance(v, bool):
            raise ScenarioError(field, f"expected true or false, got {v!r}")
        return v


@dataclass(frozen=True)
class Choice:
    names: tuple

    def describe(self) -> str:
        return "one of " + ", ".join(self.names)

    def check(self, v, field: str):
        if v not in self.names:
            raise ScenarioError(field, f"unknown value {v!r}; allowed: {', '.join(self.names)}")
        return v


@dataclass(frozen=True)
class NumList:
    item: Num

    def describe(self) -> str:
        return f"an ascending list of {self.item.describe()}"

    def check(self, v, field: str):
        if not isinstance(v, list):
            raise ScenarioError(field, f"expected {self.describe()}, got {v!r}")
        for i, x in enumerate(v):
            self.item.check(x, f"{field}[{i}]")
        if any(b <= a for a, b in zip(v, v[1:])):
            raise ScenarioError(field, f"must be strictly ascending, got {v!r}")
        return v


GAIN = Num(0.0, 1.0, lo_open=True)  # EWMA gains, α: (0, 1]
FACTOR = Num(0.0, 1.0, lo_open=True, hi_open=True)  # multiplicative decrease: (0, 1)
FRACTION = Num(0.0, 1.0)  # [0, 1]
MSS = Num(0.0, SANE_MSS)
POS_MSS = Num(0.0, SANE_MSS, lo_open=True)
BYTES = Num(0.0, SANE_BYTES, lo_open=True)
RATE = Num(0.0, SANE_RATE, lo_open=True)
US = Num(0.0, SANE_US)
POS_US = Num(0.0, SANE_US, lo_open=True)
COUNT = Int(0, U32)
POS_COUNT = Int(1, U32)

PARAMS: dict[str, dict] = {
    "powertcp": {
        "gamma": GAIN,
        "beta_bytes": BYTES,
        "additive_increase_bps": RATE,
        "init_cwnd_bytes": BYTES,
        "variant": Choice(("paper", "tcp-advanced", "rdma-hw", "linux")),
        "eta": GAIN,
        "min_rate_bps": RATE,
        "current_floor": FRACTION,
        "power_floor": Num(0.0, 1.0, lo_open=True),
        "per_rtt": Bool(),
        "first_int_against_zero": Bool(),
    },
    "theta-powertcp": {
        "tau": Choice(("path", "topology", "min-rtt")),
        "nonpositive_power": Choice(("hold", "mss")),
        "gamma": GAIN,
        "beta_bytes": BYTES,
        "additive_increase_bps": RATE,
        "init_cwnd_bytes": BYTES,
        "variant": Choice(("paper", "artifact", "rdma-hw", "linux")),
        "power_floor": Num(0.0, 1.0, lo_open=True),
        "gradient_floor": Num(0.0, 1.0),
        "min_rate_bps": RATE,
    },
    "hpcc": {
        "eta": GAIN,
        "max_stage": COUNT,
        "additive_increase_bps": RATE,
        "init_cwnd_bytes": BYTES,
        "variant": Choice(("powertcp-config", "hpcc-artifact")),
        "min_rate_bps": RATE,
        "per_rtt": Bool(),
    },
    "homa": {
        "rtt_bytes": BYTES,
        "overcommit": Int(1, 64),
        "unsched_cutoffs_bytes": NumList(BYTES),
    },
    "reno": {
        "init_cwnd_mss": POS_MSS,
        "init_ssthresh_mss": MSS,
        "ai_mss_per_rtt": POS_MSS,
        "max_cwnd_mss": MSS,
    },
    "retcp": {
        "init_cwnd_mss": POS_MSS,
        "init_ssthresh_mss": MSS,
        "ai_mss_per_rtt": POS_MSS,
        "max_cwnd_mss": MSS,
        # reTCP's jump factors (NSDI'20 §4: 2); 1 = no jump; beyond 64 no study goes
        "jump_up": Num(1.0, 64.0),
        "jump_down": Num(1.0, 64.0),
    },
    # multipath (docs/models.md "Multipath"); β > 1: the cut w·(1 − 1/β) keeps a positive window
    "mptcp-lia": {"init_cwnd_mss": POS_MSS, "beta": Num(1.0, 1000.0, lo_open=True), "cwnd_min_mss": POS_MSS},
    "dcm": {"init_cwnd_mss": POS_MSS, "g": GAIN, "init_alpha": FRACTION, "cwnd_min_mss": POS_MSS},
    "xmp": {"init_cwnd_mss": POS_MSS, "beta": Num(1.0, 1000.0, lo_open=True), "cwnd_min_mss": POS_MSS},
    "amp": {
        "init_cwnd_mss": POS_MSS,
        "beta": Num(1.0, 1000.0, lo_open=True),
        "defaults": Choice(("paper", "code")),
        "cwnd_min_mss": POS_MSS,
        "gamma_rounds": POS_COUNT,
        "tau_rounds": POS_COUNT,
        "ssr": Bool(),
    },
    "dctcp": {
        "g": GAIN,
        "init_alpha": FRACTION,
        "init_cwnd_mss": POS_MSS,
        "ai_mss_per_rtt": POS_MSS,
        "max_cwnd_mss": MSS,
        "variant": Choice(("rfc", "linux")),
    },
    "dctcp-rai": {
        "g": GAIN,
        "init_alpha": FRACTION,
        "rai_alpha": Num(0.0, 100.0, lo_open=True),
        "init_cwnd_mss": POS_MSS,
        "max_cwnd_mss": MSS,
    },
    "tbtcp": {
        "s": Num(0.0, 1000.0, lo_open=True),
        "rai_alpha": Num(0.0, 100.0, lo_open=True),
        "qcd_min_cwnd_mss": MSS,
        "init_cwnd_mss": POS_MSS,
        "max_cwnd_mss": MSS,
        "variant": Choice(("paper", "linux")),
    },
    "cubic": {
        "c": Num(0.0, 1000.0, lo_open=True),
        "beta": FACTOR,
        "fast_convergence": Bool(),
        "reno_friendly": Bool(),
        "ecn": Bool(),
        "init_cwnd_mss": POS_MSS,
        "max_cwnd_mss": MSS,
    },
    "dctcp-rdma": {
        "g": GAIN,
        "init_alpha": FRACTION,
        "rate_ai_bps": RATE,
        "min_rate_bps": RATE,
    },
    "dcqcn": {
        "variant": Choice(("mlx", "paper")),
        "g": GAIN,
        "init_alpha": FRACTION,
        "alpha_timer_us": POS_US,
        "rate_decrease_interval_us": US,
        "cnp_interval_us": US,
        "rate_increase_timer_us": POS_US,
        "byte_counter_bytes": Num(0.0, SANE_BYTES),
        "fast_recovery_steps": COUNT,
        "rate_ai_bps": RATE,
        "rate_hai_bps": RATE,
        "min_rate_bps": RATE,
        "clamp_target_rate": Bool(),
    },
    "timely": {
        "completion": Choice(("segment", "rtt")),
        "segment_bytes": Num(1.0, SANE_BYTES),
        "ewma_alpha": GAIN,
        "beta": FACTOR,
        "t_low_us": US,
        "t_high_us": POS_US,
        "min_rtt_us": POS_US,
        "delta_bps": RATE,
        "hai_n": Num(0.0, 1000.0, lo_open=True),
        "hai_after": COUNT,
        "hai_step_bps": RATE,
        "min_rate_bps": RATE,
        "increase": Choice(("paper", "artifact")),
    },
    "swift": {
        "base_target_us": POS_US,
        "hop_scale_us": US,
        "fs_range_us": US,
        "fs_min_cwnd": POS_MSS,
        "fs_max_cwnd": POS_MSS,
        "ai": POS_MSS,
        "beta": GAIN,
        "max_mdf": FACTOR,
        "min_cwnd": POS_MSS,
        "max_cwnd": POS_MSS,
        "retx_reset_threshold": POS_COUNT,
        "init_cwnd": POS_MSS,
    },
    "poseidon": {
        "p_us": POS_US,
        "k_us": POS_US,
        "m": Num(0.0, 1.0, lo_open=True),
        "min_md": FACTOR,
        "max_mi": Num(1.0, 1000.0, lo_open=True),
        "max_rate_bps": RATE,
        "min_rate_bps": RATE,
        "min_cwnd": POS_MSS,
        "max_cwnd": POS_MSS,
        "retx_reset_threshold": POS_COUNT,
        "init_cwnd": POS_MSS,
        "brownfield": Bool(),
    },
}


def check(algorithm: str, params: dict, prefix: str) -> dict:
    """Check `params` of `algorithm` (field names `<prefix>.<key>`); returns them unchanged."""
    table = PARAMS.get(algorithm)
    if table is None:  # an algorithm this table does not know yet: the engine checks it
        return params
    for key, value in params.items():
        if key not in table:
            raise ScenarioError(
                f"{prefix}.{key}", f"unknown parameter of {algorithm}; allowed: {', '.join(table)}"
            )
        table[key].check(value, f"{prefix}.{key}")
    return params
