"""PowerTCP's datacenter experiments (NSDI'22 Fig. 6, Fig. 7a–h, App. D): tail FCT slowdown of
short, medium and long flows per algorithm and per workload point, the paper's claims beside ours.

Each variant is one (algorithm, workload point): the point is the variant's workload value that the
figure varies (``[experiment] paper``): load (fig6, fig7ab), incast request rate (fig7cd,
fig7gh: 0 = no requests), incast request size (fig7ef), Homa's overcommitment (appD). Per variant, on top of
everything the ``fct`` analysis measures (same flows, same slowdown, same percentile rule):

* ``groups``: short (size < ``[experiment] short``, default 10 KB: the paper's "short flows
  (<10KB)"), medium (100 KB ≤ size < 1 MB, the paper's) and long (≥ 1 MB): the ``tail`` percentile
  (default 99.9) with n and the count above it (meaningful when ≥ 10), and ``boot``: the same
  percentile of B = 200 bootstrap resamples of the group (numpy default_rng([seed, 7])).
* ``buffer``: the ToR buffer occupancy (fct.buffer_metrics) when ToR ports were sampled, plus
  ``boot_p99``: its 99th percentile over B block-bootstrap resamples (blocks of 100 consecutive
  samples of one ToR, the artifact's bins; consecutive samples are correlated, blocks much less).

Claims: the paper states each result as a change r = PowerTCP / reference − 1 of a tail statistic
("−33% vs HPCC": r = −0.33), at one point or averaged over the figure's points. Ours is the same
ratio of our statistics; its 95 % interval comes from the bootstrap replicates (2.5/97.5 % of
a_i / b_i − 1).
That interval is the tolerance: it is the sampling uncertainty of our own estimate, nothing tuned.
Variants with ``pfc = false`` (the lossy fabric beside the paper's lossless one) are compared only
with each other: every claim is evaluated once per fabric that has both of its variants, the lossy
rows labelled so. A variant whose controller sets parameters (``cc = { algorithm = "theta-powertcp",
law = "rdma-hw", tau = "min-rtt" }``: the public artifact's law beside the paper's) is a law of
its own (``law``, e.g. "law=rdma-hw, tau=min-rtt"): the claims naming its algorithm are
evaluated once more with it in the algorithm's place, against the reference at its default law,
and labelled with it.

* holds: the paper's r lies inside our interval;
* same direction, smaller/larger: our interval excludes 0 on the paper's side but not the paper's r;
* no difference resolved: our interval contains 0 but not the paper's r;
* opposite: our interval lies entirely on the other side of 0.

A claim on a percentile with fewer than 10 samples above it is marked "not meaningful" whatever
the interval says. Claims whose variants were not run (a partial run, a scaled-down test) are left
out of the list.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ScenarioError
from . import fct
from .base import Base, ByPaper
from .common import aligned, claim_lines, ran

BOOT = 200
BOOT_STREAM = 7
SHORT_PAPER = 10_000  # "short flows (<10KB)" (§4.2)
CI = (0.025, 0.975)

# paper -> (what the variants' point is, its label)
POINTS = {
    "fig6": ("load", "load"),
    "fig7ab": ("load", "load"),
    "fig7cd": ("rate", "requests/s"),
    "fig7ef": ("size", "request size"),
    "fig7gh": ("rate", "requests/s"),
    "appD": ("overcommit", "overcommitment"),
}

# (statistic, algorithm, reference, point or None = the average over the figure's points, paper's r)
# statistic: a flow group's tail percentile, or "buffer" (the ToR buffer's 99th percentile).
CLAIMS = {
    "fig6": [
        ("short", "powertcp", "hpcc", 0.2, -0.09),
        ("short", "theta-powertcp", "hpcc", 0.2, -0.09),
        ("short", "powertcp", "timely", 0.2, -0.80),
        ("short", "powertcp", "dcqcn", 0.2, -0.80),
        ("short", "powertcp", "homa", 0.2, -0.80),
        ("medium", "powertcp", "hpcc", 0.2, -0.33),
        ("medium", "powertcp", "homa", 0.2, -0.76),
        ("medium", "powertcp", "timely", 0.2, -0.62),
        ("medium", "powertcp", "dcqcn", 0.2, -0.50),
        ("short", "powertcp", "hpcc", 0.6, -0.33),
        ("short", "theta-powertcp", "hpcc", 0.6, -0.36),
        ("short", "powertcp", "homa", 0.6, -0.99),
        ("short", "powertcp", "timely", 0.6, -0.74),
        ("short", "powertcp", "dcqcn", 0.6, -0.74),
        ("short", "theta-powertcp", "timely", 0.6, -0.82),
        ("short", "theta-powertcp", "dcqcn", 0.6, -0.82),
    ],
    "fig7ab": [
        ("short", "powertcp", "hpcc", None, -0.36),
        ("short", "theta-powertcp", "hpcc", None, -0.55),
        ("long", "powertcp", "hpcc", 0.2, 0.0),
        ("long", "powertcp", "hpcc", 0.9, -0.09),
        ("long", "theta-powertcp", "hpcc", None, 0.35),
    ],
    "fig7cd": [
        ("short", "powertcp", "hpcc", None, -0.24),
        ("short", "powertcp", "hpcc", 16.0, -0.33),
        ("long", "powertcp", "hpcc", None, -0.10),
    ],
    "fig7ef": [
        ("short", "powertcp", "hpcc", 1e6, -0.20),
        ("short", "powertcp", "hpcc", 8e6, -0.07),
        ("long", "powertcp", "hpcc", None, -0.05),
        ("short", "theta-powertcp", "hpcc", None, -0.09),
        ("long", "theta-powertcp", "hpcc", None, 0.30),
    ],
    "fig7gh": [  # at 80% load: without requests (Fig. 7g), with 2 MB requests at 16/s (Fig. 7h)
        ("buffer", "powertcp", "hpcc", 0.0, -0.50),
        ("buffer", "powertcp", "hpcc", 16.0, -0.31),
        ("buffer", "theta-powertcp", "hpcc", 16.0, -0.31),
    ],
    "appD": [],  # "overcommitment 1 best": its own rule, claims() below
}
GROUPS = ("short", "medium", "long")
# the figure's x axis per point kind, in the paper's units: (scale, axis label)
AXIS = {
    "load": (100.0, "load (%)"),
    "rate": (1.0, "requests per second per server"),
    "size": (1e-6, "request size (MB)"),
    "overcommit": (1.0, "Homa overcommitment"),
}


def point(scenario, variant) -> float:
    """The variant's value of the quantity the figure varies."""
    what = POINTS[scenario.experiment.params["paper"]][0]
    w = scenario.variant_workload(variant)
    if what == "load":
        return round(float(w.load), 6)
    if what == "overcommit":
        return float(variant.cc.params.get("overcommit", 0))
    if w.incast is None:
        return 0.0  # no incast requests: rate 0
    if what == "size":
        return float(w.incast.size_bytes)
    return float(w.incast.rate if w.incast.rate is not None else w.incast.global_rate)


def _rank(sorted_rows: np.ndarray, q: float) -> np.ndarray:
    n = sorted_rows.shape[-1]
    return sorted_rows[..., min(n - 1, int(q * n))]


def boot_tail(x: np.ndarray, q: float, rng) -> list:
    """The q-percentile (fct's rank rule) of BOOT resamples of x."""
    if len(x) == 0:
        return []
    idx = rng.integers(0, len(x), size=(BOOT, len(x)))
    return [float(v) for v in _rank(np.sort(x[idx], axis=1), q)]


def boot_buffer_p99(tor: np.ndarray, occ: np.ndarray, rng, block: int = fct.BIN_SAMPLES) -> list:
    blocks = [
        occ[tor == r][i : i + block] for r in np.unique(tor) for i in range(0, int(np.sum(tor == r)), block)
    ]
    blocks = [b for b in blocks if len(b) == block]
    if not blocks:
        return []
    arr = np.stack(blocks)
    out = []
    for _ in range(BOOT):
        pick = arr[rng.integers(0, len(arr), size=len(arr))].reshape(-1)
        out.append(float(_rank(np.sort(pick), 0.99)))
    return out


def _stat(m: dict, what: str):
    """(value, bootstrap replicates, meaningful, note) of one variant's statistic."""
    if what == "buffer":
        b = m["buffer"]
        if not b.get("samples"):
            return None, [], False, "no ToR samples"
        p99 = b["per_sample"]["p99"]
        return p99["value"], b.get("boot_p99", []), p99["meaningful"], f"{b['samples']} samples"
    s = m["groups"][what]["tail"]
    return s["value"], m["groups"][what]["boot"], s["meaningful"], f"n={s['n']}, {s['above']} above"


def law(scenario, variant) -> str:
    """The controller parameters a variant sets, as "key=value, ..." ("" = the law's defaults);
    the figure's point (Homa's overcommitment under appD) is not part of it."""
    point_key = POINTS[scenario.experiment.params["paper"]][0]
    return ", ".join(f"{k}={v}" for k, v in sorted(variant.cc.params.items()) if k != point_key)


def _find(metrics: dict, alg: str, pt, lossless: bool = True, law: str = "") -> list:
    return [
        m
        for m in metrics.values()
        if m["algorithm"] == alg
        and m["lossless"] == lossless
        and m.get("law", "") == law
        and (pt is None or math.isclose(m["point"], pt))
    ]


def _series(m: dict) -> str:
    """A curve's name: the algorithm, with its law when not the default, marked when its variant
    ran in the lossy fabric."""
    name = m["algorithm"] + (f" [{m['law']}]" if m.get("law") else "")
    return name if m["lossless"] else f"{name} (lossy)"


def _verdict(paper: float, ours: float, lo: float, hi: float, meaningful: bool) -> str:
    if lo <= paper <= hi:
        v = "holds"
    elif lo > 0 or hi < 0:
        same = (paper < 0 and hi < 0) or (paper > 0 and lo > 0)
        if same:
            v = "same direction, " + ("smaller" if abs(ours) < abs(paper) else "larger") + " effect"
        else:
            v = "opposite"
    else:
        v = "no difference resolved"
    return (
        v if meaningful else f"not meaningful (fewer than {fct.MIN_ABOVE} samples above the percentile): {v}"
    )


def _pt_text(paper: str, pt) -> str:
    what, label = POINTS[paper]
    if pt is None:
        return f"averaged over the {label} points"
    if what == "load":
        return f"at {pt * 100:g}% load"
    if what == "size":
        return f"at {pt / 1e6:g} MB requests"
    return f"at {pt:g} {label}"


def _claim(metrics, paper, what, alg, ref, pt, r_paper, tail_key, lossless=True, law="") -> dict | None:
    pts = sorted({m["point"] for m in metrics.values() if m["lossless"] == lossless}) if pt is None else [pt]
    pairs = []
    for x in pts:
        a, b = _find(metrics, alg, x, lossless, law), _find(metrics, ref, x, lossless)
        if a and b:
            pairs.append((_stat(a[0], what), _stat(b[0], what), x))
    if not pairs or (pt is None and len(pairs) < 2):
        return None
    reds, boots, ok, notes = [], [], True, []
    for (va, ba, ma, na), (vb, bb, mb, nb), x in pairs:
        if va is None or vb is None or not vb:
            return None
        reds.append(va / vb - 1)
        k = min(len(ba), len(bb))
        boots.append(np.array([a / b - 1 for a, b in zip(ba[:k], bb[:k]) if b]))
        ok = ok and ma and mb
        notes.append(f"{va:.2f} vs {vb:.2f}" if what != "buffer" else f"{va / 1e3:.0f} vs {vb / 1e3:.0f} KB")
    ours = float(np.mean(reds))
    k = min(len(b) for b in boots)
    rep = np.mean(np.stack([b[:k] for b in boots]), axis=0) if k else np.array([ours])
    lo, hi = float(np.quantile(rep, CI[0])), float(np.quantile(rep, CI[1]))
    stat = f"{what} {tail_key}" if what != "buffer" else "ToR buffer p99"
    return {
        "variant": f"{alg}"
        + (f" [{law}]" if law else "")
        + f" vs {ref}"
        + ("" if lossless else ", lossy fabric"),
        "claim": f"{stat} {r_paper * 100:+.0f}% {_pt_text(paper, pt)}",
        "measured": f"{ours * 100:+.0f}% [95% CI {lo * 100:+.0f}%, {hi * 100:+.0f}%] ({'; '.join(notes)})",
        "verdict": _verdict(r_paper, ours, lo, hi, ok),
        "paper_pct": r_paper * 100,
        "ours_pct": ours * 100,
        "ci_pct": [lo * 100, hi * 100],
    }


def _overcommit_claim(metrics: dict, tail_key: str) -> list[dict]:
    """ "Overcommitment 1 is best": holds when no other level has a lower short-flow tail with a 95%
    interval of the difference that excludes 0."""
    homa = sorted(_find(metrics, "homa", None), key=lambda m: m["point"])
    one = [m for m in homa if m["point"] == 1]
    if len(homa) < 2 or not one:
        return []
    v1, b1, ok1, _ = _stat(one[0], "short")
    better = []
    for m in homa:
        if m is one[0]:
            continue
        v, b, ok, _ = _stat(m, "short")
        k = min(len(b), len(b1))
        rep = np.array([x / y - 1 for x, y in zip(b[:k], b1[:k]) if y])
        if len(rep) and np.quantile(rep, CI[1]) < 0:
            better.append(f"o{m['point']:g}")
        ok1 = ok1 and ok
    vals = ", ".join(f"o{m['point']:g} {_stat(m, 'short')[0]:.2f}" for m in homa)
    verdict = "holds" if not better else f"differs: lower with {', '.join(better)}"
    return [
        {
            "variant": "homa",
            "claim": f"overcommitment 1 gives the lowest short-flow {tail_key}",
            "measured": vals,
            "verdict": verdict
            if ok1
            else f"not meaningful (fewer than {fct.MIN_ABOVE} samples above): {verdict}",
        }
    ]


def _cell(s: dict) -> str:
    if s["value"] is None:
        return "—"
    return f"{s['value']:.2f} ({s['n']}/{s['above']})" + ("" if s["meaningful"] else "*")


class PowertcpDc(Base):
    """One figure of the PowerTCP datacenter experiments: its point (POINTS) and claims (CLAIMS)
    come from the tables above, keyed by `paper`. The figure draws the short and long flows'
    tail slowdown against the point (and the ToR buffer CDF when sampled); Fig. 6 and App. D
    differ where their subclasses say."""

    def __init__(self, paper: str):
        self.PAPER = paper

    KEYS = {**fct.Fct.KEYS, "paper": "str", "short": "number"}
    REQUIRED = ("paper",)
    NEEDS_SAMPLES = False  # flows suffice; fig7g/h also sample the ToR ports
    FIGURE = "powertcp_dc.png"

    def check(self, scn) -> None:
        p = scn.experiment.params
        short = p.get("short", SHORT_PAPER)
        if not 0 < short <= fct.SHORT:
            raise ScenarioError("experiment.short", f"must lie in (0, {fct.SHORT}] bytes, got {short!r}")
        if scn.workload is None or scn.workload.kind != "poisson":
            raise ScenarioError("workload.kind", "the powertcp_dc analysis needs a poisson workload")

    def variant_metrics(self, scenario, variant, tables, engine_summary=None) -> dict:
        p = scenario.experiment.params
        tail = p.get("tail", 0.999)
        m = fct.ANALYSIS.variant_metrics(scenario, variant, tables, engine_summary)
        t0 = fct.start_of_measurement(scenario, variant)
        size, slow, _ = fct.measured(tables["flows"], t0, m["ideal"])
        short = p.get("short", SHORT_PAPER)
        sel = {
            "short": size < short,
            "medium": (size >= fct.SHORT) & (size < fct.LONG),
            "long": size >= fct.LONG,
        }
        rng = np.random.default_rng([scenario.seed, BOOT_STREAM])
        groups = {}
        for g in GROUPS:
            x = slow[sel[g]]
            groups[g] = {"tail": fct.pct(x, tail), "boot": boot_tail(x, tail, rng)}
        if m["buffer"].get("samples"):
            tor, occ = fct.tor_occupancy(tables["port_series"], t0)
            m["buffer"]["boot_p99"] = boot_buffer_p99(tor, occ, rng)
        return {
            **m,
            "algorithm": variant.cc.algorithm,
            "point": point(scenario, variant),
            "lossless": scenario.variant_pfc(variant) is not None,
            "law": law(scenario, variant),
            "short_below_bytes": short,
            "groups": groups,
        }

    def claims(self, scenario, metrics: dict) -> list[dict]:
        paper = self.PAPER
        tail_key = fct.key(scenario.experiment.params.get("tail", 0.999))
        rows = []
        laws = sorted({m.get("law", "") for m in metrics.values()})  # "" (the defaults) first
        for lossless in sorted({m["lossless"] for m in metrics.values()}, reverse=True):
            for law_ in laws:
                for what, alg, ref, pt, r in CLAIMS[paper]:
                    c = _claim(metrics, paper, what, alg, ref, pt, r, tail_key, lossless, law_)
                    if c is not None:
                        rows.append(c)
        return rows + self._more_claims(metrics, tail_key)

    def _more_claims(self, metrics: dict, tail_key: str) -> list[dict]:
        """Claims beyond the CLAIMS table (none unless the figure has its own rule)."""
        return []

    def report(self, scenario, metrics: dict, claim_rows: list[dict]) -> str:
        tail_key = fct.key(scenario.experiment.params.get("tail", 0.999))
        label = POINTS[self.PAPER][1]
        rows = [("variant", label, *(f"{g} {tail_key} (n/above)" for g in GROUPS), "ToR buffer p99")]
        for v, m in ran(scenario, metrics):
            rows.append(
                (
                    v.name,
                    f"{m['point']:g}",
                    *(_cell(m["groups"][g]["tail"]) for g in GROUPS),
                    fct.buffer_p99_cell(m),
                )
            )
        short = next(iter(metrics.values()), {}).get("short_below_bytes", SHORT_PAPER)
        lines = aligned(rows)
        lines.append(
            f"\nslowdown = FCT / ideal FCT; short < {short / 1e3:g} KB, medium 100 KB–1 MB, long ≥ 1 MB; "
            f"* = fewer than {fct.MIN_ABOVE} samples above the percentile (not meaningful); "
            "ours = algorithm / reference − 1, with its 95% bootstrap interval\n"
        )
        lines += claim_lines(claim_rows)
        return "\n".join(lines)

    def figure(self, scenario, series: dict, path) -> None:
        from ..plots import save

        tail_key = fct.key(scenario.experiment.params.get("tail", 0.999))
        ms = [m for _, _, m in series.values()]
        fig = self._draw(scenario, series, ms, tail_key)
        save(fig, path)

    def _draw(self, scenario, series: dict, ms: list, tail_key: str):
        """Short and long tail slowdown vs the figure's point (and the ToR buffer CDF when
        sampled), in a grid with one legend (figure_layout)."""
        from .. import figure_layout as lay

        algs, colour, style = _curves(ms)
        with_buf = any(m["buffer"].get("samples") for m in ms)
        n = 3 if with_buf else 2
        fig, axes, _ = lay.grid(n, scenario, panel_w=2.6, legend_labels=len(algs))
        scale, xlabel = AXIS[POINTS[self.PAPER][0]]
        for ax, g in zip(axes, ("short", "long")):
            for a in algs:
                sel = sorted((m for m in ms if _series(m) == a), key=lambda m: m["point"])
                ys = [m["groups"][g]["tail"]["value"] for m in sel]
                ax.plot(
                    [m["point"] * scale for m in sel],
                    [np.nan if y is None else y for y in ys],
                    marker="o",
                    color=colour[a],
                    ls=style[a],
                    label=a,
                )
            ax.set_xlabel(xlabel, fontsize=lay.FONT)
            ax.set_ylabel(f"{g} flows {tail_key} slowdown", fontsize=lay.FONT)
            ax.grid(alpha=0.3)
        if with_buf:
            fct.plot_buffer_cdf(axes[2], series)
        lay.legend(fig, axes[:2])
        return fig


class Fig6(PowertcpDc):
    """Fig. 6: the tail slowdown against the flow size, one panel per load."""

    def _draw(self, scenario, series: dict, ms: list, tail_key: str):
        from .. import figure_layout as lay

        algs, colour, style = _curves(ms)
        pts = sorted({m["point"] for m in ms})
        fig, axes, ncols = lay.grid(len(pts), scenario, sharey=True, legend_labels=len(algs))
        for k, (ax, x) in enumerate(zip(axes, pts)):
            for a in algs:
                for m in (m for m in ms if _series(m) == a and m["point"] == x):
                    b = m["buckets"]
                    xs = [math.sqrt(max(bk["lo"], 1e3) * bk["hi"]) for bk in b]
                    ys = [bk[tail_key]["value"] if bk[tail_key]["value"] is not None else np.nan for bk in b]
                    ax.plot(xs, ys, marker="o", ms=3, color=colour[a], ls=style[a], label=a)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(f"{x * 100:g}% load", fontsize=lay.FONT)
            ax.set_xlabel("flow size (bytes)", fontsize=lay.FONT)
            if k % ncols == 0:
                ax.set_ylabel(f"{tail_key} FCT slowdown", fontsize=lay.FONT)
            ax.grid(alpha=0.3, which="both")
        lay.legend(fig, axes)
        return fig


class AppD(PowertcpDc):
    """Appendix D: Homa's overcommitment; its claim is its own rule (overcommitment 1 best)."""

    def _more_claims(self, metrics: dict, tail_key: str) -> list[dict]:
        return _overcommit_claim(metrics, tail_key)


def _curves(ms: list) -> tuple[list, dict, dict]:
    """(the curves: one per algorithm, fabric and law, in the order met; their colours: one per
    algorithm; their line styles: the lossy-fabric curve dashed, a curve of another law dotted)."""
    algs = list(dict.fromkeys(_series(m) for m in ms))
    base = list(dict.fromkeys(m["algorithm"] for m in ms))
    colour = {_series(m): f"C{base.index(m['algorithm'])}" for m in ms}
    style = {_series(m): "--" if not m["lossless"] else ":" if m.get("law") else "-" for m in ms}
    return algs, colour, style


# the figures in POINTS' order (the order the error for an unknown paper lists them)
ANALYSIS = ByPaper(
    Fig6("fig6"),
    PowertcpDc("fig7ab"),
    PowertcpDc("fig7cd"),
    PowertcpDc("fig7ef"),
    PowertcpDc("fig7gh"),
    AppD("appD"),
    before=lambda scn, papers: fct.ANALYSIS.check(scn),
)
