"""Fairness and convergence of flows that join and leave one bottleneck (PowerTCP Fig. 5, TBTCP
Fig. 9/10 and Fig. 11).

Per-flow goodput over time: the sampled cumulative ``bytes_acked`` of each flow, differenced over
bins of ``[experiment] bin`` (linear interpolation at the bin edges).

* Phases: the run is cut at every flow start and every flow end (``end_ps`` of the flows table);
  in each phase the *active* flows are those started and not yet finished.
* ``jain``: Jain's index (Σx)²/(n·Σx²) of the active flows' goodput over the second half of the
  phase (the first half is left to convergence).
* ``converge_ps``: time from the phase start until every active flow's binned goodput is within
  ±``tol`` (default 0.2) of the mean of the active flows in that bin, for ``hold`` (default 4)
  consecutive bins; null if that never happens inside the phase. Phases shorter than hold + 1 bins
  are not judged (null), nor is the first phase with one flow (nothing to converge to).

Claims (``[experiment] paper``):

* ``powertcp-fig5``: PowerTCP and θ-PowerTCP "converge to the fair share quickly on arrival and
  departure". Holds when every judged phase converges within ``fast`` (default 0.5 ms, half of a
  1-ms phase) and every multi-flow phase has Jain ≥ 0.95. HPCC and TIMELY are reported beside it
  (the paper shows them less stable; no number to check), and so is Homa at overcommitment 1..6
  (Appendix D): a receiver-driven SRPT scheduler, so finite flows are served one (or a few) at a
  time rather than shared fairly.
* ``tbtcp-fig9``: time for a joining flow to reach its fair share, TBTCP ≈ 60 ms, DCTCP ≈ 40 ms
  (Fig. 10: 10 ms), DCTCP+RAI ≈ 250 ms (Fig. 10: 120 ms). Holds per variant when our time lies in
  0.5×–2× of the paper's Fig. 9 value (read off a plot, in a different simulator), and the order
  DCTCP < TBTCP < DCTCP+RAI is checked on the last row.
* ``tbtcp-fig11``: RTT fairness, Jain's index TBTCP 0.98 / 0.87 / 0.85 (curve BDP from the RTT
  50 / 80 / 110 µs at 40 Gbps = 250 / 400 / 550 KB; other BDPs: 0.98) vs DCTCP 0.51. Holds for TBTCP
  when Jain ≥ the paper's value − 0.05, for DCTCP when Jain ≤ 0.75 (clearly unfair; the paper's 0.51
  means two of four flows starved).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from .base import Base, ByPaper
from .common import (
    as_frame,
    as_frames,
    claim_lines,
    column,
    converge_time,
    goodput,
    jain,
    line_rate,
    ran,
    require_binned_flow_sampling,
)

JAIN_FAIR = 0.95
TBTCP_FIG9_MS = {"tbtcp": 60.0, "dctcp": 40.0, "dctcp-rai": 250.0}
RATIO_LO, RATIO_HI = 0.5, 2.0
FIG11 = {"tbtcp": (0.98, 0.93, None), "dctcp": (0.51, None, 0.75)}  # paper, min, max
# §5.4: the curve's BDP from the min / avg / max RTT, "50us, 80us, and 110us" at 40 Gbps → Jain
# 0.98 / 0.87 / 0.85; each holds at ≥ paper − 0.05
FIG11_TBTCP_BY_BDP = {250_000: 0.98, 400_000: 0.87, 550_000: 0.85}


def phases(flows, end_ps: int):
    """[(start, end, [active flow ids])] cut at every flow start and end."""
    cuts = {0, end_ps}
    for _, f in flows.iterrows():
        cuts.add(int(f["start_ps"]))
        if f["end_ps"] >= 0:
            cuts.add(int(f["end_ps"]))
    cuts = sorted(c for c in cuts if 0 <= c <= end_ps)
    out = []
    for a, b in zip(cuts, cuts[1:]):
        act = [
            int(f["flow_id"])
            for _, f in flows.iterrows()
            if f["start_ps"] <= a and (f["end_ps"] < 0 or f["end_ps"] >= b)
        ]
        if act:
            out.append((a, b, act))
    return out


def _ms(ps):
    return "—" if ps is None else f"{ps / 1e9:.2f} ms"


class Fairness(Base, ABC):
    """What every fairness figure shares: keys, checks, the per-phase metrics, the report and the
    figure. A figure supplies `_row`, its claim for one variant, and may add `_overall` rows."""

    PAPER = ""
    KEYS = {
        "bottleneck": "str",
        "bin": "time",
        "hold": "number",
        "tol": "number",
        "paper": "str",
        "fast": "time",
    }
    REQUIRED = ("bin", "paper")
    FIGURE = "fairness.png"
    PARALLEL_FIGURE = (
        True  # a grid of one panel per variant (10 in Fig. 5): half drawn by each of two processes
    )

    def check(self, scn) -> None:
        """Nothing beyond the family's check (flow sampling, paper, bin)."""

    def variant_metrics(self, scenario, variant, tables, engine_summary=None) -> dict:
        tables = as_frames(tables)  # this analysis uses pandas operations
        p = scenario.experiment.params
        bin_ps = p["bin"]
        tol, hold = float(p.get("tol", 0.2)), int(p.get("hold", 4))
        fs, flows = tables["flow_series"], tables["flows"]
        end = int(fs["time_ps"].max())
        tb, g = goodput(fs, bin_ps, end)
        out_phases = []
        for n, (a, b, act) in enumerate(phases(flows, end)):
            half = [i for i, t in enumerate(tb) if t - bin_ps >= (a + b) / 2 and t <= b]
            thr = {f: float(np.mean([g[f][i] for i in half])) if half else None for f in act}
            j = jain([v for v in thr.values() if v is not None]) if half else None
            conv = None if (n == 0 and len(act) == 1) else converge_time(tb, g, act, a, b, bin_ps, tol, hold)
            out_phases.append(
                {
                    "start_ps": a,
                    "end_ps": b,
                    "flows": act,
                    "jain": None if j is None or j != j else round(j, 4),
                    "converge_ps": conv,
                    "throughput_bps": {str(f): None if v is None else round(v) for f, v in thr.items()},
                }
            )
        multi = [ph for ph in out_phases if len(ph["flows"]) > 1 and ph["jain"] is not None]
        return {
            "phases": out_phases,
            "min_jain": min((ph["jain"] for ph in multi), default=None),
            "converge_max_ps": max(
                (ph["converge_ps"] for ph in out_phases if ph["converge_ps"] is not None), default=None
            ),
            "unconverged_phases": sum(
                1
                for n, ph in enumerate(out_phases)
                if ph["converge_ps"] is None and not (n == 0 and len(ph["flows"]) == 1)
            ),
            "packets_dropped": (engine_summary or {}).get("packets_dropped"),
        }

    def claims(self, scenario, metrics: dict) -> list[dict]:
        rows = [self._row(scenario, v, m) for v, m in ran(scenario, metrics)]
        return rows + self._overall(scenario, metrics)

    @abstractmethod
    def _row(self, scenario, v, m: dict) -> dict: ...

    def _overall(self, scenario, metrics: dict) -> list[dict]:
        """Claim rows over all variants together (none unless the figure has one)."""
        return []

    def report(self, scenario, metrics: dict, claim_rows: list[dict]) -> str:
        lines = []
        for v, m in ran(scenario, metrics):
            lines.append(f"{v.name}:")
            for ph in m["phases"]:
                lines.append(
                    f"  {ph['start_ps'] / 1e9:8.2f}–{ph['end_ps'] / 1e9:8.2f} ms  flows {ph['flows']}  "
                    f"Jain {'—' if ph['jain'] is None else format(ph['jain'], '.3f')}  "
                    f"converged after {_ms(ph['converge_ps'])}"
                )
        lines += [""] + claim_lines(claim_rows)
        return "\n".join(lines)

    def figure(self, scenario, series: dict, path) -> None:
        """One panel per variant in a grid (figure_layout): binned goodput of every flow (Gbps)
        vs time, the phase boundaries, the fair share (line rate / active flows) and the line
        rate; one goodput axis for every panel (to the line rate with `fixed_scale`)."""
        from .. import figure_layout as lay
        from ..plots import save

        p = scenario.experiment.params
        n = len(series)
        first = next(iter(series.values()))
        rate = line_rate(scenario, first[1], p.get("bottleneck"))
        flows = sorted(
            {int(f) for _, t, _ in series.values() for f in np.unique(column(t["flows"], "flow_id"))}
        )
        labels = len(flows) + 2 * (rate is not None)
        fig, axes, ncols = lay.grid(n, scenario, sharex=True, sharey=True, legend_labels=labels)
        for k, (ax, (slug, (variant, tables, m))) in enumerate(zip(axes, series.items())):
            fs = as_frame(tables["flow_series"])
            tb, g = goodput(fs, p["bin"], int(fs["time_ps"].max()))
            for fid, x in g.items():
                ax.plot(tb / 1e9, x / 1e9, lw=0.9, color=f"C{flows.index(fid) % 10}", label=f"flow {fid}")
            for ph in m["phases"]:
                ax.axvline(ph["start_ps"] / 1e9, color="0.85", lw=0.5, zorder=0)
            if rate is not None:
                lay.reference(ax, rate / 1e9, f"line rate {rate / 1e9:g} Gbps")
                xs = [x for ph in m["phases"] for x in (ph["start_ps"] / 1e9, ph["end_ps"] / 1e9)]
                ys = [rate / 1e9 / len(ph["flows"]) for ph in m["phases"] for _ in (0, 1)]
                ax.plot(xs, ys, color="k", lw=0.8, ls=":", label="fair share (line rate / active flows)")
            ax.set_title(variant.name, fontsize=lay.FONT)
            if k >= n - ncols:
                ax.set_xlabel("time (ms)", fontsize=lay.FONT)
            if k % ncols == 0:
                ax.set_ylabel("goodput (Gbps)", fontsize=lay.FONT)
            ax.grid(alpha=0.3)
            ax.set_ylim(bottom=0)
        if lay.fixed_scale(scenario) and rate is not None:
            axes[0].set_ylim(0, rate / 1e9 * 1.1)
        lay.legend(fig, axes)
        save(fig, path)


def _measured(m: dict) -> str:
    convs = [ph["converge_ps"] for ph in m["phases"]]
    jains = ", ".join("—" if ph["jain"] is None else format(ph["jain"], ".3f") for ph in m["phases"])
    return f"Jain per phase {jains}; convergence {', '.join(_ms(c) for c in convs)}"


class Fig5(Fairness):
    """PowerTCP Fig. 5: PowerTCP and θ-PowerTCP converge quickly and fairly; others shown beside."""

    PAPER = "powertcp-fig5"

    def _row(self, scenario, v, m: dict) -> dict:
        alg = v.cc.algorithm
        fast = scenario.experiment.params.get("fast", 500 * 10**6)
        if alg in ("powertcp", "theta-powertcp"):
            ok_c = m["unconverged_phases"] == 0 and (m["converge_max_ps"] or 0) <= fast
            ok_j = m["min_jain"] is not None and m["min_jain"] >= JAIN_FAIR
            verdict = (
                ("holds" if ok_c and ok_j else "partly holds" if ok_c or ok_j else "differs")
                + f": slowest convergence {_ms(m['converge_max_ps'])} (quick means ≤ {_ms(fast)}), "
                f"{m['unconverged_phases']} phase(s) never converged; lowest Jain {m['min_jain']} "
                f"(fair means ≥ {JAIN_FAIR})"
            )
            claim = "converges to the fair share quickly on arrival and departure"
        else:
            verdict = (
                f"n/a (no number in the paper): slowest convergence {_ms(m['converge_max_ps'])}, "
                f"{m['unconverged_phases']} phase(s) never converged, lowest Jain {m['min_jain']}"
            )
            claim = (
                "receiver-driven SRPT, shown for comparison (Fig. 5, Appendix D)"
                if alg == "homa"
                else "shown for comparison (less stable than PowerTCP in Fig. 5)"
            )
        return {"variant": v.name, "claim": claim, "measured": _measured(m), "verdict": verdict}


def _joined(m: dict):
    """Convergence time of the first phase after the first with more than one flow."""
    return next((ph["converge_ps"] for ph in m["phases"][1:] if len(ph["flows"]) > 1), None)


class Fig9(Fairness):
    """TBTCP Fig. 9/10: time for a joining flow to reach its fair share, and the order of the three."""

    PAPER = "tbtcp-fig9"

    def _row(self, scenario, v, m: dict) -> dict:
        c = _joined(m)
        ref = TBTCP_FIG9_MS.get(v.cc.algorithm)
        claim = f"a joining flow reaches its fair share in ≈ {ref:g} ms" if ref else "no claim"
        if ref is None or c is None:
            verdict = "differs: never converged within the phase" if c is None else "n/a"
        else:
            r = c / 1e9 / ref
            verdict = (
                ("holds" if RATIO_LO <= r <= RATIO_HI else "differs")
                + f": {c / 1e9:.1f} ms = {r:.2f}× the paper's {ref:g} ms (holds within {RATIO_LO:g}–{RATIO_HI:g}×)"
            )
        return {"variant": v.name, "claim": claim, "measured": _measured(m), "verdict": verdict}

    def _overall(self, scenario, metrics: dict) -> list[dict]:
        c = {v.cc.algorithm: _joined(m) for v, m in ran(scenario, metrics)}
        if not all(c.get(a) is not None for a in ("tbtcp", "dctcp", "dctcp-rai")):
            return []
        ok = c["dctcp"] < c["tbtcp"] < c["dctcp-rai"]
        return [
            {
                "variant": "order",
                "claim": "DCTCP converges fastest, then TBTCP, then DCTCP+RAI",
                "measured": f"DCTCP {_ms(c['dctcp'])}, TBTCP {_ms(c['tbtcp'])}, DCTCP+RAI {_ms(c['dctcp-rai'])}",
                "verdict": "holds" if ok else "differs",
            }
        ]


class Fig11(Fairness):
    """TBTCP Fig. 11: RTT fairness, Jain's index of the last phase against the paper's."""

    PAPER = "tbtcp-fig11"

    def _row(self, scenario, v, m: dict) -> dict:
        alg = v.cc.algorithm
        ph = m["phases"][-1]
        j = ph["jain"]
        ref = FIG11.get(alg)
        e = v.ecn if v.ecn is not None else scenario.switch.ecn
        if alg == "tbtcp" and e.kind == "curve" and e.bdp_bytes in FIG11_TBTCP_BY_BDP:
            j_ref = FIG11_TBTCP_BY_BDP[e.bdp_bytes]
            ref = (j_ref, round(j_ref - 0.05, 2), None)
        claim = f"Jain's index ≈ {ref[0]}" if ref else "no claim"
        if ref is None or j is None:
            verdict = "n/a"
        else:
            lo, hi = ref[1], ref[2]
            ok = (lo is None or j >= lo) and (hi is None or j <= hi)
            verdict = (
                ("holds" if ok else "differs")
                + f": Jain {j:.3f} "
                + (f"(holds when ≥ {lo})" if lo is not None else f"(holds when ≤ {hi})")
            )
        measured = f"Jain {j}; goodput per flow (Gbps) " + ", ".join(
            f"{k}: {x / 1e9:.2f}" for k, x in ph["throughput_bps"].items() if x is not None
        )
        return {"variant": v.name, "claim": claim, "measured": measured, "verdict": verdict}


ANALYSIS = ByPaper(
    Fig5(),
    Fig9(),
    Fig11(),
    before=lambda scn, papers: require_binned_flow_sampling(scn, "fairness", tuple(papers)),
)
