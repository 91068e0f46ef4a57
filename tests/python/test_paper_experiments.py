"""The paper experiments of exp3: fluid model, analyses on hand-built series, shortened real runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dccsim import fluid
from dccsim.analysis import fairness, queue_sweep
from dccsim.experiments import get, list_experiments, text
from dccsim.scenario import loads
from cli_helpers import run_catalog_edited

NEW = (
    "powertcp-phase",
    "powertcp-fairness",
    "tbtcp-queue",
    "tbtcp-convergence",
    "tbtcp-rtt-fairness",
    "dctcp-k",
)


# ---------------------------------------------------------------------------------------------
# catalog and parsing


def test_experiments_listed_and_round_trip():
    from dccsim.scenario import dump_toml

    for name in NEW:
        assert name in list_experiments()
        s = get(name)
        assert loads(dump_toml(s)) == s, name


def test_curve_ecn_parses_with_defaults_and_rejects_bad_pmax():
    from dccsim.errors import ScenarioError

    t = text("tbtcp-queue").replace(
        'ecn = { kind = "curve", bdp = "800KB", tmin = "0B", pmax = 0.5 }',
        'ecn = { kind = "curve", bdp = "800KB" }',
    )
    s = loads(t)
    assert s.switch.ecn.kind == "curve" and s.switch.ecn.tmin_bytes == 0 and s.switch.ecn.pmax == 0.5
    assert s.to_engine_config(s.variants()[0])["switch"]["ecn"] == {
        "kind": "curve",
        "bdp_bytes": 800_000,
        "tmin_bytes": 0,
        "pmax": 0.5,
    }
    with pytest.raises(ScenarioError) as e:
        loads(t.replace('bdp = "800KB" }', 'bdp = "800KB", pmax = 1.5 }'))
    assert (
        e.value.field == "switch.ecn.pmax" if hasattr(e.value, "field") else "switch.ecn.pmax" in str(e.value)
    )


def test_variant_ecn_override_reaches_the_engine_config():
    s = get("dctcp-k")
    ks = [s.to_engine_config(v)["switch"]["ecn"]["k_bytes"] for v in s.variants()]
    assert ks == [15000, 57000, 114000, 135000, 225000]


# ---------------------------------------------------------------------------------------------
# fluid model (PowerTCP Fig. 3)

P = fluid.Params()


def test_power_law_ends_at_its_equilibrium_within_1pct():
    # Theorem 1: (w_e, q_e) = (bτ + β̂, β̂); 2 ms = 100 update intervals ≫ the time constant δt/γ
    we, qe = P.equilibrium
    r = fluid.analyse("power", fluid.default_initial_states(P), 2e-3, P)
    for w, q in r["ends"]:
        assert abs(w - we) <= 0.01 * we and abs(q - qe) <= 0.01 * qe
    assert r["unique"] and r["loss_trajectories"] == 0


def test_voltage_law_unique_but_loses_throughput():
    r = fluid.analyse("voltage", fluid.default_initial_states(P), 2e-3, P)
    assert r["unique"]
    assert r["loss_trajectories"] >= 1 and r["min_util"] < 0.9  # drops well below line rate


def test_current_law_has_no_unique_end_point():
    r = fluid.analyse("current", fluid.default_initial_states(P), 2e-3, P)
    assert not r["unique"] and r["spread_bytes"] > 0.1 * P.bdp


def test_queue_dynamics_match_q_dot():
    # constant window above the BDP with no control: q̇ = w/θ − b > 0 at the start
    tr = fluid.integrate("power", 2 * P.bdp, 0.0, 1e-6, P)
    h = tr["t"][1]
    assert tr["q"][1] == pytest.approx(h * (2 * P.bdp / P.tau - P.b))


# ---------------------------------------------------------------------------------------------
# analyses on hand-built series


def _fs(rates: dict, t_end_ps: int, step_ps: int):
    """flow_series with constant goodput per flow (bps) given as {fid: (start_ps, rate_bps)}."""
    rows = []
    for t in range(0, t_end_ps + 1, step_ps):
        for fid, (start, rate) in rates.items():
            acked = max(0, t - start) / 1e12 * rate / 8
            rows.append((t, fid, 1.0, 1.0, int(acked)))
    return pd.DataFrame(rows, columns=["time_ps", "flow_id", "cwnd_bytes", "rate_bps", "bytes_acked"])


def test_fairness_phases_jain_and_convergence():
    ms = 10**9
    flows = pd.DataFrame(
        {
            "flow_id": [0, 1],
            "src": [0, 1],
            "dst": [2, 2],
            "size_bytes": [-1, -1],
            "start_ps": [0, 2 * ms],
            "end_ps": [-1, -1],
        }
    )
    # flow 1 joins at 2 ms with a 3:1 split for 1 ms, then both at the same rate
    rows = []
    acked = {0: 0.0, 1: 0.0}
    for t in range(0, 6 * ms + 1, ms // 10):
        rows += [(t, f, 1.0, 1.0, int(acked[f])) for f in (0, 1)]
        r0, r1 = (10e9, 0) if t < 2 * ms else ((7.5e9, 2.5e9) if t < 3 * ms else (5e9, 5e9))
        acked[0] += r0 / 8 * 1e-4
        acked[1] += r1 / 8 * 1e-4
    fs = pd.DataFrame(rows, columns=["time_ps", "flow_id", "cwnd_bytes", "rate_bps", "bytes_acked"])
    scn = get("tbtcp-convergence")
    p = dict(scn.experiment.params, bin=ms // 2, hold=2, tol=0.2)
    object.__setattr__(scn.experiment, "params", p)
    m = fairness.ANALYSIS.variant_metrics(scn, scn.variants()[0], {"flow_series": fs, "flows": flows})
    ph = m["phases"]
    assert [x["flows"] for x in ph] == [[0], [0, 1]]
    assert ph[1]["converge_ps"] == 1 * ms  # fair from 3 ms on
    assert ph[1]["jain"] == pytest.approx(1.0)  # second half (4..6 ms) is equal
    assert fairness.jain([3, 1]) == pytest.approx(16 / 20)


def test_queue_sweep_metrics_and_verdicts():
    scn = get("tbtcp-queue")
    ms = 10**9
    t = np.arange(0, 60 * ms + 1, 10**7)
    q = np.full(len(t), 10 * 1500)  # exactly α·N = 10 packets
    tx = t / 1e12 * 40e9 / 8  # busy link
    ps = pd.DataFrame({"time_ps": t, "port": 0, "port_name": "sw0->h100", "queue_bytes": q, "tx_bytes": tx})
    ports = pd.DataFrame({"port": [0], "name": ["sw0->h100"], "rate_bps": [40_000_000_000]})
    v = scn.variants()[1]  # α = 0.1
    m = queue_sweep.ANALYSIS.variant_metrics(scn, v, {"port_series": ps, "ports": ports}, {})
    assert m["queue_mean_pkts"] == 10 and m["utilization_pct"] == pytest.approx(100, abs=0.01)
    rows = queue_sweep.ANALYSIS.claims(scn, {v.slug: m})
    assert rows[0]["verdict"].startswith("holds")
    m2 = dict(m, queue_mean_pkts=30.0)  # 3× α·N: outside ±30 % + 2 packets
    assert queue_sweep.ANALYSIS.claims(scn, {v.slug: m2})[0]["verdict"].startswith(
        "partly"
    ) or queue_sweep.ANALYSIS.claims(scn, {v.slug: m2})[0]["verdict"].startswith("differs")


# ---------------------------------------------------------------------------------------------
# real runs (shortened)


_run = run_catalog_edited


@pytest.mark.engine
def test_tbtcp_queue_near_alpha_n(tmp_path):
    # 40 ms run, 20 ms window; tolerance as in the analysis: ±30 % of α·N + 2 packets
    s, _ = _run(
        "tbtcp-queue",
        tmp_path,
        lambda t: t.replace('duration = "60ms"', 'duration = "40ms"').replace(
            'window = "30ms"', 'window = "20ms"'
        ),
    )
    for slug, r in s["runs"].items():
        m = r["metrics"]
        target = m["rai_alpha"] * 100
        assert abs(m["queue_mean_pkts"] - target) <= 0.3 * target + 2, (slug, m["queue_mean_pkts"])
        assert m["utilization_pct"] >= 99
    assert (tmp_path / "tbtcp-queue" / "queue.png").exists()


@pytest.mark.engine
def test_dctcp_queue_grows_with_k(tmp_path):
    s, _ = _run(
        "dctcp-k",
        tmp_path,
        lambda t: t.replace('duration = "60ms"', 'duration = "30ms"').replace(
            'window = "30ms"', 'window = "15ms"'
        ),
    )
    qs = [s["runs"][slug]["metrics"]["queue_mean_pkts"] for slug in s["order"]]
    assert all(b > a for a, b in zip(qs, qs[1:])), qs
    assert s["claims"][-1]["verdict"].startswith("holds")


@pytest.mark.engine
def test_powertcp_phase_packet_and_fluid(tmp_path):
    s, _ = _run(
        "powertcp-phase",
        tmp_path,
        lambda t: t.replace('duration = "4ms"', 'duration = "3ms"').replace(
            'warmup = "2ms"', 'warmup = "1.5ms"'
        ),
    )
    verdicts = {c["variant"]: c["verdict"] for c in s["claims"]}
    assert verdicts["fluid power"].startswith("holds")
    assert verdicts["fluid current"].startswith("holds")
    assert verdicts["PowerTCP (packet)"].startswith("holds")  # window ±5 %, queue ±30 % + 1 packet
    assert (tmp_path / "powertcp-phase" / "phase.png").exists()


@pytest.mark.engine
def test_powertcp_fairness_is_fair_in_every_phase(tmp_path):
    s, _ = _run("powertcp-fairness", tmp_path, variants=["PowerTCP"])
    m = s["runs"]["powertcp"]["metrics"]
    assert m["min_jain"] >= 0.95  # the analysis's "fair" bound
    assert len(m["phases"]) >= 6  # four joins and three departures seen


@pytest.mark.engine
def test_tbtcp_convergence_order(tmp_path):
    s, _ = _run(
        "tbtcp-convergence", tmp_path, lambda t: t.replace('duration = "400ms"', 'duration = "250ms"')
    )
    c = {slug: next(ph["converge_ps"] for ph in r["metrics"]["phases"][1:]) for slug, r in s["runs"].items()}
    assert c["dctcp"] is not None and c["tbtcp"] is not None
    assert c["dctcp"] < c["tbtcp"]  # the paper's order: DCTCP converges faster than TBTCP
