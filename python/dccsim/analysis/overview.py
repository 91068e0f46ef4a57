"""The figures of a scenario without an analysis of its own (no `[experiment] analysis`; or
`analysis = "overview"`): what was recorded, drawn so that it can be read.

Panels, each drawn when its table has rows:

* queue (KB) and throughput (Gbps, tx bytes differenced over `avg` = max(interval, duration /
  400)) of the monitored ports (`[metrics] ports`), at most `MAX_LINES` of them: those with the
  highest peak queue; the line rate of each shown port for reference;
* window (KB) and rate (Gbps) of the sampled flows (`[metrics] flows = true`), at most
  `MAX_LINES` flows: the largest (then the first) ones;
* the FCT slowdown CDF by size bucket (short < 100 KB, medium, long ≥ 1 MB; slowdown and buckets
  as in the fct analysis, `fct.measured` with its default, the artifact's ideal FCT) when flows
  finished.

Metrics per variant: per shown port its peak queue and mean throughput over the run, flows
finished of flows started, and the FCT slowdown p50/p99 per bucket (with sample counts). No
paper claims.
"""

from __future__ import annotations

import numpy as np

from . import fct
from .base import Base
from .common import aligned, column, percentile

MAX_LINES = 6  # lines per panel: 6 colours tell apart in a 2.6-inch panel
PLOT_BINS = 400  # throughput is averaged over duration / 400 (at least one sample interval)
BUCKETS = (("short", 0, fct.SHORT), ("medium", fct.SHORT, fct.LONG), ("long", fct.LONG, np.inf))


def _shown_ports(tables) -> list[tuple[int, str, int]]:
    """(port id, name, rate) of the ports drawn: the MAX_LINES with the highest peak queue."""
    ports = tables["ports"]
    ids = column(ports, "port", np.int64)
    if len(ids) == 0:
        return []
    ps = tables["port_series"]
    sp = column(ps, "port", np.int64)
    q = column(ps, "queue_bytes", np.int64)
    # every port's peak in one pass (a "*" of a large fabric lists thousands of ports)
    peak = dict.fromkeys((int(p) for p in ids), 0)
    if len(sp):
        uniq, inv = np.unique(sp, return_inverse=True)
        top = np.zeros(len(uniq), dtype=np.int64)
        np.maximum.at(top, inv.reshape(-1), q)
        peak.update(zip(uniq.tolist(), top.tolist()))
    names, rates = column(ports, "name", object), column(ports, "rate_bps", np.int64)
    order = sorted(range(len(ids)), key=lambda i: (-peak[int(ids[i])], i))[:MAX_LINES]
    return [(int(ids[i]), str(names[i]), int(rates[i])) for i in sorted(order)]


def _port(tables, pid: int, avg_ps: int):
    """(t, queue, throughput times, throughput bps) of one port."""
    ps = tables["port_series"]
    rows = np.nonzero(column(ps, "port", np.int64) == pid)[0]
    t = column(ps, "time_ps", np.int64)[rows]
    o = np.argsort(t, kind="stable")
    t, q = t[o], column(ps, "queue_bytes", np.float64)[rows][o]
    tx = column(ps, "tx_bytes", np.float64)[rows][o]
    if len(t) < 2:
        return t, q, t[:0], q[:0]
    grid = np.arange(t[0], t[-1] + 1, avg_ps)
    cum = np.interp(grid, t, tx)
    return t, q, grid[1:], np.diff(cum) * 8 / (avg_ps / 1e12)


def _shown_flows(tables) -> list[int]:
    fs = tables["flow_series"]
    sampled = set(np.unique(column(fs, "flow_id", np.int64)).tolist())
    if not sampled:
        return []
    flows = tables["flows"]
    ids, size = column(flows, "flow_id", np.int64), column(flows, "size_bytes", np.int64)
    cand = [(-int(s), int(i)) for i, s in zip(ids, size) if int(i) in sampled]
    return sorted(i for _, i in sorted(cand)[:MAX_LINES])


def _flow(tables, fid: int):
    fs = tables["flow_series"]
    rows = np.nonzero(column(fs, "flow_id", np.int64) == fid)[0]
    t = column(fs, "time_ps", np.int64)[rows]
    o = np.argsort(t, kind="stable")
    return t[o], column(fs, "cwnd_bytes", np.float64)[rows][o], column(fs, "rate_bps", np.float64)[rows][o]


def _kept(flow_series, col: str) -> bool:
    y = column(flow_series, col, np.float64)
    return bool(np.any(np.isfinite(y) & (y > 0)))


def _slowdowns(scenario, variant, tables):
    """{bucket: sorted slowdowns} of the measured finished flows, and the unfinished count."""
    size, slow, unfinished = fct.measured(tables["flows"], fct.start_of_measurement(scenario, variant))
    out = {name: np.sort(slow[(size >= lo) & (size < hi)]) for name, lo, hi in BUCKETS}
    return out, unfinished


def _avg_ps(scenario) -> int:
    return max(scenario.metrics.interval_ps, scenario.duration_ps // PLOT_BINS, 1)


class Overview(Base):
    KEYS: dict = {}
    REQUIRED = ()
    FIGURE = "overview.png"
    NEEDS_SAMPLES = False  # the FCT panel needs the flows table only

    def check(self, scn) -> None:
        """Any scenario can be drawn."""

    def variant_metrics(self, scenario, variant, tables, engine_summary=None) -> dict:
        ports = []
        for pid, name, rate in _shown_ports(tables):
            t, q, _, _ = _port(tables, pid, _avg_ps(scenario))
            tx = column(tables["port_series"], "tx_bytes", np.float64)[
                column(tables["port_series"], "port", np.int64) == pid
            ]
            span = (t[-1] - t[0]) / 1e12 if len(t) > 1 else 0.0
            ports.append(
                {
                    "port": name,
                    "rate_bps": rate,
                    "peak_queue_bytes": int(q.max(initial=0)),
                    "mean_throughput_bps": round(float((tx.max() - tx.min()) * 8 / span)) if span else None,
                }
            )
        slow, unfinished = _slowdowns(scenario, variant, tables)
        fct_rows = {
            name: {
                "n": int(len(x)),
                "p50": None if len(x) == 0 else round(percentile(x, 0.5), 3),
                "p99": None if len(x) == 0 else round(percentile(x, 0.99), 3),
            }
            for name, x in slow.items()
        }
        return {
            "ports": ports,
            "flows_finished": int(sum(r["n"] for r in fct_rows.values())),
            "flows_unfinished": unfinished,
            "slowdown": fct_rows,
        }

    def claims(self, scenario, metrics: dict) -> list[dict]:
        return []

    def report(self, scenario, metrics: dict, claim_rows: list[dict]) -> str:
        rows = [("variant", "port", "peak queue", "mean throughput")]
        for slug, m in metrics.items():
            for p in m["ports"]:
                thr = p["mean_throughput_bps"]
                rows.append(
                    (
                        slug,
                        p["port"],
                        f"{p['peak_queue_bytes'] / 1e3:.1f} KB",
                        "—" if thr is None else f"{thr / 1e9:.2f} Gbps",
                    )
                )
        lines = aligned(rows) if len(rows) > 1 else ["(no port sampled: list ports in [metrics] ports)"]
        rows = [("variant", "finished", "unfinished") + tuple(f"{b} p50/p99 (n)" for b, _, _ in BUCKETS)]
        for slug, m in metrics.items():
            cells = []
            for b, _, _ in BUCKETS:
                s = m["slowdown"][b]
                cells.append("—" if not s["n"] else f"{s['p50']:.2f}/{s['p99']:.2f} ({s['n']})")
            rows.append((slug, str(m["flows_finished"]), str(m["flows_unfinished"]), *cells))
        lines += [""] + aligned(rows)
        lines.append(
            "\nslowdown = FCT / ideal FCT (the artifact's definition, docs/results.md); short < 100 KB, long ≥ 1 MB"
        )
        return "\n".join(lines)

    def figure(self, scenario, series: dict, path) -> None:
        from .. import figure_layout as lay
        from ..plots import decimate, save

        panels = []
        first = next(iter(series.values()))[1]
        if len(column(first["port_series"], "time_ps")):
            panels += ["queue", "throughput"]
        # window and rate: each only where a controller keeps it (a window-based law reports no
        # rate, a rate-based one no window: NaN or 0 throughout)
        for name, col in (("cwnd", "cwnd_bytes"), ("rate", "rate_bps")):
            if any(_kept(t["flow_series"], col) for _, t, _ in series.values()):
                panels.append(name)
        slow = {slug: _slowdowns(scenario, v, t)[0] for slug, (v, t, _) in series.items()}
        if any(len(x) for s in slow.values() for x in s.values()):
            panels.append("fct")
        if not panels:
            panels = ["empty"]
        fig, axes, ncols = lay.grid(len(panels), scenario, own_y=True)
        ax_of = dict(zip(panels, axes))
        many = len(series) > 1
        avg = _avg_ps(scenario)
        styles = ("-", "--", ":", "-.")
        for k, (slug, (variant, tables, _)) in enumerate(series.items()):
            ls = styles[k % len(styles)]
            prefix = f"{variant.name}: " if many else ""
            if "queue" in ax_of:
                for i, (pid, name, rate) in enumerate(_shown_ports(tables)):
                    t, q, tt, thr = _port(tables, pid, avg)
                    c = f"C{i % 10}"
                    ax_of["queue"].plot(
                        *decimate(t / 1e9, q / 1e3, 1000), color=c, ls=ls, lw=0.9, label=prefix + name
                    )
                    ax_of["throughput"].plot(tt / 1e9, thr / 1e9, color=c, ls=ls, lw=0.9, label=prefix + name)
                    if k == 0:
                        lay.reference(
                            ax_of["throughput"],
                            rate / 1e9,
                            f"line rate {rate / 1e9:g} Gbps" if i == 0 else "_",
                        )
            for i, fid in enumerate(_shown_flows(tables) if {"cwnd", "rate"} & set(ax_of) else ()):
                t, w, r = _flow(tables, fid)
                c = f"C{i % 10}"
                for name, y in (("cwnd", w / 1e3), ("rate", r / 1e9)):
                    if name in ax_of:
                        ax_of[name].plot(
                            *decimate(t / 1e9, y, 1000), color=c, ls=ls, lw=0.9, label=f"{prefix}flow {fid}"
                        )
            if "fct" in ax_of:
                for i, (b, _, _) in enumerate(BUCKETS):
                    x = slow[slug][b]
                    if len(x):
                        # from (first, 0): a bucket of one flow is a visible step
                        xs = np.concatenate([x[:1], x])
                        y = np.arange(len(x) + 1) / len(x)
                        ax_of["fct"].step(
                            xs,
                            y,
                            where="post",
                            color=f"C{i}",
                            ls=ls,
                            lw=1.0,
                            label=f"{prefix}{b} (n={len(x)})",
                        )
        labels = {
            "queue": ("queue (KB)", "time (ms)", "monitored ports' queue"),
            "throughput": ("throughput (Gbps)", "time (ms)", f"ports' throughput ({avg / 1e6:g} µs average)"),
            "cwnd": ("window (KB)", "time (ms)", "flows' window"),
            "rate": ("rate (Gbps)", "time (ms)", "flows' rate"),
            "fct": ("fraction of flows", "FCT slowdown", "FCT slowdown CDF by size"),
            "empty": ("", "", "nothing sampled: list [metrics] ports or set flows = true"),
        }
        for name, ax in ax_of.items():
            ylabel, xlabel, title = labels[name]
            ax.set_title(title, fontsize=lay.FONT)
            ax.set_ylabel(ylabel, fontsize=lay.FONT)
            ax.set_xlabel(xlabel, fontsize=lay.FONT)
            ax.grid(alpha=0.3)
            if name == "fct":
                lo, hi = ax.get_xlim()
                if lo > 0 and hi / lo > 10:  # log only where the slowdowns span a decade
                    ax.set_xscale("log")
                ax.set_ylim(0, 1.05)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=lay.FONT - 2, loc="best")
        if "queue" in ax_of and lay.fixed_scale(scenario):
            ax_of["queue"].set_ylim(0, scenario.switch.buffer_bytes / 1e3)
        save(fig, path)


ANALYSIS = Overview()
