"""Incast reaction (PowerTCP NSDI'22 Fig. 4): queue and throughput at the bottleneck port.

Metrics per variant, from the sampled series of the bottleneck egress port (`[experiment]
bottleneck`, e.g. "tor0->h16") and the incast start `t0`:

* ``peak_queue_bytes``: the largest sampled queue at or after t0.
* ``recovery_ps``: time after t0 at which the queue has fallen below 10 % of that peak *and stays
  below it for at least 0.1 ms* (consecutive samples all below, spanning >= 0.1 ms). The hold
  period keeps a momentary dip between two bursts from counting as recovery. ``null`` when the
  queue never recovers within the run.
* ``throughput_pct``: bytes the port transmitted in [t0, t0 + 1 ms] (difference of its cumulative
  tx counter, linearly interpolated at the two instants) as % of line rate. The counter includes
  headers, so 100 % means a fully busy link.
* ``throughput_after_recovery_pct``: the same from the recovery instant to the end of the run.
* ``queue_after_recovery_bytes``: mean queue over that same interval.
* ``packets_dropped``: from the engine summary (all ports), null if not given.
* ``dt_limit_bytes``: α/(1+α)·buffer, the most one congested port can queue under Dynamic
  Thresholds when the rest of the switch is empty; ``peak_at_buffer_limit`` is true when the peak
  is within 2 % of it (1 µs samples can miss the top by a packet or two, ~0.5 % of the limit),
  i.e. the peak measures the buffer, not the controller. Under PFC there is no such limit (no
  egress admission: the switch pauses its senders instead): ``dt_limit_bytes`` is None and
  ``peak_at_buffer_limit`` false.
"""

from __future__ import annotations

import numpy as np

from ..errors import ScenarioError
from .base import Base, ByPaper
from .common import bottleneck, ran


PS_PER_MS = 10**9
THRESHOLD = 0.10  # recovery: below 10 % of the peak ...
HOLD_PS = PS_PER_MS // 10  # ... for at least 0.1 ms
WINDOW_PS = PS_PER_MS  # throughput window [t0, t0 + 1 ms]
# The plot's throughput is averaged over bins of 20 µs: at 25 Gbps a 1 µs sample holds only ~3
# packets, so per-sample rates would jump between 0 and line rate with packet granularity, and
# with every variant in one panel (the overlay) 10-µs averages still blur into a band; a 20-µs
# bin (~57 packets) keeps a dip of the paper's size (tens of µs) visible.
PLOT_AVG_PS = 20 * 10**6
# Series longer than this are cut to each bucket's min and max: a 3.6-inch panel at 120 dpi is
# ~430 pixels wide, so 1000 buckets keep every peak the figure can show.
PLOT_POINTS = 1000

# Tolerances of the verdicts (the paper's claims are read off plots, not tables):
# - "without losing throughput": >= 95 % of line rate; a 10:1 incast drained within ~50 µs can
#   legitimately cost a few µs of idle link, and 5 points is a visible dip in Fig. 4.
# - "≈ 2×": a ratio between 1.5 and 3 counts as roughly double.
# - "loses throughput": at least 2 points below PowerTCP in the same window (the counter is exact
#   to one packet, ~0.03 % of a 1 ms window, so 2 points is a real loss, not noise).
NO_LOSS_PCT = 95.0
RATIO_LO, RATIO_HI = 1.5, 3.0
LOSS_MARGIN_PCT = 2.0
AT_LIMIT = 0.98

CLAIMS = {
    "powertcp": "drains to near-zero queue without losing throughput",
    "theta-powertcp": "drains to near-zero queue without losing throughput",
    "hpcc": "peak queue ≈ 2× PowerTCP's, and loses throughput after the incast",
    "homa": "keeps throughput but does not control the queue",
    "timely": "does not control the queue-lengths and loses throughput after reacting to the incast",
}
# Fig. 4, bottom row (255:1, `paper = "fig4b"`): PowerTCP/θ as above; TIMELY and HPCC lose
# throughput (same 2-point rule against PowerTCP); Homa (≈ 500 KB more queue) is not in the engine.
CLAIMS_4B = {
    "powertcp": CLAIMS["powertcp"],
    "theta-powertcp": CLAIMS["theta-powertcp"],
    "hpcc": "loses throughput right after reacting to the incast",
    "timely": "loses throughput right after reacting to the incast",
    "homa": "keeps throughput; ≈ 500 KB higher queue than PowerTCP",
}
# "≈ 500 KB higher" is read off Fig. 4b: a difference within a factor of 2 of it counts.
HOMA_4B_EXCESS = (250e3, 1000e3)


def recovery_index(t, q, start: int, threshold: float, hold_ps: int):
    """First index i >= start where q stays < threshold over [t[i], t[i] + hold_ps]; else None."""
    i = start
    n = len(t)
    while i < n:
        if q[i] >= threshold:
            i += 1
            continue
        j = i
        while j + 1 < n and q[j + 1] < threshold:
            j += 1
        if t[j] - t[i] >= hold_ps:
            return i
        i = j + 1
    return None


def _pct(t, tx, a_ps, b_ps, rate_bps):
    if b_ps <= a_ps:
        return None
    sent = np.interp(b_ps, t, tx) - np.interp(a_ps, t, tx)
    return float(100.0 * sent * 8 / ((b_ps - a_ps) / 1e12) / rate_bps)


def dt_limit(scenario, variant=None):
    """α/(1+α)·buffer, or None under PFC (which admits by ingress, not by this limit)."""
    if scenario.variant_pfc(variant) is not None:
        return None
    a = scenario.switch.dt_alpha
    return int(scenario.switch.buffer_bytes * a / (1 + a))


def _round(x, nd=3):
    return None if x is None else round(float(x), nd)


def _fmt(x, fmt, unit=""):
    return "—" if x is None else f"{x:{fmt}}{unit}"


PEAK_TIE = 0.02  # peaks within 2 % of the lowest are tied (1 µs samples miss the top by a packet or two)


def _homa_overcommit_claim(variants, metrics: dict) -> list[dict]:
    """PowerTCP Appendix D: with several Homa variants differing in overcommitment, Homa is best
    at overcommitment 1. Among the variants that keep throughput ≥ 95 %, the lowest peak queue
    wins; peaks within PEAK_TIE of the lowest are a tie, decided by the drain time (below 10 % of
    the peak, as `recovery_ps`; never drained ranks last)."""
    homa = [
        (int((v.cc.params or {}).get("overcommit", 1)), v)
        for v in variants
        if v.cc.algorithm == "homa" and v.slug in metrics
    ]
    if len({o for o, _ in homa}) < 2:
        return []
    homa.sort(key=lambda x: x[0])
    m = {o: metrics[v.slug] for o, v in homa}
    kept = {o: (m[o]["throughput_pct"] or 0) >= NO_LOSS_PCT for o in m}
    low = min(m[o]["peak_queue_bytes"] for o in m if kept[o]) if any(kept.values()) else None
    tied = {o for o in m if kept[o] and low is not None and m[o]["peak_queue_bytes"] <= (1 + PEAK_TIE) * low}
    inf = float("inf")

    def rank(o):
        rec = m[o]["recovery_ps"]
        return (
            o not in tied,
            not kept[o],
            m[o]["peak_queue_bytes"] if o not in tied else 0,
            inf if rec is None else rec,
            o,
        )

    best = min(m, key=rank)
    measured = "; ".join(
        f"overcommit {o}: peak {m[o]['peak_queue_bytes'] / 1e3:.0f} KB, drained "
        + ("never" if m[o]["recovery_ps"] is None else f"after {m[o]['recovery_ps'] / 1e6:.0f} µs")
        + ("" if kept[o] else " (loses throughput)")
        for o, _ in homa
    )
    how = "by the drain time among tied peaks" if len(tied) > 1 and best in tied else "by the peak"
    verdict = ("holds" if best == homa[0][0] else "differs") + (
        f": best at overcommitment {best} ({how}; peaks within {PEAK_TIE:.0%} of the lowest are tied)"
    )
    return [
        {
            "variant": "Homa (all overcommitments)",
            "claim": "Homa is best at overcommitment 1 (Appendix D)",
            "measured": measured,
            "verdict": verdict,
        }
    ]


def _limit_note(m) -> str:
    notes = []
    if m.get("peak_at_buffer_limit"):
        notes.append(
            f"peak is capped by the buffer (DT limit ≈ {m['dt_limit_bytes'] / 1e3:.0f} KB), "
            f"so the controller's own peak is not observed"
        )
    if m.get("packets_dropped"):
        notes.append(f"{m['packets_dropped']} packets dropped")
    return ("; " + "; ".join(notes)) if notes else ""


def _check(scn, papers) -> None:
    """Scenario-level requirements, checked when the scenario is loaded (before any run), before
    the paper's."""
    b = scn.experiment.params["bottleneck"]
    if scn.experiment.params["t0"] >= scn.duration_ps:
        raise ScenarioError("experiment.t0", "must be before the end of the run (duration)")
    if scn.metrics.interval_ps == 0:
        raise ScenarioError("metrics.interval", "the incast analysis needs sampling; set it > 0, e.g. '1us'")
    if b not in scn.metrics.ports and "*" not in scn.metrics.ports:
        raise ScenarioError("experiment.bottleneck", f"port {b!r} is not sampled; add it to metrics.ports")


class Incast(Base):
    """What both rows of Fig. 4 share: keys, metrics, the claims of PowerTCP and θ-PowerTCP,
    report and figure. A row supplies its claim texts (`CLAIMS`) and the verdicts of Homa
    (`_homa`) and of the other baselines (`_other`)."""

    PAPER = ""
    CLAIMS: dict = {}

    KEYS = {"t0": "time", "bottleneck": "str", "paper": "str"}
    REQUIRED = ("t0", "bottleneck")
    FIGURE = "incast.png"
    NATIVE_FIGURE = True  # drawn by chart.Stacked (the main job's figure: no matplotlib import)
    FIGURE_TABLES = ("port_series", "ports")  # all figure() reads (the flow series stay in the parent)

    def check(self, scn) -> None:
        """Nothing beyond the family's check (`_check`)."""

    def variant_metrics(self, scenario, variant, tables, engine_summary=None) -> dict:
        p = scenario.experiment.params
        t0 = p["t0"]
        t, q, tx, rate = bottleneck(tables["port_series"], tables["ports"], p["bottleneck"])
        after = np.nonzero(t >= t0)[0]
        if after.size == 0:
            raise ScenarioError("experiment.t0", "no samples at or after t0; is t0 < duration?")
        k = int(after[0] + np.argmax(q[after]))
        peak = float(q[k])
        rec = recovery_index(t, q, k, THRESHOLD * peak, HOLD_PS) if peak > 0 else k
        end = int(t[-1])
        out = {
            "bottleneck": p["bottleneck"],
            "line_rate_bps": rate,
            "t0_ps": t0,
            "peak_queue_bytes": int(peak),
            "peak_time_ps": int(t[k]) - t0,
            "recovery_ps": None if rec is None else int(t[rec]) - t0,
            "throughput_pct": _round(_pct(t, tx, t0, min(t0 + WINDOW_PS, end), rate)),
            "throughput_after_recovery_pct": None,
            "queue_after_recovery_bytes": None,
            "packets_dropped": (engine_summary or {}).get("packets_dropped"),
            "dt_limit_bytes": dt_limit(scenario, variant),
        }
        limit = out["dt_limit_bytes"]
        out["peak_at_buffer_limit"] = limit is not None and peak >= AT_LIMIT * limit
        if rec is not None:
            out["throughput_after_recovery_pct"] = _round(_pct(t, tx, int(t[rec]), end, rate))
            out["queue_after_recovery_bytes"] = _round(float(np.mean(q[rec:])))
        return out

    def claims(self, scenario, metrics: dict) -> list[dict]:
        variants = scenario.variants()
        ref = next((v for v in variants if v.cc.algorithm == "powertcp" and v.slug in metrics), None)
        table = self.CLAIMS
        rows = []
        for v in variants:
            m = metrics.get(v.slug)
            alg = v.cc.algorithm
            if m is None or alg not in table:
                continue
            if not m["throughput_pct"]:  # precondition: the incast reaches the bottleneck after t0
                rows.append(
                    {
                        "variant": v.name,
                        "claim": table[alg],
                        "measured": f"no traffic through {m['bottleneck']} in [t0, t0+1ms]",
                        "verdict": "not evaluated: the analysis needs traffic at the bottleneck after t0",
                    }
                )
                continue
            rec_us = None if m["recovery_ps"] is None else m["recovery_ps"] / 1e6
            measured = (
                f"peak {m['peak_queue_bytes'] / 1e3:.1f} KB; <10% of peak after "
                f"{_fmt(rec_us, '.0f', ' µs')}; throughput {_fmt(m['throughput_pct'], '.1f', '%')} "
                f"in [t0, t0+1ms], {_fmt(m['throughput_after_recovery_pct'], '.1f', '%')} after"
            )
            if alg in ("powertcp", "theta-powertcp"):
                ok = (
                    m["recovery_ps"] is not None
                    and m["throughput_pct"] is not None
                    and m["throughput_pct"] >= NO_LOSS_PCT
                    and (m["throughput_after_recovery_pct"] or 0) >= NO_LOSS_PCT
                )
                thr = [x for x in (m["throughput_pct"], m["throughput_after_recovery_pct"]) if x is not None]
                verdict = ("holds" if ok else "differs") + (
                    f": {'drained in ' + _fmt(rec_us, '.0f', ' µs') if rec_us is not None else 'queue never drained'}"
                    f", lowest throughput {_fmt(min(thr) if thr else None, '.1f', '%')} (no loss means ≥ {NO_LOSS_PCT:g}%)"
                    + _limit_note(m)
                )
            elif alg == "homa":
                thr_ok = (m["throughput_pct"] or 0) >= NO_LOSS_PCT
                if ref is None:
                    verdict = "n/a: no PowerTCP variant to compare with"
                else:
                    verdict = self._homa(m, metrics[ref.slug], ref, rec_us, thr_ok)
            else:
                verdict = self._other(v, m, ref, metrics)
            rows.append({"variant": v.name, "claim": table[alg], "measured": measured, "verdict": verdict})
        rows.extend(_homa_overcommit_claim(variants, metrics))
        return rows

    def report(self, scenario, metrics: dict, claim_rows: list[dict]) -> str:
        head = ("variant", "peak queue", "recovery", "thr [t0,t0+1ms]", "thr after", "queue after", "drops")
        rows = [head]
        for v, m in ran(scenario, metrics):
            rows.append(
                (
                    v.name,
                    f"{m['peak_queue_bytes'] / 1e3:.1f} KB",
                    _fmt(None if m["recovery_ps"] is None else m["recovery_ps"] / 1e6, ".1f", " µs"),
                    _fmt(m["throughput_pct"], ".1f", " %"),
                    _fmt(m["throughput_after_recovery_pct"], ".1f", " %"),
                    _fmt(
                        None
                        if m["queue_after_recovery_bytes"] is None
                        else m["queue_after_recovery_bytes"] / 1e3,
                        ".2f",
                        " KB",
                    ),
                    _fmt(m.get("packets_dropped"), "d"),
                )
            )
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        lines.append("")
        lines.append("recovery = time after t0 until the queue is < 10% of its peak and stays there ≥ 0.1 ms")
        for c in claim_rows:
            lines.append("")
            lines.append(f"{c['variant']}: paper: {c['claim']}")
            lines.append(f"  measured: {c['measured']}")
            lines.append(f"  verdict:  {c['verdict']}")
        return "\n".join(lines)

    def figure(self, scenario, series: dict, path) -> None:
        """The paper's overlay: the bottleneck's queue (KB, top) and throughput (Gbps, bottom) vs
        time − t0 (ms), every variant a line in both panels, one legend; references: the line
        rate and, without PFC, the Dynamic Thresholds limit. The queue axis is shared by every
        variant (fitted to the highest peak), or with `fixed_scale` the limit or buffer.

        `series` maps slug -> (variant, tables, metrics dict)."""
        from .. import figure_layout as lay
        from ..chart import Stacked
        from ..plots import decimate

        p = scenario.experiment.params
        t0 = p["t0"]
        qmax = 1.0
        data = []
        for slug, (variant, tables, m) in series.items():
            t, q, tx, rate = bottleneck(tables["port_series"], tables["ports"], p["bottleneck"])
            edges = np.arange(t[0], t[-1] + 1, PLOT_AVG_PS)
            tt = (edges[1:] + edges[:-1]) / 2  # each bin's mean rate at its middle
            gbps = np.diff(np.interp(edges, t, tx)) * 8 / (PLOT_AVG_PS / 1e12) / 1e9
            data.append((variant, t, q, tt, gbps, rate, m))
            qmax = max(qmax, float(q.max()) / 1e3)
        limit = dt_limit(scenario)
        limit = None if limit is None else limit / 1e3
        fixed = lay.fixed_scale(scenario)
        # the DT limit is drawn (and in the legend) only where the queue axis reaches it
        show_limit = limit is not None and (fixed or limit <= qmax * 1.15)
        fig = Stacked(2, scenario, legend_labels=len(data) + 1 + show_limit)
        QUEUE, TPUT = 0, 1
        lo, hi = 0.0, 0.0
        for i, (variant, t, q, tt, gbps, rate, m) in enumerate(data):
            color, ls = f"C{i % 10}", ("-", "--", ":")[(i // 10) % 3]
            drops = m.get("packets_dropped")
            label = variant.name + (f" ({drops} drops)" if drops else "")
            fig.plot(
                QUEUE,
                *decimate((t - t0) / PS_PER_MS, q / 1e3, PLOT_POINTS),
                label=label,
                color=color,
                ls=ls,
                lw=1.1,
            )
            fig.plot(TPUT, (tt - t0) / PS_PER_MS, gbps, color=color, ls=ls, lw=0.9)
            lo = min(lo, (t[0] - t0) / PS_PER_MS)
            hi = max(hi, (t[-1] - t0) / PS_PER_MS)
        rate = data[0][5]
        if show_limit:
            fig.reference(QUEUE, limit, "DT limit α/(1+α)·buffer", ls=":")
        fig.reference(TPUT, rate / 1e9, f"line rate {rate / 1e9:g} Gbps")
        # the paper's window, -0.5..2.5 ms around t0, clipped to what was simulated
        fig.set_xlim(max(-0.5, lo), min(2.5, hi))
        if fixed:  # from the scenario only: the most one port can queue, whatever the run did
            cap = limit if limit is not None else scenario.switch.buffer_bytes / 1e3
            fig.set_ylim(QUEUE, 0, cap * 1.05)
        else:
            fig.set_ylim(QUEUE, 0, max(qmax * 1.1, limit * 1.05 if show_limit else 0.0))
        fig.set_ylim(TPUT, 0, rate / 1e9 * 1.15)
        fig.set_ylabel(QUEUE, "queue (KB)")
        fig.set_ylabel(TPUT, "throughput (Gbps)")
        fig.set_xlabel(f"time − t0 (ms), queue and throughput of {p['bottleneck']}")
        fig.save(path)


class Fig4a(Incast):
    """Fig. 4, top row (10:1): HPCC peaks ≈ 2× PowerTCP and loses throughput; Homa keeps
    throughput but does not control the queue."""

    PAPER = "fig4a"
    CLAIMS = CLAIMS

    def _homa(self, m: dict, r: dict, ref, rec_us, thr_ok: bool) -> str:
        # "does not control the queue": its queue stays up at least twice as long as
        # PowerTCP's (or never falls below 10% of its peak), or peaks ≥ 1.5× higher.
        slow = m["recovery_ps"] is None or (
            r["recovery_ps"] is not None and m["recovery_ps"] >= 2 * r["recovery_ps"]
        )
        high = m["peak_queue_bytes"] >= RATIO_LO * r["peak_queue_bytes"]
        return (
            f"{'holds' if thr_ok and (slow or high) else 'partly holds' if thr_ok or slow or high else 'differs'}"
            f": throughput {_fmt(m['throughput_pct'], '.1f', '%')} (kept means ≥ {NO_LOSS_PCT:g}%); "
            f"peak {m['peak_queue_bytes'] / max(r['peak_queue_bytes'], 1):.2f}× {ref.name}'s, "
            f"drain {_fmt(rec_us, '.0f', ' µs') if rec_us is not None else 'never'} vs "
            f"{_fmt(r['recovery_ps'] / 1e6 if r['recovery_ps'] is not None else None, '.0f', ' µs')}"
            f" (uncontrolled means ≥ {RATIO_LO:g}× the peak or ≥ 2× the drain time)" + _limit_note(m)
        )

    def _other(self, v, m: dict, ref, metrics: dict) -> str:
        """HPCC: peak ≈ 2× PowerTCP's and a throughput loss; TIMELY: a throughput loss and a
        queue it does not control (`_timely`)."""
        if ref is None or metrics[ref.slug]["peak_queue_bytes"] <= 0:
            return "n/a: no PowerTCP variant to compare with"
        r = metrics[ref.slug]
        if v.cc.algorithm == "timely":
            return self._timely(v, m, r, ref)
        ratio = m["peak_queue_bytes"] / r["peak_queue_bytes"]
        loss = (r["throughput_pct"] or 0) - (m["throughput_pct"] or 0)
        ok_ratio = RATIO_LO <= ratio <= RATIO_HI
        ok_loss = loss >= LOSS_MARGIN_PCT
        return (
            f"{'holds' if ok_ratio and ok_loss else 'partly holds' if ok_ratio or ok_loss else 'differs'}"
            f": {v.name} peak / {ref.name} peak = {ratio:.2f}× (≈2× means "
            f"{RATIO_LO:g}–{RATIO_HI:g}×); throughput in [t0, t0+1ms] {abs(loss):.1f} points "
            f"{'below' if loss >= 0 else 'above'} {ref.name}"
            f" (loss means ≥ {LOSS_MARGIN_PCT:g})" + _limit_note(m)
        )

    def _timely(self, v, m: dict, r: dict, ref) -> str:
        """TIMELY (Fig. 4a): "loses throughput" is the 2-point rule against PowerTCP in
        [t0, t0 + 1 ms]; "does not control the queue" the rule of Homa's row (never below 10 % of
        its peak, or ≥ 2× PowerTCP's drain time, or a peak ≥ 1.5× PowerTCP's)."""
        loss = (r["throughput_pct"] or 0) - (m["throughput_pct"] or 0)
        slow = m["recovery_ps"] is None or (
            r["recovery_ps"] is not None and m["recovery_ps"] >= 2 * r["recovery_ps"]
        )
        high = m["peak_queue_bytes"] >= RATIO_LO * r["peak_queue_bytes"]
        ok_loss, ok_queue = loss >= LOSS_MARGIN_PCT, slow or high
        rec = m["recovery_ps"]
        return (
            f"{'holds' if ok_loss and ok_queue else 'partly holds' if ok_loss or ok_queue else 'differs'}"
            f": throughput in [t0, t0+1ms] {abs(loss):.1f} points {'below' if loss >= 0 else 'above'} "
            f"{ref.name} (loss means ≥ {LOSS_MARGIN_PCT:g}); peak "
            f"{m['peak_queue_bytes'] / max(r['peak_queue_bytes'], 1):.2f}× {ref.name}'s, drain "
            f"{_fmt(None if rec is None else rec / 1e6, '.0f', ' µs') if rec is not None else 'never'} vs "
            f"{_fmt(r['recovery_ps'] / 1e6 if r['recovery_ps'] is not None else None, '.0f', ' µs')}"
            f" (uncontrolled means ≥ {RATIO_LO:g}× the peak or ≥ 2× the drain time)" + _limit_note(m)
        )


class Fig4b(Incast):
    """Fig. 4, bottom row (255:1): TIMELY and HPCC lose throughput; Homa keeps it with ≈ 500 KB
    more queue."""

    PAPER = "fig4b"
    CLAIMS = CLAIMS_4B

    def _homa(self, m: dict, r: dict, ref, rec_us, thr_ok: bool) -> str:
        excess = m["peak_queue_bytes"] - r["peak_queue_bytes"]
        ok = thr_ok and HOMA_4B_EXCESS[0] <= excess <= HOMA_4B_EXCESS[1]
        return (
            ("holds" if ok else "differs")
            + f": throughput {_fmt(m['throughput_pct'], '.1f', '%')} (kept means ≥ {NO_LOSS_PCT:g}%); "
            f"peak {excess / 1e3:+.0f} KB vs {ref.name} (≈ 500 KB means "
            f"{HOMA_4B_EXCESS[0] / 1e3:.0f}–{HOMA_4B_EXCESS[1] / 1e3:.0f} KB)" + _limit_note(m)
        )

    def _other(self, v, m: dict, ref, metrics: dict) -> str:
        """HPCC, TIMELY: only the throughput loss is claimed."""
        if ref is None:
            return "n/a: no PowerTCP variant to compare with"
        loss = (metrics[ref.slug]["throughput_pct"] or 0) - (m["throughput_pct"] or 0)
        return (
            ("holds" if loss >= LOSS_MARGIN_PCT else "differs")
            + f": throughput in [t0, t0+1ms] {abs(loss):.1f} points "
            f"{'below' if loss >= 0 else 'above'} {ref.name} (loss means ≥ {LOSS_MARGIN_PCT:g})"
            + _limit_note(m)
        )


ANALYSIS = ByPaper(Fig4a(), Fig4b(), default="fig4a", before=_check)
