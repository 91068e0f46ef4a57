"""The Poseidon experiments (S-fig14/15/17/18) and the 255:1 incast (P-fig4b)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dccsim.analysis import poseidon
from dccsim.experiments import get, list_experiments, text
from dccsim.scenario import loads

NEW = (
    "poseidon-multihop",
    "poseidon-reverse-path",
    "poseidon-convergence",
    "poseidon-stability",
    "poseidon-rtt",
    "powertcp-incast-255",
)


def test_experiments_listed_and_round_trip():
    from dccsim.scenario import dump_toml

    for name in NEW:
        assert name in list_experiments()
        s = get(name)
        assert loads(dump_toml(s)) == s, name


def test_paper_config_200g_845ns_4096b():
    for name in NEW[:5]:
        s = get(name)
        h = s.host
        assert h.payload_bytes + h.header_bytes + h.int_header_bytes == 4096, name
        assert s.switch.buffer_bytes == 64_000_000, name
        assert [v.cc.algorithm for v in s.variants()] == ["poseidon", "swift", "hpcc"], name


def test_incast_255_has_255_responses_of_2800_bytes():
    s = get("powertcp-incast-255")
    short = [f for f in s.engine_flows() if f.get("size_bytes") == 2800]
    assert len(short) == 255 and {f["dst"] for f in short} == {16}
    assert 16 not in {f["src"] for f in short}


def _tables(victim_gbps, others, t_end_ps=4 * 10**9):
    """Hand-built tables: flow 0 = victim h0->h1; `others` = [(dst, start_ps, gbps)]."""
    flows = [(0, 0, 1, 0, victim_gbps)] + [(i + 1, 10 + i, d, s, g) for i, (d, s, g) in enumerate(others)]
    t = np.arange(0, t_end_ps + 1, 10**7)
    rows = []
    for fid, src, dst, start, g in flows:
        acked = np.where(t >= start, (t - start) / 1e12 * g * 1e9 / 8, 0)
        rows += [{"time_ps": int(a), "flow_id": fid, "bytes_acked": int(b)} for a, b in zip(t, acked)]
    fl = pd.DataFrame(
        [
            {"flow_id": f, "src": s, "dst": d, "start_ps": st, "base_rtt_ps": 4 * 10**6}
            for f, s, d, st, _ in flows
        ]
    )
    ps = pd.DataFrame({"time_ps": t, "port": 0, "port_name": "s1->h10", "queue_bytes": 0, "tx_bytes": 0})
    ports = pd.DataFrame({"port": [0], "name": ["s1->h10"], "rate_bps": [200_000_000_000]})
    return {"flows": fl, "flow_series": pd.DataFrame(rows), "port_series": ps, "ports": ports}


def test_multihop_stages_shares_and_verdicts():
    scn = get("poseidon-multihop")
    line = 200e9 * 4006 / 4096
    # stage 1 (0–2 ms): victim + 2 flows to its destination (N = 2); stage 2: + 2 flows elsewhere (M = 2)
    others = [(1, 0, line / 3 / 1e9), (1, 0, line / 3 / 1e9), (9, 2 * 10**9, 1.0), (9, 2 * 10**9, 1.0)]
    v = scn.variants()[0]
    m = poseidon.ANALYSIS.variant_metrics(scn, v, _tables(line / 3 / 1e9, others), {})
    st = m["stages"]
    assert [(s["M"], s["N"]) for s in st] == [(0, 2), (2, 2)]
    assert st[0]["share_bps"] == round(line / 3)
    assert abs(st[1]["victim_bps"] / st[1]["share_bps"] - 1) < 1e-3
    rows = poseidon.ANALYSIS.claims(scn, {v.slug: m})
    assert rows[0]["verdict"].startswith("holds")
    # the same numbers for Swift: the victim is not starved -> differs
    sw = scn.variants()[1]
    assert poseidon.ANALYSIS.claims(scn, {sw.slug: m})[0]["verdict"].startswith("differs")


@pytest.mark.engine
def test_poseidon_multihop_and_reverse_path_hold(tmp_path):
    from dccsim import runner

    for name in ("poseidon-multihop", "poseidon-reverse-path"):
        scn = loads(text(name), default_name=name)
        s = runner.run(scn, tmp_path / name, progress=False, argv=["test"])
        verdicts = {c["variant"]: c["verdict"] for c in s["claims"]}
        assert verdicts["Poseidon"].startswith("holds"), verdicts
        assert verdicts["Swift"].startswith("holds"), verdicts
        assert (tmp_path / name / "poseidon.png").exists()
