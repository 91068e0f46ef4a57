"""The artifact cross-check driver's exporters and parsers (tools/artifact_crosscheck/crosscheck.py).

The artifact itself does not run here; the expected formats are those of its source
(inet-tub/ns3-datacenter, examples/PowerTCP/powertcp-evaluation-burst.cc and topology-256.txt).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cli_helpers import ROOT, load_script


@pytest.fixture(scope="module")
def cc():
    return load_script("tools/artifact_crosscheck/crosscheck.py", "artifact_crosscheck")


POWERTCP_FATTREE = {
    "kind": "fattree",
    "pods": 4,
    "tors_per_pod": 2,
    "aggs_per_pod": 2,
    "cores": 4,
    "servers_per_tor": 32,
    "host_rate": "25Gbps",
    "host_delay": "1us",
    "tor_agg_rate": "100Gbps",
    "tor_agg_delay": "1us",
    "agg_core_rate": "100Gbps",
    "agg_core_delay": "5us",
}


def test_powertcp_fattree_exports_as_the_artifacts_topology_256(cc):
    lines = cc.topology_text(POWERTCP_FATTREE).splitlines()
    # topology-256.txt's header: 276 nodes, 20 switches, 8 ToRs, 288 links; switches 256..275
    assert lines[0] == "276 20 8 288"
    assert lines[1].split() == [str(i) for i in range(256, 276)]
    links = [tuple(x.split()) for x in lines[2:]]
    assert len(links) == 288
    assert links[0] == ("0", "256", "25000000000bps", "1000ns", "0")
    assert links[255] == ("255", "263", "25000000000bps", "1000ns", "0")
    pairs = {(int(a), int(b)): (r, d) for a, b, r, d, _ in links}
    # the artifact's switch links (topology-256.txt): ToR 256 to aggs 264, 265; ToR 263 to 270, 271;
    # agg 264 to cores 272, 273; agg 265 to 274, 275; agg 271 to 274, 275
    for a, b in ((256, 264), (256, 265), (263, 270), (263, 271)):
        assert pairs[(a, b)] == ("100000000000bps", "1000ns")
    for a, b in ((264, 272), (264, 273), (265, 274), (265, 275), (271, 274), (271, 275)):
        assert pairs[(a, b)] == ("100000000000bps", "5000ns")
    assert (264, 274) not in pairs


def test_other_topologies_and_sub_ns_delays_are_refused(cc):
    with pytest.raises(cc.CrossCheckError, match="topology.kind"):
        cc.topology_text({"kind": "dumbbell"})
    with pytest.raises(cc.CrossCheckError, match="whole ns"):
        cc.topology_text({**POWERTCP_FATTREE, "host_delay": "1500ps"})


FLOWS = {
    "flow_id": np.array([0, 1, 2, 3, 4]),
    "src": np.array([0, 1, 0, 2, 0]),
    "dst": np.array([16, 16, 16, 16, 16]),
    "size_bytes": np.array([-1, 2800, 2800, 50_000, 1000]),
    "start_ps": np.array([0, 500_000_000, 500_000_000, 100, 7]),
}


def test_flow_file_is_sorted_by_start_with_ties_in_flow_order(cc):
    lines = cc.flows_text(FLOWS, offset_ps=10**9).splitlines()
    assert lines[0] == "5"
    rows = [x.split() for x in lines[1:]]
    # order: flow 0 (t 0), 4 (7 ps), 3 (100 ps), 1 and 2 (0.5 ms, in id order)
    assert [(r[0], r[4]) for r in rows] == [
        ("0", "1000000000000"),
        ("0", "1000"),
        ("2", "50000"),
        ("1", "2800"),
        ("0", "2800"),
    ]
    assert all(r[2] == "3" for r in rows)  # priority group 3, as the study's flow files
    assert float(rows[0][5]) == pytest.approx(0.001)  # offset 1 ms
    assert float(rows[3][5]) == pytest.approx(0.0015)
    with pytest.raises(cc.CrossCheckError, match="src == dst"):
        cc.flows_text({**FLOWS, "dst": np.array([0, 16, 16, 16, 16])})


def test_source_ports_count_per_pair_in_file_order(cc):
    ports = cc.source_ports(FLOWS)
    # pair 0->16 starts flows 0, 4, 2 in that file order
    assert ports[(0, 16, 10000)] == 0
    assert ports[(0, 16, 10001)] == 4
    assert ports[(0, 16, 10002)] == 2
    assert ports[(1, 16, 10000)] == 1
    assert ports[(2, 16, 10000)] == 3
    assert len(ports) == 5


def ip(node: int) -> str:
    # powertcp-evaluation-burst.cc node_id_to_ip: 0x0b000001 + (id / 256) * 0x10000 + (id % 256) * 0x100
    return f"{0x0B000001 + (node // 256) * 0x10000 + (node % 256) * 0x100:08x}"


def test_fct_lines_map_back_to_flows_with_the_offset_removed(cc):
    ports = cc.source_ports(FLOWS, 10**9)
    text = (
        f"{ip(0)} {ip(16)} 10002 100 2800 1500000 9000 4000\n"  # flow 2: start 1.5 ms - 1 ms offset
        f"{ip(2)} {ip(16)} 10000 100 50000 1000000 20000 17000\n"
    )
    got = cc.parse_fct(text, ports, 10**9)
    assert got["flow_id"].tolist() == [2, 3]
    assert got["start_ps"].tolist() == [500_000_000, 0]
    assert got["end_ps"].tolist() == [509_000_000, 20_000_000]
    assert got["ideal_fct_artifact_ps"].tolist() == [4_000_000, 17_000_000]
    full = cc.with_unfinished(got, FLOWS)
    assert full["end_ps"].tolist() == [-1, -1, 509_000_000, 20_000_000, -1]
    assert cc.node_of_ip(ip(300)) == 300
    with pytest.raises(cc.CrossCheckError, match="source port 10009"):
        cc.parse_fct(f"{ip(0)} {ip(16)} 10009 100 1 0 1 1\n", ports)
    with pytest.raises(cc.CrossCheckError, match="line 1: expected 8 fields"):
        cc.parse_fct("0b000001 0b001001 10000\n", ports)


def test_port_series_and_pfc_parsers(cc):
    out = "\n".join(
        [
            "ToR 0 Port 16 throughput 2.5e+10 txBytes 1000 qlen 5000 time 0.01 normpower 1",
            "ToR 0 Port 15 throughput 0 txBytes 7 qlen 9 time 0.01 normpower 0",
            "ToR 0 Total 0 throughput 2.5e+10 buffer 5009 time 0.01",
            "ToR 0 Port 16 throughput 2.5e+10 txBytes 3000 qlen 4000 time 0.01000696 normpower 1",
        ]
    )
    s = cc.parse_port_series(out, 0, 16, offset_ps=10**10)
    assert s["time_ps"].tolist() == [0, 6_960_000]
    assert s["queue_bytes"].tolist() == [5000, 4000]
    assert s["tx_bytes"].tolist() == [1000, 4000]  # per-interval counts, accumulated
    ev = cc.parse_pfc("1000 256 1 17 2\n2000 16 0 1 1\n3000 256 1 17 3\n4000 264 1 3 2\n")
    assert ev[0] == (1_000_000, 256, 17, "pause_tx")
    assert cc.pause_counts(ev, hosts=256) == {"pauses_sent": 2, "by_switches": 2, "by_hosts": 0, "ports": 2}
    with pytest.raises(cc.CrossCheckError, match="pfc.txt line 1"):
        cc.parse_pfc("1 2 3 4 9\n")


def test_a_running_artifacts_unfinished_last_line_is_left_out(cc):
    # fct.txt and pfc.txt are written line by line while the artifact runs: a file read (or left
    # by a killed run) mid-write ends in a line without its newline, which is not a record yet
    ports = cc.source_ports(FLOWS, 0)
    done = f"{ip(2)} {ip(16)} 10000 100 50000 1000000 20000 17000\n"
    got = cc.parse_fct(done + f"{ip(0)} {ip(16)} 10002 100 2800 15", ports)
    assert got["flow_id"].tolist() == [3]
    assert cc.parse_fct(done, ports)["flow_id"].tolist() == [3]
    ev = cc.parse_pfc("1000 256 1 17 2\n23692", 0)
    assert ev == [(1_000_000, 256, 17, "pause_tx")]
    with pytest.raises(cc.CrossCheckError, match="pfc.txt line 1"):
        cc.parse_pfc("23692\n1000 256 1 17 2\n")  # a short line with its newline is an error


def test_resample_takes_the_last_sample_at_or_before_each_instant(cc):
    t = np.array([0, 10, 20, 30])
    q = np.array([1, 2, 3, 4])
    assert cc.resample(t, q, np.array([5, 10, 29, 100])).tolist() == [1, 2, 3, 4]


def test_fct_rows_use_dccsim_buckets_and_percentiles(cc):
    # 30 flows of 3 KB with slowdowns 1..30 on our side, 2..60 on theirs: medians (element 15) 16 vs 32
    n = 30
    base = {
        "size_bytes": np.full(n, 3000),
        "start_ps": np.zeros(n, dtype=np.int64),
        "ideal_fct_artifact_ps": np.full(n, 1000),
    }
    ours = {**base, "end_ps": np.arange(1, n + 1) * 1000}
    theirs = {**base, "end_ps": np.arange(1, n + 1) * 2000}
    rows = cc.fct_rows(ours, theirs, 0)
    b = next(r for r in rows if r["bucket"] == "(0, 5000]")
    assert b["ours"]["p50"]["value"] == 16 and b["theirs"]["p50"]["value"] == 32
    table = cc.fct_table(rows)
    # p50 has 14 samples above it (meaningful), p99 none (marked *)
    assert "| (0, 5000] | 30 | 30 | 16.00 | 32.00 | 0.50 | 30.00* | 60.00* | 0.50 |" in table


def test_started_before_keeps_the_flows_that_started_before_the_cut(cc):
    flows = {
        "flow_id": np.arange(4),
        "start_ps": np.array([0, 5, 10, 15]),
        "end_ps": np.array([1, -1, 12, -1]),
    }
    got = cc.started_before(flows, 10)
    assert got["flow_id"].tolist() == [0, 1] and got["end_ps"].tolist() == [1, -1]


def test_the_incast_request_scenario_adds_2mb_requests_to_websearch_0_8():
    from dccsim import scenario

    s = scenario.load(ROOT / "tools" / "artifact_crosscheck" / "websearch-0.8-incast.toml")
    w = s.workload
    assert w.load == 0.8 and w.incast.size_bytes == 2_000_000 and w.incast.rate == 4 and w.incast.fan_in == 10
    assert {v.cc.algorithm for v in s.variants()} == {"hpcc", "powertcp", "dcqcn", "dctcp-rdma"}


def test_paired_bootstrap_of_ratios(cc):
    """Theirs = ours × 2 flow by flow: every replicate's ratio is exactly 0.5 (paired resampling); an
    unpaired difference (theirs shuffled) gives an interval around 1 that is not a point."""
    n = 400
    rng = np.random.default_rng(1)
    slow = 1 + rng.exponential(1.0, n)
    base = {
        "size_bytes": np.where(np.arange(n) % 2 == 0, 3000, 2_000_000),
        "start_ps": np.zeros(n, dtype=np.int64),
        "ideal_fct_artifact_ps": np.full(n, 1_000_000),
    }
    ours = {**base, "end_ps": (slow * 1e6).astype(np.int64)}
    theirs = {**base, "end_ps": (slow * 2e6).astype(np.int64)}
    rows = {r["group"]: r for r in cc.paired_bootstrap(ours, theirs, 0, reps=200)}
    assert set(rows) == {"short", "long", "all"} and rows["short"]["n"] == n // 2
    for r in rows.values():
        for k in ("p50", "p99"):
            assert r[k] == pytest.approx((0.5, 0.5, 0.5), rel=1e-5)
    other = {**base, "end_ps": theirs["end_ps"][rng.permutation(n)] // 2}
    lo, hi = cc.paired_bootstrap(ours, other, 0, reps=200)[-1]["p50"][1:]
    assert lo < 1 < hi and hi - lo > 0.01
    assert "| all | 400 | 0.50 [0.50, 0.50] | 0.50 [0.50, 0.50] |" in cc.bootstrap_table(rows.values())
    theirs["size_bytes"] = theirs["size_bytes"].copy()
    theirs["end_ps"] = theirs["end_ps"].copy()
    theirs["end_ps"][0] = -1  # a flow unfinished on one side only: no pairing
    with pytest.raises(cc.CrossCheckError):
        cc.paired_bootstrap(ours, theirs, 0)


def test_export_writes_inputs_and_the_studys_cc_modes(cc, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    run = tmp_path / "run"
    run.mkdir()
    (run / "scenario.toml").write_text(
        'duration = "3ms"\n[topology]\n'
        + "".join(f"{k} = {v!r}\n" for k, v in POWERTCP_FATTREE.items()).replace("'", '"')
    )
    pq.write_table(pa.table({k: v for k, v in FLOWS.items()}), run / "flows_input.parquet")
    args = cc.export(run, tmp_path / "a", "theta-powertcp", 10**9, None)
    assert args == {"algorithm": 3, "wien": True, "delayWien": True, "windowCheck": 1}
    conf = dict(x.split(" ", 1) for x in (tmp_path / "a" / "config.txt").read_text().splitlines())
    assert conf["SIMULATOR_STOP_TIME"] == "0.004000000"
    assert conf["BUFFER_SIZE"] == "4" and conf["KMIN_MAP"].startswith("3 25000000000 100")
    assert Path(conf["FLOW_FILE"]).read_text().startswith("5\n0 16 3 ")
    assert cc.export(run, tmp_path / "b", "dcqcn", 0, 10**9)["windowCheck"] == 0
    with pytest.raises(cc.CrossCheckError, match="--algorithm"):
        cc.export(run, tmp_path / "c", "cubic", 0, None)
    with pytest.raises(cc.CrossCheckError, match="no scenario.toml"):
        cc.read_run(tmp_path / "a")


@pytest.mark.parametrize("name", ["incast-255.toml", "websearch-0.6.toml"])
def test_the_crosscheck_scenarios_load_with_the_artifacts_options(name):
    from dccsim import scenario

    s = scenario.load(ROOT / "tools" / "artifact_crosscheck" / name)
    assert s.host.nic == "rdma-study"
    configs = {v.name: s.to_engine_config(v) for v in s.variants()}
    cc_of = {name: cfg["cc"] for name, cfg in configs.items()}
    assert cc_of["θ-PowerTCP (rdma-hw)"]["params"]["law"] == "rdma-hw"
    assert cc_of["TIMELY (artifact)"]["params"]["increase"] == "artifact"
    f542 = cc_of["PowerTCP (rdma-hw f542a97)"]["params"]
    assert f542["first_int_against_zero"] is True and f542["current_floor"] == 0.5
    assert all(cfg["host"]["nic"] == "rdma-study" for cfg in configs.values())
