"""PowerTCP Fig. 3: phase plots of the simplified control laws (fluid model) and a packet-level check.

The fluid part (``dccsim.fluid``) integrates the aggregate window w and queue q for the voltage-,
current- and power-based laws with b = 100 Gbps, τ = 20 µs (the paper's example), γ = 0.9 and
β̂ = (number of flows) × the variant's ``beta_bytes``, from the six initial states of
``fluid.default_initial_states`` for ``[experiment] fluid_duration``. Per law it reports where the
trajectories end, whether they settle on one point, and throughput loss on the way (see
``fluid.analyse``).

The packet part: the variant's aggregate window (sum of the flows' sampled cwnd) and the bottleneck
queue, time-averaged over [``warmup``, end], against the fluid equilibrium with the run's own τ
(the engine's base RTT): w_e = b·τ + β̂, q_e = β̂.

Verdicts and tolerances:

* voltage — "unique equilibrium but throughput loss on the way": holds when all trajectories end
  within 1 % of bτ of one another, have stopped moving (< 0.1 % of bτ over the last 10 RTTs) and at
  least one trajectory that starts with a busy link later runs it below 99 %.
* current — "no unique equilibrium": holds when the end points spread by more than 10 % of bτ or
  the trajectories have not stopped moving.
* power — "unique equilibrium (bτ + β̂, β̂), no loss": holds when every end point is within 1 % of
  (w_e, q_e) (relative to each coordinate) and no trajectory that starts busy loses throughput.
* packet — aggregate window within 5 % of w_e and mean queue within 30 % of q_e plus one packet
  (the engine's theory tests use the same bounds: packet-level occupancy moves in whole packets and
  the per-ACK power estimate leaves a ripple of a few packets around the equilibrium).
"""

from __future__ import annotations

import numpy as np

from .. import fluid
from ..errors import ScenarioError
from .base import Base
from .common import as_frames, bottleneck, claim_lines, ran


B_PAPER = 100e9 / 8
TAU_PAPER = 20e-6
UNIQUE_REL = 0.01
NO_UNIQUE_REL = 0.10
PKT_W_TOL = 0.05
PKT_Q_TOL = 0.30
CLAIMS = {
    "voltage": "unique equilibrium, but throughput loss on the way",
    "current": "no unique equilibrium",
    "power": "unique equilibrium (w_e = bτ + β̂, q_e = β̂), no throughput loss",
}


def fluid_params(n_flows: int, beta_bytes: float) -> fluid.Params:
    return fluid.Params(b=B_PAPER, tau=TAU_PAPER, beta_hat=n_flows * beta_bytes)


def fluid_summary(params: fluid.Params, duration_s: float) -> dict:
    out = {}
    for law in fluid.LAWS:
        r = fluid.analyse(law, fluid.default_initial_states(params), duration_s, params)
        out[law] = {k: v for k, v in r.items() if k != "trajectories"}
        out[law]["ends"] = [[round(w, 1), round(q, 1)] for w, q in r["ends"]]
        out[law]["spread_bytes"] = round(r["spread_bytes"], 3)
        out[law]["min_util"] = round(r["min_util"], 4)
    return out


def _verdict(law: str, f: dict, bdp: float, eq) -> tuple[str, str]:
    ends = np.array(f["ends"])
    measured = (
        "end points (w/bτ, q/bτ): "
        + ", ".join(f"({w / bdp:.3f}, {q / bdp:.3f})" for w, q in ends)
        + f"; spread {f['spread_bytes'] / bdp:.2%} of bτ; settled {f['settled']}; "
        f"{f['loss_trajectories']}/{f['busy_start_trajectories']} busy-start trajectories lose throughput "
        f"(lowest utilisation {f['min_util']:.1%})"
    )
    if law == "voltage":
        ok_u = f["unique"]
        ok_l = f["loss_trajectories"] > 0
        v = ("holds" if ok_u and ok_l else "partly holds" if ok_u or ok_l else "differs") + (
            f": unique = {ok_u} (spread < {UNIQUE_REL:.0%} of bτ and settled), loss on the way = {ok_l}"
        )
    elif law == "current":
        ok = (not f["settled"]) or f["spread_bytes"] > NO_UNIQUE_REL * bdp
        v = ("holds" if ok else "differs") + (
            f": end points spread {f['spread_bytes'] / bdp:.2f} bτ "
            f"(no unique point means > {NO_UNIQUE_REL:.0%} of bτ or not settled)"
        )
    else:
        we, qe = eq
        dw = float(np.max(np.abs(ends[:, 0] - we)) / we)
        dq = float(np.max(np.abs(ends[:, 1] - qe)) / qe) if qe > 0 else float(np.max(ends[:, 1]))
        ok = dw <= UNIQUE_REL and dq <= UNIQUE_REL and f["loss_trajectories"] == 0
        v = ("holds" if ok else "differs") + (
            f": worst end point off by {dw:.3%} in w and {dq:.3%} in q from "
            f"({we / 1e3:.1f} KB, {qe / 1e3:.1f} KB) (tolerance {UNIQUE_REL:.0%}); "
            f"{f['loss_trajectories']} trajectories lose throughput"
        )
    return measured, v


class Phase(Base):
    """PowerTCP Fig. 3: the fluid model's phase plots beside a packet-level check.
    Definitions: the module's docstring."""

    KEYS = {"bottleneck": "str", "warmup": "time", "fluid_duration": "time"}
    REQUIRED = ("bottleneck", "warmup")
    FIGURE = "phase.png"

    def check(self, scn) -> None:
        p = scn.experiment.params
        if not scn.metrics.flows or scn.metrics.interval_ps == 0:
            raise ScenarioError(
                "metrics.flows", "the phase analysis needs flow sampling (flows = true, interval > 0)"
            )
        if p["bottleneck"] not in scn.metrics.ports and "*" not in scn.metrics.ports:
            raise ScenarioError("experiment.bottleneck", f"port {p['bottleneck']!r} is not sampled")
        if p["warmup"] >= scn.duration_ps:
            raise ScenarioError("experiment.warmup", "must be shorter than the run")

    def variant_metrics(self, scenario, variant, tables, engine_summary=None) -> dict:
        tables = as_frames(tables)  # this analysis uses pandas operations
        p = scenario.experiment.params
        t, q, tx, rate = bottleneck(tables["port_series"], tables["ports"], p["bottleneck"])
        a = p["warmup"]
        fs = tables["flow_series"]
        fs = fs[fs["time_ps"] >= a]
        agg = fs.groupby("time_ps")["cwnd_bytes"].sum()
        n = int(tables["flows"].shape[0])
        beta = float(variant.cc.params.get("beta_bytes", 0.0))
        tau = (engine_summary or {}).get("base_rtt_ps")
        tau_s = (tau / 1e12) if tau else TAU_PAPER
        b = rate / 8
        fp = fluid_params(n, beta)
        return {
            "flows": n,
            "beta_hat_bytes": n * beta,
            "base_rtt_ps": tau,
            "packet_window_mean_bytes": round(float(agg.mean()), 1),
            "packet_queue_mean_bytes": round(float(q[t >= a].mean()), 1),
            "packet_utilization_pct": round(
                float(
                    100 * (np.interp(t[-1], t, tx) - np.interp(a, t, tx)) * 8 / ((t[-1] - a) / 1e12) / rate
                ),
                3,
            ),
            "fluid_equilibrium_run_tau": [round(b * tau_s + n * beta, 1), n * beta],
            "fluid_bdp_bytes": fp.bdp,
            "fluid_equilibrium": list(fp.equilibrium),
            "fluid": fluid_summary(fp, p.get("fluid_duration", 2 * 10**9) / 1e12),
        }

    def claims(self, scenario, metrics: dict) -> list[dict]:
        rows = []
        for v, m in ran(scenario, metrics):
            bdp = m["fluid_bdp_bytes"]
            for law in fluid.LAWS:
                measured, verdict = _verdict(law, m["fluid"][law], bdp, m["fluid_equilibrium"])
                rows.append(
                    {
                        "variant": f"fluid {law}",
                        "claim": CLAIMS[law],
                        "measured": measured,
                        "verdict": verdict,
                    }
                )
            we, qe = m["fluid_equilibrium_run_tau"]
            w, q = m["packet_window_mean_bytes"], m["packet_queue_mean_bytes"]
            ok_w = abs(w - we) <= PKT_W_TOL * we
            ok_q = abs(q - qe) <= PKT_Q_TOL * qe + scenario.host.payload_bytes + scenario.host.header_bytes
            rows.append(
                {
                    "variant": v.name,
                    "claim": "packet-level PowerTCP settles at the fluid equilibrium (bτ + β̂, β̂)",
                    "measured": f"mean aggregate window {w / 1e3:.1f} KB, mean queue {q / 1e3:.1f} KB, "
                    f"utilisation {m['packet_utilization_pct']:.1f}% over [warmup, end]",
                    "verdict": ("holds" if ok_w and ok_q else "partly holds" if ok_w or ok_q else "differs")
                    + f": window {w / we - 1:+.1%} vs {we / 1e3:.1f} KB (tolerance ±{PKT_W_TOL:.0%}), "
                    f"queue {q / 1e3:.1f} vs {qe / 1e3:.1f} KB (tolerance ±{PKT_Q_TOL:.0%} + 1 packet)",
                }
            )
        return rows

    def report(self, scenario, metrics: dict, claim_rows: list[dict]) -> str:
        return "\n".join(claim_lines(claim_rows))

    def figure(self, scenario, series: dict, path) -> None:
        """One panel per law: trajectories in the (q, w) plane from each initial state (circles) to
        where they end (triangles); BDP dotted; the packet-level mean as a star on the power panel."""
        from ..plots import new_figure, save

        variant, tables, m = next(iter(series.values()))
        fp = fluid_params(m["flows"], m["beta_hat_bytes"] / max(1, m["flows"]))
        dur = scenario.experiment.params.get("fluid_duration", 2 * 10**9) / 1e12
        bdp = fp.bdp
        fig, axes = new_figure(1, 3, figsize=(11, 3.5))
        for ax, law in zip(axes, fluid.LAWS):
            for w0, q0 in fluid.default_initial_states(fp):
                tr = fluid.integrate(law, w0, q0, dur, fp)
                ax.plot(tr["q"] / bdp, tr["w"] / bdp, lw=0.9)
                ax.plot([q0 / bdp], [w0 / bdp], "o", ms=4, color="k")
                ax.plot([tr["q"][-1] / bdp], [tr["w"][-1] / bdp], "^", ms=6, color="tab:red")
            ax.axhline(1.0, color="0.4", ls=":", lw=0.8)
            if law == "power":
                ax.plot(
                    [m["packet_queue_mean_bytes"] / bdp],
                    [m["packet_window_mean_bytes"] / bdp],
                    "*",
                    ms=10,
                    color="tab:green",
                    label="packet sim (mean)",
                )
                ax.legend(fontsize=7)
            ax.set_title(f"{law}-based", fontsize=10)
            ax.set_xlabel("queue q / bτ")
            ax.set_ylabel("window w / bτ")
            ax.set_xscale("symlog", linthresh=1.0)
            ax.set_yscale("symlog", linthresh=1.0)
            ax.grid(alpha=0.3)
        from .. import figure_layout

        figure_layout.finish(
            fig,
            scenario,
            note="Fluid model, b = 100 Gbps, τ = 20 µs; dotted: BDP (below it = throughput loss)",
        )
        save(fig, path)


ANALYSIS = Phase()
