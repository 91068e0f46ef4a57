"""Long flows sharing one bottleneck: utilisation, fairness and queue.

Measured over the window [last start of a flow to the bottleneck + warmup, end of the samples]:

* flows considered: those whose destination is the bottleneck port's peer host (``sw0->h4`` →
  flows to h4); all flows if the peer is a switch.
* ``flow_throughput_bps``: goodput of each flow in the window, from the sampled cumulative
  ``bytes_acked`` (linearly interpolated at the window ends); without flow sampling, each flow's
  lifetime average from the flows table (``throughput_source`` says which).
* ``jain_index``: (Σx)² / (n·Σx²) over those throughputs (1 = perfectly fair).
* ``min_share`` / ``max_share``: smallest / largest throughput over the fair share (mean).
* ``utilization_pct``: bytes the bottleneck transmitted in the window over line rate.
* ``queue_mean_bytes``, ``queue_p99_bytes``: over the window's samples; p99 is element
  ⌊0.99·n⌋ of the sorted samples (no interpolation).
No paper claim is attached, so ``claims`` is empty.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ..errors import ScenarioError
from ..units import format_time
from .base import Base
from .common import aligned, as_frames, bottleneck, jain, percentile, ran

PLOT_POINTS = 200  # the figure's goodput is averaged over max(sample interval, run / 200)


def _flows_to_bottleneck(flows, port_name: str):
    m = re.fullmatch(r".*->h([0-9]+)", port_name)
    return flows[flows["dst"] == int(m.group(1))] if m else flows


class Shared(Base):
    """Long flows sharing one bottleneck: utilisation, fairness and queue (no paper claims).
    Definitions: the module's docstring."""

    KEYS = {"bottleneck": "str", "warmup": "time"}
    REQUIRED = ("bottleneck",)
    FIGURE = "shared.png"

    def check(self, scn) -> None:
        b = scn.experiment.params["bottleneck"]
        if scn.metrics.interval_ps == 0:
            raise ScenarioError("metrics.interval", "the shared analysis needs sampling; set it > 0")
        if b not in scn.metrics.ports and "*" not in scn.metrics.ports:
            raise ScenarioError(
                "experiment.bottleneck", f"port {b!r} is not sampled; add it to metrics.ports"
            )

    def variant_metrics(self, scenario, variant, tables, engine_summary=None) -> dict:
        tables = as_frames(tables)  # this analysis uses pandas operations
        p = scenario.experiment.params
        name = p["bottleneck"]
        t, q, tx, rate = bottleneck(tables["port_series"], tables["ports"], name)
        flows = _flows_to_bottleneck(tables["flows"], name)
        if flows.empty:
            raise ScenarioError("experiment.bottleneck", f"no flow goes through {name!r}")
        a = int(flows["start_ps"].max()) + p.get("warmup", 0)
        b = int(t[-1])
        if a >= b:
            raise ScenarioError(
                "experiment.warmup", "the window after the last flow start and the warmup is empty"
            )
        fs = tables.get("flow_series")
        thr = {}
        if fs is not None and not fs.empty:
            source = "flow_series"
            for fid in flows["flow_id"]:
                s = fs[fs["flow_id"] == fid].sort_values("time_ps")
                ft, fb = s["time_ps"].to_numpy(np.float64), s["bytes_acked"].to_numpy(np.float64)
                thr[int(fid)] = float((np.interp(b, ft, fb) - np.interp(a, ft, fb)) * 8 / ((b - a) / 1e12))
        else:
            source = "flows"
            for _, f in flows.iterrows():
                end = f["end_ps"] if f["end_ps"] >= 0 else scenario.duration_ps
                thr[int(f["flow_id"])] = float(f["bytes_acked"] * 8 / max(1, end - f["start_ps"]) * 1e12)
        x = np.array(list(thr.values()))
        fair = x.mean()
        win = (t >= a) & (t <= b)
        sent = np.interp(b, t, tx) - np.interp(a, t, tx)
        return {
            "bottleneck": name,
            "line_rate_bps": rate,
            "window_start_ps": a,
            "window_end_ps": b,
            "throughput_source": source,
            "flow_throughput_bps": {str(k): round(v) for k, v in thr.items()},
            "jain_index": None if math.isnan(jain(x)) else round(jain(x), 4),
            "min_share": round(float(x.min() / fair), 4) if fair > 0 else None,
            "max_share": round(float(x.max() / fair), 4) if fair > 0 else None,
            "utilization_pct": round(float(100 * sent * 8 / ((b - a) / 1e12) / rate), 3),
            "queue_mean_bytes": round(float(q[win].mean()), 1),
            "queue_p99_bytes": percentile(q[win], 0.99),
            "packets_dropped": (engine_summary or {}).get("packets_dropped"),
        }

    def claims(self, scenario, metrics: dict) -> list[dict]:
        return []

    def report(self, scenario, metrics: dict, claim_rows: list[dict]) -> str:
        head = ("variant", "utilisation", "Jain", "min/max share", "queue mean", "queue p99", "drops")
        rows = [head]
        for v, m in ran(scenario, metrics):
            share = "—" if m["min_share"] is None else f"{m['min_share']:.2f}/{m['max_share']:.2f}"
            rows.append(
                (
                    v.name,
                    f"{m['utilization_pct']:.1f} %",
                    "—" if m["jain_index"] is None else f"{m['jain_index']:.3f}",
                    share,
                    f"{m['queue_mean_bytes'] / 1e3:.1f} KB",
                    f"{m['queue_p99_bytes'] / 1e3:.1f} KB",
                    "—" if m["packets_dropped"] is None else str(m["packets_dropped"]),
                )
            )
        lines = aligned(rows)
        first = next(iter(metrics.values()), None)
        if first:
            lines.append(
                f"\nwindow: {format_time(first['window_start_ps'])} .. {format_time(first['window_end_ps'])} "
                f"(after the last flow start + warmup); Jain = (Σx)²/(n·Σx²) of per-flow goodput"
            )
        return "\n".join(lines)

    def figure(self, scenario, series: dict, path) -> None:
        """One panel per variant in a grid (figure_layout): goodput of each flow (Gbps, left),
        the bottleneck's queue (KB, right, dotted), the line rate and the fair share (line rate
        / flows through the bottleneck); one queue axis for every panel (the buffer with
        `fixed_scale`)."""
        from .. import figure_layout as lay
        from ..plots import save

        name = scenario.experiment.params["bottleneck"]
        n = len(series)
        avg = max(scenario.metrics.interval_ps, scenario.duration_ps // PLOT_POINTS)
        qmax = max(
            [1.0]
            + [
                float(np.max(np.asarray(s[1]["port_series"]["queue_bytes"]), initial=0)) / 1e3
                for s in series.values()
            ]
        )
        if lay.fixed_scale(scenario):
            qmax = scenario.switch.buffer_bytes / 1e3
        frames = {slug: as_frames(tables) for slug, (_, tables, _) in series.items()}
        ids = sorted(
            {int(f) for t in frames.values() for f in _flows_to_bottleneck(t["flows"], name)["flow_id"]}
        )
        fig, axes, ncols = lay.grid(n, scenario, twin=True, legend_labels=len(ids) + 3)
        for k, (ax, (slug, (variant, _, m))) in enumerate(zip(axes, series.items())):
            tables = frames[slug]
            t, q, tx, rate = bottleneck(tables["port_series"], tables["ports"], name)
            ax2 = ax.twinx()
            ax2.tick_params(labelsize=lay.FONT - 1)
            fs = tables["flow_series"]
            for fid in _flows_to_bottleneck(tables["flows"], name)["flow_id"]:
                s = fs[fs["flow_id"] == fid].sort_values("time_ps")
                if s.empty:
                    continue
                ft, fb = s["time_ps"].to_numpy(np.int64), s["bytes_acked"].to_numpy(np.float64)
                grid = np.arange(ft[0] + avg, ft[-1] + 1, avg)
                g = np.diff(np.interp(np.concatenate([[ft[0]], grid]), ft, fb)) * 8 / (avg / 1e12) / 1e9
                ax.plot(grid / 1e9, g, lw=0.9, color=f"C{ids.index(int(fid)) % 10}", label=f"flow {fid}")
            ax2.plot(t / 1e9, q / 1e3, color="0.35", lw=0.7, ls=":", label=f"queue of {name} (right axis)")
            lay.reference(ax, rate / 1e9, f"line rate {rate / 1e9:g} Gbps")
            if ids:
                lay.reference(ax, rate / 1e9 / len(ids), "fair share (line rate / flows)", color="k", ls="-.")
            ax.set_ylim(0, rate / 1e9 * 1.15)
            ax2.set_ylim(0, qmax * 1.1)
            ax.set_title(variant.name, fontsize=lay.FONT)
            ax.set_xlabel("time (ms)", fontsize=lay.FONT)
            if k % ncols == 0:
                ax.set_ylabel("goodput (Gbps)", fontsize=lay.FONT)
            if k % ncols == ncols - 1 or k == n - 1:
                ax2.set_ylabel("queue (KB)", fontsize=lay.FONT)
            ax.grid(alpha=0.3)
            if k == 0:
                lay.legend(fig, [ax, ax2])
        save(fig, path)


ANALYSIS = Shared()
