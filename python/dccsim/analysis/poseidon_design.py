"""Poseidon (NSDI'23) §5.6 and Appendices C–D: what each design choice buys (Figs. 21, 23).

The experiments run the stages of the ``poseidon`` analysis (flows join at distinct times; each
stage measured over its second half; ``poseidon.Poseidon.variant_metrics``) with variants that
differ in one option of the Poseidon controller (``cc.poseidon``: ``signal``, ``target_scaling``,
``increase``, ``p_us``, ``k_us``, ``m``). Keys as ``poseidon``.

* ``poseidon-fig21a`` (ablation, multi-hop of Fig. 14): "network-wide fairness is only achieved
  when using both rate-based target scaling and max hop delay. However, removing the adaptive
  update ratio will not harm the max-min fairness". A variant is *fair* when the victim is within
  ±15 % of its max-min share in every stage (``poseidon-fig14``'s rule). Holds for full Poseidon
  and for ``increase = "additive"`` (AIMD) when fair; for ``signal = "e2e"`` (no MPD) and
  ``target_scaling = "cwnd"`` (no rate scaling) when *not* fair in some stage with M > 0, N > 0.
* ``poseidon-fig21b`` / ``-fig21c`` / ``-fig21d`` (sensitivity of p, k, m), one star: one flow,
  a second joins (stage 2), then many (stage 3). Per variant: utilisation of stage 1 (one flow)
  and stage 2 (two flows) = total goodput / line goodput; convergence of the joining flow in
  stage 2 (``poseidon-fig17a``'s rule, ±20 % for 4 bins); in the last stage the flows' goodput
  std/mean (``poseidon-fig17b``) and the mean RTT (``poseidon-fig18``). Each claim compares the
  variants in the order of the swept value: *holds* when the metric moves the claimed way at every
  step (ties within 2 % count as no move), *partly holds* when the largest value against the
  smallest moves the claimed way, *differs* otherwise. Claims (§5.6.2): (b) a higher p "reduces
  rate variations" and means "enduring larger RTT"; (c) "for small k values ... link
  under-utilization" (utilisation with few flows rises with k) and "if the value of k is too large,
  the RTT will increase"; (d) "larger m values improve stability ... but also slow down
  convergence" (the engine's Eq. 4 reading, U = exp(m·a·(T − MPD)/p), makes m the step size:
  cc/poseidon.rs).
* ``poseidon-fig23`` (App. D): the victim and N flows start at 0, M flows at the source rack join
  later; "target scaling based on the rate converged to a higher cwnd to keep the throughput the
  same for the victim flow". Per variant: the victim's goodput and mean window in each stage. Holds
  for ``target_scaling = "rate"`` when the victim's goodput in the last stage is within ±15 % of
  the first's and its window grew; for ``"cwnd"`` (the paper's contrast) when the victim loses more
  than 15 % of its goodput.
"""

from __future__ import annotations

import numpy as np

from .base import ByPaper
from .common import as_frames, converge_time, goodput, require_binned_flow_sampling
from .poseidon import CONV_HOLD, CONV_TOL, SHARE_TOL, Poseidon, _g, stages

TIE = 0.02  # sensitivity: a change below 2 % of the metric is no move


def _opt(v, key: str, default):
    return (v.cc.params or {}).get(key, default)


def _fair(st: list) -> tuple[bool, list[float]]:
    r = [s["victim_bps"] / s["share_bps"] for s in st]
    return all(abs(x - 1) <= SHARE_TOL for x in r), r


class Fig21a(Poseidon):
    """Ablation: which removed design aspect costs the victim its max-min share."""

    PAPER = "poseidon-fig21a"

    def claims(self, scenario, metrics: dict) -> list[dict]:
        rows = []
        for v in scenario.variants():
            m = metrics.get(v.slug)
            if m is None:
                continue
            st = m["stages"]
            fair, r = _fair(st)
            both = [abs(x - 1) <= SHARE_TOL for x, s in zip(r, st) if s["M"] > 0 and s["N"] > 0]
            removed = [
                name
                for key, default, name in (
                    ("signal", "mpd", "MPD"),
                    ("target_scaling", "rate", "rate-based target scaling"),
                    ("increase", "adaptive", "the adaptive update"),
                )
                if _opt(v, key, default) != default
            ]
            shown = f"victim/share {', '.join(f'{x:.2f}' for x in r)} (fair: all within ±{SHARE_TOL:.0%})"
            if removed and removed != ["the adaptive update"]:
                claim = f"without {' and '.join(removed)}: network-wide fairness is not achieved"
                verdict = ("holds" if not all(both) else "differs") + ": " + shown
            else:
                claim = (
                    "AIMD instead of the adaptive update: max-min fairness not harmed"
                    if removed
                    else "full Poseidon: the victim gets its max-min share"
                )
                verdict = ("holds" if fair else "differs") + ": " + shown
            measured = "; ".join(
                f"M={s['M']},N={s['N']}: {_g(s['victim_bps'])} of {_g(s['share_bps'])} Gbps" for s in st
            )
            rows.append({"variant": v.name, "claim": claim, "measured": measured, "verdict": verdict})
        return rows


class Sensitivity(Poseidon):
    """Fig. 21(b)–(d): one Poseidon parameter swept over the variants."""

    KEY, DEFAULT, SYMBOL = "", 0.0, ""
    CLAIMS: tuple = ()  # (claim, metric, +1 when it should grow with the parameter, -1 when fall)

    def variant_metrics(self, scenario, variant, tables, engine_summary=None) -> dict:
        m = super().variant_metrics(scenario, variant, tables, engine_summary)
        tables = as_frames(tables)
        p = scenario.experiment.params
        fs, flows = tables["flow_series"], tables["flows"]
        end = int(fs["time_ps"].max())
        tb, g = goodput(fs, p["bin"], end)
        st, line = m["stages"], m["line_goodput_bps"]
        two = stages(flows, end)[1] if len(st) > 1 else None
        last = st[-1]
        m.update(
            {
                "value": float(_opt(variant, self.KEY, self.DEFAULT)),
                "util_one": st[0]["total_bps"] / line if st[0]["total_bps"] is not None else None,
                "util_two": st[1]["total_bps"] / line if len(st) > 1 and st[1]["total_bps"] else None,
                "join_converge_ps": None
                if two is None
                else converge_time(tb, g, two[2], two[0], two[1], p["bin"], CONV_TOL, CONV_HOLD),
                "many_flows": last["flows"],
                "many_cv": last["cv_mean"],
                "many_rtt_s": last["rtt_mean_s"],
            }
        )
        return m

    def claims(self, scenario, metrics: dict) -> list[dict]:
        ms = sorted(
            (metrics[v.slug] for v in scenario.variants() if metrics.get(v.slug)), key=lambda m: m["value"]
        )
        rows = []
        for claim, key, sign, fmt in self.CLAIMS:
            xs = [m[key] for m in ms]
            vals = ", ".join(f"{self.SYMBOL} = {m['value']:g}: {fmt(x)}" for m, x in zip(ms, xs))
            if len(ms) < 2 or any(x is None for x in xs):
                verdict = "differs: not measured in every variant (never converged or no samples)"
            else:
                steps = [sign * (b - a) > -TIE * max(abs(a), abs(b)) for a, b in zip(xs, xs[1:])]
                ends = sign * (xs[-1] - xs[0]) > TIE * max(abs(xs[0]), abs(xs[-1]))
                verdict = (
                    "holds" if ends and all(steps) else "partly holds" if ends else "differs"
                ) + f" (every step the claimed way, ties within {TIE:.0%}: {'yes' if all(steps) else 'no'})"
            rows.append(
                {"variant": f"{self.SYMBOL} sweep", "claim": claim, "measured": vals, "verdict": verdict}
            )
        return rows


def _pct(x) -> str:
    return f"{100 * x:.1f} %"


def _us(x) -> str:
    return "never" if x is None else f"{x / 1e6:.0f} µs"


def _rtt(x) -> str:
    return f"{x * 1e6:.2f} µs"


def _cv(x) -> str:
    return f"{x:.3f}"


class Fig21b(Sensitivity):
    PAPER, KEY, DEFAULT, SYMBOL = "poseidon-fig21b", "p_us", 40.0, "p"
    CLAIMS = (
        ("many flows: a higher p reduces rate variations (std/mean)", "many_cv", -1, _cv),
        ("many flows: a higher p means a larger RTT", "many_rtt_s", +1, _rtt),
    )


class Fig21c(Sensitivity):
    PAPER, KEY, DEFAULT, SYMBOL = "poseidon-fig21c", "k_us", 2.0, "k"
    CLAIMS = (
        ("one flow: small k under-utilises the link (utilisation rises with k)", "util_one", +1, _pct),
        ("two flows: small k under-utilises the link (utilisation rises with k)", "util_two", +1, _pct),
        ("many flows: a larger k means a larger RTT", "many_rtt_s", +1, _rtt),
    )


class Fig21d(Sensitivity):
    PAPER, KEY, DEFAULT, SYMBOL = "poseidon-fig21d", "m", 0.25, "m"
    CLAIMS = (
        ("many flows: a larger m improves stability (std/mean falls)", "many_cv", -1, _cv),
        ("a larger m slows convergence of a joining flow", "join_converge_ps", +1, _us),
    )


class Fig23(Poseidon):
    """App. D: rate- against cwnd-based target scaling for the multi-hop victim."""

    PAPER = "poseidon-fig23"

    def variant_metrics(self, scenario, variant, tables, engine_summary=None) -> dict:
        m = super().variant_metrics(scenario, variant, tables, engine_summary)
        fs = as_frames(tables)["flow_series"]
        victim = int(scenario.experiment.params.get("victim", 0))
        v = fs[fs["flow_id"] == victim]
        t, w = v["time_ps"].to_numpy(np.int64), v["cwnd_bytes"].to_numpy(np.float64)
        for s in m["stages"]:
            sel = (t >= (s["start_ps"] + s["end_ps"]) // 2) & (t <= s["end_ps"])
            s["victim_cwnd_bytes"] = round(float(w[sel].mean()), 1) if sel.any() else None
        return m

    def claims(self, scenario, metrics: dict) -> list[dict]:
        rows = []
        for v in scenario.variants():
            m = metrics.get(v.slug)
            if m is None:
                continue
            a, b = m["stages"][0], m["stages"][-1]
            kept = b["victim_bps"] / a["victim_bps"]
            grew = b["victim_cwnd_bytes"] / a["victim_cwnd_bytes"]
            measured = "; ".join(
                f"M={s['M']},N={s['N']}: {_g(s['victim_bps'])} Gbps, window {s['victim_cwnd_bytes'] / 1e3:.1f} KB"
                for s in m["stages"]
            )
            shown = f"goodput {kept:.2f}×, window {grew:.2f}× after the M flows join"
            if _opt(v, "target_scaling", "rate") == "rate":
                claim = "rate scaling: the victim keeps its goodput with a larger window"
                ok = abs(kept - 1) <= SHARE_TOL
                verdict = ("holds" if ok and grew > 1 else "partly holds" if ok else "differs") + ": " + shown
            else:
                claim = "cwnd scaling: the victim does not keep its goodput"
                verdict = ("holds" if kept < 1 - SHARE_TOL else "differs") + ": " + shown
            rows.append({"variant": v.name, "claim": claim, "measured": measured, "verdict": verdict})
        return rows


ANALYSIS = ByPaper(
    Fig21a(),
    Fig21b(),
    Fig21c(),
    Fig21d(),
    Fig23(),
    before=lambda scn, papers: require_binned_flow_sampling(scn, "poseidon_design", tuple(papers)),
)
