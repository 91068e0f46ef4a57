"""The verdict of a single-path `dccsim compare` (docs/testbed.md, "compare"): which checks hold
between A and B on the bottleneck port, and which failed first in a "differs".

Checks (each only where both sides have what it needs; the rest is shown without a verdict):
  - throughput: |thr_A − thr_B| ≤ δ·C for the long flows' throughput over the window in which all
    of them run, C the bottleneck's line rate. δ = SHARE_DEFICIT = 0.17, the largest shortfall of a
    CPU-limited testbed run below line rate recorded in docs/testbed.md (the same δ as the
    multipath verdict's share check): a side may run the link that much below the other.
  - queue p50 (only with step marking at K on both sides, as DCTCP gets): |p50_A − p50_B| ≤
    (A + N) packets, A = ½·sqrt(2N(C·RTT + K)) (DCTCP paper, Alizadeh et al. 2010, §3.3: the
    queue of N long flows swings between K + N − A and K + N), N the long flows, C·RTT from the
    larger τ of the two sides (the larger swing).
Fairness, peaks, recovery and FCTs are shown side by side without a verdict: no theory here bounds
how far two faithful runs of them may differ.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from .compare_multipath import SHARE_DEFICIT, step_k_and_tau, queue_tolerance


def port_rate_bps(run_dir: Path, port: str) -> int | None:
    ports = pq.read_table(run_dir / "ports.parquet").to_pydict()
    for name, rate in zip(ports["name"], ports.get("rate_bps", [])):
        if name == port:
            return int(rate)
    return None


def verdict(a: dict, b: dict, a_dir: Path, a_var: str, b_dir: Path, b_var: str) -> dict:
    """{"checks": [{name, a, b, tolerance, ok}], "failed": [names], "verdict": one line}."""
    checks = []
    rate = port_rate_bps(a_dir, a["port"]) or port_rate_bps(b_dir, b["port"])
    thr_a = (a.get("long_window") or {}).get("throughput_bps")
    thr_b = (b.get("long_window") or {}).get("throughput_bps")
    if rate and thr_a is not None and thr_b is not None:
        tol = SHARE_DEFICIT * rate
        checks.append(
            {"name": "throughput", "a": thr_a, "b": thr_b, "tolerance": tol, "ok": abs(thr_a - thr_b) <= tol}
        )
    ka, ta = step_k_and_tau(a_dir, a_var)
    kb, tb = step_k_and_tau(b_dir, b_var)
    taus = [t for t in (ta, tb) if t]
    n_long = max(len(a.get("share") or {}), len(b.get("share") or {}))
    if rate and ka is not None and kb is not None and taus and n_long:
        tol = queue_tolerance(max(ka, kb), rate, max(taus), n_long)
        qa, qb = a["queue_p50"], b["queue_p50"]
        checks.append({"name": "queue p50", "a": qa, "b": qb, "tolerance": tol, "ok": abs(qa - qb) <= tol})
    failed = [c["name"] for c in checks if not c["ok"]]
    why = []
    for c in checks:
        if c["name"] == "throughput":
            why.append(
                f"throughput {c['a'] / 1e6:.1f} vs {c['b'] / 1e6:.1f} Mbps (tol ±{c['tolerance'] / 1e6:.1f})"
            )
        else:
            why.append(
                f"queue p50 {c['a'] / 1000:.1f} vs {c['b'] / 1000:.1f} KB (tol ±{c['tolerance'] / 1000:.1f} KB)"
            )
    if not any(c["name"] == "queue p50" for c in checks):
        why.append("queue: no verdict (no step marking K recorded on both sides)")
    if not checks:
        head = "no verdict: "
    elif failed:
        head = f"differs in {', '.join(failed)}: "
    else:
        head = "holds: "
    return {"checks": checks, "failed": failed, "verdict": head + "; ".join(why)}
