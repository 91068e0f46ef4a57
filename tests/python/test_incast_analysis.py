"""The incast metrics on hand-built port series (the rules, not the engine)."""

import numpy as np
import pandas as pd
import pytest

from dccsim import scenario
from dccsim.analysis import incast

US = 10**6
RATE = 25 * 10**9


def make(base, series_q, tx_rate_fn=lambda t: RATE):
    base.update(
        duration="3ms",
        experiment={
            "analysis": "incast",
            "t0": "500us",
            "bottleneck": "sw0->h0",
            "variants": [
                {"name": "PowerTCP", "cc": {"algorithm": "powertcp"}},
                {"name": "HPCC", "cc": {"algorithm": "hpcc"}},
            ],
        },
    )
    scn = scenario.from_dict(base)
    t = np.arange(0, 3000 * US + 1, US)
    tx = np.concatenate([[0], np.cumsum([tx_rate_fn(x) / 8 * 1e-6 for x in t[1:]])])
    ps = pd.DataFrame({"time_ps": t, "port": 7, "queue_bytes": series_q(t), "tx_bytes": tx.round()})
    ports = pd.DataFrame({"port": [7], "name": ["sw0->h0"], "rate_bps": [RATE]})
    return scn, {"port_series": ps, "ports": ports}


def tri_queue(peak, rise_us, fall_us):
    def q(t):
        x = (t - 500 * US) // US  # whole µs, integer arithmetic so the thresholds are exact
        up = np.clip(x, 0, rise_us) * peak // rise_us
        down = np.clip(rise_us + fall_us - x, 0, fall_us) * peak // fall_us
        return np.where(x < rise_us, up, down)

    return q


def test_peak_recovery_and_throughput(base):
    scn, tables = make(base, tri_queue(200_000, 20, 100))
    m = incast.ANALYSIS.variant_metrics(scn, scn.variants()[0], tables)
    assert m["peak_queue_bytes"] == 200_000
    assert m["peak_time_ps"] == 20 * US
    # queue falls linearly from the peak at +20 µs to 0 at +120 µs: < 10 % from +110 µs on
    # (strictly below 20 000 B first at +111 µs) and stays there
    assert m["recovery_ps"] == 111 * US
    assert m["throughput_pct"] == pytest.approx(100, abs=0.01)
    assert m["throughput_after_recovery_pct"] == pytest.approx(100, abs=0.01)
    assert m["queue_after_recovery_bytes"] < 1000


def test_short_dip_is_not_recovery(base):
    def q(t):
        x = (t - 500 * US) / US
        out = np.where((x >= 0) & (x < 400), 100_000, 0)
        out = np.where((x >= 50) & (x < 100), 1_000, out)  # a 50 µs dip, shorter than the 0.1 ms hold
        return out

    scn, tables = make(base, q)
    m = incast.ANALYSIS.variant_metrics(scn, scn.variants()[0], tables)
    assert m["recovery_ps"] == 400 * US


def test_never_recovering_queue(base):
    scn, tables = make(base, lambda t: np.where(t >= 500 * US, 50_000, 0))
    m = incast.ANALYSIS.variant_metrics(scn, scn.variants()[0], tables)
    assert m["recovery_ps"] is None and m["throughput_after_recovery_pct"] is None


def test_throughput_loss_is_measured(base):
    # link idle for 300 µs of the 1 ms window -> 70 %
    def rate(t):
        return 0 if 600 * US < t <= 900 * US else RATE

    scn, tables = make(base, tri_queue(100_000, 10, 10), rate)
    m = incast.ANALYSIS.variant_metrics(scn, scn.variants()[0], tables)
    assert m["throughput_pct"] == pytest.approx(70, abs=0.1)


def test_claims_verdicts(base):
    scn, tables = make(base, tri_queue(100_000, 10, 10))
    good = incast.ANALYSIS.variant_metrics(scn, scn.variants()[0], tables)
    hpcc = dict(good, peak_queue_bytes=190_000, throughput_pct=90.0)
    rows = incast.ANALYSIS.claims(scn, {"powertcp": good, "hpcc": hpcc})
    assert [r["variant"] for r in rows] == ["PowerTCP", "HPCC"]
    assert rows[0]["verdict"].startswith("holds")
    assert rows[1]["verdict"].startswith("holds") and "1.90×" in rows[1]["verdict"]
    rows = incast.ANALYSIS.claims(scn, {"powertcp": good, "hpcc": dict(good, peak_queue_bytes=100_000)})
    assert rows[1]["verdict"].startswith("differs") and "1.00×" in rows[1]["verdict"]
    assert "capped" not in rows[1]["verdict"]
    text = incast.ANALYSIS.report(scn, {"powertcp": good, "hpcc": hpcc}, rows)
    assert "PowerTCP" in text and "190.0 KB" in text


def test_peak_at_the_dynamic_threshold_is_flagged(base):
    # 4 MiB, α = 1/8: one port can hold at most 4 MiB·(1/8)/(1 + 1/8) = 466 033 B
    scn, tables = make(base, tri_queue(465_000, 10, 10))
    m = incast.ANALYSIS.variant_metrics(scn, scn.variants()[0], tables, {"packets_dropped": 12})
    assert m["dt_limit_bytes"] == 466_033 and m["peak_at_buffer_limit"] and m["packets_dropped"] == 12
    ref = dict(m, peak_queue_bytes=232_500, peak_at_buffer_limit=False, packets_dropped=0)
    rows = incast.ANALYSIS.claims(scn, {"powertcp": ref, "hpcc": m})
    assert "capped by the buffer" in rows[1]["verdict"] and "12 packets dropped" in rows[1]["verdict"]
    text = incast.ANALYSIS.report(scn, {"powertcp": ref, "hpcc": m}, rows)
    assert "465.0 KB" in text and "232.5 KB" in text and "12" in text.splitlines()[3]


def test_figure_is_written(base, tmp_path):
    scn, tables = make(base, tri_queue(100_000, 10, 50))
    m = incast.ANALYSIS.variant_metrics(scn, scn.variants()[0], tables, {"packets_dropped": 3})
    series = {v.slug: (v, tables, m) for v in scn.variants()}
    incast.ANALYSIS.figure(scn, series, tmp_path / "a.png")
    incast.ANALYSIS.figure(scn, series, tmp_path / "b.png")
    data = (tmp_path / "a.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data == (tmp_path / "b.png").read_bytes()  # no timestamp/software tag


def test_homa_overcommit_claim_picks_the_lowest_peak_that_keeps_throughput():
    from dccsim import experiments
    from dccsim.analysis import incast

    scn = experiments.get("powertcp-homa-overcommit")
    vs = [v for v in scn.variants() if v.cc.algorithm == "homa"]
    # peaks 5 % apart (beyond the 2 % tie), all drained at the same time
    m = {
        v.slug: {"peak_queue_bytes": 1000 - 50 * i, "throughput_pct": 100.0, "recovery_ps": 300 * 10**6}
        for i, v in enumerate(vs)
    }
    # overcommit 6 has the lowest peak but loses throughput: it must not win
    m[vs[-1].slug]["throughput_pct"] = 80.0
    row = incast._homa_overcommit_claim(scn.variants(), m)[0]
    assert row["verdict"].startswith("differs") and "overcommitment 5" in row["verdict"]
    for i, v in enumerate(vs):
        m[v.slug]["peak_queue_bytes"] = 1000 + 50 * i
    assert incast._homa_overcommit_claim(scn.variants(), m)[0]["verdict"].startswith("holds")


def test_homa_overcommit_claim_breaks_a_tie_of_peaks_by_the_drain():
    from dccsim import experiments
    from dccsim.analysis import incast

    scn = experiments.get("powertcp-homa-overcommit")
    vs = [v for v in scn.variants() if v.cc.algorithm == "homa"]
    # peaks within 2 % of each other: a tie; overcommitment 1 never drains, 2 drains first
    m = {
        v.slug: {"peak_queue_bytes": 1000 + i, "throughput_pct": 100.0, "recovery_ps": (400 + i) * 10**6}
        for i, v in enumerate(vs)
    }
    m[vs[0].slug]["recovery_ps"] = None
    row = incast._homa_overcommit_claim(scn.variants(), m)[0]
    assert row["verdict"].startswith("differs") and "overcommitment 2 (by the drain time" in row["verdict"]
    assert "drained never" in row["measured"]


def test_under_pfc_there_is_no_buffer_limit_to_flag(base):
    # the same peak at the DT limit, but with PFC the switch admits by ingress and pauses instead
    base["switch"] = dict(base.get("switch", {}), pfc=True)
    scn, tables = make(base, tri_queue(465_000, 10, 10))
    m = incast.ANALYSIS.variant_metrics(scn, scn.variants()[0], tables, {"packets_dropped": 0})
    assert m["dt_limit_bytes"] is None and not m["peak_at_buffer_limit"]
    rows = incast.ANALYSIS.claims(scn, {"powertcp": dict(m, peak_queue_bytes=232_500), "hpcc": m})
    assert "capped" not in rows[1]["verdict"]
