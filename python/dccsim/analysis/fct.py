"""Flow completion times by flow size (PowerTCP Fig. 6/7 style) and ToR buffer occupancy.

Definitions (docs/results.md, "Metrics of the fct analysis"):

* Flows measured: finite flows that start at or after ``[workload] start + warmup`` (all finite
  flows without a workload); of those, the unfinished ones are counted, not measured.
* Slowdown = FCT / ideal FCT. ``[experiment] ideal = "artifact"`` (default): the PowerTCP/HPCC
  artifact's definition, the flows table's ``ideal_fct_artifact_ps`` = pair RTT of one
  payload-sized packet per hop (2·Σdelay + Σ payload·8/rate, no ACK) + (size + ⌈size/payload⌉ ·
  header)·8 / slowest rate on the path, header without INT. ``ideal = "engine"``: the flows
  table's ``ideal_fct_ps`` (docs/models.md).
* Size buckets: the artifact's edges 0, 5K, 10K, 20K, 30K, 50K, 75K, 100K, 200K, 400K, 600K, 800K,
  1M, 5M, 10M, 30M (bytes, K = 1000); a bucket holds lo < size ≤ hi. Summaries: short
  (size < 100 KB), medium (100 KB ≤ size < 1 MB), long (size ≥ 1 MB).
* Percentile q of n samples: element ⌊q·n⌋ of the sorted list (capped at n − 1), the artifact's
  rule. Each is reported with n and ``above`` = n − 1 − ⌊q·n⌋ (samples sorted after it); it is
  ``meaningful`` only when above ≥ 10 (MIN_ABOVE).
* ToR buffer: at every sample instant, a ToR's occupancy is the sum of the sampled queues of its
  egress ports (an output-queued shared buffer holds exactly its egress queues); the CDF is over
  all (ToR, instant) pairs at or after the measurement start. Sample every ToR port
  (list them in ``metrics.ports``, e.g. "tor0->h0" … "tor0->agg1") at the artifact's 1.5 × min RTT.
  ``bin_max``: the artifact prints each ToR's maximum over bins of 100 samples; its percentiles
  are reported too.
No paper claims are attached here (the paper's datacenter experiments compare against them).
"""

from __future__ import annotations

import math
import re

import numpy as np

from ..errors import ScenarioError
from .base import Base
from .common import MIN_ABOVE, aligned, column, pct, percentile, ran

IDEALS = {"artifact": "ideal_fct_artifact_ps", "engine": "ideal_fct_ps"}
EDGES = (0, 5e3, 10e3, 20e3, 30e3, 50e3, 75e3, 100e3, 200e3, 400e3, 600e3, 800e3, 1e6, 5e6, 10e6, 30e6)
QS = (0.5, 0.95, 0.99, 0.999)
SHORT, LONG = 100_000, 1_000_000
BIN_SAMPLES = 100  # the artifact's printBuffer: one maximum per 100 samples


def key(q: float) -> str:
    return f"p{100 * q:g}"


def summary(x, qs=QS) -> dict:
    return {key(q): pct(x, q) for q in qs}


def measured(flows, start_ps: int, ideal: str = "artifact"):
    """(size, slowdown) of the measured finished flows, and the count of measured unfinished ones."""
    size = column(flows, "size_bytes", np.int64)
    start = column(flows, "start_ps", np.int64)
    end = column(flows, "end_ps", np.int64)
    ideal_ps = column(flows, IDEALS[ideal], np.int64)
    m = (size > 0) & (start >= start_ps)
    done = m & (end >= 0) & (ideal_ps > 0)
    slow = (end[done] - start[done]).astype(np.float64) / ideal_ps[done].astype(np.float64)
    return size[done], slow, int(np.sum(m & (end < 0)))


def by_size(size, slow, qs=QS) -> dict:
    buckets = []
    for lo, hi in zip(EDGES[:-1], EDGES[1:]):
        sel = (size > lo) & (size <= hi)
        buckets.append({"lo": int(lo), "hi": int(hi), **summary(slow[sel], qs)})
    return {
        "buckets": buckets,
        "short": summary(slow[size < SHORT], qs),
        "medium": summary(slow[(size >= SHORT) & (size < LONG)], qs),
        "long": summary(slow[size >= LONG], qs),
        "all": summary(slow, qs),
    }


def quantiles(scenario) -> tuple:
    """QS plus the experiment's `tail` if it is another one."""
    tail = scenario.experiment.params.get("tail", 0.999)
    return QS if tail in QS else QS + (tail,)


def tor_occupancy(port_series, start_ps: int) -> np.ndarray:
    """(ToR, instant) occupancies: the sum of each ToR's sampled egress queues per sample time."""
    if len(column(port_series, "time_ps")) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    names = column(port_series, "port_name")
    tor = np.array([int(m.group(1)) if (m := re.match(r"tor([0-9]+)->", str(n))) else -1 for n in names])
    t = column(port_series, "time_ps", np.int64)
    q = column(port_series, "queue_bytes", np.int64)
    sel = (tor >= 0) & (t >= start_ps)
    if not sel.any():
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    keys = np.stack([tor[sel], t[sel]])
    uniq, inv = np.unique(keys, axis=1, return_inverse=True)
    occ = np.zeros(uniq.shape[1], dtype=np.int64)
    np.add.at(occ, inv.reshape(-1), q[sel])
    return uniq[0], occ  # sorted by ToR, then time


def bin_max(tor: np.ndarray, occ: np.ndarray, n: int = BIN_SAMPLES) -> np.ndarray:
    out = []
    for r in np.unique(tor):
        x = occ[tor == r]
        out += [int(x[i : i + n].max()) for i in range(0, len(x) - n + 1, n)]
    return np.asarray(out, dtype=np.int64)


def buffer_metrics(port_series, start_ps: int) -> dict:
    tor, occ = tor_occupancy(port_series, start_ps)
    if len(occ) == 0:
        return {"samples": 0}
    return {
        "samples": int(len(occ)),
        "tors": int(len(np.unique(tor))),
        "per_sample": summary(occ),
        "max_bytes": int(occ.max()),
        "bin_max": summary(bin_max(tor, occ)),
        "cdf_bytes": [percentile(occ, i / 100) for i in range(101)],
    }


def start_of_measurement(scenario, variant=None) -> int:
    w = scenario.variant_workload(variant)
    return 0 if w is None else w.measured_from_ps


def _cell(s: dict) -> str:
    if s["value"] is None:
        return "—"
    return f"{s['value']:.2f}" + ("" if s["meaningful"] else "*")


def buffer_p99_cell(m: dict) -> str:
    """A variant's 99th-percentile ToR buffer occupancy for a report table ("—" when not sampled)."""
    b = m["buffer"]
    return "—" if not b.get("samples") else f"{b['per_sample']['p99']['value'] / 1e3:.0f} KB"


def plot_buffer_cdf(ax, series: dict) -> None:
    """The ToR buffer occupancy CDF of every variant that sampled ToR ports, on `ax`."""
    for i, (variant, _, m) in enumerate(series.values()):
        cdf = m["buffer"].get("cdf_bytes")
        if cdf:
            ax.plot(np.asarray(cdf) / 1e3, np.arange(101) / 100, color=f"C{i}", label=variant.name)
    ax.set_xlabel("ToR buffer occupancy (KB)")
    ax.set_ylabel("CDF")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)


class Fct(Base):
    """Flow completion times by flow size and the ToR buffer occupancy (no paper claims).
    Definitions: the module's docstring."""

    KEYS = {"ideal": "str", "tail": "number"}
    REQUIRED = ()
    NEEDS_SAMPLES = False  # flows alone suffice; the buffer CDF needs sampled ToR ports
    FIGURE = "fct.png"

    def check(self, scn) -> None:
        p = scn.experiment.params
        if p.get("ideal", "artifact") not in IDEALS:
            raise ScenarioError(
                "experiment.ideal", f"unknown value {p['ideal']!r}; allowed: {', '.join(IDEALS)}"
            )
        tail = p.get("tail", 0.999)
        if not 0 < tail < 1:
            raise ScenarioError("experiment.tail", f"must lie in (0, 1), got {tail!r}")

    def variant_metrics(self, scenario, variant, tables, engine_summary=None) -> dict:
        p = scenario.experiment.params
        ideal = p.get("ideal", "artifact")
        t0 = start_of_measurement(scenario, variant)
        size, slow, unfinished = measured(tables["flows"], t0, ideal)
        return {
            "ideal": ideal,
            "measured_from_ps": t0,
            "finished": int(len(slow)),
            "unfinished": unfinished,
            **by_size(size, slow, quantiles(scenario)),
            "buffer": buffer_metrics(tables["port_series"], t0),
            "packets_dropped": (engine_summary or {}).get("packets_dropped"),
        }

    def claims(self, scenario, metrics: dict) -> list[dict]:
        return []

    def report(self, scenario, metrics: dict, claim_rows: list[dict]) -> str:
        tail = key(scenario.experiment.params.get("tail", 0.999))
        head = ["variant", "short n"]
        head += [f"{k} {q}" for k in ("short", "medium", "long") for q in ("p50", tail)]
        head.append("ToR buffer p99")
        rows = [tuple(head)]
        for v, m in ran(scenario, metrics):
            cells = [_cell(m[k][q]) for k in ("short", "medium", "long") for q in ("p50", tail)]
            rows.append((v.name, str(m["short"]["p50"]["n"]), *cells, buffer_p99_cell(m)))
        lines = aligned(rows)
        ideal = next(iter(metrics.values()), {}).get("ideal", "artifact")
        lines.append(
            f"\nslowdown = FCT / ideal FCT ({ideal} definition); * = fewer than {MIN_ABOVE} samples above "
            "the percentile (not meaningful); short < 100 KB, medium < 1 MB, long ≥ 1 MB"
        )
        return "\n".join(lines)

    def figure(self, scenario, series: dict, path) -> None:
        """Slowdown vs flow size (log x; p50 dashed, tail solid, one colour per variant) and, when ToR
        ports were sampled, the ToR buffer occupancy CDF."""
        from ..plots import new_figure, save

        tail = scenario.experiment.params.get("tail", 0.999)
        tail_key = key(tail)
        with_buf = any(m["buffer"].get("samples") for _, _, m in series.values())
        fig, axes = new_figure(1, 2 if with_buf else 1, figsize=(10 if with_buf else 5.5, 3.6), squeeze=False)
        ax = axes[0][0]
        for i, (slug, (variant, tables, m)) in enumerate(series.items()):
            colour = f"C{i}"
            b = m["buckets"]
            x = [math.sqrt(max(bk["lo"], 1e3) * bk["hi"]) for bk in b]
            for q, ls in (("p50", "--"), (tail_key, "-")):
                if q not in b[0]:
                    continue
                y = [bk[q]["value"] if bk[q]["value"] is not None else np.nan for bk in b]
                ax.plot(x, y, ls=ls, marker="o", ms=3, color=colour, label=f"{variant.name} {q}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("flow size (bytes)")
        ax.set_ylabel("FCT slowdown")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7)
        if with_buf:
            plot_buffer_cdf(axes[0][1], series)
        from .. import figure_layout

        figure_layout.finish(fig, scenario)
        save(fig, path)


ANALYSIS = Fct()
