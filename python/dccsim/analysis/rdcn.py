"""Reconfigurable datacenter (PowerTCP §5, Fig. 8): circuit utilisation, VOQ length and tail
queueing latency of the traffic from one ToR, per congestion control.

Inputs: the sampled series of the ToR's circuit port (``circuit``, e.g. ``tor0->ocs0``) and its
packet uplink (``uplink``, ``tor0->core0``). Both report the ToR's VOQ bytes as their queue; the
ToR's departures are the sum of their transmitted bytes. The circuit's days towards ``dst_tor``
come from the topology's schedule (the round robin unless ``matchings`` is given); days that start
before ``warmup`` are left out.

* ``circuit_util_pct``: bytes the circuit port sent during the measured days over rate × day;
  ``util_first_rtt_pct`` over [day start, + τ], ``util_after_rtt_pct`` over [day start + τ, day end].
* ``voq_day_mean_bytes``: mean VOQ over the measured days; ``voq_p99_bytes`` over all samples
  after the warmup (element ⌊0.99·n⌋ of the sorted samples).
* ``qdelay_p99_us`` / ``qdelay_p999_us``: the VOQ's queueing latency: for every sample at t the
  virtual waiting time of a byte arriving then (FIFO: the time until the ToR's departures have
  covered the bytes queued at t), weighted by the bytes that arrive in the next sample interval,
  after the warmup. Resolution: one sample interval.
"""

from __future__ import annotations

import numpy as np

from ..errors import ScenarioError
from .base import Base
from .common import aligned, bottleneck, claim_lines

NEAR_ZERO = 0.1  # "near-zero VOQ": below this fraction of the circuit's BDP (rate × τ)


def src_tor(name: str) -> int:
    return int(name.split("->")[0].removeprefix("tor"))


def circuit_days(values: dict, i: int, j: int, until: int) -> list[tuple[int, int]]:
    """[start, end) of every day in [0, until) on which ToR i's circuit reaches ToR j."""
    n = values["tors"]
    m = values["matchings"] or tuple(tuple((x + k + 1) % n for x in range(n)) for k in range(n - 1))
    slot = values["day"] + values["night"]
    return [
        (k * slot, k * slot + values["day"])
        for k in range(until // slot + 1)
        if m[k % len(m)][i] == j and k * slot + values["day"] <= until
    ]


def _weighted_quantile(x: np.ndarray, w: np.ndarray, q: float) -> float:
    if len(x) == 0 or w.sum() <= 0:
        return float("nan")
    order = np.argsort(x, kind="stable")
    c = np.cumsum(w[order])
    return float(x[order][min(len(x) - 1, int(np.searchsorted(c, q * c[-1], side="left")))])


def queueing_delay(t: np.ndarray, q: np.ndarray, dep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(virtual waiting time in ps, arriving bytes) per sample; samples whose queue had not
    drained by the end are left out."""
    m = np.searchsorted(dep, dep + q, side="left")
    ok = (m < len(t))[:-1]
    wait = (t[np.minimum(m, len(t) - 1)] - t)[:-1]
    arrivals = np.clip(np.diff(dep) + np.diff(q), 0, None)
    return wait[ok], arrivals[ok]


def _bytes_in(t, tx, a, b) -> float:
    return float(np.interp(b, t, tx) - np.interp(a, t, tx))


def _by_algorithm(scenario, metrics: dict, algorithm: str) -> list:
    return [
        (v, metrics[v.slug]) for v in scenario.variants() if v.cc.algorithm == algorithm and v.slug in metrics
    ]


def _row(name: str, m: dict) -> tuple:
    kb = lambda x: f"{x / 1e3:.1f} KB"  # noqa: E731
    pct = lambda x: f"{x:.1f} %"  # noqa: E731
    return (
        name,
        pct(m["circuit_util_pct"]),
        pct(m["util_first_rtt_pct"]),
        pct(m["util_after_rtt_pct"]),
        kb(m["voq_day_mean_bytes"]),
        kb(m["voq_p99_bytes"]),
        f"{m['qdelay_p99_us']:.1f} µs",
        f"{m['qdelay_p999_us']:.1f} µs",
        str(m["packets_dropped"]),
    )


class Rdcn(Base):
    """Reconfigurable datacenter (PowerTCP Fig. 8): circuit utilisation, VOQ, queueing latency.
    Definitions: the module's docstring."""

    KEYS = {"circuit": "str", "uplink": "str", "dst_tor": "number", "warmup": "time"}
    REQUIRED = ("circuit", "uplink", "dst_tor", "warmup")
    FIGURE = "rdcn.png"

    def check(self, scn) -> None:
        if scn.topology.kind != "rdcn":
            raise ScenarioError("topology.kind", "the rdcn analysis needs an rdcn topology; allowed: rdcn")
        p = scn.experiment.params
        for key in ("circuit", "uplink"):
            if p[key] not in scn.metrics.ports:
                raise ScenarioError(
                    f"experiment.{key}", f"port {p[key]!r} is not sampled; add it to metrics.ports"
                )
        if scn.metrics.interval_ps == 0:
            raise ScenarioError("metrics.interval", "the rdcn analysis needs sampling; set it > 0")
        tors = scn.topology.values["tors"]
        if not (0 <= p["dst_tor"] < tors and p["dst_tor"] == int(p["dst_tor"])):
            raise ScenarioError("experiment.dst_tor", f"must be a ToR index in 0..{tors - 1}")

    def variant_metrics(self, scenario, variant, tables, engine_summary=None) -> dict:
        p = scenario.experiment.params
        tv = scenario.variant_topology(variant).values
        t, q, tx_c, rate = bottleneck(tables["port_series"], tables["ports"], p["circuit"])
        _, _, tx_u, _ = bottleneck(tables["port_series"], tables["ports"], p["uplink"])
        tau = scenario.base_rtt_ps or 0
        days = [
            d
            for d in circuit_days(tv, src_tor(p["circuit"]), int(p["dst_tor"]), int(t[-1]))
            if d[0] >= p["warmup"]
        ]
        if not days:
            raise ScenarioError(
                "experiment.warmup", "no circuit day between the warmup and the end of the run"
            )
        day = tv["day"]
        sent = sum(_bytes_in(t, tx_c, a, b) for a, b in days)
        first = sum(_bytes_in(t, tx_c, a, a + tau) for a, _ in days)
        after = sent - first
        in_day = np.zeros(len(t), dtype=bool)
        for a, b in days:
            in_day |= (t >= a) & (t < b)
        late = t >= p["warmup"]
        wait, w = queueing_delay(t[late], q[late], (tx_c + tx_u)[late])
        pct = lambda b, dt: round(100 * b * 8 / (rate * dt * len(days) / 1e12), 2)  # noqa: E731
        qs = np.sort(q[late])
        return {
            "days": [[int(a), int(b)] for a, b in days],
            "circuit_rate_bps": rate,
            "circuit_util_pct": pct(sent, day),
            "util_first_rtt_pct": pct(first, tau) if tau else None,
            "util_after_rtt_pct": pct(after, day - tau),
            "voq_day_mean_bytes": round(float(q[in_day].mean()), 1),
            "voq_p99_bytes": float(qs[min(len(qs) - 1, int(0.99 * len(qs)))]),
            "voq_max_bytes": float(q[late].max()),
            "qdelay_p99_us": round(_weighted_quantile(wait, w, 0.99) / 1e6, 2),
            "qdelay_p999_us": round(_weighted_quantile(wait, w, 0.999) / 1e6, 2),
            "circuit_bdp_bytes": rate * tau / 8e12,
            "packets_dropped": (engine_summary or {}).get("packets_dropped"),
        }

    def claims(self, scenario, metrics: dict) -> list[dict]:
        rows = []
        power = _by_algorithm(scenario, metrics, "powertcp")
        hpcc = _by_algorithm(scenario, metrics, "hpcc")
        retcp = _by_algorithm(scenario, metrics, "retcp")
        for v, m in power:
            u = m["util_after_rtt_pct"]
            rows.append(
                {
                    "variant": v.name,
                    "claim": "fills the circuit within one RTT: 80–85% circuit utilisation",
                    "measured": f"{u:.1f}% after the first RTT of each day ({m['util_first_rtt_pct']:.1f}% in it, "
                    f"{m['circuit_util_pct']:.1f}% over the day)",
                    "verdict": "holds" if u >= 80 else "misses",
                }
            )
            near = NEAR_ZERO * m["circuit_bdp_bytes"]
            rows.append(
                {
                    "variant": v.name,
                    "claim": f"near-zero VOQ (ours: mean during the days < {NEAR_ZERO:g} × circuit BDP = {near / 1e3:.0f} KB)",
                    "measured": f"{m['voq_day_mean_bytes'] / 1e3:.1f} KB",
                    "verdict": "holds" if m["voq_day_mean_bytes"] < near else "misses",
                }
            )
            for r, mr in retcp:
                x99 = mr["qdelay_p99_us"] / max(m["qdelay_p99_us"], 1e-9)
                x999 = mr["qdelay_p999_us"] / max(m["qdelay_p999_us"], 1e-9)
                rows.append(
                    {
                        "variant": v.name,
                        "claim": f"tail queueing latency ≥ 5× lower than {r.name}",
                        "measured": f"p99 {m['qdelay_p99_us']:.1f} vs {mr['qdelay_p99_us']:.1f} µs ({x99:.1f}×), "
                        f"p99.9 {m['qdelay_p999_us']:.1f} vs {mr['qdelay_p999_us']:.1f} µs ({x999:.1f}×)",
                        "verdict": "holds" if min(x99, x999) >= 5 else "misses",
                    }
                )
        for v, m in hpcc:
            near = NEAR_ZERO * m["circuit_bdp_bytes"]
            best = max((mp["circuit_util_pct"] for _, mp in power), default=100.0)
            low_q = m["voq_day_mean_bytes"] < near
            under = m["circuit_util_pct"] < best
            rows.append(
                {
                    "variant": v.name,
                    "claim": "keeps queues low but under-fills the circuit",
                    "measured": f"VOQ {m['voq_day_mean_bytes'] / 1e3:.1f} KB during the days, "
                    f"circuit {m['circuit_util_pct']:.1f}% (PowerTCP {best:.1f}%)",
                    "verdict": "holds" if low_q and under else "misses",
                }
            )
        return rows

    def report(self, scenario, metrics: dict, claim_rows: list[dict]) -> str:
        head = (
            "variant",
            "circuit util",
            "1st RTT",
            "after",
            "VOQ (day mean)",
            "VOQ p99",
            "qdelay p99",
            "p99.9",
            "drops",
        )
        lines = aligned(
            [head] + [_row(v.name, metrics[v.slug]) for v in scenario.variants() if v.slug in metrics]
        )
        first = next(iter(metrics.values()), None)
        if first:
            lines.append(
                f"\ncircuit days measured (µs): {[(a // 10**6, b // 10**6) for a, b in first['days']]}"
            )
        return "\n".join(lines + [""] + claim_lines(claim_rows))

    def figure(self, scenario, series: dict, path) -> None:
        """Fig. 8 style: per variant, the ToR's throughput (circuit + packet) and VOQ around the last
        measured day (circuit days shaded); last panel, tail queueing latency."""
        from .. import figure_layout as lay
        from ..plots import save

        p = scenario.experiment.params
        n = len(series)
        fig, axes, ncols = lay.grid(n + 1, scenario, twin=True, legend_labels=4)
        names, p99, p999, twins = [], [], [], []
        for k, (ax, (slug, (variant, tables, m))) in enumerate(zip(axes, series.items())):
            t, q, tx_c, rate = bottleneck(tables["port_series"], tables["ports"], p["circuit"])
            _, _, tx_u, _ = bottleneck(tables["port_series"], tables["ports"], p["uplink"])
            a, b = m["days"][-1]
            lo, hi = a - (b - a), min(b + (b - a), int(t[-1]))
            grid = np.arange(lo, hi, 5 * 10**6)
            dep = np.interp(grid, t, tx_c + tx_u)
            thr = np.diff(dep) * 8 / 5e-6 / 1e9
            ax.axvspan(a / 1e6, b / 1e6, color="0.88", label="circuit day")
            ax.plot(grid[1:] / 1e6, thr, lw=0.9, label="throughput ToR 0 → ToR 1 (left)")
            lay.reference(ax, rate / 1e9, f"circuit rate {rate / 1e9:g} Gbps")
            ax2 = ax.twinx()
            twins.append(ax2)
            ax2.tick_params(labelsize=lay.FONT - 1)
            win = (t >= lo) & (t < hi)
            ax2.plot(t[win] / 1e6, q[win] / 1e3, color="C3", lw=0.7, ls=":", label="VOQ (right)")
            ax.set_ylim(0, rate / 1e9 * 1.1)
            ax.set_title(variant.name, fontsize=lay.FONT)
            ax.set_xlabel("time (µs)", fontsize=lay.FONT)
            if k % ncols == 0:
                ax.set_ylabel("throughput (Gbps)", fontsize=lay.FONT)
            ax2.set_ylabel("VOQ (KB)", fontsize=lay.FONT)
            if k == 0:
                lay.legend(fig, [ax, ax2])
            names.append(variant.name)
            p99.append(m["qdelay_p99_us"])
            p999.append(m["qdelay_p999_us"])
        top = max(a.get_ylim()[1] for a in twins)
        for a in twins:  # one VOQ scale for every variant
            a.set_ylim(0, top)
        ax = axes[n]
        x = np.arange(len(names))
        ax.bar(x - 0.2, p99, 0.4, label="99th")
        ax.bar(x + 0.2, p999, 0.4, label="99.9th")
        ax.set_xticks(x, names, rotation=30, fontsize=lay.FONT - 1)
        ax.set_title("tail queueing latency", fontsize=lay.FONT)
        ax.set_ylabel("queueing latency (µs)", fontsize=lay.FONT)
        ax.legend(fontsize=lay.FONT - 1)
        save(fig, path)


ANALYSIS = Rdcn()
