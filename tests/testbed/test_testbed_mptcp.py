"""MPTCP on the two-path topology (docs/testbed.md, "MPTCP on two paths"): bad multipath input
(no root), the multipath part of `dccsim compare` on synthetic runs (no root), and a real run
(root): one MPTCP connection with one subflow per disjoint path, each running the eBPF DCTCP."""

import json
import os
import signal
import subprocess
import sys
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dccsim.testbed.runner import HOP_ROUNDS
from tb_helpers import ROOT, needs_testbed

ENV = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
SCENARIO = ROOT / "python" / "dccsim" / "experiments" / "testbed-mptcp-2path.toml"


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "dccsim.testbed", *args], capture_output=True, text=True, env=ENV
    )


def _variant(tmp_path, old, new):
    text = SCENARIO.read_text()
    assert old in text
    f = tmp_path / "s.toml"
    f.write_text(text.replace(old, new))
    return f


@pytest.mark.parametrize(
    "old,new,field",
    [
        ("subflows = 2", "subflows = 3", "subflows"),  # two paths: at most two subflows
        ("subflows = 2", "subflows = 0", "subflows"),
        ("src = 0\ndst = 1", "src = 2\ndst = 1", "subflows"),  # h2 is path0's cross host
        ("src = 0\ndst = 1", "src = 0\ndst = 3", "subflows"),
        ('path1_rate = "50Mbps"', "", "path1_rate"),
        ("senders = 1", "senders = 0", "senders"),
    ],
)
def test_bad_multipath_input_is_one_line_naming_the_field(tmp_path, old, new, field):
    p = _cli("run", str(_variant(tmp_path, old, new)), "--cc", "dctcp")
    assert p.returncode == 2, p.stderr
    assert p.stderr.count("\n") == 1 and field in p.stderr, p.stderr


def test_subflows_need_the_two_path_topology(tmp_path):
    star = (ROOT / "python" / "dccsim" / "experiments" / "testbed-shared-4.toml").read_text()
    f = tmp_path / "s.toml"
    f.write_text(star.replace('start = "1s"', 'start = "1s"\nsubflows = 2', 1))
    p = _cli("run", str(f), "--cc", "dctcp")
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "subflows" in p.stderr, p.stderr


def test_the_scenario_loads_by_name():
    sys.path.insert(0, str(ROOT / "python"))
    from dccsim.testbed.scenario import load

    sc = load("testbed-mptcp-2path")
    assert sc.topology_kind == "two-path" and sc.path_rates_bps == (100_000_000, 50_000_000)
    assert sc.hosts == 4 and sc.left == 1  # h0 (tor0), h1 (tor1), cross hosts h2 (path0), h3 (path1)
    assert [(f.src, f.dst, f.subflows) for f in sc.flows] == [(0, 1, 2)]


# ---- the multipath part of `dccsim compare`, on synthetic runs ----


def test_tolerances_by_hand():
    from dccsim import compare_multipath as cm

    # share: δ·s(1−s)/(1−δ·s) with δ = 0.17, s = 2/3: 0.17·(2/9)/(1 − 0.17·2/3) = 0.0377778/0.8866667
    assert cm.share_tolerance(2 / 3) == pytest.approx(0.0426065, rel=1e-6)
    # queue: K = 30280 B = 20 packets of 1514 B; C·RTT = 100 Mbps · 500 µs = 6250 B = 4.12814 packets;
    # A = ½·sqrt(2·(4.12814 + 20)) = 3.47339 packets; (A + 1)·1514 = 6772.7 B
    assert cm.queue_tolerance(30280, 100_000_000, 500_000_000) == pytest.approx(6772.7, abs=0.2)


def _run_dir(d, variant, path_bytes, queues, sub_acked, k_bytes=30280, tau_ns=500_000):
    """A result directory of one two-path run: ports tor0->path0/1 sending path_bytes[k] over 1 s
    with the given queue samples, subflow k acknowledging sub_acked[k]; a testbed-style meta.json
    records the step K and τ."""
    v = d / variant
    v.mkdir(parents=True)
    (d / "summary.json").write_text(
        json.dumps(
            {"schema": "dccsim-results/1", "experiment": "x", "order": [variant], "runs": {variant: {}}}
        )
    )
    (d / "meta.json").write_text(
        json.dumps(
            {
                "testbed": {
                    "runs": {
                        variant: {
                            "testbed_params": {
                                "ecn": {"ecn_kind": "step", "k_bytes": k_bytes},
                                "tau_ns": tau_ns,
                            }
                        }
                    }
                }
            }
        )
    )
    n = 2
    pq.write_table(
        pa.table(
            {
                "flow_id": [0, 1],
                "src": [0] * n,
                "dst": [1] * n,
                "size_bytes": [-1] * n,
                "start_ps": [0] * n,
                "end_ps": [-1] * n,
                "bytes_acked": list(sub_acked),
                "base_rtt_ps": [1] * n,
                "ideal_fct_ps": [-1] * n,
                "retransmits": [0] * n,
                "timeouts": [0] * n,
                "connection": [0, 0],
                "subflow": [0, 1],
            }
        ),
        v / "flows.parquet",
    )
    pq.write_table(
        pa.table(
            {
                "port": [0, 1, 2],
                "name": ["tor0->path0", "tor0->path1", "tor1->h1"],
                "rate_bps": [100e6, 50e6, 300e6],
            }
        ),
        v / "ports.parquet",
    )
    t, port, q, tx = [], [], [], []
    steps = len(queues[0])
    for i in range(steps):
        for k in range(2):
            t.append(i * 10**12 // (steps - 1))
            port.append(k)
            q.append(queues[k][i])
            tx.append(path_bytes[k] * i // (steps - 1))
    pq.write_table(
        pa.table(
            {
                "time_ps": t,
                "port": port,
                "port_name": [["tor0->path0", "tor0->path1"][p] for p in port],
                "queue_bytes": q,
                "tx_bytes": tx,
            }
        ),
        v / "port_series.parquet",
    )
    ft, ff, fa = [], [], []
    for i in range(steps):
        for k in range(2):
            ft.append(i * 10**12 // (steps - 1))
            ff.append(k)
            fa.append(sub_acked[k] * i // (steps - 1))
    pq.write_table(
        pa.table(
            {
                "time_ps": ft,
                "flow_id": ff,
                "cwnd_bytes": [1] * len(ft),
                "rate_bps": [0.0] * len(ft),
                "bytes_acked": fa,
            }
        ),
        v / "flow_series.parquet",
    )
    return d


def _compare_json(a, b):
    p = subprocess.run(
        [sys.executable, "-m", "dccsim.compare", str(a), str(b), "--json"],
        capture_output=True,
        text=True,
        env=ENV,
    )
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["comparisons"][0]


def test_compare_per_path_share_and_queue_holds_within_tolerance(tmp_path):
    q = [[28000] * 11, [29000] * 11]
    a = _run_dir(tmp_path / "a", "dctcp", (12_500_000, 6_250_000), q, (12_000_000, 6_000_000))
    # B: path 0 runs 5% slow (share 0.655 against 0.667, inside ±0.043), queues 4 KB lower (inside ±6.8 KB)
    qb = [[24000] * 11, [25000] * 11]
    b = _run_dir(tmp_path / "b", "dctcp", (11_875_000, 6_250_000), qb, (11_400_000, 6_000_000))
    c = _compare_json(a, b)
    mp = c["a"]["multipath"]
    assert [p["port"] for p in mp["paths"]] == ["tor0->path0", "tor0->path1"]
    assert mp["paths"][0]["share"] == pytest.approx(2 / 3)
    assert mp["paths"][0]["throughput_bps"] == pytest.approx(100e6)
    assert mp["subflow_share"] == {"0": {"0": pytest.approx(2 / 3), "1": pytest.approx(1 / 3)}}
    assert c["b"]["multipath"]["paths"][0]["share"] == pytest.approx(11_875_000 / 18_125_000)
    assert c["multipath_verdict"]["verdict"].startswith("holds: path 0 share 0.667 vs 0.655 (tol ±0.043)")


def test_compare_per_path_verdict_differs_outside_tolerance(tmp_path):
    q = [[28000] * 11, [29000] * 11]
    a = _run_dir(tmp_path / "a", "dctcp", (12_500_000, 6_250_000), q, (12_000_000, 6_000_000))
    # B: both paths carry the same bytes (share 0.5: the faster path underused)
    b = _run_dir(tmp_path / "b", "dctcp", (6_250_000, 6_250_000), q, (6_000_000, 6_000_000))
    v = _compare_json(a, b)["multipath_verdict"]
    assert v["verdict"].startswith("differs in path 0 share, path 1 share: ") and v["failed"] == [
        "path 0 share",
        "path 1 share",
    ]
    # the same shares but a queue 10 KB apart (tolerance 6.8 KB at 100 Mbps): differs
    c = _run_dir(tmp_path / "c", "dctcp", (12_500_000, 6_250_000), [[18000] * 11, [29000] * 11], (1, 1))
    v = _compare_json(a, c)["multipath_verdict"]
    assert v["verdict"].startswith("differs in path 0 queue p50: ")  # the failed check, named first
    assert v["rows"][0]["share_ok"] and not v["rows"][0]["queue_ok"] and v["rows"][1]["queue_ok"]


# ---- a real run ----

# Each path is DCTCP's alone (one subflow), so a working subflow fills its path up to the testbed's
# shortfalls: a CPU-limited run below line rate (docs/testbed.md: up to 17%) and the MPTCP
# scheduler leaving the faster path idle part of the time (measured on this topology: path 0 at
# 76-90% of its rate under load). Half the path's rate is below both together (1 − 0.17 − 0.24 =
# 0.59) and far above what a subflow that never joined, or carries nothing, gives (0).
MIN_PATH_FRACTION = 0.5
WARMUP_PS = 500 * 10**9


@needs_testbed
def test_mptcp_connection_uses_both_paths_with_dctcp_on_each(tmp_path, clean_testbed):
    out = tmp_path / "out"
    p = _cli(
        "run",
        "testbed-mptcp-2path",
        "--cc",
        "dctcp",
        "--out",
        str(out),
        "--duration",
        "2.5s",
        "--json",
        "--compare",
    )
    assert p.returncode == 0, p.stderr
    # the simulator's uncoupled multipath on the same file beside it, path by path, with a verdict
    cmp = json.loads(p.stdout.splitlines()[1])["comparisons"][0]
    # "holds: …" or "differs in path 0 share, …: …" (the failed checks named; compare_multipath)
    assert cmp["multipath_verdict"]["verdict"].startswith(("holds", "differs"))
    rows = cmp["multipath_verdict"]["rows"]
    assert [(r["port_a"], r["port_b"]) for r in rows] == [
        ("tor0->path0", "tor0->path0"),
        ("tor0->path1", "tor0->path1"),
    ]
    assert all("queue_ok" in r for r in rows)  # DCTCP's step K on both sides: the queue is judged too
    sim = cmp["a"]["multipath"]["paths"]
    # the simulator fills both paths: shares C_k / ΣC = 2/3 and 1/3 (rounded to 0.01)
    assert [round(x["share"], 2) for x in sim] == [0.67, 0.33]
    run = json.loads((out / "summary.json").read_text())["runs"]["dctcp"]["engine"]
    meta = json.loads((out / "meta.json").read_text())["testbed"]["runs"]["dctcp"]
    # both subflows ran the eBPF DCTCP (ss -tin in the sender's namespace, checked by the run)
    assert meta["testbed_params"]["subflow_cc"] == {"0": ["dccsim_dctcp", "dccsim_dctcp"]}
    # the per-hop measurement reached every node of both paths (hops.py, over the routes to the
    # trunk addresses); more than half the rounds answered (an idle link loses none, a starved CPU
    # may let one pass the 50 ms timeout), none where a route is missing
    hops = meta["testbed_params"]["hops"]
    assert [(h["family"], h["links"][1]) for h in hops] == [(0, "tor0->path0"), (1, "tor0->path1")]
    assert all(n > HOP_ROUNDS // 2 for h in hops for n in h["answers"]), hops
    # the simulator's flows' path has the testbed's τ, and its laws use it
    cal = json.loads((tmp_path / "out-sim" / "matched.json").read_text())["calibration"]
    assert cal["matched"] and cal["testbed_tau_ps"] == meta["testbed_params"]["tau_ns"] * 1000
    assert [r["link"] for r in cal["links"]][:4] == hops[0]["links"]
    flows = pq.read_table(out / "dctcp" / "flows.parquet").to_pylist()
    assert [(f["flow_id"], f["connection"], f["subflow"]) for f in flows] == [(0, 0, 0), (1, 0, 1)]
    # every subflow carried data; together at least the connection's data (reinjections add)
    assert all(f["bytes_acked"] > 1_000_000 for f in flows), flows
    assert sum(f["bytes_acked"] for f in flows) >= run["bytes_delivered"] > 0
    assert {f["delivered_bytes"] for f in flows} == {run["bytes_delivered"]}  # the connection's, on each
    # each path's bottleneck (tor0->path<k>) transmitted at least MIN_PATH_FRACTION of its rate
    ports = {r["name"]: r["rate_bps"] for r in pq.read_table(out / "dctcp" / "ports.parquet").to_pylist()}
    ps = pq.read_table(out / "dctcp" / "port_series.parquet").to_pylist()
    for k in (0, 1):
        name = f"tor0->path{k}"
        s = [
            (r["time_ps"], r["tx_bytes"]) for r in ps if r["port_name"] == name and r["time_ps"] >= WARMUP_PS
        ]
        rate = (s[-1][1] - s[0][1]) * 8 / ((s[-1][0] - s[0][0]) / 1e12)
        assert rate >= MIN_PATH_FRACTION * ports[name], (name, rate, ports[name])
    # DCTCP's marks on both paths: ECN was negotiated on each subflow and the step marker acted
    counters = meta["bpf_port_counters"]
    assert counters["tor0->path0"]["marked"] > 0 and counters["tor0->path1"]["marked"] > 0


@needs_testbed
def test_cleanup_removes_a_killed_two_path_run(tmp_path, clean_testbed):
    from dccsim.testbed import topology

    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dccsim.testbed",
            "run",
            "testbed-mptcp-2path",
            "--cc",
            "dctcp",
            "--out",
            str(tmp_path / "o"),
            "-q",
        ],
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.time() + 30
        while "dccsim-path1" not in topology.leftover_namespaces() and time.time() < deadline:
            time.sleep(0.05)
        assert "dccsim-path1" in topology.leftover_namespaces()
        time.sleep(0.5)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    p = _cli("cleanup")
    assert p.returncode == 0 and "netns dccsim-tor0" in p.stdout and "netns dccsim-path1" in p.stdout
    assert topology.leftover_namespaces() == []


def test_two_path_routes_keep_each_address_family_on_its_path():
    from dccsim.testbed.topology import TwoPath, _next_hop, path_of_addr

    t = TwoPath(senders=2, receivers=1, host_rate_bps=1, path_rates_bps=(2, 1))
    assert [t.host_switch(i) for i in range(t.hosts)] == ["tor0", "tor0", "tor1", "path0", "path1"]
    # tor0 reaches the receiver's path-0 address over path0 and its path-1 address over path1
    assert _next_hop(t, "tor0", 2, 0) == "path0" and _next_hop(t, "tor0", 2, 1) == "path1"
    assert _next_hop(t, "tor1", 0, 1) == "path1" and _next_hop(t, "tor1", 1, 0) == "path0"
    assert _next_hop(t, "tor0", 1, 0) is None  # its own host
    assert _next_hop(t, "tor1", 3, 0) == "path0" and _next_hop(t, "tor0", 4, 0) == "path1"  # cross hosts
    assert _next_hop(t, "path1", 0, 1) == "tor0" and _next_hop(t, "path1", 2, 1) == "tor1"
    assert (
        path_of_addr("10.78.0.2") == 0
        and path_of_addr("10.77.0.2") == 1
        and path_of_addr("10.79.0.1") is None
    )


def test_ss_output_gives_each_subflow_its_congestion_control():
    from dccsim.testbed.traffic import congestion_by_local_endpoint

    out = (
        "ESTAB 0      103856      10.78.0.2:50914    10.78.1.2:5001\n"
        "\t dccsim_dctcp wscale:10,10 rto:204 rtt:1.098/0.117 mss:1448 tcp-ulp-mptcp flags:Mmec\n"
        "ESTAB 0      52616  10.77.0.2%eth0:53865    10.78.1.2:5001\n"
        "\t cubic wscale:10,10 rto:204 rtt:2.331/0.247 tcp-ulp-mptcp flags:Jjec\n"
    )
    assert congestion_by_local_endpoint(out) == {
        ("10.78.0.2", 50914): "dccsim_dctcp",
        ("10.77.0.2", 53865): "cubic",
    }


@needs_testbed
def test_a_sized_mptcp_connection_completes_over_both_subflows(tmp_path, clean_testbed):
    """4 MB over the two paths: the connection completes (data-level acknowledgement of every byte),
    every subflow's record carries the connection's size, end and delivered bytes, and the
    subflows together acknowledged at least the connection's bytes (exactly them without
    reinjection); each subflow carried at least 10% (path 1 is a third of the capacity)."""
    size = 4_000_000
    f = _variant(tmp_path, "subflows = 2", f'subflows = 2\nsize = "{size}B"')
    out = tmp_path / "out"
    p = _cli("run", str(f), "--cc", "dctcp", "--out", str(out), "--duration", "3s", "-q")
    assert p.returncode == 0, p.stderr
    run = json.loads((out / "summary.json").read_text())["runs"]["dctcp"]["engine"]
    assert run["flows_completed"] == 1 and run["bytes_delivered"] == size
    flows = pq.read_table(out / "dctcp" / "flows.parquet").to_pylist()
    assert [f["subflow"] for f in flows] == [0, 1]
    assert len({f["end_ps"] for f in flows}) == 1 and flows[0]["end_ps"] > 0
    assert all(f["size_bytes"] == size and f["delivered_bytes"] == size for f in flows)
    assert sum(f["bytes_acked"] for f in flows) >= size
    assert all(f["bytes_acked"] >= 0.1 * size for f in flows), flows
