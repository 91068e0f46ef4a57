"""Poseidon (NSDI'23) §5.2–5.3: multi-hop and reverse-path congestion, convergence, stability, RTT.

Every experiment runs long flows that join in *stages*: the run is cut at every distinct flow
start time, and each stage is measured over its second half (the first half is left to
convergence). Per-flow goodput comes from the sampled cumulative ``bytes_acked``, differenced over
bins of ``[experiment] bin`` (``fairness.goodput``). "Line rate" below is the goodput of a full
link: rate × payload / (payload + header + INT header).

Keys: ``paper`` (which figure, below), ``bin``, ``bottleneck`` (sampled port for queue and RTT),
``victim`` (flow id, default 0).

* ``poseidon-fig20b`` (brownfield fairness): the stages of poseidon-fig14 with INT only at the
  destination rack (variants with ``brownfield = true`` and ``int_switches``). In a stage with
  N > M > 0 (the bottleneck at the rack with INT) the victim "reach[es] the fair rate": within
  ±15 % of its share; with M > N > 0 (the bottleneck at the rack without INT) it gets "a little
  more bandwidth", "bounded": holds for 1–1.5× its share (our reading), partly holds within ±15 %.
  A variant without ``brownfield`` is the full-INT reference (within ±15 % in every such stage).
* ``poseidon-fig14`` (multi-hop): the victim's goodput in each stage against its max-min share
  line/max(M+1, N+1), where N = active flows to the victim's destination (other than the victim)
  and M = active flows to any other destination (the topology makes those share the victim's
  source-ToR uplink). Poseidon holds when the victim is within ±15 % of that share in every stage
  (the paper reads shares off plots; 15 % leaves room for the window law's ripple). Swift "starves
  the victim": holds when the victim gets < 25 % of its share in every stage with M > 0 and N > 0
  (testbed: 0.16 of 5 Gbps). HPCC "falls short when M = N": holds when < 85 % in those stages.
* ``poseidon-fig15`` (reverse path): N = active flows *to the victim's source*, whose data queues
  the victim's ACKs. Poseidon holds when the victim keeps ≥ 95 % of line rate in every stage; Swift
  "drops to the reverse fair share": within ±20 % of line/N in every stage with N ≥ 2; HPCC (uses
  forward INT only) keeps ≥ 90 % (its η = 0.95 target minus 5 points).
* ``poseidon-fig17a`` (convergence): convergence time of the last flow to join = time from its
  start until every active flow's binned goodput is within ±20 % of their mean for 4 bins
  (``fairness.converge_time``). Claim: Poseidon ≈ 12× faster than Swift and HPCC; holds per
  baseline when the ratio lies in 4–36× (within a factor 3 of 12: read off a plot of another
  simulator) or the baseline never converges while Poseidon does.
* ``poseidon-fig17b`` (stability): per stage, the coefficient of variation (std/mean over the
  measured bins) of each active flow's goodput, averaged over the flows. Claim: Poseidon's std is
  70 % lower than Swift's on average (24× at N = 200). Holds when the mean reduction over the
  stages with N > 2 is ≥ 50 % (20 points of tolerance), partly holds when > 0.
* ``poseidon-fig18`` (RTT): mean RTT per stage = base RTT of the flows' path + mean queueing delay
  of the bottleneck (queue·8/rate), the only queue on the path. Claim: Poseidon's RTT below
  Swift's, HPCC's below Poseidon's; holds when true in every stage with more than one flow (a lone
  flow builds no queue, so all three tie at the base RTT), partly holds when true in some.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from ..errors import ScenarioError
from .base import Base, ByPaper
from .common import as_frame, as_frames, bottleneck, converge_time, goodput, require_binned_flow_sampling

SHARE_TOL = 0.15  # fig14: Poseidon within ±15 % of the max-min share
STARVE = 0.25  # fig14: Swift below 25 % of the share
SHORT = 0.85  # fig14: HPCC below 85 % of the share when M = N
LINE_KEEP = 0.95  # fig15: Poseidon keeps ≥ 95 % of line rate
HPCC_KEEP = 0.90  # fig15: HPCC ≥ η − 5 points
REV_TOL = 0.20  # fig15: Swift within ±20 % of the reverse fair share
CONV_TOL, CONV_HOLD = 0.2, 4
SPEEDUP, SPEEDUP_LO, SPEEDUP_HI = 12.0, 4.0, 36.0
STD_CUT, STD_CUT_MIN = 0.70, 0.50


def line_goodput_bps(scenario, rate_bps: float) -> float:
    h = scenario.host
    return rate_bps * h.payload_bytes / (h.payload_bytes + h.header_bytes + h.int_header_bytes)


def stages(flows, end_ps: int):
    """[(start, end, [active flow ids])] cut at every distinct flow start."""
    starts = sorted({int(s) for s in flows["start_ps"]} | {end_ps})
    return [
        (a, b, [int(f) for f, s in zip(flows["flow_id"], flows["start_ps"]) if s <= a])
        for a, b in zip(starts, starts[1:])
        if a < end_ps
    ]


def _g(x):
    return "—" if x is None else f"{x / 1e9:.1f}"


def _frac(cond: list) -> str:
    return "holds" if cond and all(cond) else "partly holds" if any(cond) else "differs"


class Poseidon(Base):
    """What every Poseidon figure shares: keys, checks, the per-stage metrics, the claim table,
    the figure's frame. A figure supplies its claims (`claims`, or `_row` of `PerVariant`) and,
    where it differs, `_draw`; Fig. 17a also measures the last flow's convergence
    (`CONVERGENCE`)."""

    PAPER = ""
    KEYS = {"paper": "str", "bin": "time", "bottleneck": "str", "victim": "number"}
    REQUIRED = ("paper", "bin", "bottleneck")
    FIGURE = "poseidon.png"
    CONVERGENCE = False

    def check(self, scn) -> None:
        p = scn.experiment.params
        if p["bottleneck"] not in scn.metrics.ports and "*" not in scn.metrics.ports:
            raise ScenarioError(
                "experiment.bottleneck", f"port {p['bottleneck']!r} is not sampled; add it to metrics.ports"
            )

    def variant_metrics(self, scenario, variant, tables, engine_summary=None) -> dict:
        tables = as_frames(tables)  # this analysis uses pandas operations
        p = scenario.experiment.params
        bin_ps, victim = p["bin"], int(p.get("victim", 0))
        fs, flows = tables["flow_series"], tables["flows"]
        end = int(fs["time_ps"].max())
        tb, g = goodput(fs, bin_ps, end)
        t, q, tx, rate = bottleneck(tables["port_series"], tables["ports"], p["bottleneck"])
        line = line_goodput_bps(scenario, rate)
        fl = flows.set_index("flow_id")
        vsrc, vdst = int(fl.loc[victim, "src"]), int(fl.loc[victim, "dst"])
        out = []
        for a, b, act in stages(flows, end):
            mid = (a + b) // 2
            sel = (tb - bin_ps >= mid) & (tb <= b)
            thr = {f: float(g[f][sel].mean()) for f in act} if sel.any() else {}
            cv = [
                float(g[f][sel].std() / g[f][sel].mean()) for f in act if sel.any() and g[f][sel].mean() > 0
            ]
            w = (t >= mid) & (t <= b)
            qd = float(q[w].mean()) * 8 / rate if w.any() else None
            others = [f for f in act if f != victim]
            n_dst = sum(1 for f in others if int(fl.loc[f, "dst"]) == vdst)
            n_rev = sum(1 for f in others if int(fl.loc[f, "dst"]) == vsrc)
            m_src = len(others) - n_dst - n_rev
            rtt0 = float(fl.loc[act, "base_rtt_ps"].mean()) / 1e12
            out.append(
                {
                    "start_ps": a,
                    "end_ps": b,
                    "flows": len(act),
                    "M": m_src,
                    "N": n_dst,
                    "reverse": n_rev,
                    "victim_bps": round(thr[victim]) if victim in thr else None,
                    "share_bps": round(line / max(m_src + 1, n_dst + 1)),
                    "reverse_share_bps": round(line / n_rev) if n_rev else None,
                    "total_bps": round(sum(thr.values())) if thr else None,
                    "cv_mean": round(float(np.mean(cv)), 4) if cv else None,
                    "queue_mean_bytes": round(float(q[w].mean()), 1) if w.any() else None,
                    "rtt_mean_s": None if qd is None else round(rtt0 + qd, 9),
                }
            )
        conv = None
        if self.CONVERGENCE and len(out) > 1:
            a, b, act = stages(flows, end)[-1]
            conv = converge_time(tb, g, act, a, b, bin_ps, CONV_TOL, CONV_HOLD)
        return {
            "line_goodput_bps": round(line),
            "stages": out,
            "converge_ps": conv,
            "packets_dropped": (engine_summary or {}).get("packets_dropped"),
        }

    def report(self, scenario, metrics: dict, claim_rows: list[dict]) -> str:
        head = ("variant", "paper claim", "ours", "verdict")
        rows = [head] + [(c["variant"], c["claim"], c["measured"], c["verdict"]) for c in claim_rows]
        w = [max(len(r[i]) for r in rows) for i in range(3)]
        lines = [" | ".join(c.ljust(x) for c, x in zip(r[:3], w)) + " | " + r[3] for r in rows]
        lines.insert(1, "-+-".join("-" * x for x in w) + "-+-" + "-" * 7)
        return "\n".join(lines)

    def figure(self, scenario, series: dict, path) -> None:
        from ..plots import save

        save(self._draw(scenario, series), path)

    def _draw(self, scenario, series: dict):
        """One panel per variant in a grid (figure_layout): goodput of every flow over time
        (victim bold red), the line's goodput for reference; one goodput axis for all."""
        from .. import figure_layout as lay

        p = scenario.experiment.params
        victim = int(p.get("victim", 0))
        n = len(series)
        fig, axes, ncols = lay.grid(n, scenario, sharex=True, sharey=True, legend_labels=4)
        avg = max(p["bin"], scenario.duration_ps // 400)
        top = 0.0
        for k, (ax, (slug, (variant, tables, m))) in enumerate(zip(axes, series.items())):
            fs = as_frame(tables["flow_series"])
            tb, g = goodput(fs, avg, int(fs["time_ps"].max()))
            for fid, y in g.items():
                ax.plot(
                    (tb - avg / 2) / 1e9,
                    y / 1e9,
                    lw=2.0 if fid == victim else 0.5,
                    color="tab:red" if fid == victim else None,
                    zorder=3 if fid == victim else 2,
                    label=f"victim (flow {victim})" if fid == victim else "other flows" if k == 0 else "_",
                )
            self._mark(ax, m)
            lay.reference(ax, m["line_goodput_bps"] / 1e9, "line goodput", ls="-.")
            top = max(top, m["line_goodput_bps"] / 1e9 * 1.1)
            ax.set_title(variant.name, fontsize=lay.FONT)
            if k >= n - ncols:
                ax.set_xlabel("time (ms)", fontsize=lay.FONT)
            if k % ncols == 0:
                ax.set_ylabel("goodput (Gbps)", fontsize=lay.FONT)
            ax.grid(alpha=0.3)
        axes[0].set_ylim(0, top)
        lay.legend(fig, axes)
        return fig

    def _mark(self, ax, m: dict) -> None:
        """What a figure adds to a variant's panel."""


class PerVariant(Poseidon, ABC):
    """A figure whose claims are one row per variant (`_row`)."""

    def claims(self, scenario, metrics: dict) -> list[dict]:
        by_alg = {v.cc.algorithm: metrics.get(v.slug) for v in scenario.variants() if metrics.get(v.slug)}
        rows = []
        for v in scenario.variants():
            m = metrics.get(v.slug)
            if m is None:
                continue
            claim, measured, verdict = self._row(v.cc.algorithm, m, m["stages"], by_alg)
            rows.append({"variant": v.name, "claim": claim, "measured": measured, "verdict": verdict})
        return rows

    @abstractmethod
    def _row(self, alg: str, m: dict, st: list, by_alg: dict) -> tuple[str, str, str]:
        """(claim, measured, verdict) of one variant: its algorithm, metrics and stages, beside
        the metrics of every algorithm that ran."""


class Fig14(PerVariant):
    """Multi-hop: the victim's goodput against its max-min share, stage by stage."""

    PAPER = "poseidon-fig14"

    def _row(self, alg: str, m: dict, st: list, by_alg: dict) -> tuple[str, str, str]:
        measured = "; ".join(
            f"M={s['M']},N={s['N']}: {_g(s['victim_bps'])} of {_g(s['share_bps'])} Gbps" for s in st
        )
        r = [s["victim_bps"] / s["share_bps"] for s in st]
        both = [x for x, s in zip(r, st) if s["M"] > 0 and s["N"] > 0]
        equal = [x for x, s in zip(r, st) if s["M"] == s["N"] and s["M"] > 0]
        if alg == "poseidon":
            claim = "the victim gets its max-min share line/max(M+1, N+1)"
            verdict = (
                _frac([abs(x - 1) <= SHARE_TOL for x in r])
                + f": victim/share {', '.join(f'{x:.2f}' for x in r)} (holds within ±{SHARE_TOL:.0%})"
            )
        elif alg == "swift":
            claim = "the victim starves once both hops are congested (M > 0, N > 0)"
            verdict = (
                _frac([x < STARVE for x in both])
                + f": victim/share {', '.join(f'{x:.2f}' for x in both)} with M, N > 0 (starved means < {STARVE:.0%})"
            )
        else:
            claim = "the victim falls short of its share when M = N"
            verdict = (
                _frac([x < SHORT for x in equal])
                + f": victim/share {', '.join(f'{x:.2f}' for x in equal)} with M = N (short means < {SHORT:.0%})"
            )
        return claim, measured, verdict

    def _mark(self, ax, m: dict) -> None:
        """The victim's max-min share per stage (dashed)."""
        for s in m["stages"]:
            ax.hlines(
                s["share_bps"] / 1e9,
                s["start_ps"] / 1e9,
                s["end_ps"] / 1e9,
                colors="k",
                linestyles="--",
                lw=0.8,
                label="victim's max-min share",
            )


BROWN_MORE = 1.5  # fig20b: "a little more bandwidth" and "bounded": above the share, at most 1.5×


class Fig20b(PerVariant):
    """Brownfield fairness, Fig. 20(b): INT only at the destination rack. Where the victim's
    bottleneck is that rack (N > M) it gets its share; where it is the source rack without INT
    (M > N) brownfield Poseidon gives it "a little more" than its share, bounded."""

    PAPER = "poseidon-fig20b"

    def claims(self, scenario, metrics: dict) -> list[dict]:
        rows = []
        for v in scenario.variants():
            m = metrics.get(v.slug)
            if m is None:
                continue
            st = [s for s in m["stages"] if s["M"] > 0 and s["N"] > 0 and s["M"] != s["N"]]
            if not (v.cc.params or {}).get("brownfield"):
                claim, measured, verdict = self._row(v.cc.algorithm, m, st, {})
                rows.append({"variant": v.name, "claim": claim, "measured": measured, "verdict": verdict})
                continue
            for s in st:
                r = s["victim_bps"] / s["share_bps"]
                measured = (
                    f"M={s['M']},N={s['N']}: {_g(s['victim_bps'])} of {_g(s['share_bps'])} Gbps ({r:.2f}×)"
                )
                if s["N"] > s["M"]:
                    claim = "bottleneck at the rack with INT: the victim reaches the fair rate"
                    verdict = (
                        "holds" if abs(r - 1) <= SHARE_TOL else "differs"
                    ) + f" (within ±{SHARE_TOL:.0%})"
                else:
                    claim = "bottleneck at the rack without INT: a little more than the share for the victim, bounded"
                    verdict = (
                        "holds"
                        if 1 < r <= BROWN_MORE
                        else "partly holds: fair, no extra"
                        if abs(r - 1) <= SHARE_TOL
                        else "differs"
                    ) + f" (holds for 1–{BROWN_MORE:g}× the share)"
                rows.append({"variant": v.name, "claim": claim, "measured": measured, "verdict": verdict})
        return rows

    def _row(self, alg: str, m: dict, st: list, by_alg: dict) -> tuple[str, str, str]:
        """The full-INT reference: the victim gets its share in every stage with M ≠ N."""
        r = [s["victim_bps"] / s["share_bps"] for s in st]
        measured = "; ".join(
            f"M={s['M']},N={s['N']}: {_g(s['victim_bps'])} of {_g(s['share_bps'])} Gbps" for s in st
        )
        verdict = _frac([abs(x - 1) <= SHARE_TOL for x in r]) + f" (within ±{SHARE_TOL:.0%})"
        return "(INT everywhere, reference) the victim gets its share", measured, verdict

    _mark = Fig14._mark


class Fig15(PerVariant):
    """Reverse path: the victim's goodput while other flows load its ACKs' path."""

    PAPER = "poseidon-fig15"

    def _row(self, alg: str, m: dict, st: list, by_alg: dict) -> tuple[str, str, str]:
        line = m["line_goodput_bps"]
        measured = (
            "; ".join(f"N={s['reverse']}: {_g(s['victim_bps'])} Gbps" for s in st) + f" (line {_g(line)})"
        )
        r = [s["victim_bps"] / line for s in st]
        if alg == "poseidon" or alg == "hpcc":
            keep = LINE_KEEP if alg == "poseidon" else HPCC_KEEP
            claim = "the victim keeps line rate whatever the reverse load" + (
                "" if alg == "poseidon" else " (forward INT only)"
            )
            verdict = (
                _frac([x >= keep for x in r])
                + f": victim/line {', '.join(f'{x:.3f}' for x in r)} (holds when ≥ {keep:.0%})"
            )
        else:
            rv = [s["victim_bps"] / s["reverse_share_bps"] for s in st if s["reverse"] >= 2]
            claim = "the victim drops to the reverse path's fair share line/N"
            verdict = (
                _frac([abs(x - 1) <= REV_TOL for x in rv])
                + f": victim/(line/N) {', '.join(f'{x:.2f}' for x in rv)} for N ≥ 2 (holds within ±{REV_TOL:.0%})"
            )
        return claim, measured, verdict


class Fig17a(PerVariant):
    """Convergence: how long the last flow to join takes until every flow is near the mean."""

    PAPER = "poseidon-fig17a"
    CONVERGENCE = True

    def _row(self, alg: str, m: dict, st: list, by_alg: dict) -> tuple[str, str, str]:
        c = m["converge_ps"]
        measured = "never converged" if c is None else f"joining flow converged in {c / 1e6:.0f} µs"
        pc = (by_alg.get("poseidon") or {}).get("converge_ps")
        if alg == "poseidon":
            claim, verdict = "converges ≈ 12× faster than Swift and HPCC", "see the baselines' rows"
        elif pc is None:
            claim, verdict = "Poseidon converges ≈ 12× faster", "differs: Poseidon never converged"
        elif c is None:
            claim = "Poseidon converges ≈ 12× faster"
            run = st[-1]["end_ps"] - st[-1]["start_ps"]
            verdict = f"holds: never converged in {run / 1e9:.1f} ms, > {run / pc:.0f}× Poseidon's time"
        else:
            x = c / pc
            claim = "Poseidon converges ≈ 12× faster"
            verdict = (
                "holds" if SPEEDUP_LO <= x <= SPEEDUP_HI else "differs"
            ) + f": {x:.1f}× Poseidon's time (holds within {SPEEDUP_LO:g}–{SPEEDUP_HI:g}×)"
        return claim, measured, verdict


class _PerStage(PerVariant):
    """A figure of one per-stage metric (`STAGE_KEY`) against the number of flows."""

    STAGE_KEY = ""

    def _draw(self, scenario, series: dict):
        from .. import figure_layout as lay

        fig, (ax,), _ = lay.grid(1, scenario, panel_w=5.0, panel_h=3.0)
        key = self.STAGE_KEY
        for slug, (variant, tables, m) in series.items():
            n = [s["flows"] for s in m["stages"]]
            y = [s[key] * (1 if key == "cv_mean" else 1e6) for s in m["stages"]]
            ax.plot(n, y, marker="o", label=variant.name)
        ax.set_xscale("log")
        ax.set_xlabel("flows on the bottleneck")
        ax.set_ylabel("goodput std / mean" if key == "cv_mean" else "mean RTT (µs)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        return fig


class Fig17b(_PerStage):
    """Stability: the flows' goodput std/mean per stage, Poseidon against Swift."""

    PAPER = "poseidon-fig17b"
    STAGE_KEY = "cv_mean"

    def _row(self, alg: str, m: dict, st: list, by_alg: dict) -> tuple[str, str, str]:
        measured = (
            "; ".join(f"N={s['flows']}: {s['cv_mean']:.3f}" for s in st) + " (std/mean of 1-flow goodput)"
        )
        ps = by_alg.get("poseidon")
        if alg == "swift" and ps:
            cut = [1 - a["cv_mean"] / b["cv_mean"] for a, b in zip(ps["stages"], st) if a["flows"] > 2]
            mean = float(np.mean(cut))
            claim = "Poseidon's throughput std is 70 % lower on average (24× at N = 200)"
            top = ps["stages"][-1]
            verdict = (
                ("holds" if mean >= STD_CUT_MIN else "partly holds" if mean > 0 else "differs")
                + f": Poseidon lower by {', '.join(f'{x:.0%}' for x in cut)} for N > 2, mean {mean:.0%} "
                f"(holds when ≥ {STD_CUT_MIN:.0%}); {st[-1]['cv_mean'] / top['cv_mean']:.1f}× at N = {top['flows']}"
            )
        else:
            claim, verdict = "(compared with Swift in Swift's row)", "n/a"
        return claim, measured, verdict


class Fig18(_PerStage):
    """RTT: the mean RTT per stage, Poseidon against Swift and HPCC."""

    PAPER = "poseidon-fig18"
    STAGE_KEY = "rtt_mean_s"

    def _row(self, alg: str, m: dict, st: list, by_alg: dict) -> tuple[str, str, str]:
        measured = "; ".join(f"N={s['flows']}: {s['rtt_mean_s'] * 1e6:.1f} µs" for s in st)
        ps = by_alg.get("poseidon")
        if alg == "swift" and ps:
            ok = [a["rtt_mean_s"] < b["rtt_mean_s"] for a, b in zip(ps["stages"], st) if a["flows"] > 1]
            claim = "Poseidon's RTT is lower than Swift's"
            verdict = _frac(ok) + f": Poseidon lower in {sum(ok)} of {len(ok)} stages"
        elif alg == "hpcc" and ps:
            ok = [b["rtt_mean_s"] < a["rtt_mean_s"] for a, b in zip(ps["stages"], st) if a["flows"] > 1]
            claim = "HPCC's RTT is lower still than Poseidon's"
            verdict = _frac(ok) + f": HPCC lower in {sum(ok)} of {len(ok)} stages"
        else:
            claim, verdict = "(compared in the Swift and HPCC rows)", "n/a"
        return claim, measured, verdict


ANALYSIS = ByPaper(
    Fig14(),
    Fig20b(),
    Fig15(),
    Fig17a(),
    Fig17b(),
    Fig18(),
    before=lambda scn, papers: require_binned_flow_sampling(scn, "poseidon", tuple(papers)),
)
