"""Is a testbed run CPU-bound rather than link-bound? (issue 29 item 4)

The testbed forwards every packet on the machine's CPUs (veth, tbf, softirq). When they cannot keep
up, the links run below their configured rates with empty queues and no loss, and the run measures
the machine instead of the control law. The evidence, both from the run itself:

* CPU time: each CPU's busy share (all but idle and iowait) and softirq share over the run
  (/proc/stat), which includes other work on the machine;
* the links: the busiest switch port's achieved rate over its configured rate, with the drops.

A run is called CPU-bound when its busiest port stayed below LINK_BOUND of its rate with no drop
while some CPU was saturated (busy >= SATURATED or softirq >= SOFTIRQ_SATURATED).
"""

from __future__ import annotations

import os

LINK_BOUND = 0.90  # a window-limited long flow with no loss keeps its bottleneck >= 90 % busy
SATURATED = 0.95  # a CPU busy 95 % of the run had no time left to forward packets
SOFTIRQ_SATURATED = 0.50  # half a CPU in softirq: the packet path itself is the load
# Rate per CPU the testbed sustains link-bound, measured on a 2-core VM: 300 Mbps link-bound,
# 1 Gbps CPU-bound (0.81-0.93 Gbps, docs/testbed.md "CPU-bound at 1 Gbps")
LINK_BOUND_BPS_PER_CPU = 150_000_000


def default_rate_cap_bps(cpus: int | None = None) -> int:
    """The highest host rate this machine runs link-bound (LINK_BOUND_BPS_PER_CPU per CPU)."""
    return LINK_BOUND_BPS_PER_CPU * (cpus or os.cpu_count() or 1)


def cpu_times() -> list[list[int]]:
    """Per CPU: the /proc/stat jiffies (user nice system idle iowait irq softirq steal ...)."""
    out = []
    with open("/proc/stat") as f:
        for line in f:
            name, *vals = line.split()
            if name.startswith("cpu") and name != "cpu":
                out.append([int(v) for v in vals])
    return out


def shares(before: list[list[int]], after: list[list[int]]) -> dict:
    """Per CPU over the interval: busy share and softirq share (0..1)."""
    busy, soft = [], []
    for a, b in zip(before, after):
        d = [y - x for x, y in zip(a, b)]
        total = sum(d[:8]) or 1
        idle = d[3] + d[4]
        busy.append(round(1 - idle / total, 3))
        soft.append(round(d[6] / total, 3))
    return {"busy": busy, "softirq": soft}


def verdict(cpu: dict, port_util: dict[str, float], drops: int) -> dict:
    """{"cpu_bound": bool, "reason": one line} from the CPU shares and each switch port's achieved
    share of its rate."""
    port, util = max(port_util.items(), key=lambda kv: kv[1]) if port_util else ("", 0.0)
    hot = max(cpu["busy"], default=0.0)
    soft = max(cpu["softirq"], default=0.0)
    saturated = hot >= SATURATED or soft >= SOFTIRQ_SATURATED
    below = util < LINK_BOUND and drops == 0
    bound = saturated and below
    reason = (
        f"busiest port {port} at {100 * util:.0f} % of its rate with {drops} drops; "
        f"CPUs busy {', '.join(f'{100 * b:.0f}' for b in cpu['busy'])} %, "
        f"softirq {', '.join(f'{100 * s:.0f}' for s in cpu['softirq'])} %"
    )
    if bound:
        reason = "CPU-bound: " + reason + " (lower --host-rate)"
    return {"cpu_bound": bound, "reason": reason, "busiest_port": port, "busiest_port_util": round(util, 4)}
