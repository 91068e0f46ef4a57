"""Steady bottleneck queue across variants (a parameter sweep): TBTCP Fig. 4/5 and the DCTCP
marking-threshold sweep TBTCP compares against.

Per variant, over the last ``[experiment] window`` of the run (the steady part):

* ``queue_mean_pkts``: mean sampled queue of the bottleneck port in packets of
  ``[experiment] packet`` bytes (wire size); ``queue_p1_pkts`` / ``queue_p99_pkts``: elements
  ⌊0.01·n⌋ and ⌊0.99·n⌋ of the sorted samples.
* ``underflow_pct``: share of samples with an empty queue.
* ``utilization_pct``: bytes the port transmitted in the window over line rate (wire bytes).
* ``k_pkts``: the variant's step-marking threshold K in packets (null unless ECN is ``step``).
* ``rai_alpha``: the variant's RAI α (TBTCP / DCTCP+RAI; null otherwise).

Claims and tolerances:

* TBTCP (``tbtcp``): "steady queue ≈ α·N packets, no underflow" (N = ``[experiment] flows``).
  Holds when |mean − α·N| ≤ 30 % of α·N + 2 packets and the queue is empty in ≤ 1 % of the
  window's samples. The paper reads "≈ 10 packets" off a plot; at packet level, RAI adds α·N
  packets per RTT and QCD removes them with random (Bernoulli) marks, which leaves a ripple of a
  few packets around the mean, hence the 2-packet allowance. "No underflow" is judged by its
  cost: utilisation ≥ 99 % over the window (an empty queue at a sample instant while the link
  stays busy costs nothing; the share of empty samples is reported beside it).
* DCTCP (``dctcp``) sweep: "the queue grows with K" — holds when the mean queue increases strictly
  with K over the variants (checked on the largest-K row); and "K ≥ 90 packets keeps full
  throughput" (T-fig6/7: DCTCP needs K = 90, theory 76, to avoid underflow) — holds for a variant
  with K ≥ 90 packets when utilisation ≥ 99 % (1 % is ~4 packet times per RTT at 40 Gbps; a real
  underflow episode of DCTCP costs more).
"""

from __future__ import annotations

import numpy as np

from ..errors import ScenarioError
from .base import Base
from .common import aligned, bottleneck, claim_lines, percentile, ran


REL_TOL = 0.30
ABS_TOL_PKTS = 2.0
FULL_UTIL_PCT = 99.0
K_NO_UNDERFLOW_PKTS = 90


def _ecn(scenario, variant):
    return variant.ecn if variant.ecn is not None else scenario.switch.ecn


class QueueSweep(Base):
    """The steady bottleneck queue across variants of a parameter sweep (TBTCP Fig. 4/5).
    Definitions: the module's docstring."""

    KEYS = {"bottleneck": "str", "window": "time", "packet": "number", "flows": "number"}
    REQUIRED = ("bottleneck", "window", "packet")
    FIGURE = "queue.png"

    def check(self, scn) -> None:
        p = scn.experiment.params
        if scn.metrics.interval_ps == 0:
            raise ScenarioError("metrics.interval", "the queue_sweep analysis needs sampling; set it > 0")
        if p["bottleneck"] not in scn.metrics.ports and "*" not in scn.metrics.ports:
            raise ScenarioError("experiment.bottleneck", f"port {p['bottleneck']!r} is not sampled")
        if p["window"] <= 0 or p["window"] >= scn.duration_ps:
            raise ScenarioError("experiment.window", "must be > 0 and shorter than the run")
        if p["packet"] <= 0:
            raise ScenarioError("experiment.packet", "must be > 0 bytes")
        if "flows" in p and (p["flows"] != int(p["flows"]) or p["flows"] < 1):
            raise ScenarioError("experiment.flows", f"must be a whole number >= 1, got {p['flows']!r}")

    def variant_metrics(self, scenario, variant, tables, engine_summary=None) -> dict:
        p = scenario.experiment.params
        t, q, tx, rate = bottleneck(tables["port_series"], tables["ports"], p["bottleneck"])
        b = int(t[-1])
        a = b - p["window"]
        win = t >= a
        pkt = float(p["packet"])
        e = _ecn(scenario, variant)
        alpha = (
            variant.cc.params.get("rai_alpha", 0.1)
            if variant.cc.algorithm in ("tbtcp", "dctcp-rai")
            else None
        )
        sent = np.interp(b, t, tx) - np.interp(a, t, tx)
        return {
            "bottleneck": p["bottleneck"],
            "window_start_ps": int(a),
            "window_end_ps": b,
            "queue_mean_pkts": round(float(q[win].mean()) / pkt, 3),
            "queue_p1_pkts": round(percentile(q[win], 0.01) / pkt, 3),
            "queue_p99_pkts": round(percentile(q[win], 0.99) / pkt, 3),
            "underflow_pct": round(100.0 * float((q[win] == 0).mean()), 3),
            "utilization_pct": round(float(100 * sent * 8 / ((b - a) / 1e12) / rate), 3),
            "k_pkts": round(e.k_bytes / pkt, 3) if e.kind == "step" else None,
            "rai_alpha": alpha,
            "packets_dropped": (engine_summary or {}).get("packets_dropped"),
        }

    def claims(self, scenario, metrics: dict) -> list[dict]:
        p = scenario.experiment.params
        n = p.get("flows")
        rows = []
        sweep = [
            (v, metrics[v.slug])
            for v in scenario.variants()
            if v.slug in metrics and metrics[v.slug]["k_pkts"] is not None and v.cc.algorithm == "dctcp"
        ]
        sweep.sort(key=lambda x: x[1]["k_pkts"])
        for v, m in ran(scenario, metrics):
            measured = (
                f"queue mean {m['queue_mean_pkts']:.1f} pkts (p1 {m['queue_p1_pkts']:.0f}, "
                f"p99 {m['queue_p99_pkts']:.0f}), empty {m['underflow_pct']:.1f}% of samples, "
                f"utilisation {m['utilization_pct']:.1f}%"
            )
            if v.cc.algorithm == "tbtcp" and n:
                target = m["rai_alpha"] * n
                err = m["queue_mean_pkts"] - target
                ok_q = abs(err) <= REL_TOL * target + ABS_TOL_PKTS
                ok_u = m["utilization_pct"] >= FULL_UTIL_PCT
                verdict = (
                    ("holds" if ok_q and ok_u else "partly holds" if ok_q or ok_u else "differs")
                    + f": mean {m['queue_mean_pkts']:.1f} vs α·N = {target:g} pkts ({err:+.1f}; "
                    f"tolerance ±{REL_TOL:.0%}·α·N + {ABS_TOL_PKTS:g}); utilisation {m['utilization_pct']:.1f}% "
                    f"(no underflow means ≥ {FULL_UTIL_PCT:g}%; the queue is empty at "
                    f"{m['underflow_pct']:.1f}% of sample instants)"
                )
                rows.append(
                    {
                        "variant": v.name,
                        "claim": f"steady queue ≈ α·N = {target:g} packets, no underflow",
                        "measured": measured,
                        "verdict": verdict,
                    }
                )
            elif v.cc.algorithm == "dctcp" and m["k_pkts"] is not None:
                parts = []
                if m["k_pkts"] >= K_NO_UNDERFLOW_PKTS:
                    ok = m["utilization_pct"] >= FULL_UTIL_PCT
                    parts.append(
                        ("holds" if ok else "differs") + f": utilisation {m['utilization_pct']:.1f}% "
                        f"at K = {m['k_pkts']:g} pkts (full means ≥ {FULL_UTIL_PCT:g}%)"
                    )
                    claim = f"K ≥ {K_NO_UNDERFLOW_PKTS} packets avoids underflow (full throughput)"
                else:
                    parts.append(
                        f"n/a: K = {m['k_pkts']:g} pkts < {K_NO_UNDERFLOW_PKTS}; paper: may underflow; "
                        f"utilisation {m['utilization_pct']:.1f}%, empty {m['underflow_pct']:.1f}%"
                    )
                    claim = f"K < {K_NO_UNDERFLOW_PKTS} packets may underflow"
                rows.append({"variant": v.name, "claim": claim, "measured": measured, "verdict": parts[0]})
        if len(sweep) >= 2:
            qs = [m["queue_mean_pkts"] for _, m in sweep]
            ok = all(b > a for a, b in zip(qs, qs[1:]))
            rows.append(
                {
                    "variant": "DCTCP sweep",
                    "claim": "the standing queue grows with K",
                    "measured": ", ".join(f"K={m['k_pkts']:g}: {m['queue_mean_pkts']:.1f}" for _, m in sweep),
                    "verdict": ("holds" if ok else "differs")
                    + ": mean queue "
                    + ("increases strictly" if ok else "does not increase strictly")
                    + " with K",
                }
            )
        return rows

    def report(self, scenario, metrics: dict, claim_rows: list[dict]) -> str:
        head = ("variant", "K", "queue mean", "p1..p99", "empty", "utilisation", "drops")
        rows = [head]
        for v, m in ran(scenario, metrics):
            rows.append(
                (
                    v.name,
                    "—" if m["k_pkts"] is None else f"{m['k_pkts']:g} pkts",
                    f"{m['queue_mean_pkts']:.1f} pkts",
                    f"{m['queue_p1_pkts']:.0f}..{m['queue_p99_pkts']:.0f}",
                    f"{m['underflow_pct']:.1f} %",
                    f"{m['utilization_pct']:.1f} %",
                    str(m["packets_dropped"]),
                )
            )
        lines = aligned(rows)
        lines += [""] + claim_lines(claim_rows)
        return "\n".join(lines)

    def figure(self, scenario, series: dict, path) -> None:
        """Left: bottleneck queue (packets) vs time per variant. Right: mean queue per variant."""
        from ..plots import new_figure, save

        p = scenario.experiment.params
        pkt = float(p["packet"])
        fig, (ax, ax2) = new_figure(1, 2, figsize=(10, 3.4), gridspec_kw={"width_ratios": [2, 1]})
        names, means = [], []
        for slug, (variant, tables, m) in series.items():
            t, q, tx, rate = bottleneck(tables["port_series"], tables["ports"], p["bottleneck"])
            ax.plot(t / 1e9, q / pkt, lw=0.7, label=variant.name)
            names.append(variant.name)
            means.append(m["queue_mean_pkts"])
        n = p.get("flows")
        for slug, (variant, tables, m) in series.items():
            if variant.cc.algorithm == "tbtcp" and n:
                ax2.axhline(m["rai_alpha"] * n, color="0.6", lw=0.6, ls="--")
        ax.set_xlabel("time (ms)")
        ax.set_ylabel("queue (packets)")
        ax.set_yscale("symlog", linthresh=10)
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
        ax2.bar(range(len(names)), means, color="tab:blue")
        ax2.set_xticks(range(len(names)), names, rotation=30, ha="right", fontsize=7)
        ax2.set_ylabel("mean queue in window (packets)")
        ax2.set_title(
            "dashed: α·N" if n and any(v.cc.algorithm == "tbtcp" for v, _, _ in series.values()) else ""
        )
        from .. import figure_layout

        figure_layout.finish(fig, scenario)
        save(fig, path)


ANALYSIS = QueueSweep()
