"""The testbed's own controllers (`--cc powertcp|theta-powertcp|dctcp|tbtcp`) are the law plugins of
bpf/laws/ (the same C files the simulator runs as plugins, docs/plugins.md), built inside
bpf/plugin_kernel.bpf.c. This module maps a testbed scenario's `[cc]` keys onto each law's plugin
parameters, and onto the simulator's native parameters of the same law (`--compare`).

The law a testbed run uses is `[cc] law`; its default is each algorithm's default law in the
simulator ("paper", "rfc" for DCTCP), so that one source and one law run on both sides. "linux" —
the law the testbed ran until issue 24 made the paper laws its default — stays a named option.
What the kernel side cannot give a law is listed in docs/testbed.md ("The congestion controls")."""

from __future__ import annotations

from ..errors import ScenarioError
from ..units import parse_size

# the laws each plugin has, by number (its `law` parameter)
LAWS = {
    "powertcp": ("paper", "linux"),
    "theta-powertcp": ("paper", "linux"),
    "dctcp": ("rfc", "linux"),
    "tbtcp": ("paper", "linux"),
    "swift": (),  # one law (Swift Algorithm 1); its parameters are the simulator's own names
}
SWIFT_KEYS = (
    "base_target_us", "hop_scale_us", "fs_range_us", "fs_min_cwnd", "fs_max_cwnd", "ai", "beta",
    "max_mdf", "min_cwnd", "max_cwnd", "retx_reset_threshold", "init_cwnd",
)  # fmt: skip


def default_law(alg: str) -> str:
    """The simulator's default law of `alg`: the first of its laws."""
    return LAWS[alg][0]


def law(alg: str, tb: dict) -> str | None:
    """The law of the testbed run (`[cc] law`), checked; None for an algorithm of one law."""
    if not LAWS[alg]:
        if "law" in tb:
            raise ScenarioError("cc.law", f"{alg} has one law; remove cc.law")
        return None
    name = tb.get("law", default_law(alg))
    if name not in LAWS[alg]:
        raise ScenarioError("cc.law", f"must be one of {', '.join(LAWS[alg])} for {alg}, got {name!r}")
    return name


def _beta(tb: dict, host_bdp: float) -> float:
    if "beta" in tb:
        return float(parse_size(tb["beta"], "cc.beta"))
    return float(max(1.0, host_bdp // int(tb.get("expected_flows", 10))))


SWIFT_SLACK_US = 25.0  # the simulator's default base target (Poseidon §5), above the base RTT here


def native_params(alg: str, tb: dict, host_bdp: float, tau_ns: float) -> dict:
    """The simulator's parameters (its native controller) of the testbed's law and `[cc]` keys; τ
    and the host BDP are the side's own (the testbed's measured τ, the simulator's τ).

    Swift's base target is the fixed delay of the path (Swift §3.5); the simulator's default, 25 µs
    (Poseidon §5), is that of a simulated fabric. The software testbed's stack adds hundreds of µs,
    so unless `[cc] base_target_us` is given, both sides use their own τ + 25 µs."""
    name = law(alg, tb)
    if alg == "swift":
        p = {k: float(tb[k]) for k in SWIFT_KEYS if k in tb}
        p.setdefault("base_target_us", round(tau_ns / 1000 + SWIFT_SLACK_US, 3))
        return p
    if alg in ("powertcp", "theta-powertcp"):
        if tb.get("pace", True) is not True:
            raise ScenarioError(
                "cc.pace", "the law plugins always pace at cwnd/τ (PowerTCP §3.3); only true is allowed"
            )
        p = {"law": name, "gamma": float(tb.get("gamma", 0.9)), "beta_bytes": _beta(tb, host_bdp)}
        if "power_floor" in tb or name == "linux":
            p["power_floor"] = float(tb.get("power_floor", 0.01))
        return p
    if alg == "dctcp":
        return {"law": name, "g": float(tb.get("g", 1 / 16))}
    return {
        "law": name,
        "s": float(tb.get("scale", 1)),
        "rai_alpha": float(tb.get("alpha", 0.1)),
        "qcd_min_cwnd_mss": float(tb.get("min_cwnd_pkts", 2)),
    }


def plugin_params(alg: str, tb: dict, host_bdp: float, tau_ns: float) -> dict:
    """The law plugin's parameters (user units): the native ones with the law as its number."""
    p = native_params(alg, tb, host_bdp, tau_ns)
    if "law" in p:
        p["law"] = LAWS[alg].index(p["law"])
    return p
